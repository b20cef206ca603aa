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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from contend.agents import api_common as common
from contend.agents.base import AgentReply, AgentRequest, Capabilities, Role, Usage
from contend.agents.families import family_of
from contend.agents.repo_tools import RepoTools, ToolResult, openai_tools
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


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where and how to connect; `api_key`/`base_url` None mean "the SDK's own env"."""

    base_url: str | None
    api_key: str | None
    headers: dict[str, str]


class OpenAIAgent:
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
        self.backend: str = flavor
        self.flavor = flavor
        self.model = model
        self.family = "openai" if flavor == "openai" else family_of(model)
        self.endpoint = endpoint
        self.max_file_bytes = max_file_bytes
        self.limits = limits or common.Limits()
        self.price = common.lookup_price(
            model, prices or {}, "openai" if flavor == "openai" else None
        )
        local = endpoint.base_url is not None and common.is_loopback(endpoint.base_url)
        self.capabilities = Capabilities(
            structured_output=True,
            repo_tools=True,
            read_only_enforced=True,  # it is only ever offered read-only tools
            can_fix=False,
            needs_network=not local,
        )

    async def run(self, request: AgentRequest) -> AgentReply:
        sdk = import_sdk()
        try:
            client = sdk.AsyncOpenAI(
                api_key=self.endpoint.api_key,
                base_url=self.endpoint.base_url,
                default_headers=self.endpoint.headers or None,
                max_retries=0,
                timeout=request.timeout_s,
            )
        except sdk.OpenAIError as exc:
            raise UserError(f"{self.backend}: cannot set up the OpenAI client: {exc}") from exc
        async with client:
            base_url = str(client.base_url)
            common.check_model_requests_allowed(base_url, backend=self.backend)
            wire = ChatWire(sdk, client, self.model, self.limits.max_response_bytes)
            loop = common.Loop(
                wire,
                request,
                backend=self.backend,
                model=self.model,
                base_url=base_url,
                tools=RepoTools(request.worktree, max_file_bytes=self.max_file_bytes),
                limits=self.limits,
                price=self.price,
            )
            return await loop.run()


class ChatWire:
    """The Chat Completions wire format, sent through the openai SDK."""

    def __init__(self, sdk: Any, client: Any, model: str, max_bytes: int) -> None:
        self.sdk = sdk
        self.client = client
        self.model = model
        self.max_bytes = max_bytes

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

    async def send(self, body: dict[str, Any], timeout_s: float) -> common.RawResponse:
        # The SDK's HTTP library: the SDK wraps its errors until the response starts, but a
        # connection that drops while the body is read raises httpx2's own error.
        import httpx2

        sdk = self.sdk
        try:
            async with self.client.chat.completions.with_streaming_response.create(
                **body, timeout=timeout_s
            ) as response:
                data, oversized = await common.read_capped(response.iter_bytes(), self.max_bytes)
                return common.RawResponse(response.http_response.status_code, data, oversized)
        except sdk.APIStatusError as exc:
            raise common.HttpFailure(
                f"HTTP {exc.status_code}: {exc.message}",
                status=exc.status_code,
                retry_after=common.retry_after_seconds(exc.response.headers),
                body=_body_text(exc.body),
            ) from exc
        except sdk.APIConnectionError as exc:  # includes the SDK's own timeout
            raise common.HttpFailure(f"connection failed: {exc}", status=None) from exc
        except httpx2.RequestError as exc:
            raise common.HttpFailure(
                f"connection failed while reading the response: {exc}",
                status=None,
                failure="malformed",
            ) from exc

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


def _body_text(body: object) -> str:
    if body is None:
        return ""
    return body if isinstance(body, str) else json.dumps(body, default=str)


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


def create(arg: str | None, settings: Settings, role: Role) -> OpenAIAgent:
    """Registry factory: arg is MODEL for "openai", "ollama:MODEL" / "openai-compatible:MODEL"
    for the other two."""
    flavor: Flavor = "openai"
    model = arg or ""
    for prefix in ("ollama", "openai-compatible"):
        if model.startswith(prefix + ":"):
            flavor = "ollama" if prefix == "ollama" else "openai-compatible"
            model = model[len(prefix) + 1 :]
            break
    if model in ("", "None"):
        raise UserError(f"the {flavor} backend needs a model: --critic {flavor}:MODEL")
    import_sdk()  # fail at setup, naming the extra, not in the middle of a run
    return OpenAIAgent(
        flavor,
        model,
        endpoint_for(flavor, settings),
        max_file_bytes=settings.max_file_bytes,
        prices=settings.prices,
    )
