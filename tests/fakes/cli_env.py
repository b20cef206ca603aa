"""Helpers for tests that run the real agent CLIs: finding the binaries, a small git
repository with a pending change, and fingerprints (tree hash, sha256) to prove nothing
was modified.

Binaries come from <repo>/.agents-node/node_modules/.bin (installed by
.ci/install-agents.sh) or from AGENT_TEST_<NAME>_BIN; when neither exists the test is
skipped with the reason. (Not CONTEND_*: the config loader rejects unknown CONTEND_ names.)
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
NODE_BIN = REPO_ROOT / ".agents-node" / "node_modules" / ".bin"

APP_BEFORE = "def total(items):\n    return sum(i.price for i in items)\n"
APP_AFTER = (
    "def total(items):\n"
    "    try:\n"
    "        return sum(i.price for i in items)\n"
    "    except Exception:\n"
    "        return 0\n"
)


def agent_bin(name: str) -> str:
    """Path of the real `name` CLI, or skip the test saying how to install it."""
    override = os.environ.get(f"AGENT_TEST_{name.upper()}_BIN")
    candidate = Path(override) if override else NODE_BIN / name
    if not candidate.is_file():
        pytest.skip(
            f"real {name} CLI not installed at {candidate}: run .ci/install-agents.sh "
            f"(needs npm) or set AGENT_TEST_{name.upper()}_BIN"
        )
    return str(candidate)


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    return done.stdout.strip()


def make_repo(path: Path) -> Path:
    """A git repository with app.py committed and an uncommitted change to it."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    (path / "app.py").write_text(APP_BEFORE)
    git(path, "add", "app.py")
    git(path, "commit", "-q", "-m", "base")
    (path / "app.py").write_text(APP_AFTER)
    return path


def diff_of(repo: Path) -> str:
    return git(repo, "diff")


def tree_hash(repo: Path, scratch: Path) -> str:
    """Hash of every file of the work tree (tracked or not), through a scratch index so
    the repository's own index is left alone."""
    env = {"GIT_INDEX_FILE": str(scratch / "fingerprint.index")}
    git(repo, "add", "-A", env=env)
    return git(repo, "write-tree", env=env)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# The user's own client settings would point the real CLIs at a real model or config dir.
CLIENT_ENV_LEAKS = (
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CONFIG_DIR",
    "ANTHROPIC_MODEL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "CODEX_API_KEY",
)


def isolate_client_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Clear the variables that would steer the real claude/codex clients away from the
    fake servers, and give codex its own empty home; returns that home."""
    for name in CLIENT_ENV_LEAKS:
        monkeypatch.delenv(name, raising=False)
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    return codex_home
