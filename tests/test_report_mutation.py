"""Tests written against the survivors of mutation runs on report/build.py (issue 18).

Each test states behaviour a person reading report.json relies on; the mutant it was
written for is named in its docstring, so a later run can tell which test kills what.
"""

from __future__ import annotations

import json

import pytest

from contend.protocol.events import EventKind, attack_raised, event
from contend.protocol.model import Action, Attack, Location, Severity
from contend.protocol.state import RunState
from test_report import Run, report_of


def _grouped(places: int, members: tuple[str, ...]) -> RunState:
    run = Run()
    run.thread("static", "static")
    run.start("static", 1)
    sites = tuple(Location("src/conv.py", n, n, f"f{n}") for n in range(1, places + 1))
    run.apply(
        attack_raised(
            Attack(
                id="G1",
                thread="static",
                critic="static",
                family="static",
                topic="silent-fallback",
                rule="swallowing-handler",
                severity=Severity.MINOR,
                location=sites[0],
                claim="returns None on any error",
                evidence="except Exception:\n    return None",
                raised_round=1,
                raised_seq=0,
                fingerprint="group-fp",
                locations=sites,
                members=members,
            )
        )
    )
    run.close("static", 1)
    return run.state


def test_a_group_with_fewer_member_fingerprints_than_places_lists_every_place() -> None:
    """Kills `_sites`: the padding of members => pass (zip would refuse the lengths)."""
    data = json.loads(report_of(_grouped(3, ("m1",))).to_json())
    (group,) = data["disputes"]
    assert [(s["start_line"], s["fingerprint"]) for s in group["locations"]] == [
        (1, "m1"),
        (2, None),
        (3, None),
    ]


def test_a_group_with_more_member_fingerprints_than_places_is_refused() -> None:
    """Kills `_sites`: zip(strict=True) => strict=False, which would drop a member's
    fingerprint without a word; a report must not paper over a hole."""
    with pytest.raises(ValueError, match="zip"):
        report_of(_grouped(2, ("m1", "m2", "m3")))


def test_a_transition_written_without_text_or_evidence_reports_them_empty() -> None:
    """Kills `_exchange`: the defaults of text and evidence ('' => 'XXXX'). A ledger line
    may leave them out; the report must not invent words nobody wrote."""
    run = Run()
    run.thread("static", "static")
    run.start("static", 1)
    run.raise_("A1", "static", Severity.MAJOR)
    run.close("static", 1)
    run.start("static", 2)
    run.apply(event(EventKind.ATTACK_TRANSITION, attack="A1", action="fix", by="author"))
    data = json.loads(report_of(run.state).to_json())
    (fix,) = data["history"]["A1"]
    assert (fix["action"], fix["by"], fix["text"], fix["evidence"]) == ("fix", "author", "", "")
    # Nor flags nobody set (False => True of in_source and change_withdrawn).
    assert (fix["in_source"], fix["change_withdrawn"], fix["person"]) == (False, False, None)


def test_a_transition_keeps_the_round_it_was_made_in() -> None:
    """Kills `_exchange`: h.get('round') => h.get('XXroundXX')."""
    run = Run()
    run.thread("static", "static")
    run.start("static", 1)
    run.raise_("A1", "static", Severity.MAJOR)
    run.close("static", 1)
    run.start("static", 2)
    run.act("A1", Action.FIX, "author", "raise instead", round=2)
    data = json.loads(report_of(run.state).to_json())
    assert [h["round"] for h in data["history"]["A1"]] == [2]


def _failing_thread() -> Run:
    run = Run()
    run.thread("claude", "anthropic", model="claude-x")
    run.start("claude", 1)
    return run


def test_a_failure_without_role_backend_or_model_takes_them_from_its_thread() -> None:
    """Kills `_failure`: the default role 'critic' => 'XXcriticXX'."""
    run = _failing_thread()
    run.apply(event(EventKind.AGENT_FAILED, thread="claude", error="exit 1"))
    (failure,) = json.loads(report_of(run.state).to_json())["failures"]
    assert (failure["role"], failure["backend"], failure["model"], failure["round"]) == (
        "critic",
        "claude",
        "claude-x",
        None,
    )


def test_a_failure_reports_the_role_backend_and_model_it_names() -> None:
    """Kills `_failure`: the keys 'role', 'backend', 'model' misspelt (each would report
    the thread's value or the default instead of what failed)."""
    run = _failing_thread()
    run.apply(
        event(
            EventKind.AGENT_FAILED,
            thread="claude",
            role="proposer",
            round=1,
            backend="claude-api",
            model="claude-y",
            error="HTTP 529: overloaded",
        )
    )
    (failure,) = json.loads(report_of(run.state).to_json())["failures"]
    assert (failure["role"], failure["backend"], failure["model"], failure["round"]) == (
        "proposer",
        "claude-api",
        "claude-y",
        1,
    )


def test_a_gate_without_command_or_output_reports_them_empty() -> None:
    """Kills `_gate`: the defaults of cmd and output ('' => 'XXXX')."""
    run = Run()
    run.apply(event(EventKind.GATE_RAN, name="pytest", ok=True))
    (gate,) = json.loads(report_of(run.state).to_json())["gates"]
    assert (gate["cmd"], gate["output"], gate["exit_code"], gate["when"]) == ("", "", None, None)
    assert gate["thread"] is None


def test_a_gate_run_for_a_thread_names_it() -> None:
    """Kills `_gate`: g.get('thread') => g.get('XXthreadXX')."""
    run = Run()
    run.apply(event(EventKind.GATE_RAN, name="pytest", cmd="pytest -q", ok=False, thread="static"))
    (gate,) = json.loads(report_of(run.state).to_json())["gates"]
    assert (gate["cmd"], gate["ok"], gate["thread"]) == ("pytest -q", False, "static")


def test_costs_are_reported_to_the_millionth_of_a_dollar() -> None:
    """Kills `_thread` and `_stats`: round(cost, 6) => 5 or 7."""
    run = Run()
    run.thread("claude", "anthropic", model="claude-x", cost=0.12345678)
    data = json.loads(report_of(run.state).to_json())
    (thread,) = data["threads"]
    assert thread["cost"] == 0.123457
    assert data["stats"]["cost"] == 0.123457


def test_a_run_with_no_threads_reports_zero_rounds() -> None:
    """Kills `_stats`: max(..., default=0) => default=1 (no critic ran, so no round did)."""
    run = Run()
    run.gate("pytest", ok=False, output="FAILED", exit_code=1)
    stats = json.loads(report_of(run.state).to_json())["stats"]
    assert (stats["threads"], stats["rounds"], stats["attacks"]) == (0, 0, 0)
