"""What an agent call leaves in the ledger of its raw exchange (protocol/calls.py): whole up
to RAW_LIMIT characters of JSON, beyond that a marked head, so a 10 MB reply cannot bloat
every fold of the ledger — and a reply at the limit is never cut."""

from __future__ import annotations

import json

from contend.protocol.calls import RAW_LIMIT, record_call
from contend.protocol.event_types import RawExchange
from contend.protocol.plan import Answered, Call

CALL = Call(
    agent="critic",
    role="critic",
    thread="C1",
    round=1,
    system="s",
    prompt="p",
    schema={},
)


def exchange_of_length(length: int) -> RawExchange:
    """An exchange whose JSON text (as the ledger measures it) is exactly `length` chars."""
    empty = json.dumps({"request": {}, "response": ""}, ensure_ascii=False)
    return {"request": {}, "response": "x" * (length - len(empty))}


def recorded(exchange: RawExchange) -> object:
    reply = Answered(
        CALL,
        backend="scripted",
        model="m",
        family="f",
        output={"answers": []},
        raw_text="{}",
        error=None,
        exchange=exchange,
    )
    _parsed, events = record_call("C1", reply, lambda output: output)
    return events[0]["data"]["exchange"]


def test_an_exchange_at_the_limit_is_kept_whole() -> None:
    exchange = exchange_of_length(RAW_LIMIT)
    assert len(json.dumps(exchange, ensure_ascii=False)) == RAW_LIMIT
    assert recorded(exchange) == exchange


def test_an_exchange_over_the_limit_keeps_a_marked_head_and_its_length() -> None:
    exchange = exchange_of_length(RAW_LIMIT + 1)
    text = json.dumps(exchange, ensure_ascii=False)
    assert recorded(exchange) == {
        "truncated": True,
        "bytes": RAW_LIMIT + 1,
        "head": text[:RAW_LIMIT],
    }
