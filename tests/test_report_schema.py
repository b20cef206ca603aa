"""The published report.json schema: no drift from the models, and built reports validate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from contend.report.schema import default_path, main, render_schema
from test_report import (
    DISPUTE_KEYS,
    deadlock,
    fixed_attack,
    grouped_and_failed,
    mixed,
    no_attacks,
    re_attacked_major,
    red_gate,
    report_of,
    waived_static,
)
from test_report_controls import planted_state

PUBLISHED = Path(__file__).resolve().parents[1] / "schemas" / "report.v1.schema.json"


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return json.loads(PUBLISHED.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_published_schema_matches_the_models() -> None:
    assert PUBLISHED.read_text(encoding="utf-8") == render_schema(), (
        "schemas/report.v1.schema.json drifted from contend.report.model; "
        "regenerate it with `python -m contend.report.schema`"
    )


def test_default_output_path_is_the_published_file() -> None:
    assert default_path() == PUBLISHED


def test_main_writes_the_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "nested" / "report.schema.json"
    assert main([str(out)]) == 0
    assert out.read_text(encoding="utf-8") == render_schema()
    assert capsys.readouterr().out.strip() == str(out)
    assert main(["a", "b"]) == 2


def test_schema_pins_the_contract(schema: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(schema)
    assert schema["title"] == "contend.report/v1"
    assert schema["properties"]["schema"]["const"] == "contend.report/v1"
    assert set(schema["properties"]["verdict"]["enum"]) == {
        "pass",
        "conditional_pass",
        "fail",
        "escalate",
    }
    for key in ("schema", "verdict", "disputes", "resolved", "gates", "stats"):
        assert key in schema["required"]
    dispute = schema["$defs"]["Dispute"]
    assert set(dispute["required"]) == DISPUTE_KEYS == set(dispute["properties"])
    assert dispute["additionalProperties"] is False
    stats = schema["$defs"]["Stats"]["required"]
    for key in (
        "attacks",
        "critic_found_bug_rate",
        "rounds",
        "tokens_in",
        "tokens_out",
        "cost",
        "wall_time_s",
        "families",
        "dropped_attacks",
    ):
        assert key in stats


SCENARIOS = [
    no_attacks,
    fixed_attack,
    waived_static,
    re_attacked_major,
    deadlock,
    red_gate,
    mixed,
    grouped_and_failed,
    planted_state,
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__)
def test_built_reports_validate(schema: dict[str, Any], scenario: Any) -> None:
    data = json.loads(report_of(scenario()).to_json())
    errors = [e.message for e in Draft202012Validator(schema).iter_errors(data)]
    assert errors == []


def test_schema_rejects_an_extra_dispute_key(schema: dict[str, Any]) -> None:
    data = json.loads(report_of(mixed()).to_json())
    data["disputes"][0]["votes"] = 3
    data["verdict"] = "maybe"
    errors = list(Draft202012Validator(schema).iter_errors(data))
    assert len(errors) == 2
