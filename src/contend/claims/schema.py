"""The published JSON Schemas of claims, generated from the pydantic models.

    python -m contend.claims.schema [DIR]

writes `claims.v1.schema.json` (the claims report) and `claim-card.v1.schema.json` (the
input card) to DIR (default: schemas/ at the root of the source checkout);
tests/test_claims_schema.py regenerates both in memory and fails when a file has drifted.

The card schema accepts both spellings of every field, as the loader does: each property
appears under its kebab-case name (the seed's) and its snake_case alias, and a required
field is satisfied by either. That both spellings are not given at once, the loader checks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from contend.claims.card import ClaimCard
from contend.claims.report import SCHEMA_ID, ClaimsReport

REPORT_FILE = "claims.v1.schema.json"
CARD_FILE = "claim-card.v1.schema.json"
CARD_SCHEMA_ID = "contend.claim-card/v1"
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _wrap(body: dict[str, Any], title: str, description: str) -> dict[str, Any]:
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": title,
        "description": description,
        **{k: v for k, v in body.items() if k not in ("title", "description")},
    }


def claims_report_schema() -> dict[str, Any]:
    body = ClaimsReport.model_json_schema(by_alias=True, mode="serialization")
    return _wrap(body, SCHEMA_ID, "report.json written by `contend verify` (DESIGN §4).")


def _other_spelling(name: str) -> str:
    return name.replace("-", "_") if "-" in name else name.replace("_", "-")


# Evidence fields may also sit in the seed's nested `source-locator` mapping.
_NESTED = ("source-locator", "source_locator")
_EXTRA_ALIASES = {"file_path": ("filename",)}


def _both_spellings(node: dict[str, Any], *, evidence: bool = False) -> None:
    properties = node.get("properties")
    if not isinstance(properties, dict):
        return
    for name in list(properties):
        for other in (_other_spelling(name), *_EXTRA_ALIASES.get(name, ())):
            if other != name and other not in properties:
                properties[other] = properties[name]
    if evidence:
        for nested in _NESTED:
            properties[nested] = {
                "type": "object",
                "description": "The seed's nested form of the locator fields beside it.",
            }
    required = node.pop("required", None)
    if required:
        node["allOf"] = [
            {
                "anyOf": [
                    {"required": [spelling]}
                    for spelling in dict.fromkeys(
                        (name, _other_spelling(name), *_EXTRA_ALIASES.get(name, ()))
                        + (_NESTED if evidence else ())
                    )
                ]
            }
            for name in required
        ]


def claim_card_schema() -> dict[str, Any]:
    body = ClaimCard.model_json_schema(by_alias=True, mode="validation")
    _both_spellings(body)
    for name, definition in body.get("$defs", {}).items():
        _both_spellings(definition, evidence=name.endswith("Evidence"))
    return _wrap(
        body,
        CARD_SCHEMA_ID,
        "One claim card of `contend verify` (seeds/002 Step 1); a card file holds one card, "
        "a list of cards, or several YAML documents.",
    )


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def default_dir() -> Path:
    # src/contend/claims/schema.py → the checkout root is three levels above `contend`.
    return Path(__file__).resolve().parents[3] / "schemas"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1:
        print("usage: python -m contend.claims.schema [DIR]", file=sys.stderr)
        return 2
    out = Path(args[0]) if args else default_dir()
    out.mkdir(parents=True, exist_ok=True)
    for name, schema in ((REPORT_FILE, claims_report_schema()), (CARD_FILE, claim_card_schema())):
        (out / name).write_text(render(schema), encoding="utf-8")
        print(out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
