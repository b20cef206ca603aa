"""Writing a published JSON Schema file: the one shape of every `python -m …schema [OUT]`
(report.json's, a ledger line's). Each generator owns its schema; this owns the file."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
# src/contend/schemafiles.py → the checkout root is two levels above `contend`.
SCHEMAS_DIR = Path(__file__).resolve().parents[2] / "schemas"


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_main(
    module: str, render_schema: Callable[[], str], default: Path, argv: list[str] | None
) -> int:
    """`python -m <module> [OUT]`: write the schema to OUT (default: the published file)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1:
        print(f"usage: python -m {module} [OUT]", file=sys.stderr)
        return 2
    out = Path(args[0]) if args else default
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_schema(), encoding="utf-8")
    print(out)
    return 0
