"""The real `claude` and `codex` clients as claim axis agents, each talking to a scripted
fake model server on 127.0.0.1: one round of `verify_with_agents`, outside any git
repository (claims are documents). The agents are built by the test (binaries from
.agents-node, codex's test-only provider flags); the driver, the planner, the parsing and
the report are the ones a user runs."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from contend.agents.claude_code import ClaudeCodeAgent
from contend.agents.codex import CodexAgent
from contend.claims.axes import Axis
from contend.claims.driver import verify_with_agents
from contend.claims.findings import CitedRegion
from contend.claims.load import LoadedCard, load_card_files
from contend.claims.prompts import EXTERNAL_TOOL_REQUIREMENT
from contend.claims.speakers import AgentSpeaker, InternalFactSpeaker, Panel
from contend.config import load_settings
from fakes.cli_env import agent_bin, isolate_client_env
from fakes.model_server import ANTHROPIC, RESPONSES, FakeModelServer, Text, ToolUse, Turn

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
CLAIM = "On the large repository the median parse took 12.5 s over 4,800 files."


def _turn(attack: str | None) -> dict[str, Any]:
    return {
        "no_attack_point": attack is None,
        "position": "accept" if attack is None else "reject",
        "attacks": []
        if attack is None
        else [{"text": attack, "decisive": True, "evidence": ["E1"], "narrowing": ""}],
        "meta_attacks": [],
        "withdrawn": [],
        "concessions": [],
        "external_tools": [],
        "community_sources": [],
    }


@pytest.fixture
def servers() -> Iterator[tuple[FakeModelServer, FakeModelServer]]:
    with FakeModelServer() as anthropic, FakeModelServer() as openai:
        yield anthropic, openai


def test_claude_and_codex_as_axis_agents(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    servers: tuple[FakeModelServer, FakeModelServer],
) -> None:
    claude_bin, codex_bin = agent_bin("claude"), agent_bin("codex")
    anthropic, openai = servers
    isolate_client_env(monkeypatch, tmp_path)
    # Round 1: claude (internal-logic) attacks, codex (external-fact) finds nothing.
    # Round 2: the attack is neither answered nor pressed anew; positions conflict → the
    # claim deadlocks (no meta-judge: contend's mechanical report, verdict escalate).
    attack = "one run on one 2-core machine cannot show a general median"
    anthropic.script(ANTHROPIC, Turn([ToolUse("StructuredOutput", _turn(attack))]))
    anthropic.script(
        ANTHROPIC, Turn([ToolUse("StructuredOutput", {**_turn(None), "position": "reject"})])
    )
    openai.script(RESPONSES, Turn([Text(json.dumps(_turn(None)))]))
    openai.script(RESPONSES, Turn([Text(json.dumps(_turn(None)))]))
    claims = tmp_path / "claims"
    claims.mkdir()
    shutil.copytree(ROOT / "examples" / "claims" / "evidence", claims / "evidence")
    card = claims / "card.yaml"
    card.write_text(
        f"claim-id: R1\nclaim-text: {CLAIM}\nclaim-type: empirical\nclaim-shape: fact\n"
        "abstraction-level: experiment\nowner-approval-flag: true\nevidence-list:\n"
        "  - {file_path: evidence/results.txt, page: 1, region: middle}\n"
    )
    settings = load_settings(None, flags={"agent_timeout": 90.0})
    provider = (
        f'model_providers.fake={{name="fake",base_url="{openai.base_url}/v1",'
        'wire_api="responses",request_max_retries=0,stream_max_retries=0}'
    )
    claude = ClaudeCodeAgent(
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
    codex = CodexAgent(
        role="critic",
        settings=settings,
        binary=codex_bin,
        extra_args=["--ignore-user-config", "-c", "model_provider=fake", "-c", provider,
                    "-c", "features.plugins=false"],
    )  # fmt: skip

    def panel_for(
        loaded: LoadedCard,
        axes: tuple[Axis, ...],
        regions: Sequence[CitedRegion],
        unchecked: Sequence[str],
    ) -> Panel:
        assert axes == ("internal-logic", "external-fact", "internal-fact")
        return Panel(
            {
                "internal-logic": AgentSpeaker("claude", claude),
                "external-fact": AgentSpeaker("codex", codex),
                "internal-fact": InternalFactSpeaker(regions, unchecked),
            },
            worktree=claims,
            timeout_s=90.0,
        )

    report, events = asyncio.run(verify_with_agents(load_card_files([card]), panel_for))
    (claim,) = report.claims
    assert [len(r.turns) for r in claim.rounds_log] == [3, 3]
    first = {t.axis: t for t in claim.rounds_log[0].turns}
    assert first["internal-logic"].kind == "attack"
    assert first["internal-logic"].attacks[0].text == attack
    assert first["external-fact"].kind == "no-attack-point"
    assert claim.verdict == "escalate"
    assert claim.deadlock_report is not None
    assert claim.deadlock_report.unresolved[0].issue.startswith("IL-1")
    # What the clients really sent: the claim, the same round context, the seed's
    # external-tool requirement.
    claude_sent = json.dumps(anthropic.requests_to(ANTHROPIC)[0].json)
    codex_sent = json.dumps(openai.requests_to(RESPONSES)[0].json)
    for sent in (claude_sent, codex_sent):
        assert CLAIM in sent or json.dumps(CLAIM)[1:-1] in sent
        assert "unverified echo" in sent
    assert EXTERNAL_TOOL_REQUIREMENT.splitlines()[0] in claude_sent
    started = [d for k, d in events if k == "claim_round_started"]
    assert len(started) == 2
    # Round 2's context carried round 1's attack to both clients.
    assert "IL-1" in json.dumps(anthropic.requests_to(ANTHROPIC)[-1].json)
    assert "IL-1" in json.dumps(openai.requests_to(RESPONSES)[-1].json)


def _tool_names(body: Any) -> set[str]:
    """Every tool a client offered its model in one request, wherever the request carries
    a `tools` list (claude: top level, by name; codex: also in `additional_tools` input
    items and namespaces, by name or type, like `web_search`)."""
    names: set[str] = set()
    if isinstance(body, dict):
        for key, value in body.items():
            if key == "tools" and isinstance(value, list):
                for tool in value:
                    if isinstance(tool, dict) and tool.get("type") != "namespace":
                        names.add(str(tool.get("name") or tool.get("type")))
            names |= _tool_names(value)
    elif isinstance(body, list):
        for item in body:
            names |= _tool_names(item)
    return names


@pytest.mark.parametrize("web", [True, False], ids=["web-access", "no-web-access"])
def test_web_access_reaches_claude_and_codex_and_only_then_lifts_the_echo(
    web: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    servers: tuple[FakeModelServer, FakeModelServer],
) -> None:
    claude_bin, codex_bin = agent_bin("claude"), agent_bin("codex")
    anthropic, openai = servers
    isolate_client_env(monkeypatch, tmp_path)
    # Both agents find nothing and cite a community report they say they read: with web
    # access that lifts the echo; without it they could not have read it.
    sourced = {**_turn(None), "community_sources": ["https://github.com/o/r/issues/1"]}
    anthropic.script(ANTHROPIC, Turn([ToolUse("StructuredOutput", sourced)]))
    openai.script(RESPONSES, Turn([Text(json.dumps(sourced))]))
    claims = tmp_path / "claims"
    claims.mkdir()
    shutil.copytree(ROOT / "examples" / "claims" / "evidence", claims / "evidence")
    card = claims / "card.yaml"
    card.write_text(
        f"claim-id: R1\nclaim-text: {CLAIM}\nclaim-type: empirical\nclaim-shape: fact\n"
        "abstraction-level: experiment\nowner-approval-flag: true\n"
        "domain-axes: [external-tool]\nevidence-list:\n"
        "  - {file_path: evidence/results.txt, page: 1, region: middle}\n"
    )
    settings = load_settings(None, flags={"agent_timeout": 90.0})
    provider = (
        f'model_providers.fake={{name="fake",base_url="{openai.base_url}/v1",'
        'wire_api="responses",request_max_retries=0,stream_max_retries=0}'
    )
    claude = ClaudeCodeAgent(
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
    # codex sends its hosted web_search tool only for models whose catalogue entry has one
    # (this codex build: gpt-5.5 does, its default model does not).
    codex = CodexAgent(
        role="critic",
        settings=settings,
        model="gpt-5.5",
        binary=codex_bin,
        extra_args=["--ignore-user-config", "-c", "model_provider=fake", "-c", provider,
                    "-c", "features.plugins=false"],
    )  # fmt: skip
    # The web axes as `contend verify --web-access` seats them (claims/panel.py): every
    # agent whose backend's capabilities allow it.
    speakers = {"internal-logic": AgentSpeaker("claude", claude),
                "external-fact": AgentSpeaker("codex", codex)}  # fmt: skip
    web_axes = frozenset(
        axis for axis, s in speakers.items() if web and s.agent.capabilities.web_access
    )
    assert web_axes == (frozenset(speakers) if web else frozenset())

    def panel_for(
        loaded: LoadedCard,
        axes: tuple[Axis, ...],
        regions: Sequence[CitedRegion],
        unchecked: Sequence[str],
    ) -> Panel:
        return Panel(
            {**speakers, "internal-fact": InternalFactSpeaker(regions, unchecked)},
            worktree=claims,
            timeout_s=90.0,
            web_access=web_axes,
            web_asked=web,
        )

    report, _ = asyncio.run(verify_with_agents(load_card_files([card]), panel_for))
    (claim,) = report.claims
    assert claim.verdict == "accept"
    claude_tools = _tool_names(anthropic.requests_to(ANTHROPIC)[0].json)
    codex_tools = _tool_names(openai.requests_to(RESPONSES)[0].json)
    # What the clients really offered their models: the web tools exactly when asked, and
    # never a writing tool.
    assert ({"WebSearch", "WebFetch"} <= claude_tools) == web
    assert not claude_tools & {"Edit", "Write", "NotebookEdit", "Bash"}
    assert ("web_search" in codex_tools) == web
    assert claim.unverified_echo == ([] if web else ["the claim's external tool"])
