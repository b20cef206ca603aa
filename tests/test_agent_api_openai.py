"""The OpenAI, Ollama and OpenAI-compatible backends, run through the real `openai` SDK
against the fake model server's Chat Completions route on 127.0.0.1.

Every test asserts on what the SDK really sent (captured by the server): model, the three
read-only tools, the schema, the spec and diff in the prompt, the tool results and repair
requests sent back, auth and extra headers — and on the reply: output or error, usage,
cost and the raw exchange. No test reaches the network: CONTEND_ALLOW_MODEL_REQUESTS=0
makes any non-loopback endpoint an error before a request is made.
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
from contend.agents.api_common import Limits
from contend.agents.base import AgentReply, AgentRequest
from contend.agents.families import family_of
from contend.agents.openai_api import (
    OLLAMA_BASE_URL,
    OpenAIAgent,
    create,
    create_compatible,
    create_ollama,
    endpoint_for,
    import_sdk,
)
from contend.config import Settings
from contend.errors import AgentError, AgentTimeout, UserError
from contend.protocol.prompts import CRITIC_SYSTEM, critic_first_turn
from contend.protocol.reply_schemas import CRITIC_SCHEMA
from fakes.chat_completions import ChatServer, DropMidBody
from fakes.cli_env import diff_of, make_repo, tree_hash
from fakes.model_server import CHAT, FakeModelServer, Garbage, Hang, HttpError, Text, ToolUse, Turn

SPEC = "Totals must never hide a pricing failure. SPEC-MARKER-5e21"
SECRET = "OUTSIDE-SECRET-c0ffee"
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
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    monkeypatch.setenv("CONTEND_ALLOW_MODEL_REQUESTS", "0")
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_CUSTOM_HEADERS"):
        monkeypatch.delenv(name, raising=False)
    fake = ChatServer()
    with fake:
        yield fake


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def settings(**data: Any) -> Settings:
    return Settings.model_validate(data)


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


def compatible(server: FakeModelServer, model: str = "qwen2.5-coder:7b", **kw: Any) -> OpenAIAgent:
    config = settings(providers={"openai-compatible": {"base_url": f"{server.base_url}/v1"}})
    kw.setdefault("limits", FAST)
    return OpenAIAgent("openai-compatible", model, endpoint_for("openai-compatible", config), **kw)


def run(agent: OpenAIAgent, request: AgentRequest) -> AgentReply:
    return asyncio.run(agent.run(request))


def answer(payload: Any = None) -> Turn:
    return Turn([Text(json.dumps(ANSWER if payload is None else payload))])


def bodies(server: FakeModelServer) -> list[dict[str, Any]]:
    return [r.json for r in server.requests_to(CHAT)]


# -- the normal path ------------------------------------------------------------------------


def test_openai_critic_reads_a_file_then_answers(
    server: FakeModelServer, repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Key and base URL from the SDK's standard environment, reaching it unchanged.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-user-env")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.base_url}/v1")
    agent = create("gpt-4.1", context(Settings(), "critic"))
    assert (agent.backend, agent.family) == ("openai", "openai")
    server.script(
        CHAT,
        Turn([ToolUse("read_file", {"path": "app.py"}, id="call_r1")], 500, 30),
        Turn([Text(json.dumps(ANSWER))], 700, 120),
    )
    (tmp_path / "scratch").mkdir()
    before = tree_hash(repo, tmp_path / "scratch")

    reply = run(agent, request_for(repo))

    assert reply.error is None
    assert reply.output == ANSWER
    assert tree_hash(repo, tmp_path / "scratch") == before
    first, second = server.requests_to(CHAT)
    assert first.headers["authorization"] == "Bearer sk-from-user-env"
    sent = first.json
    assert sent["model"] == "gpt-4.1"
    assert [t["function"]["name"] for t in sent["tools"]] == ["read_file", "grep", "list_dir"]
    assert sent["response_format"]["json_schema"]["schema"] == CRITIC_SCHEMA
    assert sent["response_format"]["json_schema"]["strict"] is True
    system, user = sent["messages"]
    assert system["role"] == "system" and system["content"].startswith(CRITIC_SYSTEM)
    assert SPEC in user["content"]
    assert "+        return 0" in user["content"]  # the diff
    tool_message = second.json["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_r1"
    assert "     5\t        return 0" in tool_message["content"]
    assert second.json["messages"][-2]["tool_calls"][0]["function"]["name"] == "read_file"
    # Usage summed over both requests; cost from the built-in table (gpt-4.1: $2 / $8).
    assert (reply.usage.tokens_in, reply.usage.tokens_out) == (1200, 150)
    assert reply.cost == pytest.approx((1200 * 2.0 + 150 * 8.0) / 1e6)
    assert reply.exchange["cost_known"] is True
    assert reply.exchange["price"]["source"].startswith("built-in")
    assert [c["status"] for c in reply.exchange["calls"]] == [200, 200]
    assert reply.exchange["calls"][0]["request"]["model"] == "gpt-4.1"
    assert reply.exchange["tool_calls"][0]["name"] == "read_file"
    assert "sk-from-user-env" not in json.dumps(reply.exchange)
    assert server.exhausted == []


def test_path_escape_is_refused_and_the_refusal_sent_back(
    server: FakeModelServer, repo: Path
) -> None:
    (repo.parent / "secret.txt").write_text(SECRET)
    server.script(
        CHAT,
        Turn(
            [
                ToolUse("read_file", {"path": "../secret.txt"}, id="c1"),
                ToolUse("read_file", {"path": str(repo.parent / "secret.txt")}, id="c2"),
                ToolUse("write_file", {"path": "app.py", "content": "x"}, id="c3"),
            ]
        ),
        answer(),
    )
    reply = run(compatible(server), request_for(repo))
    assert reply.output == ANSWER
    results = {
        m["tool_call_id"]: m["content"]
        for m in bodies(server)[1]["messages"]
        if m["role"] == "tool"
    }
    assert results["c1"].startswith("error: ../secret.txt: outside the repository")
    assert results["c2"].startswith("error:") and "absolute paths are refused" in results["c2"]
    assert results["c3"] == "error: unknown tool 'write_file'"
    assert SECRET not in server.all_bodies()
    assert [t["is_error"] for t in reply.exchange["tool_calls"]] == [True, True, True]


# -- malformed output -----------------------------------------------------------------------


def test_schema_break_is_repaired_on_retry(server: FakeModelServer, repo: Path) -> None:
    server.script(CHAT, answer({"topic": 7}), answer())
    reply = run(compatible(server), request_for(repo))
    assert reply.error is None and reply.output == ANSWER
    repair = bodies(server)[1]["messages"][-1]
    assert repair["role"] == "user"
    assert "schema violation" in repair["content"]
    assert bodies(server)[1]["messages"][-2] == {"role": "assistant", "content": '{"topic": 7}'}
    assert reply.exchange["notes"][0].startswith("repair 1: answer: schema violation")


def test_repeated_schema_breaks_set_error_not_a_fabricated_success(
    server: FakeModelServer, repo: Path
) -> None:
    server.script(CHAT, answer({"topic": 7}), answer([]), Turn([Text("I think it is fine.")]))
    reply = run(compatible(server), request_for(repo))
    assert reply.output is None
    assert reply.error is not None
    assert reply.error.startswith("no valid answer after 3 attempts; last: the answer is not valid")
    assert reply.raw_text == "I think it is fine."
    assert len(server.requests_to(CHAT)) == 3
    assert server.exhausted == []
    assert reply.usage.tokens_in == 300  # failed turns still cost tokens


def test_deeply_nested_json_is_an_error_not_a_crash(server: ChatServer, repo: Path) -> None:
    server.script(
        CHAT,
        Garbage(b"[" * 200_000, 200, "application/json"),
    )
    reply = run(compatible(server), request_for(repo))
    assert reply.error is not None and "not a valid API response" in reply.error
    server.script(CHAT, *[Turn([Text("[" * 100_000)])] * 3)
    reply = run(compatible(server), request_for(repo))
    assert reply.error is not None and "not valid JSON" in reply.error


def test_a_refusal_is_kept_as_the_failed_answer(server: ChatServer, repo: Path) -> None:
    refusal = {
        "id": "chatcmpl_r",
        "choices": [{"message": {"role": "assistant", "content": None, "refusal": "I can't."}}],
    }
    server.script(CHAT, *[Garbage(json.dumps(refusal).encode(), 200, "application/json")] * 3)
    reply = run(compatible(server), request_for(repo))
    assert reply.output is None and reply.raw_text == "I can't."
    assert reply.exchange["notes"][-1] == "response 3 reported no token usage; counted as 0"


def test_fenced_json_is_accepted(server: FakeModelServer, repo: Path) -> None:
    server.script(CHAT, Turn([Text("```json\n" + json.dumps(ANSWER) + "\n```")]))
    assert run(compatible(server), request_for(repo)).output == ANSWER


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (Garbage(b"\x00not json{{{", 200, "application/json"), "not a valid API response"),
        (Garbage(b'{"id": "chatcmpl_1", "choices": [', 200, "application/json"), "not a valid"),
        (Garbage(b'{"id": "x", "choices": []}', 200, "application/json"), "no choices"),
    ],
    ids=["garbage", "truncated-body", "no-choices"],
)
def test_broken_response_bodies_become_errors(
    server: FakeModelServer, repo: Path, step: Garbage, message: str
) -> None:
    server.script(CHAT, step)
    reply = run(compatible(server), request_for(repo))
    assert reply.output is None
    assert reply.error is not None and message in reply.error
    assert reply.exchange["calls"][0]["response"] == step.data.decode("utf-8", "replace")
    assert len(server.requests_to(CHAT)) == 1


def test_truncated_json_answer_is_repaired_then_fails(server: FakeModelServer, repo: Path) -> None:
    cut = json.dumps(ANSWER)[:60]
    server.script(CHAT, *[Turn([Text(cut)])] * 3)
    reply = run(compatible(server), request_for(repo))
    assert reply.output is None
    assert reply.error is not None and "not valid JSON" in reply.error
    assert reply.raw_text == cut


def test_ten_megabyte_reply_is_bounded(server: FakeModelServer, repo: Path) -> None:
    server.script(CHAT, Turn([Text("x" * 10_000_000)]))
    agent = compatible(server, limits=Limits(max_response_bytes=1_000_000))
    reply = run(agent, request_for(repo))
    assert reply.wall_s < 10
    assert reply.output is None
    assert reply.error == "response larger than 1000000 bytes; reading stopped there"
    call = reply.exchange["calls"][0]
    assert call["response_cut"] is True
    assert len(call["response"]) == 65_536


# -- HTTP failures and deadlines --------------------------------------------------------------


def test_429_then_success_honours_retry_after(server: FakeModelServer, repo: Path) -> None:
    server.script(CHAT, HttpError(429, headers={"Retry-After": "1"}), answer())
    reply = run(compatible(server), request_for(repo))
    first, second = reply.exchange["calls"]
    assert second["at_s"] - (first["at_s"] + first["wall_s"]) >= 1.0  # Retry-After: 1
    assert reply.output == ANSWER
    assert [c["status"] for c in reply.exchange["calls"]] == [429, 200]
    assert "retrying in 1.00s" in reply.exchange["notes"][0]


def test_500_raises_agent_error_after_bounded_retries(server: FakeModelServer, repo: Path) -> None:
    server.script(CHAT, HttpError(500), HttpError(500), HttpError(500), answer())
    with pytest.raises(AgentError) as caught:
        run(compatible(server), request_for(repo))
    assert caught.value.retryable is True
    assert caught.value.backend == "openai-compatible"
    assert "HTTP 500" in str(caught.value) and "gave up after 3 attempts" in str(caught.value)
    assert (caught.value.failure, caught.value.status) == ("http_status", 500)
    assert len(server.requests_to(CHAT)) == 3  # 1 + http_retries
    assert server.remaining(CHAT) == 1


def test_connection_dropped_mid_body_is_retried(server: ChatServer, repo: Path) -> None:
    server.script_chat(DropMidBody(), answer())
    reply = run(compatible(server), request_for(repo))
    assert reply.output == ANSWER
    assert reply.exchange["calls"][0]["status"] is None
    assert "while reading the response" in reply.exchange["calls"][0]["error"]


def test_connection_dropping_every_time_is_an_agent_error(server: ChatServer, repo: Path) -> None:
    server.script_chat(DropMidBody(), DropMidBody(), DropMidBody(), answer())
    with pytest.raises(AgentError, match="gave up after 3 attempts") as caught:
        run(compatible(server), request_for(repo))
    assert caught.value.retryable is True
    assert (caught.value.failure, caught.value.status) == ("malformed", None)


def test_a_server_that_is_down_is_unreachable(repo: Path) -> None:
    with FakeModelServer() as gone:
        pass  # closed on exit: nothing listens there any more
    with pytest.raises(AgentError, match="connection failed") as caught:
        run(compatible(gone), request_for(repo))
    assert (caught.value.failure, caught.value.status) == ("unreachable", None)
    assert not isinstance(caught.value, AgentTimeout)


def test_401_is_not_retried(server: FakeModelServer, repo: Path) -> None:
    server.script(CHAT, HttpError(401), answer())
    with pytest.raises(AgentError) as caught:
        run(compatible(server), request_for(repo))
    assert caught.value.retryable is False
    assert (caught.value.failure, caught.value.status) == ("http_status", 401)
    assert len(server.requests_to(CHAT)) == 1


def test_retry_after_past_the_deadline_fails_at_once(server: FakeModelServer, repo: Path) -> None:
    server.script(CHAT, HttpError(429, headers={"retry-after-ms": "60000"}), answer())
    import_sdk()
    started = time.monotonic()
    with pytest.raises(AgentError, match="would pass the deadline") as caught:
        run(compatible(server), request_for(repo, timeout_s=5))
    assert time.monotonic() - started < 2
    assert caught.value.retryable is True


def test_hang_times_out_within_the_deadline(server: FakeModelServer, repo: Path) -> None:
    server.script(CHAT, Hang())
    import_sdk()  # warm: the timing below is of the deadline, not of importing the SDK
    started = time.monotonic()
    with pytest.raises(AgentTimeout, match="2s deadline"):
        run(compatible(server), request_for(repo, timeout_s=2))
    assert 1.9 <= time.monotonic() - started < 4


def test_server_without_response_format_is_asked_again_without_it(
    server: FakeModelServer, repo: Path
) -> None:
    server.script(CHAT, HttpError(400, {"error": {"message": "unknown field"}}), answer())
    reply = run(compatible(server), request_for(repo))
    assert reply.output == ANSWER
    first, second = bodies(server)
    assert "response_format" in first and "response_format" not in second
    assert "JSON Schema" in second["messages"][0]["content"]  # still instructed
    assert reply.exchange["notes"][0].startswith("HTTP 400 with response_format json_schema set")


def test_a_second_400_is_a_non_retryable_error(server: ChatServer, repo: Path) -> None:
    server.script(CHAT, HttpError(400), HttpError(400), answer())
    with pytest.raises(AgentError, match="HTTP 400") as caught:
        run(compatible(server), request_for(repo))
    assert caught.value.retryable is False
    assert len(server.requests_to(CHAT)) == 2


def test_tool_budget_forces_an_answer(server: FakeModelServer, repo: Path) -> None:
    server.script(
        CHAT,
        Turn([ToolUse("list_dir", {"path": "."}, id="c1")]),
        Turn([ToolUse("list_dir", {"path": "."}, id="c2")]),
        answer(),
    )
    agent = compatible(server)
    agent.limits = Limits(tool_turns=1, backoff_base_s=0.01)
    reply = run(agent, request_for(repo))
    assert reply.output == ANSWER
    sent = bodies(server)
    assert sent[0]["tool_choice"] == "auto"
    assert sent[1]["tool_choice"] == "none"
    refused = sent[2]["messages"][-2]
    assert refused["role"] == "tool"
    assert refused["content"] == "error: the tool-call budget is used up; answer now"
    assert "instead of an answer" in sent[2]["messages"][-1]["content"]


# -- cost -----------------------------------------------------------------------------------


def test_user_price_overrides_and_unknown_model_costs_nothing_known(
    server: FakeModelServer, repo: Path
) -> None:
    priced = settings(prices={"qwen2.5-coder:7b": {"input_per_mtok": 1.5, "output_per_mtok": 3.0}})
    server.script(CHAT, answer(), answer())
    reply = run(compatible(server, prices=dict(priced.prices)), request_for(repo))
    assert reply.cost == pytest.approx((100 * 1.5 + 20 * 3.0) / 1e6)
    assert reply.exchange["price"] == {
        "input_per_mtok": 1.5,
        "output_per_mtok": 3.0,
        "source": "config",
    }
    unknown = run(compatible(server), request_for(repo))
    assert unknown.cost == 0.0
    assert unknown.exchange["cost_known"] is False and unknown.exchange["price"] is None
    assert (unknown.usage.tokens_in, unknown.usage.tokens_out) == (100, 20)


def test_config_price_beats_the_built_in_one(server: FakeModelServer, repo: Path) -> None:
    config = settings(
        prices={"gpt-4.1": {"input_per_mtok": 10.0, "output_per_mtok": 0.0}},
        providers={"openai": {"base_url": f"{server.base_url}/v1", "api_key_env": "MY_OAI"}},
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MY_OAI", "sk-config-named")
        agent = create("gpt-4.1", context(config, "critic"))
    server.script(CHAT, answer())
    reply = run(agent, request_for(repo))
    assert reply.cost == pytest.approx(100 * 10.0 / 1e6)
    assert server.requests_to(CHAT)[0].headers["authorization"] == "Bearer sk-config-named"


# -- configuration --------------------------------------------------------------------------


def test_compatible_key_base_url_and_headers_from_config(
    server: FakeModelServer, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-must-not-be-used")
    monkeypatch.setenv("ROUTER_KEY", "sk-or-config")
    config = settings(
        providers={
            "openai-compatible": {
                "base_url": f"{server.base_url}/v1",
                "api_key_env": "ROUTER_KEY",
                "extra_headers": {"X-Title": "contend"},
            }
        }
    )
    agent = registry.resolve(
        "openai-compatible:meta-llama/llama-3.1-70b", context(config, "critic")
    )
    assert (agent.backend, agent.model, agent.family) == (
        "openai-compatible",
        "meta-llama/llama-3.1-70b",
        "meta",
    )
    server.script(CHAT, answer())
    reply = asyncio.run(agent.run(request_for(repo)))
    assert reply.output == ANSWER
    sent = server.requests_to(CHAT)[0]
    assert sent.headers["authorization"] == "Bearer sk-or-config"
    assert sent.headers["x-title"] == "contend"
    assert sent.json["model"] == "meta-llama/llama-3.1-70b"


def test_compatible_takes_base_url_and_key_from_the_sdk_env(
    server: FakeModelServer, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.base_url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    agent = registry.resolve("openai-compatible:mistral-small", context(Settings(), "critic"))
    server.script(CHAT, answer())
    asyncio.run(agent.run(request_for(repo)))
    assert server.requests_to(CHAT)[0].headers["authorization"] == "Bearer sk-env"


def test_ollama_defaults_and_never_sends_the_openai_key(
    server: FakeModelServer, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-must-not-travel")
    default = registry.resolve("ollama:qwen2.5-coder:7b", context(Settings(), "critic"))
    assert isinstance(default, OpenAIAgent)
    assert default.endpoint.base_url == OLLAMA_BASE_URL
    assert (default.backend, default.model, default.family) == (
        "ollama",
        "qwen2.5-coder:7b",
        "alibaba",
    )
    assert default.capabilities.needs_network is False
    config = settings(providers={"ollama": {"base_url": f"{server.base_url}/v1"}})
    agent = registry.resolve("ollama:llama3.1:8b", context(config, "critic"))
    server.script(CHAT, answer())
    assert asyncio.run(agent.run(request_for(repo))).output == ANSWER
    assert "sk-openai-must-not-travel" not in str(server.requests_to(CHAT)[0].headers)


def test_configuration_errors_are_user_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UserError, match="needs the server's base URL"):
        create_compatible("some-model", context(Settings(), "critic"))
    with pytest.raises(UserError, match="MISSING_KEY_VAR as the API key variable"):
        create(
            "gpt-4.1",
            context(settings(providers={"openai": {"api_key_env": "MISSING_KEY_VAR"}}), "critic"),
        )
    with pytest.raises(UserError, match="needs a model"):
        create_ollama(None, context(Settings(), "critic"))


def test_missing_openai_key_is_a_user_error(server: ChatServer, repo: Path) -> None:
    config = settings(providers={"openai": {"base_url": f"{server.base_url}/v1"}})
    with pytest.raises(UserError, match="cannot set up the OpenAI client: Missing credentials"):
        run(create("gpt-4.1", context(config, "critic")), request_for(repo))
    assert server.requests == []


def test_remote_endpoint_is_refused_when_model_requests_are_off(
    server: FakeModelServer, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    agent = create("gpt-4.1", context(Settings(), "critic"))  # the SDK's default: api.openai.com
    with pytest.raises(
        UserError, match=r"model requests to https://api\.openai\.com/v1/ are disabled"
    ):
        run(agent, request_for(repo))


def test_missing_sdk_names_the_extra(
    server: FakeModelServer, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    agent = compatible(server)
    with pytest.raises(UserError) as caught:
        run(agent, request_for(repo))
    message = "the openai backend needs the 'openai' extra: pip install 'contend[openai]'"
    assert str(caught.value) == message
    with pytest.raises(UserError, match=r"pip install 'contend\[openai\]'"):
        registry.resolve("ollama:llama3.1", context(Settings(), "critic"))
    assert server.requests == []


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("llama3.1:8b", "meta"),
        ("codellama", "meta"),
        ("qwen2.5-coder:32b", "alibaba"),
        ("mixtral-8x7b", "mistral"),
        ("mistral-small", "mistral"),
        ("gemma2:9b", "google"),
        ("google/gemini-2.5-pro", "google"),
        ("anthropic/claude-3.5-sonnet", "anthropic"),
        ("gpt-oss:20b", "openai"),
        ("o3-mini", "openai"),
        ("deepseek-r1-distill-llama-70b", "deepseek"),
        ("meta-llama/llama-3.1-70b", "meta"),
        ("phi3", "unknown"),
        ("solar-o1x", "unknown"),
    ],
)
def test_family_from_model_name(model: str, family: str) -> None:
    assert family_of(model) == family


def test_fake_server_streams_chat_chunks_the_sdk_understands(server: FakeModelServer) -> None:
    import openai

    server.script(CHAT, Turn([Text("hello "), ToolUse("grep", {"pattern": "x"}, id="c9")], 11, 7))

    async def stream() -> tuple[str, str, str, int]:
        async with openai.AsyncOpenAI(api_key="k", base_url=f"{server.base_url}/v1") as client:
            chunks = await client.chat.completions.create(
                model="m",
                messages=[{"role": "user", "content": "hi"}],
                stream=True,
                stream_options={"include_usage": True},
            )
            text, name, args, usage = "", "", "", 0
            async for chunk in chunks:
                if chunk.usage is not None:
                    usage = chunk.usage.completion_tokens
                for choice in chunk.choices:
                    text += choice.delta.content or ""
                    for call in choice.delta.tool_calls or []:
                        name += (call.function.name or "") if call.function else ""
                        args += (call.function.arguments or "") if call.function else ""
            return text, name, args, usage

    assert asyncio.run(stream()) == ("hello ", "grep", '{"pattern": "x"}', 7)
