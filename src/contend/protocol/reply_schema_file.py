"""The published JSON Schema of what an agent answers (`contend.reply/v1`): the critic's,
the proposer's and the oracle's reply, one `$defs` entry each, generated from
protocol/reply_schemas.py — the schemas contend hands to `claude --json-schema`,
`codex exec --output-schema` and the model APIs, and validates every reply against.

`python -m contend.protocol.reply_schema_file [OUT]` writes it (default:
schemas/reply.v1.schema.json at the root of the source checkout); tests/test_reply_schema_file.py
regenerates it in memory and fails when the file has drifted from the schemas. A backend
of one's own (docs/agents.md) validates its replies against `#/$defs/<role>`; the field
descriptions are what the model is told, so a change to them is a change of the contract.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contend.protocol.reply_schemas import CRITIC_SCHEMA, ORACLE_SCHEMA, PROPOSER_SCHEMA
from contend.schemafiles import JSON_SCHEMA_DIALECT, SCHEMAS_DIR, render, write_main

SCHEMA_ID = "contend.reply/v1"
SCHEMA_FILE = "reply.v1.schema.json"


def reply_json_schema() -> dict[str, Any]:
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": SCHEMA_ID,
        "description": (
            "What an agent answers in one turn, by role: a critic's objections and "
            "judgements, a proposer's answers, an oracle's reading of a dispute. Each "
            "role's reply must match its entry of $defs exactly (no other keys)."
        ),
        "$defs": {
            "critic": CRITIC_SCHEMA,
            "proposer": PROPOSER_SCHEMA,
            "oracle": ORACLE_SCHEMA,
        },
    }


def render_schema() -> str:
    return render(reply_json_schema())


def default_path() -> Path:
    return SCHEMAS_DIR / SCHEMA_FILE


def main(argv: list[str] | None = None) -> int:
    return write_main("contend.protocol.reply_schema_file", render_schema, default_path(), argv)


if __name__ == "__main__":
    raise SystemExit(main())
