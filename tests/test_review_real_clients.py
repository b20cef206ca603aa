"""`contend review` end to end with the real `claude` and `codex` clients as critics,
each talking to a scripted fake model server on 127.0.0.1.

The agents are built by the test (binaries from .agents-node, codex's test-only provider
flags), then handed to the same engine a user runs; everything else is real: git
worktrees, the ledger, the reports.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contend.agents.claude_code import ClaudeCodeAgent
from contend.agents.codex import CodexAgent
from contend.config import load_settings
from contend.ledger.verify import verify
from contend.protocol.state import fold
from contend.review.engine import ReviewRequest, review
from fakes.cli_env import agent_bin
from fakes.model_server import ANTHROPIC, RESPONSES, FakeModelServer, Text, ToolUse, Turn
from review_helpers import git, make_repo

pytestmark = pytest.mark.slow


def _output(topic: str, claim: str) -> dict[str, Any]:
    return {
        "topic": topic,
        "no_defect_found": False,
        "objections": [
            {
                "severity": "major",
                "path": "app.py",
                "start_line": 11,
                "end_line": 11,
                "claim": claim,
                "evidence": "return total(items) / len(items)",
                "expected": "raise ValueError on an empty list",
            }
        ],
        "judgements": [],
    }


@pytest.fixture
def servers() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    with FakeModelServer() as anthropic, FakeModelServer() as openai:
        yield anthropic, openai


def test_claude_and_codex_critics_through_the_engine(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    servers: tuple[FakeModelServer, FakeModelServer],
) -> None:
    claude_bin, codex_bin = agent_bin("claude"), agent_bin("codex")
    anthropic, openai = servers
    for name in (
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CONFIG_DIR",
        "ANTHROPIC_MODEL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "CODEX_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    anthropic.script(
        ANTHROPIC,
        Turn([ToolUse("StructuredOutput", _output("empty input", "divides by zero on []"))]),
    )
    openai.script(
        RESPONSES, Turn([Text(json.dumps(_output("error handling", "ZeroDivisionError leaks")))])
    )
    repo = make_repo(tmp_path)
    provider = (
        f'model_providers.fake={{name="fake",base_url="{openai.base_url}/v1",'
        'wire_api="responses",request_max_retries=0,stream_max_retries=0}'
    )

    def factory(spec: str, role: str) -> Any:
        settings = load_settings(repo)
        if spec == "claude":
            return ClaudeCodeAgent(
                role="critic",
                settings=settings,
                binary=claude_bin,
                env_add={
                    "ANTHROPIC_BASE_URL": anthropic.base_url,
                    "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key",
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                    "CLAUDE_CODE_MAX_RETRIES": "0",
                },
            )
        return CodexAgent(
            role="critic",
            settings=settings,
            binary=codex_bin,
            extra_args=[
                "--ignore-user-config",
                "-c",
                "model_provider=fake",
                "-c",
                provider,
                "-c",
                "features.plugins=false",
            ],
        )

    settings = load_settings(
        repo, flags={"critics": ["claude", "codex"], "min_families": 2, "agent_timeout": 90.0}
    )
    before = git(repo, "status", "--porcelain")
    result = review(ReviewRequest(path=repo, agent_factory=factory), settings)
    data = json.loads(result.texts["json"])
    assert data["verdict"] == "fail"
    assert {d["family"] for d in data["disputes"]} == {"anthropic", "openai"}
    assert data["stats"]["families"] == ["anthropic", "openai"]
    # Each critic's prompt held the spec (the commit message) and the diff.
    sent = json.dumps(anthropic.requests_to(ANTHROPIC)[0].json)
    assert "average of the amounts" in sent and "len(items)" in sent
    state = fold(verify(result.run_dir / "ledger.jsonl", keep_entries=True).entries)
    calls = {t.name: (t.calls, t.tokens_in > 0) for t in state.threads.values()}
    assert calls == {"C1": (1, True), "C2": (1, True)}
    assert git(repo, "status", "--porcelain") == before
    assert not list((repo / ".contend" / "worktrees").glob("*/*"))
