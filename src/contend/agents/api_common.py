"""The conversation loop every API-model backend shares, independent of the wire format.

    run_loop(wire, request, ...) -> AgentReply

It owns: the tool loop (the model asks for read-only repo tools, they run, results go back;
at most `Limits.tool_turns` rounds), structured output validated against the request's
schema with at most `Limits.repairs` repair turns (the validation error is sent back),
HTTP retries with backoff on 429/5xx/connection errors (Retry-After honoured, exponential
with a cap, at most `Limits.http_retries`), the overall deadline (`request.timeout_s`,
AgentTimeout on expiry), token and cost accounting, and the raw exchange for the ledger.

A `Wire` (one per vendor format, in the adapter modules) builds request bodies, sends one
body through the vendor SDK with the response read under a byte cap, and parses a response
into a ModelTurn. Nothing here imports a vendor SDK. Credentials are never recorded: the
exchange holds request bodies and response bodies only, no headers.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from contend.agents.base import AgentReply, AgentRequest, Usage
from contend.agents.prices import ModelPrice, Provider, builtin_price
from contend.agents.repo_tools import RepoTools, ToolResult
from contend.errors import AgentError, AgentTimeout, Failure, ProtocolError, UserError
from contend.protocol.event_types import HttpCallData, RawExchange, ToolCallData
from contend.protocol.reply_schemas import validate

if TYPE_CHECKING:
    from contend.config import Price

# The HTTP statuses of a model server worth another try later (rate limit, overload, a
# server error, a timeout): one list for every backend, API and CLI alike.
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
RESPONSE_HEAD_CHARS = 65_536  # how much of one response body the exchange keeps
ALLOW_ENV = "CONTEND_ALLOW_MODEL_REQUESTS"


@dataclass(frozen=True, slots=True)
class Limits:
    tool_turns: int = 8  # rounds of repo-tool calls before the model must answer
    repairs: int = 2  # extra turns for an answer that is not valid JSON for the schema
    http_retries: int = 4  # per model request, for 429/5xx/connection errors
    backoff_base_s: float = 1.0
    backoff_cap_s: float = 30.0
    max_response_bytes: int = 4_000_000


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str | dict[str, Any]


@dataclass(slots=True)
class ModelTurn:
    """One parsed model response. `answer` is the structured-answer attempt, if the turn
    holds one: the text of a final message, or the input of a forced answer tool."""

    tool_calls: list[ToolCall]
    usage: Usage | None  # None: the server reported no token counts
    answer: str | dict[str, Any] | None
    answer_call_id: str | None = None  # when the answer came as a tool call
    assistant: Any = None  # the assistant message to echo back, in the wire's own format


@dataclass(frozen=True, slots=True)
class RawResponse:
    status: int
    body: bytes
    oversized: bool  # reading stopped at the byte cap


class HttpFailure(Exception):
    """One failed HTTP exchange, as the adapter saw it through its SDK."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None,
        retry_after: float | None = None,
        body: str = "",
        failure: Failure | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        self.body = body
        # No status: the connection failed before an answer (unreachable), unless the
        # adapter says otherwise (a connection dropped mid-answer is a broken reply).
        self.failure: Failure = failure or ("http_status" if status is not None else "unreachable")

    @property
    def retryable(self) -> bool:
        return self.status is None or self.status in RETRYABLE_STATUS


class WireError(Exception):
    """A response body that is not the wire format (garbage, truncated, wrong shape)."""


class Wire(Protocol):
    """What differs between vendor formats; the loop owns everything else."""

    def first_body(self, request: AgentRequest) -> dict[str, Any]: ...

    async def send(self, body: dict[str, Any], timeout_s: float) -> RawResponse:
        """POST `body`; raise HttpFailure for an HTTP error or a connection failure."""
        ...

    def parse(self, data: Any) -> ModelTurn:
        """Parse a decoded JSON body; raise WireError when it is not the expected shape."""
        ...

    def follow_up(
        self,
        body: dict[str, Any],
        turn: ModelTurn,
        results: list[tuple[ToolCall, ToolResult]],
        note: str | None,
        tools_left: bool,
    ) -> None:
        """Append the assistant turn, the tool results and `note` (a repair request) to
        `body`; with `tools_left` False the next turn must answer, not call repo tools."""
        ...

    def degrade(self, body: dict[str, Any], failure: HttpFailure) -> str | None:
        """On an HTTP 400, drop an optional feature the server may not support and say
        what was dropped (recorded in the exchange); None when there is nothing to drop."""
        ...


@dataclass(slots=True)
class Exchange:
    """The raw exchange of one run, as it goes to the ledger."""

    backend: str
    model: str
    base_url: str
    calls: list[HttpCallData] = field(default_factory=list)
    tools: list[ToolCallData] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    def record(
        self,
        body: dict[str, Any],
        *,
        status: int | None,
        response: bytes | str,
        wall_s: float,
        error: str | None = None,
        oversized: bool = False,
    ) -> None:
        text = (
            response.decode("utf-8", errors="replace") if isinstance(response, bytes) else response
        )
        entry: HttpCallData = {
            "request": copy.deepcopy(body),
            "status": status,
            "response": text[:RESPONSE_HEAD_CHARS],
            "response_bytes": len(response),
            "at_s": round(time.perf_counter() - self.started - wall_s, 6),  # since run start
            "wall_s": round(wall_s, 6),
        }
        if len(text) > RESPONSE_HEAD_CHARS or oversized:
            entry["response_cut"] = True
        if error is not None:
            entry["error"] = error
        self.calls.append(entry)

    def as_dict(self, price: ModelPrice | None, usage: Usage) -> RawExchange:
        # Summary keys first: the ledger keeps only the head of a very large exchange.
        return {
            "backend": self.backend,
            "model": self.model,
            "base_url": self.base_url,
            "cost_known": price is not None,
            "price": None
            if price is None
            else {
                "input_per_mtok": price.input_per_mtok,
                "output_per_mtok": price.output_per_mtok,
                "source": price.source,
            },
            "tokens_in": usage.tokens_in,
            "tokens_out": usage.tokens_out,
            "notes": self.notes,
            "tool_calls": self.tools,
            "calls": self.calls,
        }


def lookup_price(
    model: str, prices: Mapping[str, Price], provider: Provider | None
) -> ModelPrice | None:
    """The user's configured price for `model` (always wins), else the built-in one for a
    first-party provider, else None (cost unknown)."""
    configured = prices.get(model)
    if configured is not None:
        return ModelPrice(configured.input_per_mtok, configured.output_per_mtok, source="config")
    return builtin_price(provider, model) if provider is not None else None


def check_model_requests_allowed(base_url: str, *, backend: str) -> None:
    """Refuse a non-loopback endpoint when CONTEND_ALLOW_MODEL_REQUESTS is off (the test
    suite turns it off, so no test can reach a real model by accident)."""
    flag = os.environ.get(ALLOW_ENV, "").strip().lower()
    if flag in ("0", "false", "no") and not is_loopback(base_url):
        raise UserError(
            f"{backend}: model requests to {base_url} are disabled ({ALLOW_ENV}={flag}); "
            "only 127.0.0.1 / localhost endpoints are allowed"
        )


def is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """Seconds the server asks to wait: `retry-after-ms`, or `retry-after` in seconds or
    as an HTTP date; None when absent or unreadable (then exponential backoff applies)."""
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = _number(lowered.get("retry-after-ms"))
    if millis is not None:
        return max(0.0, millis / 1000)
    value = lowered.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return max(0.0, seconds)
    try:
        when = parsedate_to_datetime(value)
    # contend: allow silent-fallback -- an unreadable Retry-After means plain backoff
    except (TypeError, ValueError):
        return None  # unreadable: the caller's exponential backoff applies
    return max(0.0, when.timestamp() - time.time())


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text)
    # contend: allow silent-fallback -- None: not a number; the caller tries the date form
    except ValueError:
        return None


async def read_capped(chunks: Any, cap: int) -> tuple[bytes, bool]:
    """Read an async byte iterator up to `cap` bytes; (data, True) when it had more."""
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        parts.append(chunk)
        size += len(chunk)
        if size > cap:
            return b"".join(parts)[:cap], True
    return b"".join(parts), False


def schema_instructions(schema: dict[str, Any]) -> str:
    return (
        "When you are done, your final answer must be one JSON object (no prose, no code "
        "fence) that validates against this JSON Schema:\n"
        + json.dumps(schema, separators=(",", ":"))
    )


TOOLS_NOTE = (
    "You can read the repository under review with the tools read_file, grep and list_dir "
    "(read-only; paths are relative to the repository root). Use them to check evidence "
    "before you answer."
)


class Loop:
    """One run of the conversation loop for one request."""

    def __init__(
        self,
        wire: Wire,
        request: AgentRequest,
        *,
        backend: str,
        model: str,
        base_url: str,
        tools: RepoTools,
        limits: Limits,
        price: ModelPrice | None,
    ) -> None:
        self.wire = wire
        self.request = request
        self.backend = backend
        self.tools = tools
        self.limits = limits
        self.price = price
        self.exchange = Exchange(backend=backend, model=model, base_url=base_url)
        self.tokens_in = 0
        self.tokens_out = 0
        self.started = time.perf_counter()
        self.deadline = time.monotonic() + request.timeout_s

    async def run(self) -> AgentReply:
        try:
            async with asyncio.timeout(self.request.timeout_s) as scope:
                return await self._converse()
        except TimeoutError:
            if not scope.expired():
                raise  # some other timeout, not our deadline: not ours to relabel
            raise AgentTimeout(
                f"{self.backend}: no answer within the {self.request.timeout_s:g}s deadline "
                f"({len(self.exchange.calls)} requests made)",
                backend=self.backend,
            ) from None

    async def _converse(self) -> AgentReply:
        body = self.wire.first_body(self.request)
        tool_turns = 0
        repairs = 0
        while True:
            raw = await self._send(body)
            if raw.oversized:
                return self._reply(
                    None,
                    "",
                    f"response larger than {self.limits.max_response_bytes} bytes; reading "
                    "stopped there",
                )
            try:
                turn = self.wire.parse(json.loads(raw.body))
            except (ValueError, RecursionError, WireError) as exc:  # RecursionError: "[[[[…"
                text = raw.body.decode("utf-8", errors="replace")
                return self._reply(None, text, f"response is not a valid API response: {exc}")
            if turn.usage is None:
                self.exchange.notes.append(
                    f"response {len(self.exchange.calls)} reported no token usage; counted as 0"
                )
            else:
                self.tokens_in += turn.usage.tokens_in
                self.tokens_out += turn.usage.tokens_out
            results: list[tuple[ToolCall, ToolResult]] = []
            allowed = tool_turns < self.limits.tool_turns
            if turn.tool_calls:
                results = await self._run_tools(turn.tool_calls, allowed=allowed)
                tool_turns += 1
            tools_left = tool_turns < self.limits.tool_turns
            if turn.answer is None and results and allowed:
                self.wire.follow_up(body, turn, results, None, tools_left)
                continue
            output, problem = self._check(turn.answer)
            if turn.answer is None and results:
                problem = "tool calls after the tool budget was used up instead of an answer"
            if output is not None:
                return self._reply(output, _answer_text(turn.answer), None)
            if repairs >= self.limits.repairs:
                return self._reply(
                    None,
                    _answer_text(turn.answer),
                    f"no valid answer after {repairs + 1} attempts; last: {problem}",
                )
            repairs += 1
            self.exchange.notes.append(f"repair {repairs}: {problem}")
            note = (
                f"Your answer was rejected: {problem}. Answer again with one JSON object that "
                "validates against the schema."
            )
            self.wire.follow_up(body, turn, results, note, tools_left)

    def _check(self, answer: str | dict[str, Any] | None) -> tuple[dict[str, Any] | None, str]:
        if answer is None:
            return None, "the turn held neither an answer nor a tool call"
        value: Any = answer
        if isinstance(answer, str):
            try:
                value = json.loads(_strip_fence(answer))
            except (json.JSONDecodeError, RecursionError) as exc:
                return None, f"the answer is not valid JSON ({exc or 'nested too deeply'})"
        try:
            return validate(value, self.request.schema, what="answer"), ""
        except ProtocolError as exc:
            return None, str(exc)

    async def _run_tools(
        self, calls: list[ToolCall], *, allowed: bool
    ) -> list[tuple[ToolCall, ToolResult]]:
        results: list[tuple[ToolCall, ToolResult]] = []
        for call in calls:
            if not allowed:
                result = ToolResult(
                    "error: the tool-call budget is used up; answer now", is_error=True
                )
            elif call.name not in self.tools.names:
                result = ToolResult(f"error: unknown tool {call.name!r}", is_error=True)
            else:
                # A worker thread, so a slow grep cannot stall other threads' event loop.
                result = await asyncio.to_thread(self.tools.call, call.name, call.arguments)
            self.exchange.tools.append(
                {
                    "name": call.name,
                    "arguments": call.arguments,
                    "is_error": result.is_error,
                    "result_chars": len(result.text),
                    "result_head": result.text[:2_000],
                }
            )
            results.append((call, result))
        return results

    async def _send(self, body: dict[str, Any]) -> RawResponse:
        attempt = 0
        while True:
            remaining = self.deadline - time.monotonic()
            started = time.perf_counter()
            try:
                # The SDK's own timeout is a backstop only: the deadline above must win,
                # so that a hang is reported as AgentTimeout and not as a connection error.
                raw = await self.wire.send(body, max(remaining, 0.0) + 1.0)
            except HttpFailure as failure:
                self.exchange.record(
                    body,
                    status=failure.status,
                    response=failure.body,
                    wall_s=time.perf_counter() - started,
                    error=str(failure),
                )
                if failure.status == 400:
                    dropped = self.wire.degrade(body, failure)
                    if dropped is not None:
                        self.exchange.notes.append(dropped)
                        continue
                if not failure.retryable:
                    raise AgentError(
                        f"{self.backend}: {failure}",
                        backend=self.backend,
                        retryable=False,
                        failure=failure.failure,
                        status=failure.status,
                    ) from failure
                if attempt >= self.limits.http_retries:
                    raise AgentError(
                        f"{self.backend}: {failure} (gave up after {attempt + 1} attempts)",
                        backend=self.backend,
                        retryable=True,
                        failure=failure.failure,
                        status=failure.status,
                    ) from failure
                delay = self._backoff(attempt, failure.retry_after)
                if delay >= self.deadline - time.monotonic():
                    raise AgentError(
                        f"{self.backend}: {failure}; the next retry ({delay:.1f}s) would pass "
                        "the deadline",
                        backend=self.backend,
                        retryable=True,
                        failure=failure.failure,
                        status=failure.status,
                    ) from failure
                self.exchange.notes.append(
                    f"attempt {attempt + 1}: {failure}; retrying in {delay:.2f}s"
                )
                attempt += 1
                await asyncio.sleep(delay)
                continue
            self.exchange.record(
                body,
                status=raw.status,
                response=raw.body,
                wall_s=time.perf_counter() - started,
                oversized=raw.oversized,
            )
            return raw

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return retry_after
        ceiling = min(self.limits.backoff_cap_s, self.limits.backoff_base_s * 2.0**attempt)
        return ceiling * (0.5 + random.random() / 2)  # jitter spreads threads apart

    def _reply(self, output: dict[str, Any] | None, raw_text: str, error: str | None) -> AgentReply:
        usage = Usage(tokens_in=self.tokens_in, tokens_out=self.tokens_out)
        cost = self.price.cost(usage.tokens_in, usage.tokens_out) if self.price else 0.0
        return AgentReply(
            output=output,
            raw_text=raw_text,
            usage=usage,
            cost=cost,
            wall_s=time.perf_counter() - self.started,
            exchange=self.exchange.as_dict(self.price, usage),
            error=error,
        )


def _answer_text(answer: str | dict[str, Any] | None) -> str:
    if answer is None:
        return ""
    return answer if isinstance(answer, str) else json.dumps(answer)


def _strip_fence(text: str) -> str:
    """Models often wrap JSON in a ```json fence despite being told not to; the fence is
    presentation, not content, so it is removed before parsing (nothing else is)."""
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```"):
        first_newline = stripped.find("\n")
        if first_newline != -1:
            return stripped[first_newline + 1 : -3].strip()
    return stripped
