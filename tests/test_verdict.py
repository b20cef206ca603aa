"""The verdict of a run (DESIGN §2), decided on states folded from real events.

Fail closed: every way a run can have reviewed nothing — no critic at all, a critic that
never produced usable output, one that produced some and then crashed — escalates; none
of them is `pass`. Safety (fail) and liveness (escalate) stay separate.
"""

from __future__ import annotations

import pytest

from contend.protocol.events import EventKind
from contend.protocol.model import Action, Severity
from contend.protocol.state import RunState
from contend.protocol.verdict import Outcome, Verdict, decide
from protocol_helpers import RunBuilder


def reviewed(*threads: str, family: str = "fam-a") -> RunBuilder:
    """Threads whose critic gave one usable, quiet review."""
    run = RunBuilder()
    for name in threads:
        run.thread(name, family=family)
        run.critic_round(name)
    return run


def deadlocked(severity: Severity) -> RunBuilder:
    run = RunBuilder().thread()
    run.open_round()
    run.critic_output()
    run.raise_attack("A1", severity=severity)
    run.close_round()
    run.act("A1", Action.DEFEND, Action.RE_ATTACK, Action.DEADLOCK)
    return run


# -- fail closed ----------------------------------------------------------------------


def test_no_critic_at_all_escalates() -> None:
    outcome = decide(RunState())
    assert outcome.verdict is Verdict.ESCALATE
    assert outcome.reasons == ("no critic ran",)
    assert outcome.exit_code == 3


def test_a_thread_that_never_gave_usable_output_escalates() -> None:
    """Stopped before its critic answered (an interrupt, a cap) — not failed, but silent."""
    run = RunBuilder().thread("t1")
    run.open_round("t1")
    run.end("t1", "interrupt")
    outcome = decide(run.state)
    assert outcome.verdict is Verdict.ESCALATE
    assert outcome.reasons == (
        "thread(s) without usable output: t1",
        "no critic ran",
        "0 model family(ies), 1 required",
    )


def test_one_silent_thread_among_reviewing_ones_escalates_and_is_named() -> None:
    run = reviewed("t1", "t3")
    run.thread("t2")
    outcome = decide(run.state)
    assert outcome.verdict is Verdict.ESCALATE
    assert outcome.reasons == ("thread(s) without usable output: t2",)
    run.thread("t0")
    assert decide(run.state).reasons == ("thread(s) without usable output: t0, t2",)


@pytest.mark.parametrize("how", ["crashed", "malformed"])
def test_a_thread_that_gave_output_and_then_failed_escalates(how: str) -> None:
    run = reviewed("t1")
    run.critic_round("t1", outcome=how)
    run.critic_round("t1", outcome=how)
    run.end("t1", "malformed_output" if how == "malformed" else "crashed")
    outcome = decide(run.state)
    assert outcome.verdict is Verdict.ESCALATE
    assert outcome.reasons == ("thread(s) failed: t1",)


def test_failed_threads_are_named_in_order() -> None:
    run = reviewed("b", "a", "c")
    run.end("b", "crashed")
    run.end("a", "malformed_output")
    assert decide(run.state).reasons == ("thread(s) failed: a, b",)


def test_a_thread_ended_otherwise_is_not_a_failure() -> None:
    run = reviewed("t1")
    for reason in ("steady_state", "round_cap", "cost_cap", "interrupt", "awaiting_author"):
        run.end("t1", reason)
        assert decide(run.state).verdict is Verdict.PASS, reason


def test_a_reviewed_run_with_nothing_raised_passes() -> None:
    outcome = decide(reviewed("t1", "t2").state)
    assert outcome == Outcome(Verdict.PASS, ("nothing unresolved",))
    assert outcome.exit_code == 0


# -- gates ----------------------------------------------------------------------------


def test_a_red_gate_fails_before_anything_else() -> None:
    run = RunBuilder()
    run.add(EventKind.GATE_RAN, name="pytest", ok=False, when="entry")
    run.add(EventKind.GATE_RAN, name="ruff", ok=True, when="entry")
    outcome = decide(run.state, nothing_to_review=True)
    assert outcome.verdict is Verdict.FAIL
    assert outcome.reasons == ("gate",)
    assert outcome.caveats == ("red gate: pytest",)
    assert outcome.exit_code == 1


def test_a_gate_record_without_ok_is_red() -> None:
    """A gate whose result was not recorded did not pass."""
    run = reviewed("t1")
    run.add(EventKind.GATE_RAN, name="pytest")
    outcome = decide(run.state)
    assert outcome.verdict is Verdict.FAIL
    assert outcome.caveats == ("red gate: pytest",)


def test_an_unnamed_red_gate_is_still_shown() -> None:
    run = reviewed("t1")
    run.add(EventKind.GATE_RAN, ok=False)
    run.add(EventKind.GATE_RAN, name="mypy", ok=False)
    assert decide(run.state).caveats == ("red gate: gate, mypy",)


def test_green_gates_do_not_decide() -> None:
    run = reviewed("t1")
    run.add(EventKind.GATE_RAN, name="pytest", ok=True)
    assert decide(run.state).verdict is Verdict.PASS


def test_nothing_to_review_passes_without_critics() -> None:
    outcome = decide(RunState(), nothing_to_review=True)
    assert outcome == Outcome(Verdict.PASS, ("nothing to review",))


# -- safety ---------------------------------------------------------------------------


@pytest.mark.parametrize("severity", [Severity.CRITICAL, Severity.MAJOR])
def test_an_unresolved_blocking_attack_fails(severity: Severity) -> None:
    run = reviewed("t1")
    run.raise_attack("A1", thread="t1", severity=severity)
    run.raise_attack("A2", thread="t1", severity=Severity.MINOR)
    outcome = decide(run.state)
    assert outcome.verdict is Verdict.FAIL
    assert outcome.reasons == ("1 blocking attack(s) unresolved",)
    assert outcome.headline == "A1"
    assert outcome.caveats == (
        f"[{severity}] app.py:3 claim of A1",
        "[minor] app.py:3 claim of A2",
    )


def test_a_blocking_attack_fails_even_when_liveness_also_failed() -> None:
    run = reviewed("t1")
    run.raise_attack("A1", thread="t1")
    run.end("t1", "crashed")
    assert decide(run.state).verdict is Verdict.FAIL


def test_only_minor_attacks_unresolved_is_a_conditional_pass() -> None:
    run = reviewed("t1")
    run.raise_attack("A1", thread="t1", severity=Severity.MINOR)
    outcome = decide(run.state)
    assert outcome.verdict is Verdict.CONDITIONAL_PASS
    assert outcome.reasons == ("only minor attacks unresolved",)
    assert outcome.headline == "A1"
    assert outcome.caveats == ("[minor] app.py:3 claim of A1",)
    assert outcome.exit_code == 0


def test_resolved_attacks_do_not_count() -> None:
    run = reviewed("t1")
    run.raise_attack("A1", thread="t1")
    run.act("A1", Action.FIX, Action.ACCEPT)
    run.raise_attack("A2", thread="t1", severity=Severity.CRITICAL)
    run.act("A2", Action.WITHDRAW)
    assert decide(run.state) == Outcome(Verdict.PASS, ("nothing unresolved",))


# -- deadlock -------------------------------------------------------------------------


@pytest.mark.parametrize("severity", [Severity.CRITICAL, Severity.MAJOR])
def test_a_deadlock_on_a_blocking_attack_escalates(severity: Severity) -> None:
    outcome = decide(deadlocked(severity).state)
    assert outcome.verdict is Verdict.ESCALATE
    assert outcome.reasons == ("deadlock on 1 blocking attack(s)",)
    assert outcome.headline == "A1"


def test_a_deadlock_on_a_minor_attack_is_a_conditional_pass() -> None:
    outcome = decide(deadlocked(Severity.MINOR).state)
    assert outcome.verdict is Verdict.CONDITIONAL_PASS
    assert outcome.reasons == ("only minor attacks unresolved",)


# -- families -------------------------------------------------------------------------


def test_too_few_model_families_escalates() -> None:
    run = reviewed("t1", "t2", family="fam-a")
    outcome = decide(run.state, min_families=2)
    assert outcome.verdict is Verdict.ESCALATE
    assert outcome.reasons == ("1 model family(ies), 2 required",)
    assert decide(run.state).verdict is Verdict.PASS


def test_only_families_that_reviewed_count() -> None:
    run = reviewed("t1", family="fam-a")
    run.thread("t2", family="fam-b")
    run.critic_round("t2", outcome="crashed")
    run.critic_round("t2", outcome="crashed")
    run.end("t2", "malformed_output")
    outcome = decide(run.state, min_families=2)
    assert outcome.reasons == ("thread(s) failed: t2", "1 model family(ies), 2 required")
    run.thread("t3", family="fam-b")
    run.critic_round("t3")
    assert decide(run.state, min_families=2).reasons == ("thread(s) failed: t2",)


def test_verdicts_keep_their_report_names_and_exit_codes() -> None:
    """Written into report.json and read by CI: the names and exit codes are a contract."""
    assert {(str(v), v.exit_code) for v in Verdict} == {
        ("pass", 0),
        ("conditional_pass", 0),
        ("fail", 1),
        ("escalate", 3),
    }


# -- files that could not be reviewed -------------------------------------------------


def skipped(run: RunBuilder, path: str, *, blocks: bool) -> None:
    run.add(EventKind.FILE_SKIPPED, path=path, reason="too large", blocks=blocks)


def test_a_code_file_that_could_not_be_reviewed_never_passes() -> None:
    run = reviewed("t1")
    skipped(run, "src/big.py", blocks=True)
    outcome = decide(run.state)
    assert outcome.verdict is Verdict.ESCALATE
    assert outcome.reasons == ("1 code file(s) could not be reviewed: src/big.py",)


def test_a_skip_that_does_not_block_is_shown_but_does_not_decide() -> None:
    run = reviewed("t1")
    skipped(run, "logo.png", blocks=False)
    run.add(EventKind.FILE_SKIPPED, path="deleted.py", reason="deleted")
    assert decide(run.state).verdict is Verdict.PASS


def test_unreviewed_files_are_counted_once_sorted_and_the_list_is_cut_at_five() -> None:
    run = reviewed("t1")
    for name in ("g", "c", "a", "f", "b", "e", "d", "a"):
        skipped(run, f"{name}.py", blocks=True)
    assert decide(run.state).reasons == (
        "7 code file(s) could not be reviewed: a.py, b.py, c.py, d.py, e.py …",
    )
    few = reviewed("t1")
    for name in ("b", "a", "c", "d", "e"):
        skipped(few, f"{name}.py", blocks=True)
    assert decide(few.state).reasons == (
        "5 code file(s) could not be reviewed: a.py, b.py, c.py, d.py, e.py",
    )
    skipped(few, "f.py", blocks=True)
    assert decide(few.state).reasons == (
        "6 code file(s) could not be reviewed: a.py, b.py, c.py, d.py, e.py …",
    )


def test_an_unreviewed_file_does_not_hide_a_blocking_attack() -> None:
    run = reviewed("t1")
    run.raise_attack("A1", thread="t1")
    skipped(run, "src/big.py", blocks=True)
    assert decide(run.state).verdict is Verdict.FAIL


def test_a_new_session_forgets_the_last_session_s_skips() -> None:
    run = reviewed("t1")
    skipped(run, "src/big.py", blocks=True)
    run.add(EventKind.RUN_STARTED, run_id="r1")
    run.critic_round("t1")
    assert decide(run.state).verdict is Verdict.PASS
