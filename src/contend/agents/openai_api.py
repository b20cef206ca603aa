"""OpenAI, Ollama and any OpenAI-compatible server as agents, through the official `openai`
SDK (the optional extra `openai`, imported only when a run starts).

    openai:MODEL             api.openai.com (or OPENAI_BASE_URL), family "openai"
    ollama:MODEL             http://127.0.0.1:11434/v1 unless configured; no key needed
    openai-compatible:MODEL  vLLM, llama.cpp server, LM Studio, OpenRouter, ...: base URL
                             from config or OPENAI_BASE_URL (required), key from config or
                             OPENAI_API_KEY; family derived from the model name

All three speak Chat Completions: it is the one API every compatible server implements,
and OpenAI supports tools and JSON-schema output on it, so one code path serves all (models
that OpenAI serves only through the Responses API are not supported). Structured output is
asked for with `response_format: json_schema` (strict) and the schema is also stated in the
system prompt; a server that rejects `response_format` with HTTP 400 is asked again without
it (recorded in the exchange), and the answer is validated either way.

The SDK is the transport: it builds the request, sends the auth header and resolves the
user's environment (OPENAI_API_KEY, OPENAI_BASE_URL) unchanged. Its own retries are off, as
retries, deadlines and the byte cap belong to api_common. The response body is read under a
byte cap and parsed here into a ModelTurn, because compatible servers differ in which
optional fields they fill.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from contend.agents import api_common as common
from contend.agents.api_sdk import Endpoint, SdkAgent, SdkWire
from contend.agents.base import AgentRequest, BackendContext, Capabilities, Usage
from contend.agents.families import family_of
from contend.agents.repo_tools import ToolResult, openai_tools
from contend.errors import UserError

if TYPE_CHECKING:
    from contend.config import Price, ProviderConfig, Settings

Flavor = Literal["openai", "ollama", "openai-compatible"]
OLLAMA_BASE_URL = "http://127.0.0.1:11434/v1"
# Local servers ignore the key, but the SDK refuses to start without one.
PLACEHOLDER_KEY = "no-key-configured"
MISSING_EXTRA = "the openai backend needs the 'openai' extra: pip install 'contend[openai]'"


def import_sdk() -> Any:
    try:
        import openai
    except ImportError as exc:
        raise UserError(MISSING_EXTRA) from exc
    return openai


class ChatWire(SdkWire):
    """The Chat Completions wire format, sent through the openai SDK."""

    resource = ("chat", "completions")

    def first_body(self, request: AgentRequest) -> dict[str, Any]:
        system = "\n\n".join(
            [request.system, common.TOOLS_NOTE, common.schema_instructions(request.schema)]
        )
        return {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": request.prompt},
            ],
            "tools": openai_tools(),
            "tool_choice": "auto",
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": f"contend_{request.role}",
                    "schema": request.schema,
                    "strict": True,
                },
            },
        }

    def parse(self, data: Any) -> common.ModelTurn:
        return parse_chat_completion(data)

    def follow_up(
        self,
        body: dict[str, Any],
        turn: common.ModelTurn,
        results: list[tuple[common.ToolCall, ToolResult]],
        note: str | None,
        tools_left: bool,
    ) -> None:
        messages: list[dict[str, Any]] = body["messages"]
        messages.append(turn.assistant)
        messages.extend(
            {"role": "tool", "tool_call_id": call.id, "content": result.text}
            for call, result in results
        )
        if note is not None:
            messages.append({"role": "user", "content": note})
        if not tools_left:
            body["tool_choice"] = "none"

    def degrade(self, body: dict[str, Any], failure: common.HttpFailure) -> str | None:
        if "response_format" not in body:
            return None
        del body["response_format"]
        # The 400 may have another cause; then the retry fails too and is reported as is.
        return (
            f"HTTP 400 with response_format json_schema set ({failure}); asked again without "
            "it, the schema in the instructions only, the answer still validated"
        )


class OpenAIAgent(SdkAgent):
    import_sdk = staticmethod(import_sdk)
    wire = ChatWire
    vendor, client_class, base_error = "OpenAI", "AsyncOpenAI", "OpenAIError"

    def __init__(
        self,
        flavor: Flavor,
        model: str,
        endpoint: Endpoint,
        *,
        max_file_bytes: int = 1_000_000,
        prices: Mapping[str, Price] | None = None,
        limits: common.Limits | None = None,
    ) -> None:
        super().__init__(
            model,
            endpoint,
            provider="openai" if flavor == "openai" else None,
            max_file_bytes=max_file_bytes,
            prices=prices,
            limits=limits,
        )
        self.backend: str = flavor
        self.flavor = flavor
        self.family = "openai" if flavor == "openai" else family_of(model)
        local = endpoint.base_url is not None and common.is_loopback(endpoint.base_url)
        self.capabilities = Capabilities(
            structured_output=True,
            repo_tools=True,
            read_only_enforced=True,  # it is only ever offered read-only tools
            can_fix=False,
            needs_network=not local,
        )


def parse_chat_completion(data: Any) -> common.ModelTurn:
    """A Chat Completions body -> ModelTurn; WireError when it is not that shape."""
    if not isinstance(data, dict):
        raise common.WireError(f"expected a JSON object, got {type(data).__name__}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise common.WireError("no choices in the response")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise common.WireError("choices[0] holds no message")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise common.WireError("message content is not a string")
    refusal = message.get("refusal")
    calls: list[common.ToolCall] = []
    for raw in message.get("tool_calls") or []:
        function = raw.get("function") if isinstance(raw, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise common.WireError(f"malformed tool call: {raw!r:.200}")
        arguments = function.get("arguments", "")
        calls.append(
            common.ToolCall(
                id=str(raw.get("id") or f"call_{len(calls)}"),
                name=function["name"],
                arguments=arguments if isinstance(arguments, str | dict) else str(arguments),
            )
        )
    assistant: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        assistant["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments_text(call.arguments)},
            }
            for call in calls
        ]
    return common.ModelTurn(
        tool_calls=calls,
        usage=_usage(data.get("usage")),
        # A refusal stands in for the answer text, so the error shows what the model said.
        answer=None if calls else (content or (refusal if isinstance(refusal, str) else "")),
        assistant=assistant,
    )


def _usage(usage: Any) -> Usage | None:
    """Token counts, or None when the server reported none (some compatible servers)."""
    if not isinstance(usage, dict):
        return None
    tokens_in = usage.get("prompt_tokens")
    tokens_out = usage.get("completion_tokens")
    if not isinstance(tokens_in, int) or not isinstance(tokens_out, int):
        return None
    return Usage(tokens_in=tokens_in, tokens_out=tokens_out)


def _arguments_text(arguments: str | dict[str, Any]) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def endpoint_for(flavor: Flavor, settings: Settings) -> Endpoint:
    """Connection settings: config first, else the SDK's standard environment."""
    providers = settings.providers
    config: ProviderConfig = {
        "openai": providers.openai,
        "ollama": providers.ollama,
        "openai-compatible": providers.openai_compatible,
    }[flavor]
    key = _key_from_env(flavor, config.api_key_env)
    base_url = config.base_url
    if flavor == "ollama":
        base_url = base_url or OLLAMA_BASE_URL
        # Never the user's OPENAI_API_KEY: it must not travel to another host.
        key = key or PLACEHOLDER_KEY
    elif flavor == "openai-compatible":
        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        if base_url is None:
            raise UserError(
                "openai-compatible needs the server's base URL: set "
                "[providers.openai-compatible] base_url in config or OPENAI_BASE_URL"
            )
        key = key or os.environ.get("OPENAI_API_KEY") or PLACEHOLDER_KEY
    return Endpoint(base_url=base_url, api_key=key, headers=dict(config.extra_headers))


def _key_from_env(flavor: str, env_name: str | None) -> str | None:
    if env_name is None:
        return None
    value = os.environ.get(env_name)
    if not value:
        raise UserError(
            f"{flavor}: config names {env_name} as the API key variable, but it is not set"
        )
    return value


def create(arg: str | None, ctx: BackendContext) -> OpenAIAgent:
    """`openai:MODEL`."""
    return _create("openai", arg, ctx)


def create_ollama(arg: str | None, ctx: BackendContext) -> OpenAIAgent:
    """`ollama:MODEL`."""
    return _create("ollama", arg, ctx)


def create_compatible(arg: str | None, ctx: BackendContext) -> OpenAIAgent:
    """`openai-compatible:MODEL`."""
    return _create("openai-compatible", arg, ctx)


def _create(flavor: Flavor, model: str | None, ctx: BackendContext) -> OpenAIAgent:
    if not model:
        raise UserError(f"the {flavor} backend needs a model: --critic {flavor}:MODEL")
    import_sdk()  # fail at setup, naming the extra, not in the middle of a run
    return OpenAIAgent(
        flavor,
        model,
        endpoint_for(flavor, ctx.settings),
        max_file_bytes=ctx.settings.max_file_bytes,
        prices=ctx.settings.prices,
    )
