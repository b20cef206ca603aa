"""What one agent call leaves in the ledger, for any planner (protocol/plan.py).

`record_call` turns the driver's reply into `agent_call` (model, family, tokens, cost,
wall time, bytes sent, the raw exchange) and, when the reply is unusable, `agent_failed`
with why; it parses a usable output with the caller's parser, so a reply whose output
does not fit its schema is recorded as malformed, never half-read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from contend.errors import ProtocolError
from contend.protocol import events as ev
from contend.protocol.event_types import AgentFailedData, Event, RawExchange
from contend.protocol.plan import Answered, Failed

T = TypeVar("T")
RAW_LIMIT = 256_000  # characters of one raw exchange the ledger keeps


def record_call(
    thread: str, reply: Answered | Failed, parse: Callable[[Any], T]
) -> tuple[T | None, list[Event]]:
    """The events of one agent call, and its parsed output (None: unusable)."""
    call = reply.request
    if isinstance(reply, Failed):
        failed: AgentFailedData = {
            "thread": thread,
            "role": call.role,
            "round": call.round,
            "backend": reply.backend,
            "model": reply.model,
            "error": reply.error,
            "failure": reply.failure,
            "retryable": reply.retryable,
            "timeout": reply.timeout,
        }
        if reply.status is not None:
            failed["status"] = reply.status
        return None, [ev.agent_failed(**failed)]
    parsed, error = None, reply.error
    if error is None:
        try:
            parsed = parse(reply.output)
        except ProtocolError as exc:
            error = str(exc)
    events: list[Event] = [
        ev.agent_call(
            thread=thread,
            role=call.role,
            round=call.round,
            backend=reply.backend,
            model=reply.model,
            family=reply.family,
            tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out,
            cost=reply.cost,
            wall_s=round(reply.wall_s, 6),
            bytes_sent=reply.bytes_sent,
            usable=error is None,
            exchange=bounded(reply.exchange),
        )
    ]
    if error is not None:
        events.append(
            ev.agent_failed(
                thread=thread,
                role=call.role,
                round=call.round,
                backend=reply.backend,
                model=reply.model,
                error=error,
                failure="malformed",
                malformed=True,
            )
        )
    return parsed, events


def bounded(exchange: RawExchange) -> RawExchange:
    """Keep the raw exchange in the ledger, but a 10 MB reply must not bloat every fold."""
    text = json.dumps(exchange, ensure_ascii=False, default=str)
    if len(text) <= RAW_LIMIT:
        return exchange
    return {"truncated": True, "bytes": len(text), "head": text[:RAW_LIMIT]}
