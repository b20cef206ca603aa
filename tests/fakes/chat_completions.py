"""The OpenAI Chat Completions route for the fake model server (tests/fakes/model_server.py).

    install(server)                        # adds the route to any FakeModelServer
    with ChatServer() as server:           # the same, and a 50 ms shutdown instead of 0.5 s
        server.script(CHAT, Turn([ToolUse("read_file", {"path": "a.py"})]), Turn([Text("{}")]))

A Turn becomes one assistant message: Text blocks are joined into `content`, ToolUse blocks
become `tool_calls` (function calls with JSON-encoded arguments). A request with
`"stream": true` gets the SSE chunk stream (deltas, then a usage chunk when
`stream_options.include_usage` is set, then `[DONE]`); otherwise one JSON body. The generic
steps (HttpError, Garbage, CutStream, Hang) behave as on every other route.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any, cast

from fakes.model_server import (
    CHAT,
    CapturedRequest,
    FakeModelServer,
    Reply,
    SseEvent,
    Step,
    Text,
    ToolUse,
    Turn,
)

CREATED = 1_700_000_000


def install(server: FakeModelServer) -> FakeModelServer:
    server.routes[CHAT] = chat_completions
    return server


class ChatServer(FakeModelServer):
    """The fake server with the Chat Completions route installed and a faster shutdown.

    The base class runs `serve_forever` with its default 0.5 s poll, so every test's
    teardown waited up to 0.5 s; this replaces the (not yet started) server thread with one
    that polls every 50 ms. Only the thread is replaced; routes and capture are the base's.
    """

    def __init__(self) -> None:
        super().__init__()
        install(self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def script_chat(self, *steps: Step | DropMidBody) -> None:
        """Like `script(CHAT, ...)`, also accepting the steps only this route understands."""
        # The base class queues steps without looking at them; only chat_completions reads
        # them back, and it handles DropMidBody before anything else sees it.
        self.script(CHAT, *cast("list[Step]", list(steps)))


def _drop_mid_body(reply: Reply, step: DropMidBody) -> None:
    # Reply has no "lie about the length" call, so this writes to the handler directly.
    http = reply._http
    http.send_response(200)
    http.send_header("Content-Type", "application/json")
    http.send_header("Content-Length", str(step.declared))
    http.end_headers()
    http.wfile.write(step.data)
    http.wfile.flush()
    http.close_connection = True


@dataclass(frozen=True)
class DropMidBody:
    """Promise `declared` bytes of JSON, send `data`, then close: the client sees the
    connection drop while it reads the body (a step only this route understands)."""

    data: bytes = b'{"id": "chatcmpl_cut", "choi'
    declared: int = 1_000


def chat_completions(server: FakeModelServer, request: CapturedRequest, reply: Reply) -> None:
    step: Step | DropMidBody | None = server.next_step(CHAT)
    body = request.json if isinstance(request.json, dict) else {}
    if isinstance(step, DropMidBody):
        _drop_mid_body(reply, step)
        return
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
