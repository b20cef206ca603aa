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

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Union

from pydantic import Field, TypeAdapter

from contend.protocol.events import EVENT_TYPES

SCHEMA_ID = "contend.event/v1"
SCHEMA_FILE = "event.v1.schema.json"
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

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
        "allOf": [body],
        "$defs": defs,
    }


def render_schema() -> str:
    return json.dumps(event_json_schema(), indent=2, ensure_ascii=False) + "\n"


def default_path() -> Path:
    # src/contend/protocol/schema.py → the checkout root is three levels above `contend`.
    return Path(__file__).resolve().parents[3] / "schemas" / SCHEMA_FILE


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1:
        print("usage: python -m contend.protocol.schema [OUT]", file=sys.stderr)
        return 2
    out = Path(args[0]) if args else default_path()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_schema(), encoding="utf-8")
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
