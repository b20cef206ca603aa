""".pre-commit-hooks.yaml with the real `pre-commit` tool: the manifest validated by
pre-commit itself, and the hook run by a real `git commit` in a throwaway repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from review_helpers import git

# These tests are about the pre-commit hook, not about which static findings may block: the change
# they plant as the one that fails (a broad `except Exception: return 0`) is a `swallowing-handler`,
# which the default earned policy lists as minor. They let static findings block at each rule's own
# severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
BEFORE = "def f(x):\n    return int(x)\n"
FALLBACK = "def f(x):\n    try:\n        return int(x)\n    except Exception:\n        return 0\n"
CLEAN = BEFORE + "\n\ndef g(x):\n    return f(x) + 1\n"


def pre_commit() -> str:
    found = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip("issue 15: pre-commit is not installed (dev extra)")
    return found


def test_pre_commit_validates_the_manifest() -> None:
    done = subprocess.run(
        [pre_commit(), "validate-manifest", str(MANIFEST)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_a_real_commit_runs_the_hook(tmp_path: Path) -> None:
    tool = pre_commit()
    [hook] = yaml.safe_load(MANIFEST.read_text())
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.py").write_text(BEFORE)
    # The manifest's hook as a local one: `language: python` would pip-install contend
    # from its repository; here contend is already installed, so the same entry runs as
    # a system command — everything else (stages, serial, no filenames) is the manifest's.
    local = {**hook, "language": "system"}
    local.pop("minimum_pre_commit_version")
    config = {"repos": [{"repo": "local", "hooks": [local]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"],
    }
    # contend reviews a change against a commit: the repository's first commit comes first
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    installed = subprocess.run([tool, "install"], cwd=repo, env=env, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    assert (repo / ".git" / "hooks" / "pre-commit").is_file()

    def commit(text: str) -> subprocess.CompletedProcess[str]:
        (repo / "a.py").write_text(text)
        git(repo, "add", "a.py")
        return subprocess.run(
            ["git", "commit", "-m", "change"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    blocked = commit(FALLBACK)
    assert blocked.returncode != 0
    shown = blocked.stdout + blocked.stderr  # git hands the hook's output to stderr
    assert "contend (staged change, static critics)" in shown
    assert "Failed" in shown and "silent-fallback" in shown and "exit code: 1" in shown
    assert git(repo, "log", "--format=%s") == "base"  # nothing was committed
    # only the staged change is reviewed: an unstaged fallback elsewhere does not count
    (repo / "b.py").write_text(FALLBACK)
    passed = commit(CLEAN)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert git(repo, "log", "--format=%s").splitlines() == ["change", "base"]
    assert (repo / "b.py").read_text() == FALLBACK  # pre-commit's stash restored it
