"""Web access for claim axis agents (`contend verify --agent … --web-access`): the seed's
external-tool requirement asks for community reports, which only an agent that can read
the web can bring. The flag reaches only backends whose capabilities allow it (claude:
WebSearch and WebFetch; codex: `web_search="live"`), critics stay read-only, and the
"unverified echo (official docs only)" marker goes away only when an agent really had web
access and cited community reports. The real clients against the fake model servers are
in test_claims_real_clients.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from contend.agents.base import AgentRequest
from contend.agents.claude_code import ClaudeCodeAgent
from contend.agents.codex import CodexAgent
from contend.claims.load import load_card_files
from contend.claims.panel import panel_factory, parse_choice
from contend.claims.speakers import AgentSpeaker, InternalFactSpeaker
from contend.cli.main import main
from contend.config import load_settings
from test_claims_rounds import QUIET, card_file, run, turn

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ROOT / "examples" / "claims-agents"


def request(tmp_path: Path, *, web: bool) -> AgentRequest:
    return AgentRequest(
        role="critic",
        thread="C:external-fact",
        round=1,
        system="s",
        prompt="p",
        schema={"type": "object"},
        worktree=tmp_path,
        timeout_s=5.0,
        web_access=web,
    )


def _flag(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_claude_is_offered_the_web_tools_only_when_asked_and_never_a_writing_tool(
    tmp_path: Path,
) -> None:
    agent = ClaudeCodeAgent(role="critic", settings=load_settings(None), binary="claude")
    assert agent.capabilities.web_access
    without = agent.argv(request(tmp_path, web=False), None)
    assert _flag(without, "--tools") == "Read,Grep,Glob"
    assert {"WebSearch", "WebFetch"} <= set(_flag(without, "--disallowedTools").split(","))
    with_web = agent.argv(request(tmp_path, web=True), None)
    tools = _flag(with_web, "--tools").split(",")
    assert tools == ["Read", "Grep", "Glob", "WebSearch", "WebFetch"]
    assert _flag(with_web, "--allowedTools").split(",") == tools
    denied = set(_flag(with_web, "--disallowedTools").split(","))
    assert {"Edit", "Write", "NotebookEdit", "Bash"} <= denied
    assert not denied & {"WebSearch", "WebFetch"}
    # The proposer is no critic: it never gets web access by capability.
    fork = ClaudeCodeAgent(role="proposer", settings=load_settings(None), binary="claude")
    assert not fork.capabilities.web_access


def test_codex_gets_live_web_search_only_when_asked_in_its_read_only_sandbox(
    tmp_path: Path,
) -> None:
    agent = CodexAgent(role="critic", settings=load_settings(None), binary="codex")
    assert agent.capabilities.web_access
    schema = tmp_path / "schema.json"
    without = agent.argv(request(tmp_path, web=False), schema, None)
    with_web = agent.argv(request(tmp_path, web=True), schema, None)
    for argv in (without, with_web):
        assert _flag(argv, "--sandbox") == "read-only"
    assert 'web_search="disabled"' in without and 'web_search="live"' not in without
    assert 'web_search="live"' in with_web and 'web_search="disabled"' not in with_web


def test_the_flag_seats_web_access_only_where_the_backend_allows_it(tmp_path: Path) -> None:
    card = card_file(tmp_path)
    (loaded,) = load_card_files([card]).cards
    axes = ("internal-logic", "external-fact", "internal-fact")
    quiet = f"scripted:{AGENTS / 'quiet.json'}"
    settings = load_settings(None)
    for web, want in ((True, {"internal-logic"}), (False, set())):
        choice = parse_choice(["claude", f"external-fact={quiet}"], None, None, web_access=web)
        panel = panel_factory(choice, settings, timeout_s=5.0)(loaded, axes, [], [])
        assert isinstance(panel.seats["internal-logic"], AgentSpeaker)
        assert isinstance(panel.seats["internal-fact"], InternalFactSpeaker)
        # claude can read the web; the scripted backend cannot, so it stays without.
        assert panel.web_access == frozenset(want)


TOOL_TURN = turn(tools=["pytest 8.3"])
SOURCED = {
    "output": {
        **TOOL_TURN["output"],
        "community_sources": ["https://github.com/pytest-dev/pytest/issues/1"],
    }
}


@pytest.mark.parametrize(
    ("web", "il_turn", "echo"),
    [
        (frozenset(), SOURCED, True),  # community sources claimed without web: still echo
        (frozenset({"internal-logic"}), TOOL_TURN, True),  # web, but no community report
        (frozenset({"internal-logic"}), SOURCED, False),  # web and community reports
    ],
)
def test_the_echo_marker_goes_only_with_real_web_access_and_community_reports(
    tmp_path: Path, web: frozenset[str], il_turn: dict[str, object], echo: bool
) -> None:
    report, events = run(
        card_file(tmp_path),
        {"internal-logic": [il_turn], "external-fact": [QUIET]},
        web_access=web,
    )
    claim = report.claims[0]
    assert claim.unverified_echo == (["pytest 8.3"] if echo else [])
    assert any("unverified echo" in r for r in claim.reasons) == echo
    (axes,) = [d for k, d in events if k == "claim_axes"]
    assert axes["web_access"] == sorted(web)
    if web and echo:
        assert any("cited no community report" in r for r in claim.reasons)


def test_web_access_with_backends_that_have_none_keeps_the_echo_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claims = tmp_path / "claims"
    claims.mkdir()
    shutil.copytree(ROOT / "examples" / "claims" / "evidence", claims / "evidence")
    card = claims / "card.yaml"
    card.write_text(
        (ROOT / "examples" / "claims" / "rounds.yaml").read_text(encoding="utf-8")
        + "domain-axes: [external-tool]\n",
        encoding="utf-8",
    )
    quiet = f"scripted:{AGENTS / 'quiet.json'}"
    out = tmp_path / "run"
    code = main(
        ["verify", str(card), "--out", str(out), "--format", "json", f"--agent={quiet}",
         "--web-access"]
    )  # fmt: skip
    assert code == 0
    (claim,) = json.loads(capsys.readouterr().out)["claims"]
    assert claim["unverified_echo"] == ["the claim's external tool"]
    assert any("no seated agent's backend can read the web" in r for r in claim["reasons"])
    # --web-access takes part in rounds only.
    assert main(["verify", str(card), "--out", str(tmp_path / "r2"), "--web-access"]) == 2
    assert "--web-access" in capsys.readouterr().err
