"""The OpenAI Chat Completions route for the fake model server (tests/fakes/model_server.py).

    server = FakeModelServer(); install(server)
    server.script(CHAT, Turn([ToolUse("read_file", {"path": "a.py"})]), Turn([Text("{...}")]))

A Turn becomes one assistant message: Text blocks are joined into `content`, ToolUse blocks
become `tool_calls` (function calls with JSON-encoded arguments). A request with
`"stream": true` gets the SSE chunk stream (deltas, then a usage chunk when
`stream_options.include_usage` is set, then `[DONE]`); otherwise one JSON body. The generic
steps (HttpError, Garbage, CutStream, Hang) behave as on every other route.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.model_server import (
    CHAT,
    CapturedRequest,
    FakeModelServer,
    Reply,
    SseEvent,
    Text,
    ToolUse,
    Turn,
)

CREATED = 1_700_000_000


def install(server: FakeModelServer) -> FakeModelServer:
    server.routes[CHAT] = chat_completions
    return server


def chat_completions(server: FakeModelServer, request: CapturedRequest, reply: Reply) -> None:
    step = server.next_step(CHAT)
    body = request.json if isinstance(request.json, dict) else {}
    if isinstance(step, Turn) and not body.get("stream", False):
        reply.json(200, chat_completion(step, body, server.new_id("chatcmpl")))
        return
    server.answer_step(step, request, reply, lambda t, b: chat_chunks(t, b, server))


def _tool_calls(turn: Turn) -> list[dict[str, Any]]:
    return [
        {
            "id": block.id or f"call_{index:04d}",
            "type": "function",
            "function": {"name": block.name, "arguments": json.dumps(block.input)},
        }
        for index, block in enumerate(turn.blocks)
        if isinstance(block, ToolUse)
    ]


def _content(turn: Turn) -> str | None:
    texts = [block.text for block in turn.blocks if isinstance(block, Text)]
    return "".join(texts) if texts else None


def _usage(turn: Turn) -> dict[str, int]:
    return {
        "prompt_tokens": turn.input_tokens,
        "completion_tokens": turn.output_tokens,
        "total_tokens": turn.input_tokens + turn.output_tokens,
    }


def chat_completion(turn: Turn, body: dict[str, Any], completion_id: str) -> dict[str, Any]:
    """The non-streaming Chat Completions response for `turn`."""
    calls = _tool_calls(turn)
    message: dict[str, Any] = {"role": "assistant", "content": _content(turn), "refusal": None}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": CREATED,
        "model": body.get("model", "fake-model"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": _usage(turn),
    }


def chat_chunks(turn: Turn, body: dict[str, Any], server: FakeModelServer) -> list[SseEvent]:
    """The streaming Chat Completions chunks for `turn`, ending with `[DONE]`."""
    chunk_id = server.new_id("chatcmpl")
    model = body.get("model", "fake-model")

    def chunk(delta: dict[str, Any], finish: str | None = None) -> SseEvent:
        return (
            None,
            {
                "id": chunk_id,
                "object": "chat.completion.chunk",
                "created": CREATED,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            },
        )

    events: list[SseEvent] = [chunk({"role": "assistant", "content": ""})]
    content = _content(turn)
    if content:
        step = max(40, len(content) // 20 + 1)
        events.extend(
            chunk({"content": content[i : i + step]}) for i in range(0, len(content), step)
        )
    for index, call in enumerate(_tool_calls(turn)):
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": call["function"]["name"], "arguments": ""},
                        }
                    ]
                }
            )
        )
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {"index": index, "function": {"arguments": call["function"]["arguments"]}}
                    ]
                }
            )
        )
    events.append(chunk({}, "tool_calls" if _tool_calls(turn) else "stop"))
    options = body.get("stream_options")
    if isinstance(options, dict) and options.get("include_usage"):
        events.append(
            (
                None,
                {
                    "id": chunk_id,
                    "object": "chat.completion.chunk",
                    "created": CREATED,
                    "model": model,
                    "choices": [],
                    "usage": _usage(turn),
                },
            )
        )
    events.append((None, "[DONE]"))
    return events
