"""Claude Code's session layout (agents/claude_sessions.py) against the real client: where
`claude -p` records a session is where contend's spec finder and fork look for it."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from contend.agents.claude_sessions import (
    MAX_NAME,
    claude_home,
    encode,
    newest_session,
    project_dir,
    project_dir_name,
    sessions,
)
from contend.review.spec import load_spec
from contend.review.target import resolve_target
from fakes.cli_env import agent_bin, make_repo
from fakes.model_server import ANTHROPIC, FakeModelServer, Text, Turn


def test_encoding_by_utf16_code_unit() -> None:
    assert encode("/home/me/my_repo.v2") == "-home-me-my-repo-v2"
    # é is one UTF-16 code unit, 🙂 is two: claude writes one '-' and two.
    assert encode("/a/é🙂b") == "-a----b"


def test_a_long_name_is_cut_and_hashed_as_claude_hashes_it() -> None:
    path = "/tmp/probe-po6hr3zy/very_long.dir-é" + "x" * 230 + "/repo.v2"
    name = encode(path)
    # The hash claude 2.1.197 itself gave this path (read off the directory it made).
    assert name == encode(path)[:MAX_NAME] + "-evvktt"
    assert len(name) == MAX_NAME + len("-evvktt")


@pytest.fixture
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as fake:
        yield fake


def _session_in(cwd: Path, pwd: str, server: FakeModelServer, text: str) -> str:
    """Run the real claude in `cwd` (with $PWD as given) and return its session id."""
    server.script(ANTHROPIC, Turn([Text("Done.")]))
    env = {
        **os.environ,
        "PWD": pwd,
        "ANTHROPIC_BASE_URL": server.base_url,
        "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }
    env.pop("CLAUDE_CONFIG_DIR", None)
    done = subprocess.run(
        [agent_bin("claude"), "-p", "--output-format", "json", "--tools", "Read"],
        input=text,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return str(json.loads(done.stdout)["session_id"])


@pytest.mark.slow
def test_the_real_client_records_where_contend_looks(
    server: FakeModelServer, tmp_path: Path
) -> None:
    # A path over claude's 200-character cap, with characters it replaces, reached through
    # a symlink whose path $PWD names: claude keys the project by the real path.
    deep = tmp_path / ("work_tree.é🙂" + "x" * 220)
    repo = make_repo(deep / "repo")
    link = tmp_path / "link"
    link.symlink_to(repo)
    first = _session_in(link, str(link), server, "Make the parser strict.")
    transcript = project_dir(repo) / f"{first}.jsonl"
    assert transcript.is_file(), sorted(p.name for p in (claude_home() / "projects").iterdir())
    assert len(project_dir_name(repo)) > MAX_NAME
    assert project_dir(link) == project_dir(repo)
    second = _session_in(repo, str(repo), server, "Now add tests.")
    later = transcript.stat().st_mtime + 5
    os.utime(project_dir(repo) / f"{second}.jsonl", (later, later))

    assert [p.stem for p in sessions(link)] == [second, first]
    assert newest_session(repo) == second
    # The review's spec finder reads the same directory: the newest session's first turn
    # (the working tree against HEAD has no commit message to take first).
    target = resolve_target(link, base="HEAD")
    spec = load_spec(target, spec_arg=None, transcript=None, stdin=None)
    assert (spec.source, spec.text) == ("transcript", "Now add tests.")
