"""Anthropic models as agents (`anthropic:MODEL`), through the official `anthropic` SDK
(the optional extra `anthropic`, imported only when a run starts). Family "anthropic".

Structured output is a forced tool call: besides the read-only repo tools, the model is
offered `submit_answer`, whose input schema is the request's schema, and `tool_choice` is
"any", so every turn is either a repo tool call or the answer. When the tool budget is used
up, `submit_answer` itself is forced. The answer is validated again here; a broken one is
sent back as the tool's error result (a repair turn).

Key: the variable named by [providers.anthropic] api_key_env, else the SDK's own
ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN; base URL: config, else ANTHROPIC_BASE_URL. The SDK's
retries are off (api_common owns retries, deadlines and the byte cap); the Messages API is
called without streaming and the body is read under a byte cap.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from contend.agents import api_common as common
from contend.agents.api_sdk import Endpoint, SdkAgent, SdkWire
from contend.agents.base import AgentRequest, BackendContext, Capabilities, Usage
from contend.agents.repo_tools import ToolResult, anthropic_tools
from contend.errors import UserError

if TYPE_CHECKING:
    from contend.config import Price

SUBMIT = "submit_answer"
MAX_TOKENS = 8_192
MISSING_EXTRA = (
    "the anthropic backend needs the 'anthropic' extra: pip install 'contend[anthropic]'"
)


def import_sdk() -> Any:
    try:
        import anthropic
    except ImportError as exc:
        raise UserError(MISSING_EXTRA) from exc
    return anthropic


class MessagesWire(SdkWire):
    """The Messages API wire format, sent through the anthropic SDK."""

    resource = ("messages",)

    def first_body(self, request: AgentRequest) -> dict[str, Any]:
        submit = {
            "name": SUBMIT,
            "description": "Submit your final answer. Its input is the answer itself.",
            "input_schema": request.schema,
        }
        system = "\n\n".join(
            [
                request.system,
                common.TOOLS_NOTE,
                f"When you are done, call {SUBMIT} once with your answer as its input.",
            ]
        )
        return {
            "model": self.model,
            "max_tokens": MAX_TOKENS,
            "system": system,
            "messages": [{"role": "user", "content": request.prompt}],
            "tools": [*anthropic_tools(), submit],
            "tool_choice": {"type": "any"},
        }

    async def send(self, body: dict[str, Any], timeout_s: float) -> common.RawResponse:
        try:
            return await super().send(body, timeout_s)
        except TypeError as exc:
            # The SDK resolves credentials lazily and reports none found as a TypeError.
            if "authentication" not in str(exc):
                raise
            raise UserError(
                "anthropic: no credentials: set ANTHROPIC_API_KEY, or name the variable that "
                f"holds the key in [providers.anthropic] api_key_env ({exc})"
            ) from exc

    def parse(self, data: Any) -> common.ModelTurn:
        return parse_message(data)

    def follow_up(
        self,
        body: dict[str, Any],
        turn: common.ModelTurn,
        results: list[tuple[common.ToolCall, ToolResult]],
        note: str | None,
        tools_left: bool,
    ) -> None:
        content: list[dict[str, Any]] = [
            {
                "type": "tool_result",
                "tool_use_id": call.id,
                "content": result.text,
                "is_error": result.is_error,
            }
            for call, result in results
        ]
        if note is not None and turn.answer_call_id is not None:
            # Every tool_use needs its tool_result: the rejected answer gets the reason.
            content.append(
                {
                    "type": "tool_result",
                    "tool_use_id": turn.answer_call_id,
                    "content": note,
                    "is_error": True,
                }
            )
        elif note is not None:
            content.append({"type": "text", "text": note})
        body["messages"].append(turn.assistant)
        body["messages"].append({"role": "user", "content": content})
        if not tools_left:
            body["tool_choice"] = {"type": "tool", "name": SUBMIT}

    def degrade(self, body: dict[str, Any], failure: common.HttpFailure) -> str | None:
        return None  # nothing optional is sent: a 400 is a real error


class AnthropicAgent(SdkAgent):
    backend = "anthropic"
    family = "anthropic"
    import_sdk = staticmethod(import_sdk)
    wire = MessagesWire
    vendor, client_class, base_error = "Anthropic", "AsyncAnthropic", "AnthropicError"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        headers: dict[str, str] | None = None,
        max_file_bytes: int = 1_000_000,
        prices: Mapping[str, Price] | None = None,
        limits: common.Limits | None = None,
    ) -> None:
        super().__init__(
            model,
            Endpoint(base_url=base_url, api_key=api_key, headers=headers or {}),
            provider="anthropic",
            max_file_bytes=max_file_bytes,
            prices=prices,
            limits=limits,
        )
        self.capabilities = Capabilities(
            structured_output=True, repo_tools=True, read_only_enforced=True, can_fix=False
        )


def parse_message(data: Any) -> common.ModelTurn:
    """A Messages API body -> ModelTurn; WireError when it is not that shape."""
    if not isinstance(data, dict) or data.get("type") != "message":
        raise common.WireError("not a Messages API message")
    blocks = data.get("content")
    if not isinstance(blocks, list):
        raise common.WireError("message content is not a list")
    calls: list[common.ToolCall] = []
    texts: list[str] = []
    answer: dict[str, Any] | str | None = None
    answer_id: str | None = None
    for block in blocks:
        if not isinstance(block, dict):
            raise common.WireError(f"malformed content block: {block!r:.200}")
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "tool_use":
            name, call_id, tool_input = block.get("name"), block.get("id"), block.get("input")
            if not isinstance(name, str) or not isinstance(call_id, str):
                raise common.WireError(f"malformed tool_use block: {block!r:.200}")
            if name == SUBMIT and answer_id is None:
                # A non-object input is kept as JSON text, so validation names the break.
                answer = tool_input if isinstance(tool_input, dict) else json.dumps(tool_input)
                answer_id = call_id
            else:
                arguments = tool_input if isinstance(tool_input, dict) else json.dumps(tool_input)
                calls.append(common.ToolCall(call_id, name, arguments))
    return common.ModelTurn(
        tool_calls=calls,
        usage=_usage(data.get("usage")),
        answer=answer,
        answer_call_id=answer_id,
        assistant={"role": "assistant", "content": blocks},
    )


def _usage(usage: Any) -> Usage | None:
    if not isinstance(usage, dict):
        return None
    tokens_in, tokens_out = usage.get("input_tokens"), usage.get("output_tokens")
    if not isinstance(tokens_in, int) or not isinstance(tokens_out, int):
        return None
    cached = sum(
        value
        for key in ("cache_creation_input_tokens", "cache_read_input_tokens")
        if isinstance(value := usage.get(key), int)
    )
    return Usage(tokens_in=tokens_in + cached, tokens_out=tokens_out)


def create(arg: str | None, ctx: BackendContext) -> AnthropicAgent:
    """`anthropic:MODEL`, for any role (as proposer it answers without editing)."""
    settings = ctx.settings
    if not arg:
        raise UserError("the anthropic backend needs a model: --critic anthropic:MODEL")
    config = settings.providers.anthropic
    api_key: str | None = None
    if config.api_key_env is not None:
        api_key = os.environ.get(config.api_key_env)
        if not api_key:
            raise UserError(
                f"anthropic: config names {config.api_key_env} as the API key variable, "
                "but it is not set"
            )
    import_sdk()  # fail at setup, naming the extra, not in the middle of a run
    return AnthropicAgent(
        arg,
        base_url=config.base_url,
        api_key=api_key,
        headers=dict(config.extra_headers),
        max_file_bytes=settings.max_file_bytes,
        prices=settings.prices,
    )
