"""The published JSON Schema of report.json, generated from the pydantic models.

`python -m contend.report.schema [OUT]` writes it (default: schemas/report.v1.schema.json
at the root of the source checkout); tests/test_report_schema.py regenerates it in memory
and fails when the file has drifted from the models.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contend.report.model import SCHEMA_ID, Report
from contend.schemafiles import JSON_SCHEMA_DIALECT, SCHEMAS_DIR, render, write_main

SCHEMA_FILE = "report.v1.schema.json"


def report_json_schema() -> dict[str, Any]:
    body = Report.model_json_schema(by_alias=True, mode="serialization")
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": SCHEMA_ID,
        "description": "report.json written by `contend review` (DESIGN §8).",
        **{k: v for k, v in body.items() if k not in ("title", "description")},
    }


def render_schema() -> str:
    return render(report_json_schema())


def default_path() -> Path:
    return SCHEMAS_DIR / SCHEMA_FILE


def main(argv: list[str] | None = None) -> int:
    return write_main("contend.report.schema", render_schema, default_path(), argv)


if __name__ == "__main__":
    raise SystemExit(main())
