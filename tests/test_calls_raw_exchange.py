"""What an agent call leaves in the ledger of its raw exchange (protocol/calls.py): whole up
to RAW_LIMIT characters of JSON, beyond that a marked head, so a 10 MB reply cannot bloat
every fold of the ledger — and a reply at the limit is never cut."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from contend.errors import ProtocolError
from contend.protocol.calls import RAW_LIMIT, record_call
from contend.protocol.event_types import RawExchange
from contend.protocol.plan import Answered, Call, Failed

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


def answered(exchange: RawExchange, **fields: Any) -> Answered:
    """A usable reply of the scripted backend carrying `exchange` (and any field given)."""
    base: dict[str, Any] = {
        "backend": "scripted",
        "model": "m",
        "family": "f",
        "output": {"answers": []},
        "raw_text": "{}",
        "error": None,
        "exchange": exchange,
    }
    return Answered(CALL, **{**base, **fields})


def recorded(exchange: RawExchange) -> object:
    _parsed, events = record_call("C1", answered(exchange), lambda output: output)
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


def test_the_limit_counts_characters_not_ascii_escapes() -> None:
    """Non-ASCII text is measured as written (`ensure_ascii=False`): an exchange of RAW_LIMIT
    characters of "é" is kept whole; escaped as `\\u00e9` it would be six times longer."""
    empty = json.dumps({"request": {}, "response": ""}, ensure_ascii=False)
    exchange: RawExchange = {"request": {}, "response": "é" * (RAW_LIMIT - len(empty))}
    assert recorded(exchange) == exchange
    over: RawExchange = {"request": {}, "response": "é" * (RAW_LIMIT + 1 - len(empty))}
    head = recorded(over)
    assert isinstance(head, dict) and head["truncated"] is True
    text = json.dumps(over, ensure_ascii=False)
    assert head["bytes"] == RAW_LIMIT + 1 and head["head"] == text[:RAW_LIMIT]


def test_a_reply_that_does_not_parse_is_recorded_as_a_malformed_failure() -> None:
    """The call is kept (with its exchange) and an `agent_failed` of kind malformed follows:
    the fold counts it as a malformed turn, never as an answer."""
    reply = answered({"request": {}, "response": "{}"}, output={"answers": "not a list"})

    def parse(output: object) -> object:
        raise ProtocolError("answers must be a list")

    parsed, events = record_call("C1", reply, parse)
    assert parsed is None
    assert [e["kind"] for e in events] == ["agent_call", "agent_failed"]
    assert events[0]["data"]["usable"] is False
    failed = events[1]["data"]
    assert (failed["failure"], failed["malformed"]) == ("malformed", True)
    assert "answers must be a list" in failed["error"]


def test_a_failed_call_names_its_backend_model_and_status() -> None:
    failed = Failed(
        CALL,
        backend="codex",
        model="gpt-x",
        error="HTTP 429",
        failure="http_status",
        status=429,
        retryable=True,
    )
    parsed, events = record_call("C1", failed, lambda output: output)
    assert parsed is None
    assert events == [
        {
            "kind": "agent_failed",
            "data": {
                "thread": "C1",
                "role": "critic",
                "round": 1,
                "backend": "codex",
                "model": "gpt-x",
                "error": "HTTP 429",
                "failure": "http_status",
                "retryable": True,
                "timeout": False,
                "status": 429,
            },
        }
    ]


def test_a_calls_wall_time_is_kept_to_the_microsecond() -> None:
    reply = answered({"request": {}, "response": "{}"}, wall_s=1.23456789)
    _parsed, events = record_call("C1", reply, lambda output: output)
    assert events[0]["data"]["wall_s"] == 1.234568


def test_the_documented_limit_is_the_one_applied() -> None:
    """docs/agents.md states the limit a user can rely on; an exchange of exactly that many
    characters is kept whole, one more is cut."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "agents.md").read_text("utf-8")
    stated = re.search(r"whole up to ([\d,]+) characters of JSON", doc)
    assert stated is not None, "docs/agents.md no longer states the raw-exchange limit"
    limit = int(stated.group(1).replace(",", ""))
    assert recorded(exchange_of_length(limit)) == exchange_of_length(limit)
    cut = recorded(exchange_of_length(limit + 1))
    assert isinstance(cut, dict) and cut["truncated"] is True and len(cut["head"]) == limit
