"""Tests written against the survivors of the mutation run on report/model.py (issue 18).

A report is a read-only record of a run: once built it cannot be edited in place, it is
addressed by its published key names, a dispute id it does not hold is an error, and every
way out of the open set is told to the person in words that name who resolved it.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest

from contend.protocol.model import Action, Severity
from contend.report.model import Report, Resolution, how_resolved
from test_report import Run, report_of


def _resolved(action: Action, by: str, text: str, **extra: Any) -> Report:
    run = Run()
    run.thread("static", "static")
    run.start("static", 1)
    run.raise_("A1", "static", Severity.MAJOR)
    run.act("A1", action, by, text, **extra)
    run.close("static", 1)
    return report_of(run.state)


def test_a_built_report_and_its_disputes_cannot_be_edited_in_place() -> None:
    """Kills `frozen=True => False` on the report model and on every nested model."""
    report = _resolved(Action.WITHDRAW, "static", "false positive")
    with pytest.raises(pydantic.ValidationError):
        report.verdict = "pass"  # type: ignore[misc]
    (dispute,) = report.resolved
    with pytest.raises(pydantic.ValidationError):
        dispute.status = dispute.status  # type: ignore[misc]


def test_a_report_is_loaded_by_its_published_key_and_by_its_field_name() -> None:
    """Kills `populate_by_name=True => False`: `schema` is the published key, `schema_` the
    attribute; both must load the same report."""
    report = _resolved(Action.WITHDRAW, "static", "false positive")
    data = report.to_dict()
    by_alias = type(report).model_validate(data)
    renamed = dict(data)
    renamed["schema_"] = renamed.pop("schema")
    by_name = type(report).model_validate(renamed)
    assert by_alias == by_name == report


def test_asking_for_a_dispute_the_report_does_not_hold_is_an_error() -> None:
    report = _resolved(Action.WITHDRAW, "static", "false positive")
    assert report.dispute("A1").id == "A1"
    with pytest.raises(KeyError, match="NOPE"):
        report.dispute("NOPE")


def test_an_open_dispute_has_no_resolution() -> None:
    run = Run()
    run.thread("static", "static")
    run.start("static", 1)
    run.raise_("A1", "static", Severity.MAJOR)
    run.close("static", 1)
    report = report_of(run.state)
    (open_dispute,) = report.disputes
    with pytest.raises(ValueError, match="not a resolution"):
        how_resolved(open_dispute, report.history.get("A1", []))


@pytest.mark.parametrize(
    ("action", "by", "how"),
    [
        (Action.WITHDRAW, "static", "withdrawn by the critic"),
        (Action.WAIVE, "human", "waived by a human"),
        (Action.OVERRULE, "human", "overruled by a human"),
    ],
)
def test_each_resolution_is_told_in_words_naming_who_resolved_it(
    action: Action, by: str, how: str
) -> None:
    """Kills the `XX…XX` mutants of the resolution phrases the person reads."""
    report = _resolved(action, by, "the reason given")
    (dispute,) = report.resolved
    resolution = how_resolved(dispute, report.history["A1"])
    assert (resolution.how, resolution.reason) == (how, "the reason given")


def _answered_then_accepted(answer: Action, text: str, **extra: Any) -> Resolution:
    run = Run()
    run.thread("static", "static")
    run.start("static", 1)
    run.raise_("A1", "static", Severity.MAJOR)
    run.close("static", 1)
    run.start("static", 2)
    run.act("A1", answer, "author", text, **extra)
    run.act("A1", Action.ACCEPT, "static", "settled")
    run.close("static", 2)
    report = report_of(run.state)
    (dispute,) = report.resolved
    return how_resolved(dispute, report.history["A1"])


@pytest.mark.parametrize(
    ("answer", "how"),
    [
        (Action.FIX, "fixed by the author, fix accepted by the critic"),
        (Action.DEFEND, "defense accepted by the critic"),
        (Action.CONCEDE, "conceded by the author, concession accepted"),
    ],
)
def test_an_answer_the_critic_accepted_is_told_with_the_answer_as_the_reason(
    answer: Action, how: str
) -> None:
    resolution = _answered_then_accepted(answer, "the author's words")
    assert (resolution.how, resolution.reason, resolution.in_source) == (
        how,
        "the author's words",
        False,
    )


def test_an_in_source_concession_is_told_as_a_waiver_in_code() -> None:
    resolution = _answered_then_accepted(Action.CONCEDE, "kept: optional probe", in_source=True)
    assert resolution.in_source is True
    assert resolution.how == "waived in code with a reason (in-source concession)"


def test_a_withdrawal_flagged_in_source_is_not_an_in_source_concession() -> None:
    """Kills `and => or` in the in-source test: only a concession can be a waiver in code."""
    report = _resolved(Action.WITHDRAW, "static", "gone", in_source=True)
    (dispute,) = report.resolved
    resolution = how_resolved(dispute, report.history["A1"])
    assert (resolution.how, resolution.in_source) == ("withdrawn by the critic", False)


def test_a_withdrawal_because_the_code_left_the_diff_says_so() -> None:
    report = _resolved(Action.WITHDRAW, "static", "code removed", change_withdrawn=True)
    (dispute,) = report.resolved
    resolution = how_resolved(dispute, report.history["A1"])
    assert resolution.how == "withdrawn with the change (its code left the reviewed diff)"


def _json_native(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_native(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_native(v) for v in value)
    return value is None or type(value) in (str, int, float, bool)


def test_a_reports_dict_holds_only_json_values_the_json_text_reads_back_as() -> None:
    """`to_dict` is what `--format json` and the API hand out: plain JSON values (lists,
    not tuples; strings, not enum members), the same as its JSON text read back."""
    report = _resolved(Action.WITHDRAW, "static", "false positive")
    data = report.to_dict()
    assert _json_native(data)
    assert data == json.loads(report.to_json())
