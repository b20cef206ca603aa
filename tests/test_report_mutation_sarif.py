"""report.sarif as GitHub code scanning reads it: tests written against the survivors of
mutation runs on report/sarif.py (issue 18).

Code scanning reads `ruleId`, `level`, `locations` (URI and region), `partialFingerprints`
(to track an alert across commits), `suppressions` and `baselineState`, and the rules of
the driver by index. Every log built here is validated against the official SARIF 2.1.0
schema as well.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft4Validator

from contend.protocol.model import Action, Severity, Status
from contend.report import render_sarif, sarif_log
from contend.report.model import Person, Report
from contend.report.sarif import FINGERPRINT_KEY, SARIF_SCHEMA_URI
from report_mutation_helpers import dispute, exchange, failure, report, site
from test_sarif import validator  # noqa: F401  # the official schema, digest-pinned


def _log(r: Report, schema: Draft4Validator) -> dict[str, Any]:
    log: dict[str, Any] = json.loads(render_sarif(r))
    schema.validate(log)
    return log


def _run(r: Report, schema: Draft4Validator) -> dict[str, Any]:
    run: dict[str, Any] = _log(r, schema)["runs"][0]
    return run


def test_the_log_names_its_schema_version_and_tool(validator: Draft4Validator) -> None:  # noqa: F811
    log = _log(report(), validator)
    assert (log["$schema"], log["version"]) == (SARIF_SCHEMA_URI, "2.1.0")
    assert SARIF_SCHEMA_URI == "https://json.schemastore.org/sarif-2.1.0.json"
    driver = log["runs"][0]["tool"]["driver"]
    assert (driver["name"], driver["version"], driver["rules"]) == ("contend", "9.9.9", [])
    assert render_sarif(report()).endswith("}\n")


def test_the_run_carries_the_verdict_and_its_id(validator: Draft4Validator) -> None:  # noqa: F811
    r = report(
        disputes=[dispute("A")], headline="A", verdict="escalate", exit_code=3, reasons=["r1", "r2"]
    )
    run = _run(r, validator)
    assert run["properties"] == {
        "verdict": "escalate",
        "exitCode": 3,
        "reasons": ["r1", "r2"],
        "headline": "A",
        "reportSchema": "contend.report/v1",
    }
    assert run["automationDetails"] == {"id": "contend/run-1"}
    assert "automationDetails" not in _run(report(run_id=""), validator)


def test_each_result_has_the_rule_level_location_and_fingerprint_code_scanning_reads(
    validator: Draft4Validator,  # noqa: F811
) -> None:
    r = report(
        disputes=[
            dispute("C", severity=Severity.CRITICAL, line=5, end=8, rule="r-crit"),
            dispute("M", severity=Severity.MINOR, line=2, rule="", topic="typing"),
        ],
        fingerprints={"C": "fp-C", "M": "fp-M"},
    )
    run = _run(r, validator)
    crit, minor = run["results"]
    assert (crit["ruleId"], crit["level"]) == ("silent-fallback/r-crit", "error")
    assert (minor["ruleId"], minor["level"]) == ("typing", "warning")
    assert crit["locations"] == [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": "src/app.py"},
                "region": {"startLine": 5, "endLine": 8},
            }
        }
    ]
    assert minor["locations"][0]["physicalLocation"]["region"] == {"startLine": 2, "endLine": 2}
    assert crit["partialFingerprints"] == {FINGERPRINT_KEY: "fp-C"}
    assert FINGERPRINT_KEY == "contendFingerprint/v1"
    # The rules, by index: each result points at its own rule, with its level and topic.
    rules = run["tool"]["driver"]["rules"]
    assert [rules[res["ruleIndex"]]["id"] for res in run["results"]] == [
        "silent-fallback/r-crit",
        "typing",
    ]
    assert rules[0]["defaultConfiguration"] == {"level": "error"}
    assert rules[1]["defaultConfiguration"] == {"level": "warning"}
    assert rules[0]["shortDescription"]["text"] == "contend silent-fallback / r-crit (static)"
    assert rules[1]["shortDescription"]["text"] == "contend typing (static)"
    assert rules[1]["properties"] == {"topic": "typing", "tags": ["typing"]}
    assert run["invocations"] == [{"executionSuccessful": True, "toolExecutionNotifications": []}]


def test_a_major_finding_is_an_error_and_one_rule_serves_all_its_findings(
    validator: Draft4Validator,  # noqa: F811
) -> None:
    r = report(disputes=[dispute("A", line=1), dispute("B", line=9)])
    run = _run(r, validator)
    assert [res["level"] for res in run["results"]] == ["error", "error"]
    assert len(run["tool"]["driver"]["rules"]) == 1
    assert [res["ruleIndex"] for res in run["results"]] == [0, 0]


def test_a_whole_file_finding_has_no_region_and_a_path_is_uri_escaped(
    validator: Draft4Validator,  # noqa: F811
) -> None:
    r = report(disputes=[dispute("A", path="src/my file#1.py", line=0, end=0)])
    (res,) = _run(r, validator)["results"]
    physical = res["locations"][0]["physicalLocation"]
    assert physical == {"artifactLocation": {"uri": "src/my%20file%231.py"}}
    r = report(disputes=[dispute("A", line=1, end=1)])
    (res,) = _run(r, validator)["results"]
    assert res["locations"][0]["physicalLocation"]["region"] == {"startLine": 1, "endLine": 1}


def test_a_fingerprint_falls_back_from_the_place_to_the_dispute_to_its_id(
    validator: Draft4Validator,  # noqa: F811
) -> None:
    own = dispute("P", sites=[site(1, fingerprint="fp-place")])
    keyed = dispute("K", line=2)
    bare = dispute("B", line=3)
    r = report(disputes=[own, keyed, bare], fingerprints={"P": "fp-P", "K": "fp-K", "B": None})
    got = [res["partialFingerprints"][FINGERPRINT_KEY] for res in _run(r, validator)["results"]]
    assert got == ["fp-place", "fp-K", "B"]


def test_a_grouped_dispute_is_one_result_per_place_naming_the_group(
    validator: Draft4Validator,  # noqa: F811
) -> None:
    group = dispute(
        "G",
        sites=[site(3, symbol="f", fingerprint="m1"), site(9, fingerprint="m2")],
        claim="swallows errors",
    )
    results = _run(report(disputes=[group]), validator)["results"]
    assert [r["message"]["text"] for r in results] == [
        "swallows errors (one of 2 places of G)",
        "swallows errors (one of 2 places of G)",
    ]
    assert [r["properties"]["id"] for r in results] == ["G", "G"]
    assert [r["partialFingerprints"][FINGERPRINT_KEY] for r in results] == ["m1", "m2"]
    assert results[0]["properties"]["symbol"] == "f"
    assert "symbol" not in results[1]["properties"]
    single = _run(report(disputes=[dispute("S", claim="one place")]), validator)["results"]
    assert single[0]["message"]["text"] == "one place"


def test_an_empty_claim_still_gives_a_message(validator: Draft4Validator) -> None:  # noqa: F811
    (res,) = _run(report(disputes=[dispute("A", claim="  ")]), validator)["results"]
    assert res["message"]["text"] == "silent-fallback attack A"


def test_a_results_properties_carry_the_dispute(validator: Draft4Validator) -> None:  # noqa: F811
    d = dispute(
        "A",
        critic="claude",
        thread="claude-2",
        family="anthropic",
        contention=3,
        rounds_survived=2,
        re_attacked=True,
        evidence="x = 1",
    )
    r = report(disputes=[d], confidence={"A": "high"}, old_evidence={"A": "x = 0"})
    (res,) = _run(r, validator)["results"]
    assert res["properties"] == {
        "id": "A",
        "severity": "major",
        "status": "open",
        "contention": 3,
        "roundsSurvived": 2,
        "reAttacked": True,
        "topic": "silent-fallback",
        "critic": "claude",
        "family": "anthropic",
        "thread": "claude-2",
        "evidence": "x = 1",
        "confidence": "high",
        "oldEvidence": "x = 0",
    }
    (plain,) = _run(report(disputes=[dispute("A")]), validator)["results"]
    assert "confidence" not in plain["properties"] and "oldEvidence" not in plain["properties"]


def test_an_open_dispute_is_new_in_its_first_round_and_unchanged_after(
    validator: Draft4Validator,  # noqa: F811
) -> None:
    fresh = dispute("N", rounds_survived=0, line=1)
    old = dispute("O", rounds_survived=1, line=2)
    results = _run(report(disputes=[fresh, old]), validator)["results"]
    assert [(r["properties"]["id"], r["baselineState"]) for r in results] == [
        ("N", "new"),
        ("O", "unchanged"),
    ]
    assert all("suppressions" not in r for r in results)


@pytest.mark.parametrize(
    ("status", "history", "kind", "justification", "baseline"),
    [
        (Status.FIXED, [exchange(Action.FIX, "author", "raise now")], "external",
         "fixed: raise now", "absent"),
        (Status.CONCEDED, [exchange(Action.CONCEDE, "author", "legacy", in_source=True)],
         "inSource", "conceded: legacy", "unchanged"),
        (Status.CONCEDED, [exchange(Action.CONCEDE, "author", "ok")], "external",
         "conceded: ok", "unchanged"),
        (Status.WITHDRAWN, [], "external", "withdrawn", "unchanged"),
        (Status.WAIVED, [exchange(Action.WAIVE, "human", "accepted risk",
                                  person=Person(name="Ann", email=None, source="os user"))],
         "external", "waived: accepted risk", "unchanged"),
    ],
)  # fmt: skip
def test_a_resolved_dispute_is_an_accepted_suppression_with_its_reason(
    validator: Draft4Validator,  # noqa: F811
    status: Status,
    history: list[Any],
    kind: str,
    justification: str,
    baseline: str,
) -> None:
    r = report(resolved=[dispute("A", status=status)], history={"A": history})
    (res,) = _run(r, validator)["results"]
    assert res["suppressions"] == [
        {"kind": kind, "status": "accepted", "justification": justification}
    ]
    assert res["baselineState"] == baseline
    assert res["properties"]["status"] == str(status)


def test_a_fix_in_the_first_round_is_absent_and_open_results_come_first(
    validator: Draft4Validator,  # noqa: F811
) -> None:
    fixed = dispute("F", status=Status.FIXED, rounds_survived=0, line=1)
    open_ = dispute("O", rounds_survived=0, line=2, rule="other")
    run = _run(report(disputes=[open_], resolved=[fixed]), validator)
    assert [(r["properties"]["id"], r["baselineState"]) for r in run["results"]] == [
        ("O", "new"),
        ("F", "absent"),
    ]
    # Each result's ruleIndex points at its own rule, resolved ones included.
    rules = run["tool"]["driver"]["rules"]
    assert [rules[r["ruleIndex"]]["id"] for r in run["results"]] == [
        "silent-fallback/other",
        "silent-fallback/swallowing-handler",
    ]


def test_each_failed_agent_call_is_a_notification_and_the_run_did_not_succeed(
    validator: Draft4Validator,  # noqa: F811
) -> None:
    r = report(failures=[failure(round=2, kind="timeout"), failure(kind="malformed", round=None)])
    (invocation,) = _run(r, validator)["invocations"]
    assert invocation["executionSuccessful"] is False
    first, second = invocation["toolExecutionNotifications"]
    assert first == {
        "level": "error",
        "message": {
            "text": "critic claude of thread claude (claude, claude-x) failed in round 2: "
            "timeout: no answer in 600 s"
        },
        "descriptor": {"id": "contend/agent-failed/timeout"},
        "properties": {
            "thread": "claude",
            "critic": "claude",
            "role": "critic",
            "round": 2,
            "backend": "claude",
            "model": "claude-x",
            "kind": "timeout",
        },
    }
    assert second["message"]["text"].startswith(
        "critic claude of thread claude (claude, claude-x) failed: "
    )
    assert second["descriptor"]["id"] == "contend/agent-failed/malformed"
    assert second["properties"]["round"] is None


def test_every_string_is_shown_with_visible_escapes_in_the_dict_too() -> None:
    d = dispute("A", claim="a\x1b[2Jb", evidence="e\x9bf", sites=[site(1, symbol="f\u202eg")])
    log = sarif_log(report(disputes=[d], reasons=["r\x07"]))
    run = log["runs"][0]
    (res,) = run["results"]
    assert res["message"]["text"] == "a\\x1b[2Jb"
    assert res["properties"]["evidence"] == "e\\x9bf"
    assert res["properties"]["symbol"] == "f\\u202eg"
    assert run["properties"]["reasons"] == ["r\\x07"]
