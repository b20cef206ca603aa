"""The Anthropic backend, run through the real `anthropic` SDK against the fake model
server's Messages route on 127.0.0.1.

Assertions are on what the SDK really sent (captured by the server): the model, the three
read-only tools plus the forced answer tool whose input schema is the request's schema,
the spec and diff in the prompt, tool results (refusals included) and repair results — and
on the reply: output or error, usage, cost and exchange. CONTEND_ALLOW_MODEL_REQUESTS=0
keeps every test off the network.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backend_helpers import context
from contend.agents import registry
from contend.agents.anthropic_api import SUBMIT, AnthropicAgent, create, import_sdk
from contend.agents.api_common import Limits
from contend.agents.base import AgentReply, AgentRequest
from contend.config import Settings
from contend.errors import AgentError, AgentTimeout, UserError
from contend.protocol.prompts import CRITIC_SYSTEM, critic_first_turn
from contend.protocol.reply_schemas import CRITIC_SCHEMA
from fakes.chat_completions import ChatServer
from fakes.cli_env import diff_of, make_repo, tree_hash
from fakes.model_server import (
    ANTHROPIC,
    FakeModelServer,
    Garbage,
    Hang,
    HttpError,
    Text,
    ToolUse,
    Turn,
)

SPEC = "Totals must never hide a pricing failure. SPEC-MARKER-a11c"
SECRET = "OUTSIDE-SECRET-beef"
MODEL = "claude-haiku-4-5-20251001"
ANSWER: dict[str, Any] = {
    "topic": "silent fallbacks",
    "no_defect_found": False,
    "objections": [
        {
            "severity": "major",
            "path": "app.py",
            "start_line": 4,
            "end_line": 5,
            "claim": "A pricing failure is hidden behind a total of 0.",
            "evidence": "except Exception: return 0",
            "expected": "let the error propagate",
        }
    ],
    "judgements": [],
}
FAST = Limits(backoff_base_s=0.01, backoff_cap_s=0.05, http_retries=2)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeModelServer]:
    monkeypatch.setenv("CONTEND_ALLOW_MODEL_REQUESTS", "0")
    for name in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_PROFILE",
        "ANTHROPIC_CUSTOM_HEADERS",
    ):
        monkeypatch.delenv(name, raising=False)
    fake = ChatServer()
    with fake:
        yield fake


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def request_for(repo: Path, timeout_s: float = 10.0) -> AgentRequest:
    prompt = critic_first_turn(spec=SPEC, diff=diff_of(repo), invariants=[], taken_topics=[])
    return AgentRequest(
        role="critic",
        thread="t1",
        round=1,
        system=CRITIC_SYSTEM,
        prompt=prompt,
        schema=CRITIC_SCHEMA,
        worktree=repo,
        timeout_s=timeout_s,
    )


def agent_for(server: FakeModelServer, **kw: Any) -> AnthropicAgent:
    kw.setdefault("limits", FAST)
    return AnthropicAgent(MODEL, base_url=server.base_url, api_key="sk-ant-test", **kw)


def run(agent: AnthropicAgent, request: AgentRequest) -> AgentReply:
    return asyncio.run(agent.run(request))


def submit(payload: Any = None, call_id: str = "toolu_answer") -> Turn:
    return Turn([ToolUse(SUBMIT, ANSWER if payload is None else payload, id=call_id)])


def bodies(server: FakeModelServer) -> list[dict[str, Any]]:
    return [r.json for r in server.requests_to(ANTHROPIC)]


def sent_key(server: FakeModelServer) -> str:
    headers = server.requests_to(ANTHROPIC)[0].headers
    return headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")


def test_critic_reads_a_file_then_submits_its_answer(
    server: FakeModelServer, repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The user's own environment reaches the SDK unchanged.
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-user-env")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    agent = registry.resolve(f"anthropic:{MODEL}", context(Settings(), "critic"))
    assert (agent.backend, agent.model, agent.family) == ("anthropic", MODEL, "anthropic")
    server.script(
        ANTHROPIC,
        Turn([Text("Let me look."), ToolUse("read_file", {"path": "app.py"}, id="toolu_r1")], 900),
        Turn([ToolUse(SUBMIT, ANSWER, id="toolu_a")], 1500, 200),
    )
    (tmp_path / "scratch").mkdir()
    before = tree_hash(repo, tmp_path / "scratch")

    reply = asyncio.run(agent.run(request_for(repo)))

    assert reply.error is None
    assert reply.output == ANSWER
    assert tree_hash(repo, tmp_path / "scratch") == before
    assert sent_key(server) == "sk-ant-from-user-env"
    first, second = bodies(server)
    assert first["model"] == MODEL
    assert [t["name"] for t in first["tools"]] == ["read_file", "grep", "list_dir", SUBMIT]
    assert first["tools"][3]["input_schema"] == CRITIC_SCHEMA
    assert first["tool_choice"] == {"type": "any"}
    assert first["system"].startswith(CRITIC_SYSTEM)
    prompt = first["messages"][0]["content"]
    assert SPEC in prompt and "+        return 0" in prompt
    assistant, results = second["messages"][1:]
    assert assistant["role"] == "assistant"
    assert assistant["content"][1]["name"] == "read_file"
    (result,) = results["content"]
    assert (result["type"], result["tool_use_id"], result["is_error"]) == (
        "tool_result",
        "toolu_r1",
        False,
    )
    assert "     5\t        return 0" in result["content"]
    # Usage summed; cost from the built-in table, snapshot date stripped ($1 / $5).
    assert (reply.usage.tokens_in, reply.usage.tokens_out) == (2400, 220)
    assert reply.cost == pytest.approx((2400 * 1.0 + 220 * 5.0) / 1e6)
    assert reply.exchange["cost_known"] is True
    assert "sk-ant-from-user-env" not in json.dumps(reply.exchange)


def test_path_escape_is_refused_as_an_error_tool_result(
    server: FakeModelServer, repo: Path
) -> None:
    (repo.parent / "secret.txt").write_text(SECRET)
    server.script(
        ANTHROPIC,
        Turn(
            [
                ToolUse("read_file", {"path": "../secret.txt"}, id="t1"),
                ToolUse("grep", {"pattern": "beef", "path_glob": "../*"}, id="t2"),
                ToolUse("list_dir", {"path": "/"}, id="t3"),
            ]
        ),
        submit(),
    )
    reply = run(agent_for(server), request_for(repo))
    assert reply.output == ANSWER
    results = {r["tool_use_id"]: r for r in bodies(server)[1]["messages"][-1]["content"]}
    assert results["t1"]["is_error"] is True
    assert "outside the repository" in results["t1"]["content"]
    assert results["t2"] == {
        "type": "tool_result",
        "tool_use_id": "t2",
        "content": "no matches",
        "is_error": False,
    }
    assert results["t3"]["is_error"] is True and "absolute paths" in results["t3"]["content"]
    assert SECRET not in server.all_bodies()


def test_schema_break_is_repaired_through_the_tool_result(
    server: FakeModelServer, repo: Path
) -> None:
    server.script(ANTHROPIC, submit({"topic": "x"}, "toolu_bad"), submit())
    reply = run(agent_for(server), request_for(repo))
    assert reply.output == ANSWER
    (result,) = bodies(server)[1]["messages"][-1]["content"]
    assert result["tool_use_id"] == "toolu_bad" and result["is_error"] is True
    assert "schema violation" in result["content"]
    assert bodies(server)[1]["tool_choice"] == {"type": "any"}


def test_text_only_turn_is_asked_again(server: FakeModelServer, repo: Path) -> None:
    server.script(ANTHROPIC, Turn([Text("Looks fine to me.")]), submit())
    reply = run(agent_for(server), request_for(repo))
    assert reply.output == ANSWER
    (note,) = bodies(server)[1]["messages"][-1]["content"]
    assert note["type"] == "text" and "neither an answer nor a tool call" in note["text"]


def test_repeated_schema_breaks_set_error(server: FakeModelServer, repo: Path) -> None:
    server.script(ANTHROPIC, submit({"topic": 1}), submit({}), submit({"objections": []}))
    reply = run(agent_for(server), request_for(repo))
    assert reply.output is None
    assert reply.error is not None
    assert reply.error.startswith("no valid answer after 3 attempts; last: answer: schema")
    assert json.loads(reply.raw_text) == {"objections": []}
    assert len(server.requests_to(ANTHROPIC)) == 3 and server.exhausted == []


def test_tool_budget_forces_the_answer_tool(server: FakeModelServer, repo: Path) -> None:
    server.script(ANTHROPIC, Turn([ToolUse("list_dir", {}, id="t1")]), submit())
    reply = run(agent_for(server, limits=Limits(tool_turns=1)), request_for(repo))
    assert reply.output == ANSWER
    assert bodies(server)[1]["tool_choice"] == {"type": "tool", "name": SUBMIT}


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (Garbage(b"\x00not json{{{", 200, "application/json"), "not a valid API response"),
        (Garbage(b'{"type": "message", "content": [', 200, "application/json"), "not a valid"),
        (Garbage(b'{"type": "error"}', 200, "application/json"), "not a Messages API message"),
    ],
    ids=["garbage", "truncated-body", "wrong-shape"],
)
def test_broken_bodies_become_errors(
    server: FakeModelServer, repo: Path, step: Garbage, message: str
) -> None:
    server.script(ANTHROPIC, step)
    reply = run(agent_for(server), request_for(repo))
    assert reply.output is None
    assert reply.error is not None and message in reply.error
    assert len(server.requests_to(ANTHROPIC)) == 1


def test_ten_megabyte_reply_is_bounded(server: FakeModelServer, repo: Path) -> None:
    server.script(ANTHROPIC, submit({"topic": "x" * 10_000_000}))
    reply = run(agent_for(server, limits=Limits(max_response_bytes=500_000)), request_for(repo))
    assert reply.output is None
    assert reply.error == "response larger than 500000 bytes; reading stopped there"


def test_429_then_success_honours_retry_after(server: FakeModelServer, repo: Path) -> None:
    server.script(ANTHROPIC, HttpError(429, headers={"retry-after": "1"}), submit())
    reply = run(agent_for(server), request_for(repo))
    first, second = reply.exchange["calls"]
    assert second["at_s"] - (first["at_s"] + first["wall_s"]) >= 1.0  # Retry-After: 1
    assert reply.output == ANSWER
    assert [c["status"] for c in reply.exchange["calls"]] == [429, 200]


def test_overloaded_and_500_give_up_after_bounded_retries(
    server: FakeModelServer, repo: Path
) -> None:
    server.script(ANTHROPIC, HttpError(529), HttpError(500), HttpError(500), submit())
    with pytest.raises(AgentError) as caught:
        run(agent_for(server), request_for(repo))
    assert caught.value.retryable is True and caught.value.backend == "anthropic"
    assert "HTTP 500" in str(caught.value)
    assert len(server.requests_to(ANTHROPIC)) == 3
    assert server.remaining(ANTHROPIC) == 1


def test_hang_times_out_within_the_deadline(server: FakeModelServer, repo: Path) -> None:
    server.script(ANTHROPIC, Hang())
    import_sdk()  # warm: the timing below is of the deadline, not of importing the SDK
    started = time.monotonic()
    with pytest.raises(AgentTimeout):
        run(agent_for(server), request_for(repo, timeout_s=2))
    assert 1.9 <= time.monotonic() - started < 4


def test_key_base_url_headers_and_price_from_config(
    server: FakeModelServer, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # contend: allow secrets -- a fake key; the test proves it is never sent
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-env-must-not-be-used")
    monkeypatch.setenv("TEAM_ANTHROPIC_KEY", "sk-ant-test-config-named")
    config = Settings.model_validate(
        {
            "prices": {MODEL: {"input_per_mtok": 1.0, "output_per_mtok": 2.0}},
            "providers": {
                "anthropic": {
                    "base_url": server.base_url,
                    "api_key_env": "TEAM_ANTHROPIC_KEY",
                    "extra_headers": {"X-Team": "qa"},
                }
            },
        }
    )
    agent = create(MODEL, context(config, "critic"))
    server.script(ANTHROPIC, submit())
    reply = run(agent, request_for(repo))
    assert sent_key(server) == "sk-ant-test-config-named"
    assert server.requests_to(ANTHROPIC)[0].headers["x-team"] == "qa"
    assert reply.cost == pytest.approx((100 * 1.0 + 20 * 2.0) / 1e6)
    assert reply.exchange["price"]["source"] == "config"


def test_unknown_model_cost_is_unknown_not_guessed(server: FakeModelServer, repo: Path) -> None:
    server.script(ANTHROPIC, submit())
    agent = AnthropicAgent("claude-next-unlisted", base_url=server.base_url, api_key="k")
    reply = run(agent, request_for(repo))
    assert reply.cost == 0.0 and reply.exchange["cost_known"] is False
    assert (reply.usage.tokens_in, reply.usage.tokens_out) == (100, 20)


def test_config_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UserError, match="needs a model"):
        create(None, context(Settings(), "critic"))
    named = Settings.model_validate({"providers": {"anthropic": {"api_key_env": "NOT_SET_VAR"}}})
    with pytest.raises(UserError, match="NOT_SET_VAR as the API key variable, but it is not set"):
        create(MODEL, context(named, "critic"))


def test_remote_endpoint_refused_when_model_requests_are_off(
    server: FakeModelServer, repo: Path
) -> None:
    agent = AnthropicAgent(MODEL, api_key="k")  # the SDK's default: api.anthropic.com
    with pytest.raises(UserError, match="are disabled"):
        run(agent, request_for(repo))
    assert server.requests == []


def test_missing_sdk_names_the_extra(
    server: FakeModelServer, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(UserError) as caught:
        run(agent_for(server), request_for(repo))
    message = "the anthropic backend needs the 'anthropic' extra: pip install 'contend[anthropic]'"
    assert str(caught.value) == message
    with pytest.raises(UserError, match=r"pip install 'contend\[anthropic\]'"):
        registry.resolve(f"anthropic:{MODEL}", context(Settings(), "critic"))
    assert server.requests == []


def test_no_credentials_is_a_user_error(server: FakeModelServer, repo: Path) -> None:
    agent = AnthropicAgent(MODEL, base_url=server.base_url)
    with pytest.raises(UserError, match="no credentials: set ANTHROPIC_API_KEY"):
        run(agent, request_for(repo))
    assert server.requests == []
