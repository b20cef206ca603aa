"""A scripted fake model server on 127.0.0.1 that real agent clients and SDKs talk to.

It owns: a stdlib HTTP server in a background thread on a random free port, the capture of
every request (method, path, query, headers, body, parsed JSON) for assertions, a script
of turns per route, and three wire formats — the Anthropic Messages API (SSE stream or
plain JSON), the OpenAI Responses API (SSE stream) and the Gemini API
(streamGenerateContent?alt=sse or generateContent). It must never reach the network.

Usage:

    with FakeModelServer() as server:
        server.script(ANTHROPIC, Turn([ToolUse("StructuredOutput", {...})]))
        ... run `claude` with ANTHROPIC_BASE_URL=server.base_url ...
        assert server.requests_to(ANTHROPIC)[0].json["tools"] ...

Steps a script may hold (consumed in order, one per model request on that route):
    Turn(blocks, input_tokens, output_tokens)   a normal answer; blocks are Text / ToolUse
    HttpError(status, body)                      e.g. 429 or 500 with a JSON error body
    Garbage(data, status, content_type)          bytes that are not the wire format
    CutStream(turn, after_events)                the stream starts, then the connection drops
    Hang()                                       never answer (until the server closes)
A request on a route whose script is exhausted gets HTTP 500 and is counted in
`server.exhausted`, so a test can tell "the client asked more than scripted".

Adding a route (e.g. Chat Completions in another module):

    def chat_handler(server: FakeModelServer, request: CapturedRequest, reply: Reply) -> None:
        step = server.next_step(CHAT)            # or ignore the script entirely
        reply.json(200, {...}) / reply.sse([(event_name_or_None, payload), ...])
    server.routes[("POST", "/v1/chat/completions")] = chat_handler

A handler runs on the server's request thread; it must answer through `reply` exactly
once (json, raw, sse or hang). `server.answer_step(step, request, reply, render)` answers
the generic steps (HttpError, Garbage, CutStream, Hang, an exhausted script) for any
format, so a new handler only supplies `render(turn, body) -> [(event, payload), ...]`.
Paths are matched without the query string; a route path ending in "*" matches by prefix
(the longest wins), as Gemini puts the model name in the path.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

RouteKey = tuple[str, str]
ANTHROPIC: RouteKey = ("POST", "/v1/messages")
RESPONSES: RouteKey = ("POST", "/v1/responses")
CHAT: RouteKey = ("POST", "/v1/chat/completions")
# A path ending in "*" matches every path with that prefix (Gemini puts the model in it).
GEMINI: RouteKey = ("POST", "/v1beta/models/*")


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class ToolUse:
    """A tool call: Anthropic tool_use block, or a Responses function_call item."""

    name: str
    input: dict[str, Any]
    id: str | None = None


Block = Text | ToolUse


@dataclass(frozen=True)
class Turn:
    blocks: list[Block]
    input_tokens: int = 100
    output_tokens: int = 20


@dataclass(frozen=True)
class HttpError:
    status: int
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Garbage:
    data: bytes = b"\x00this is not the wire format{{{"
    status: int = 200
    content_type: str = "text/event-stream"


@dataclass(frozen=True)
class CutStream:
    """Send the first `after_events` events of `turn`, then drop the connection."""

    turn: Turn
    after_events: int = 2


@dataclass(frozen=True)
class Hang:
    pass


Step = Turn | HttpError | Garbage | CutStream | Hang


@dataclass(frozen=True)
class CapturedRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-cased names
    body: bytes
    json: Any  # parsed body, or None when it is empty or not JSON

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


SseEvent = tuple[str | None, Any]  # (event name or None, payload: dict or raw str)


class Reply:
    """How a handler answers one request. Exactly one answering call per request."""

    def __init__(self, http: BaseHTTPRequestHandler, closing: threading.Event) -> None:
        self._http = http
        self._closing = closing

    def raw(
        self,
        status: int,
        body: bytes,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> None:
        self._http.send_response(status)
        self._http.send_header("Content-Type", content_type)
        self._http.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self._http.send_header(name, value)
        self._http.end_headers()
        if self._http.command != "HEAD":
            self._http.wfile.write(body)

    def json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self.raw(status, json.dumps(payload).encode(), "application/json", headers)

    def sse(self, events: Iterable[SseEvent], *, cut_after: int | None = None) -> None:
        """Stream server-sent events; with `cut_after`, drop the connection after that many."""
        self._http.send_response(200)
        self._http.send_header("Content-Type", "text/event-stream")
        self._http.send_header("Cache-Control", "no-cache")
        self._http.send_header("Connection", "close")
        self._http.end_headers()
        self._http.close_connection = True
        for sent, (name, payload) in enumerate(events):
            if cut_after is not None and sent >= cut_after:
                break
            data = payload if isinstance(payload, str) else json.dumps(payload)
            chunk = (f"event: {name}\n" if name else "") + f"data: {data}\n\n"
            self._http.wfile.write(chunk.encode())
            self._http.wfile.flush()

    def hang(self) -> None:
        """Never answer: block until the server shuts down, then drop the connection."""
        self._http.close_connection = True
        self._closing.wait()


Handler = Callable[["FakeModelServer", CapturedRequest, Reply], None]
# A renderer turns a Turn into SSE events for one wire format.
Renderer = Callable[[Turn, dict[str, Any]], list[SseEvent]]


class _QuietOnHangUp(ThreadingHTTPServer):
    """A client that hangs up mid-answer is part of several tests (timeouts, size caps): count
    it instead of printing a traceback; any other handler error is still printed."""

    hang_ups = 0

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], ConnectionResetError | BrokenPipeError):
            type(self).hang_ups += 1
            return
        super().handle_error(request, client_address)


class FakeModelServer:
    """Threaded HTTP server on 127.0.0.1:<random port>; use as a context manager."""

    def __init__(self) -> None:
        self.requests: list[CapturedRequest] = []
        self.exhausted: list[CapturedRequest] = []
        self.routes: dict[RouteKey, Handler] = {
            ("HEAD", "/"): _head_ok,
            ("GET", "/"): _head_ok,
            ANTHROPIC: anthropic_messages,
            RESPONSES: openai_responses,
            GEMINI: gemini_generate,
        }
        self._scripts: dict[RouteKey, deque[Step]] = {}
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._ids = itertools.count(1)
        self._httpd = _QuietOnHangUp(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    # -- lifecycle -------------------------------------------------------------------
    def __enter__(self) -> FakeModelServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """http://127.0.0.1:PORT — no /v1 (what ANTHROPIC_BASE_URL wants)."""
        return f"http://127.0.0.1:{self.port}"

    # -- script ----------------------------------------------------------------------
    def script(self, route: RouteKey, *steps: Step) -> None:
        with self._lock:
            self._scripts.setdefault(route, deque()).extend(steps)

    def next_step(self, route: RouteKey) -> Step | None:
        with self._lock:
            queue = self._scripts.get(route)
            return queue.popleft() if queue else None

    def remaining(self, route: RouteKey) -> int:
        with self._lock:
            return len(self._scripts.get(route, ()))

    def new_id(self, prefix: str) -> str:
        return f"{prefix}_{next(self._ids):06d}"

    # -- captured requests -------------------------------------------------------------
    def requests_to(self, route: RouteKey) -> list[CapturedRequest]:
        with self._lock:
            return [r for r in self.requests if _matches(route, r.method, r.path)]

    def route_for(self, method: str, path: str) -> tuple[RouteKey, Handler] | None:
        """The handler for a request: an exact route first, then the longest prefix route."""
        handler = self.routes.get((method, path))
        if handler is not None:
            return (method, path), handler
        prefixes = [key for key in self.routes if _matches(key, method, path)]
        if not prefixes:
            return None
        key = max(prefixes, key=lambda k: len(k[1]))
        return key, self.routes[key]

    def all_bodies(self) -> str:
        with self._lock:
            return "\n".join(r.text for r in self.requests)

    # -- answering ---------------------------------------------------------------------
    def answer_step(
        self, step: Step | None, request: CapturedRequest, reply: Reply, render: Renderer
    ) -> None:
        """Answer `request` from `step`, rendering a Turn with `render`."""
        if step is None:
            with self._lock:
                self.exhausted.append(request)
            reply.json(500, _error_body("api_error", "fake server: script exhausted"))
        elif isinstance(step, Turn):
            reply.sse(render(step, _json_obj(request)))
        elif isinstance(step, CutStream):
            reply.sse(render(step.turn, _json_obj(request)), cut_after=step.after_events)
        elif isinstance(step, HttpError):
            kind = "rate_limit_error" if step.status == 429 else "api_error"
            body = step.body or _error_body(kind, f"fake server: HTTP {step.status}")
            reply.json(step.status, body, step.headers)
        elif isinstance(step, Garbage):
            reply.raw(step.status, step.data, step.content_type)
        else:
            reply.hang()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                try:
                    parsed: Any = json.loads(body) if body else None
                except ValueError:
                    parsed = None  # kept as raw bytes in `body`; tests see both
                captured = CapturedRequest(
                    method=self.command,
                    path=parts.path,
                    query=parse_qs(parts.query),
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                    json=parsed,
                )
                with server._lock:
                    server.requests.append(captured)
                found = server.route_for(self.command, parts.path)
                reply = Reply(self, server._closing)
                if found is None:
                    reply.json(404, _error_body("not_found_error", f"no route {parts.path}"))
                    return
                found[1](server, captured, reply)

            do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = _serve

            def log_message(self, format: str, *args: Any) -> None:
                return  # keep test output clean; every request is in server.requests

        return _Handler


def _matches(route: RouteKey, method: str, path: str) -> bool:
    if route[0] != method:
        return False
    if route[1].endswith("*"):
        return path.startswith(route[1][:-1])
    return route[1] == path


def _head_ok(server: FakeModelServer, request: CapturedRequest, reply: Reply) -> None:
    reply.raw(200, b"", "text/plain")


def _error_body(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _json_obj(request: CapturedRequest) -> dict[str, Any]:
    return request.json if isinstance(request.json, dict) else {}


# -- Anthropic Messages API ----------------------------------------------------------------


def anthropic_messages(server: FakeModelServer, request: CapturedRequest, reply: Reply) -> None:
    step = server.next_step(ANTHROPIC)
    body = _json_obj(request)
    if isinstance(step, Turn) and not body.get("stream", False):
        reply.json(200, anthropic_message(step, body, server.new_id("msg")))
        return
    server.answer_step(step, request, reply, lambda t, b: anthropic_events(t, b, server))


def anthropic_message(turn: Turn, body: dict[str, Any], msg_id: str) -> dict[str, Any]:
    """The non-streaming Messages API response for `turn`."""
    content: list[dict[str, Any]] = []
    for i, block in enumerate(turn.blocks):
        if isinstance(block, Text):
            content.append({"type": "text", "text": block.text})
        else:
            content.append(
                {
                    "type": "tool_use",
                    "id": block.id or f"toolu_{i:04d}",
                    "name": block.name,
                    "input": block.input,
                }
            )
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "fake-model"),
        "content": content,
        "stop_reason": _stop_reason(turn),
        "stop_sequence": None,
        "usage": {"input_tokens": turn.input_tokens, "output_tokens": turn.output_tokens},
    }


def anthropic_events(turn: Turn, body: dict[str, Any], server: FakeModelServer) -> list[SseEvent]:
    """The Messages API SSE stream for `turn`: text and tool_use blocks, usage at the end."""
    events: list[SseEvent] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": server.new_id("msg"),
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model", "fake-model"),
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": turn.input_tokens,
                        "output_tokens": 1,
                        "cache_creation_input_tokens": 0,
                        "cache_read_input_tokens": 0,
                    },
                },
            },
        ),
    ]
    for index, block in enumerate(turn.blocks):
        if isinstance(block, Text):
            start: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": part} for part in _chunks(block.text)]
        else:
            start = {
                "type": "tool_use",
                "id": block.id or server.new_id("toolu"),
                "name": block.name,
                "input": {},
            }
            deltas = [
                {"type": "input_json_delta", "partial_json": part}
                for part in _chunks(json.dumps(block.input))
            ]
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        events.extend(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": _stop_reason(turn), "stop_sequence": None},
                "usage": {"output_tokens": turn.output_tokens},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def _stop_reason(turn: Turn) -> str:
    return "tool_use" if any(isinstance(b, ToolUse) for b in turn.blocks) else "end_turn"


def _chunks(text: str, pieces: int = 20) -> Iterator[str]:
    """Split `text` into at most `pieces` deltas (at least 40 characters each), so a
    multi-megabyte reply stays a few events rather than hundreds of thousands."""
    if not text:
        yield ""
    size = max(40, -(-len(text) // pieces))
    for i in range(0, len(text), size):
        yield text[i : i + size]


# -- OpenAI Responses API ------------------------------------------------------------------


def openai_responses(server: FakeModelServer, request: CapturedRequest, reply: Reply) -> None:
    step = server.next_step(RESPONSES)
    server.answer_step(step, request, reply, lambda t, b: responses_events(t, b, server))


def responses_events(turn: Turn, body: dict[str, Any], server: FakeModelServer) -> list[SseEvent]:
    """The Responses API SSE stream for `turn`: message and function_call items, then usage."""
    response_id = server.new_id("resp")
    model = body.get("model", "fake-model")
    seq = itertools.count()
    envelope = {
        "id": response_id,
        "object": "response",
        "created_at": 1_700_000_000,
        "model": model,
        "status": "in_progress",
        "output": [],
    }
    events: list[SseEvent] = [
        (
            "response.created",
            {"type": "response.created", "sequence_number": next(seq), "response": envelope},
        ),
    ]
    done_items: list[dict[str, Any]] = []
    for index, block in enumerate(turn.blocks):
        if isinstance(block, Text):
            item_id = server.new_id("msg")
            added = {
                "id": item_id,
                "type": "message",
                "status": "in_progress",
                "role": "assistant",
                "content": [],
            }
            done = {
                **added,
                "status": "completed",
                "content": [{"type": "output_text", "text": block.text, "annotations": []}],
            }
            events.append(
                (
                    "response.output_item.added",
                    {
                        "type": "response.output_item.added",
                        "sequence_number": next(seq),
                        "output_index": index,
                        "item": added,
                    },
                )
            )
            for part in _chunks(block.text):
                events.append(
                    (
                        "response.output_text.delta",
                        {
                            "type": "response.output_text.delta",
                            "sequence_number": next(seq),
                            "item_id": item_id,
                            "output_index": index,
                            "content_index": 0,
                            "delta": part,
                        },
                    )
                )
        else:
            call_id = block.id or server.new_id("call")
            done = {
                "id": server.new_id("fc"),
                "type": "function_call",
                "status": "completed",
                "call_id": call_id,
                "name": block.name,
                "arguments": json.dumps(block.input),
            }
            events.append(
                (
                    "response.output_item.added",
                    {
                        "type": "response.output_item.added",
                        "sequence_number": next(seq),
                        "output_index": index,
                        "item": {**done, "status": "in_progress"},
                    },
                )
            )
        events.append(
            (
                "response.output_item.done",
                {
                    "type": "response.output_item.done",
                    "sequence_number": next(seq),
                    "output_index": index,
                    "item": done,
                },
            )
        )
        done_items.append(done)
    usage = {
        "input_tokens": turn.input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": turn.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": turn.input_tokens + turn.output_tokens,
    }
    events.append(
        (
            "response.completed",
            {
                "type": "response.completed",
                "sequence_number": next(seq),
                "response": {
                    **envelope,
                    "status": "completed",
                    "output": done_items,
                    "usage": usage,
                },
            },
        )
    )
    return events


# -- Gemini API (generateContent / streamGenerateContent) ----------------------------------


def gemini_generate(server: FakeModelServer, request: CapturedRequest, reply: Reply) -> None:
    """POST /v1beta/models/MODEL:streamGenerateContent?alt=sse, or :generateContent."""
    step = server.next_step(GEMINI)
    if isinstance(step, Turn) and not request.path.endswith(":streamGenerateContent"):
        reply.json(200, gemini_chunk(step, step.blocks, done=True))
        return
    server.answer_step(step, request, reply, lambda t, b: gemini_events(t))


def gemini_chunk(turn: Turn, blocks: list[Block], *, done: bool) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, Text):
            parts.append({"text": block.text})
        else:
            parts.append({"functionCall": {"name": block.name, "args": block.input}})
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": "fake-gemini"}
    if done:
        candidate["finishReason"] = "STOP"
        chunk["usageMetadata"] = {
            "promptTokenCount": turn.input_tokens,
            "candidatesTokenCount": turn.output_tokens,
            "totalTokenCount": turn.input_tokens + turn.output_tokens,
        }
    return chunk


def gemini_events(turn: Turn) -> list[SseEvent]:
    """The SSE stream (alt=sse): text in a few chunks, each function call whole, then usage."""
    events: list[SseEvent] = []
    for block in turn.blocks:
        if isinstance(block, Text):
            events.extend(
                (None, gemini_chunk(turn, [Text(part)], done=False)) for part in _chunks(block.text)
            )
        else:
            events.append((None, gemini_chunk(turn, [block], done=False)))
    events.append((None, gemini_chunk(turn, [], done=True)))
    return events
