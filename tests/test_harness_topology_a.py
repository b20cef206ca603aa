"""Topology A with a CLI implementer: the implementer reviews its own diff in its own
session. With the real `claude` CLI against the fake model server, A's critic request
carries the implementer's conversation (a read-only fork of its session) and B's does not;
the implementer's transcript is gone once the slice is done."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from contend.agents.base import AgentRequest
from contend.config import load_settings
from contend.harness.cast import cast_for
from contend.harness.config import HarnessConfig
from contend.harness.implementers import ClaudeCodeImplementer, ClaudeCodeSelfReviewer
from contend.harness.slice import SliceRequest, run_slice
from fakes.cli_env import agent_bin
from fakes.model_server import ANTHROPIC, FakeModelServer, Text, ToolUse, Turn
from harness_helpers import main_repo, spec_file

STATS = "def average(items):\n    return sum(items) / len(items)\n"
MARKER = "IMPLEMENTER-OWN-WORDS-7730"
CLEAN = {"topic": "edge cases", "no_defect_found": True, "objections": [], "judgements": []}


def test_topology_a_casts_a_session_keeping_implementer_and_its_self_reviewer(
    tmp_path: Path,
) -> None:
    repo = main_repo(tmp_path)
    settings = load_settings(repo)
    spec = spec_file(tmp_path)
    a = cast_for(
        SliceRequest(repo, spec, "claude", config=HarnessConfig(topology="A")),
        repo,
        settings,
        (),
    )
    assert isinstance(a.implementer, ClaudeCodeImplementer) and a.implementer.keep_session
    assert "--no-session-persistence" not in a.implementer.argv(_request(repo), None)
    reviewer = a.critics["claude"]
    assert isinstance(reviewer, ClaudeCodeSelfReviewer)
    argv = reviewer.argv(_request(repo), "sess-1")
    assert argv[argv.index("--resume") + 1] == "sess-1" and "--fork-session" in argv
    assert argv[argv.index("--tools") + 1] == "Read,Grep,Glob"  # read-only, as every critic
    b = cast_for(
        SliceRequest(repo, spec, "claude", config=HarnessConfig(topology="B")),
        repo,
        settings,
        (),
    )
    assert isinstance(b.implementer, ClaudeCodeImplementer) and not b.implementer.keep_session
    assert not isinstance(b.critics["claude"], ClaudeCodeSelfReviewer)
    assert "--resume" not in b.critics["claude"].argv(_request(repo), None)
    codex_a = cast_for(
        SliceRequest(repo, spec, "codex", config=HarnessConfig(topology="A")),
        repo,
        settings,
        (),
    )
    assert any("codex keeps no session" in note for note in codex_a.notes)


def _request(repo: Path) -> AgentRequest:
    return AgentRequest(
        role="critic",
        thread="t",
        round=1,
        system="s",
        prompt="p",
        schema={"type": "object"},
        worktree=repo,
        timeout_s=10.0,
    )


@pytest.mark.slow
@pytest.mark.parametrize("topology", ["A", "B"])
def test_real_claude_self_review_resumes_the_implementers_session_only_in_a(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    topology: str,
) -> None:
    claude_bin = Path(agent_bin("claude"))
    for name in ("ANTHROPIC_AUTH_TOKEN", "CLAUDE_CONFIG_DIR", "ANTHROPIC_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", f"{claude_bin.parent}{os.pathsep}{os.environ['PATH']}")
    repo = main_repo(tmp_path)
    monkeypatch.chdir(repo)
    worktree = repo / ".contend" / "harness" / "worktrees" / "s1"
    spec = spec_file(tmp_path, "Create stats.py with average(items).\n")
    with FakeModelServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-key")
        monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
        server.script(
            ANTHROPIC,
            Turn([Text(f"{MARKER}: writing stats.py"), ToolUse("Write", {
                "file_path": str(worktree / "stats.py"), "content": STATS})]),
            Turn([ToolUse("StructuredOutput", {"summary": f"{MARKER} done"})]),
            Turn([ToolUse("StructuredOutput", CLEAN)]),
        )  # fmt: skip
        result = run_slice(
            SliceRequest(
                repo,
                spec,
                "claude",
                config=HarnessConfig(topology=topology, static=False),
                slice_id="s1",
                agent_timeout_s=90.0,
            )
        )
        assert result.outcome.verdict == "pass", result.outcome.reason
        requests = [r.json for r in server.requests_to(ANTHROPIC)]
    assert len(requests) == 3, [json.dumps(r)[:200] for r in requests]
    critic_request = json.dumps(requests[2])
    assert "find failures" in critic_request.lower() or "ATTACK" in critic_request
    if topology == "A":
        assert MARKER in critic_request  # its own session: it remembers what it did
    else:
        assert MARKER not in critic_request  # a fresh session sees spec and diff only
    # The implementer's session was kept only for its self-review: nothing is left.
    projects = Path(os.environ["HOME"]) / ".claude" / "projects"
    left = sorted(p.name for p in projects.glob("*/*.jsonl")) if projects.is_dir() else []
    assert left == []
