"""The blocking policy (`contend.critics.static.calibration`): a static finding blocks only
where its evidence is the defect itself or its rule's labelled record on real commits earns
it; everything else is listed as minor. The table must agree with the label files. Which
rule applies is the `static.blocking` setting ("earned": the policy; "rule": the previous
demotion), passed to `calibrate` and `run_static`; the runner's path is tested under both."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import get_args

import pytest

from contend.config import Settings
from contend.config.model import StaticBlocking
from contend.critics.static import calibration
from contend.critics.static.base import Finding, Topic
from contend.critics.static.calibration import (
    BLOCKING_CHOICES,
    DEFAULT_BLOCKING,
    POLICY,
    TARGET,
    Policy,
    Record,
    calibrate,
    earned_severity,
)
from contend.critics.static.catalogue import catalogue
from contend.critics.static.runner import run_static
from contend.critics.static.testing import change_from_texts
from contend.protocol.model import Severity

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from block_records import SEEN_SETS, blocking_records


def _finding(rule: str, severity: Severity = Severity.MAJOR) -> Finding:
    return Finding(
        topic=Topic.TEST_WEAKENING,
        rule=rule,
        severity=severity,
        path="tests/test_x.py",
        start_line=3,
        end_line=3,
        claim="claim",
        evidence="evidence",
    )


# --- the table against the labels ---------------------------------------------------------


def test_the_table_states_every_rule_s_record_as_the_seen_labels_count_it() -> None:
    records = blocking_records()
    stated = {rule: p.record for rule, p in POLICY.items() if p.record.n}
    assert stated == records


def test_the_records_are_read_from_the_four_seen_sets_only() -> None:
    assert SEEN_SETS == ("labels", "labels-holdout", "labels-holdout2", "labels-holdout3")


def test_a_missing_label_set_is_an_error_not_an_empty_record(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no label files"):
        blocking_records(tmp_path, ("labels",))


def test_every_rule_of_the_table_is_a_rule_a_critic_raises() -> None:
    known = set(catalogue())
    unknown = [r for r in POLICY if r not in known and not r.startswith("bandit-B")]
    assert unknown == []


def test_a_rule_that_blocks_without_a_record_blocks_by_default() -> None:
    for rule, policy in POLICY.items():
        if policy.evidence_is_defect:
            assert catalogue()[rule].severity is not Severity.MINOR, rule


# --- the bound ---------------------------------------------------------------------------


def test_a_record_earns_blocking_only_when_its_lower_bound_reaches_the_target() -> None:
    assert Record(25, 0, 0).earned()
    assert not Record(24, 0, 0).earned()
    assert not Record(3, 0, 0).earned()
    assert not Record(90, 5, 5).earned()  # 90% TRUE, but the bound is below 0.9
    assert Record(200, 3, 2).lower_bound() >= TARGET
    assert Record().lower_bound() == 0.0


def test_no_rule_earns_blocking_on_the_seen_sets_today() -> None:
    earned = [r for r, p in POLICY.items() if p.record.earned()]
    assert earned == []


# --- the table drives severity -------------------------------------------------------------


def test_a_rule_without_a_record_reports_minor() -> None:
    assert "tolerance-widened" not in POLICY
    assert earned_severity(_finding("tolerance-widened")).severity is Severity.MINOR
    assert earned_severity(_finding("bandit-B999", Severity.CRITICAL)).severity is Severity.MINOR


def test_a_rule_whose_record_does_not_earn_it_reports_minor() -> None:
    assert earned_severity(_finding("test-deleted")).severity is Severity.MINOR
    assert earned_severity(_finding("js-test-deleted")).severity is Severity.MINOR


def test_a_minor_finding_stays_minor_and_nothing_else_changes() -> None:
    before = _finding("assertion-removed")
    after = earned_severity(before)
    assert after == dataclasses.replace(before, severity=Severity.MINOR)
    minor = _finding("type-ignore-added", Severity.MINOR)
    assert earned_severity(minor) is minor


def test_a_record_that_earns_blocking_keeps_the_rule_s_severity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    earned = Policy(Record(40, 0, 0), "labelled right 40 of 40 times")
    monkeypatch.setattr(calibration, "POLICY", {**POLICY, "tolerance-widened": earned})
    assert earned_severity(_finding("tolerance-widened")).severity is Severity.MAJOR
    assert earned_severity(_finding("test-deleted")).severity is Severity.MINOR


# --- end to end, through the runner --------------------------------------------------------


def test_the_blocking_setting_chooses_the_rule() -> None:
    swallow = dataclasses.replace(_finding("swallowing-handler"), topic=Topic.SILENT_FALLBACK)
    assert calibrate(swallow, "rule").severity is Severity.MAJOR
    assert calibrate(swallow, "earned").severity is Severity.MINOR
    # Demoted under both: never TRUE as a blocker, in the previous rule's table too.
    assert calibrate(_finding("assertion-removed"), "rule").severity is Severity.MINOR
    assert calibrate(_finding("assertion-removed"), "earned").severity is Severity.MINOR


def test_calibrate_without_a_choice_applies_the_settings_default() -> None:
    assert Settings().static.blocking == DEFAULT_BLOCKING
    swallow = dataclasses.replace(_finding("swallowing-handler"), topic=Topic.SILENT_FALLBACK)
    assert calibrate(swallow) == calibrate(swallow, DEFAULT_BLOCKING)


def test_the_settings_model_and_the_critics_name_the_same_choices() -> None:
    assert BLOCKING_CHOICES == get_args(StaticBlocking) == ("earned", "rule")


def test_an_unknown_blocking_rule_is_an_error_not_a_guess() -> None:
    with pytest.raises(ValueError, match="unknown blocking rule 'strict'"):
        calibrate(_finding("swallowing-handler"), "strict")  # type: ignore[arg-type]


def test_a_provider_credential_still_blocks() -> None:
    key = "AKIA" + "Q7ZK3M9XW2RB5TLC"
    change = change_from_texts("pkg/settings.py", "X = 1\n", f'X = 1\nAWS_KEY = "{key}"\n')
    found = [f for f in run_static([change], "static:secrets", blocking="earned").findings]
    assert [(f.rule, f.severity) for f in found] == [("aws-access-key-id", Severity.CRITICAL)]


def test_a_generic_credential_is_listed_but_does_not_block() -> None:
    change = change_from_texts(
        "pkg/settings.py", "X = 1\n", 'X = 1\nDB_PASSWORD = "q7Zk3M9xW2rB5tLc8NvJ"\n'
    )
    found = run_static([change], "static:secrets", blocking="earned").findings
    assert [(f.rule, f.severity) for f in found] == [("generic-credential", Severity.MINOR)]


def test_a_swallow_around_a_write_is_listed_but_does_not_block() -> None:
    old = "def save(db, row):\n    db.insert(row)\n    db.commit()\n"
    new = (
        "def save(db, row):\n    try:\n        db.insert(row)\n        db.commit()\n"
        "    except Exception:\n        pass\n"
    )
    findings = run_static([change_from_texts("pkg/store.py", old, new)], blocking="earned").findings
    assert [f.severity for f in findings if f.rule == "swallowing-handler"] == [Severity.MINOR]


def test_a_deleted_test_is_listed_but_does_not_block() -> None:
    old = (
        "def test_add():\n    assert add(1, 2) == 3\n\n\n"
        "def test_sub():\n    assert sub(3, 2) == 1\n"
    )
    new = "def test_add():\n    assert add(1, 2) == 3\n"
    findings = run_static(
        [change_from_texts("tests/test_ops.py", old, new)], blocking="earned"
    ).findings
    assert [f.severity for f in findings if f.rule == "test-deleted"] == [Severity.MINOR]


def test_a_committed_only_still_blocks() -> None:
    old = "describe('math', () => {\n  it('adds', () => {\n    expect(1 + 1).toBe(2)\n  })\n})\n"
    new = old.replace("it('adds'", "it.only('adds'")
    findings = run_static(
        [change_from_texts("test/math.test.js", old, new)], blocking="earned"
    ).findings
    assert [(f.rule, f.severity) for f in findings] == [("js-test-only", Severity.MAJOR)]


def test_under_the_rule_setting_a_swallow_around_a_write_blocks() -> None:
    old = "def save(db, row):\n    db.insert(row)\n    db.commit()\n"
    new = (
        "def save(db, row):\n    try:\n        db.insert(row)\n        db.commit()\n"
        "    except Exception:\n        pass\n"
    )
    findings = run_static([change_from_texts("pkg/store.py", old, new)], blocking="rule").findings
    severities = [f.severity for f in findings if f.rule == "swallowing-handler"]
    assert severities == [Severity.CRITICAL]


def test_under_the_rule_setting_a_provider_credential_still_blocks() -> None:
    key = "AKIA" + "Q7ZK3M9XW2RB5TLC"
    change = change_from_texts("pkg/settings.py", "X = 1\n", f'X = 1\nAWS_KEY = "{key}"\n')
    found = run_static([change], "static:secrets", blocking="rule").findings
    assert [(f.rule, f.severity) for f in found] == [("aws-access-key-id", Severity.CRITICAL)]
