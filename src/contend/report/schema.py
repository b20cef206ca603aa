"""The published JSON Schema of report.json, generated from the pydantic models.

`python -m contend.report.schema [OUT]` writes it (default: schemas/report.v1.schema.json
at the root of the source checkout); tests/test_report_schema.py regenerates it in memory
and fails when the file has drifted from the models.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from contend.report.model import SCHEMA_ID, Report

SCHEMA_FILE = "report.v1.schema.json"
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def report_json_schema() -> dict[str, Any]:
    body = Report.model_json_schema(by_alias=True, mode="serialization")
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": SCHEMA_ID,
        "description": "report.json written by `contend review` (DESIGN §8).",
        **{k: v for k, v in body.items() if k not in ("title", "description")},
    }


def render_schema() -> str:
    return json.dumps(report_json_schema(), indent=2, ensure_ascii=False) + "\n"


def default_path() -> Path:
    # src/contend/report/schema.py → the checkout root is three levels above `contend`.
    return Path(__file__).resolve().parents[3] / "schemas" / SCHEMA_FILE


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1:
        print("usage: python -m contend.report.schema [OUT]", file=sys.stderr)
        return 2
    out = Path(args[0]) if args else default_path()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_schema(), encoding="utf-8")
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
