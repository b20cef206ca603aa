"""One `contend run` slice with the real Claude Code CLI as implementer and the real Codex
CLI as critic, each against a scripted fake model server on 127.0.0.1: the critic's
requests never hold the implementer's transcript, and the implementer never wrote outside
its worktree."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contend.agents.codex import CodexAgent
from contend.config import load_settings
from contend.harness.config import HarnessConfig
from contend.harness.events import read_events
from contend.harness.implementers import ClaudeCodeImplementer, CodexImplementer
from contend.harness.slice import SliceRequest, run_slice
from fakes.cli_env import agent_bin
from fakes.model_server import ANTHROPIC, RESPONSES, FakeModelServer, Text, ToolUse, Turn
from harness_helpers import main_repo
from review_helpers import git

pytestmark = pytest.mark.slow

STATS = (
    "def average(items):\n"
    "    if not items:\n"
    "        raise ValueError('average of no amounts')\n"
    "    return sum(items) / len(items)\n"
)
MARKER = "IMPLEMENTER-TRANSCRIPT-5521"
CLEAN = {"topic": "edge cases", "no_defect_found": True, "objections": [], "judgements": []}


@pytest.fixture
def servers() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    with FakeModelServer() as anthropic, FakeModelServer() as openai:
        yield anthropic, openai


def test_claude_code_implements_codex_reviews_spec_and_diff_only(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    servers: tuple[FakeModelServer, FakeModelServer],
) -> None:
    claude_bin, codex_bin = agent_bin("claude"), agent_bin("codex")
    anthropic, openai = servers
    for name in ("ANTHROPIC_AUTH_TOKEN", "CLAUDE_CONFIG_DIR", "ANTHROPIC_MODEL"):
        monkeypatch.delenv(name, raising=False)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    repo = main_repo(tmp_path)
    before = git(repo, "rev-parse", "HEAD")
    worktree = repo / ".contend" / "harness" / "worktrees" / "e2e"
    anthropic.script(
        ANTHROPIC,
        Turn([Text(f"{MARKER}: I will write stats.py"), ToolUse("Write", {
            "file_path": str(worktree / "stats.py"), "content": STATS})]),
        Turn([ToolUse("StructuredOutput", {"summary": f"{MARKER} wrote stats.py"})]),
    )  # fmt: skip
    openai.script(RESPONSES, Turn([Text(json.dumps(CLEAN))]))
    provider = (
        f'model_providers.fake={{name="fake",base_url="{openai.base_url}/v1",'
        'wire_api="responses",request_max_retries=0,stream_max_retries=0}'
    )
    claude_env = {
        "ANTHROPIC_BASE_URL": anthropic.base_url,
        "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }

    def factory(spec: str, role: str) -> Any:
        settings = load_settings(repo)
        if role == "proposer":
            return ClaudeCodeImplementer(settings=settings, binary=claude_bin, env_add=claude_env)
        extra = ["--ignore-user-config", "-c", "model_provider=fake", "-c", provider]
        extra += ["-c", "features.plugins=false"]
        return CodexAgent(role="critic", settings=settings, binary=codex_bin, extra_args=extra)

    spec = tmp_path / "SPEC.md"
    spec.write_text("Create stats.py with average(items); an empty list raises ValueError.\n")
    result = run_slice(
        SliceRequest(
            repo=repo,
            spec_path=spec,
            implementer="claude",
            critics=["codex"],
            config=HarnessConfig(topology="C", static=False),
            slice_id="e2e",
            agent_timeout_s=90.0,
            agent_factory=factory,
        )
    )
    events = read_events(result.events_path)
    assert result.outcome.verdict == "pass", (result.outcome.reason, events)
    assert git(repo, "show", f"{result.branch}:stats.py") == STATS.rstrip("\n")
    # The implementer's request carried the spec; its words reached no critic.
    assert "average(items)" in json.dumps(anthropic.requests_to(ANTHROPIC)[0].json)
    critic_requests = openai.requests_to(RESPONSES)
    assert critic_requests, "the codex critic was never called"
    sent = json.dumps([r.json for r in critic_requests])
    assert MARKER not in sent
    assert "You implement a task spec" not in sent
    assert "raise ValueError('average of no amounts')" in sent  # the diff
    assert "an empty list raises ValueError" in sent  # the spec
    # Nothing outside the worktree: the main tree is as it was, the user's branch too.
    assert "outside_writes" not in [e["event"] for e in events]
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "rev-parse", "HEAD") == before
    assert not (repo / "stats.py").exists()


def test_codex_implements_in_its_workspace_write_sandbox(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    servers: tuple[FakeModelServer, FakeModelServer],
) -> None:
    codex_bin = agent_bin("codex")
    _anthropic, openai = servers
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    repo = main_repo(tmp_path)
    escape = tmp_path / "escaped.txt"
    body = "def average(items):\\n    return sum(items) / len(items)\\n"
    openai.script(
        RESPONSES,
        # One write inside the worktree, one attempt outside it: the sandbox refuses that.
        Turn([ToolUse("exec_command", {"cmd": f"printf '{body}' > stats.py; touch {escape}"})]),
        Turn([Text(json.dumps({"summary": "wrote stats.py"}))]),
        Turn([Text(json.dumps(CLEAN))]),
    )
    provider = (
        f'model_providers.fake={{name="fake",base_url="{openai.base_url}/v1",'
        'wire_api="responses",request_max_retries=0,stream_max_retries=0}'
    )
    extra = ["--ignore-user-config", "-c", "model_provider=fake", "-c", provider]
    extra += ["-c", "features.plugins=false"]

    def factory(spec: str, role: str) -> Any:
        settings = load_settings(repo)
        if role == "proposer":
            return CodexImplementer(settings=settings, binary=codex_bin, extra_args=extra)
        return CodexAgent(role="critic", settings=settings, binary=codex_bin, extra_args=extra)

    spec = tmp_path / "SPEC.md"
    spec.write_text("Create stats.py with average(items).\n")
    result = run_slice(
        SliceRequest(
            repo=repo,
            spec_path=spec,
            implementer="codex",
            critics=["codex"],
            config=HarnessConfig(topology="B", static=False),
            agent_timeout_s=90.0,
            agent_factory=factory,
        )
    )
    assert result.outcome.verdict == "pass", result.outcome.reason
    assert git(repo, "show", f"{result.branch}:stats.py") == body.replace("\\n", "\n").rstrip()
    assert not escape.exists()
    assert git(repo, "status", "--porcelain") == ""
