"""The published JSON Schema of a ledger line (`contend.event/v1`), generated from the
TypedDicts of every event kind (protocol/events.py EVENT_TYPES).

`python -m contend.protocol.schema [OUT]` writes it (default: schemas/event.v1.schema.json
at the root of the source checkout); tests/test_event_schema.py regenerates it in
memory and fails when the file has drifted from the types, and validates real ledgers
against it.

A line is the envelope the ledger adds (ledger/store.py) around one event: `kind` picks
the shape of `data`. Keys the types do not name are allowed, as a versioned log's reader
must allow them; keys they mark required are required.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Union

from pydantic import Field, TypeAdapter

from contend.protocol.events import EVENT_TYPES
from contend.schemafiles import JSON_SCHEMA_DIALECT, SCHEMAS_DIR, render, write_main

SCHEMA_ID = "contend.event/v1"
SCHEMA_FILE = "event.v1.schema.json"

# What the ledger writes around every event (ledger/store.py Ledger._envelope).
_ENVELOPE: dict[str, Any] = {
    "schema": {"const": SCHEMA_ID},
    "seq": {"type": "integer", "minimum": 0},
    "id": {"type": "string"},
    "ts": {"type": "string"},
    "run": {"type": "string"},
    "prev": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
    "alg": {"type": "string"},
    "hash": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
}


def event_json_schema() -> dict[str, Any]:
    # The union is built at run time from the table, which mypy cannot type; pydantic can.
    union: Any = Annotated[Union[tuple(EVENT_TYPES.values())], Field(discriminator="kind")]  # noqa: UP007
    body = TypeAdapter[Any](union).json_schema(mode="validation")
    defs = body.pop("$defs", {})
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": SCHEMA_ID,
        "description": (
            "One line of a contend ledger (ledger.jsonl): the envelope the ledger writes "
            "and one event, whose `kind` decides the shape of its `data`."
        ),
        "type": "object",
        "required": ["schema", "seq", "kind", "data", "prev", "hash"],
        "properties": _ENVELOPE,
        "oneOf": body["oneOf"],  # one per kind: each pins its `kind`
        "$defs": defs,
    }


def render_schema() -> str:
    return render(event_json_schema())


def default_path() -> Path:
    return SCHEMAS_DIR / SCHEMA_FILE


def main(argv: list[str] | None = None) -> int:
    return write_main("contend.protocol.schema", render_schema, default_path(), argv)


if __name__ == "__main__":
    raise SystemExit(main())
