"""A slice of `contend run` planned step by step (harness/plan.py over harness/core.py), with
scripted replies: the exact requests the driver is asked to perform, in order, and the
outcome a user sees (verdict, reason, whether the branch is ready, the exit code and the
counts the slice record publishes). Written against the survivors of the mutation run
(bench/mutation/): gate-cap and fix-round boundaries, the oracle's one chance, the reasons'
wording of what happened, and a pass that did not change the branch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from contend.harness import core
from contend.harness.plan import (
    AskOracle,
    Gates,
    GatesDone,
    Implement,
    Implemented,
    NestedReview,
    OraclePlanned,
    Reviewed,
    SliceAsk,
    SliceFact,
    SliceRecording,
    apply,
    fold,
    plan,
    request_for,
)
from contend.review.driver import Drive


def start(
    *, rounds: int = 1, cap: int = 1, gates: bool = True, oracle: bool = False
) -> core.SliceState:
    return core.SliceState(
        max_attack_rounds=rounds, gate_cap=cap, has_gates=gates, has_oracle=oracle
    )


def drive(
    state: core.SliceState, replies: Sequence[SliceFact]
) -> tuple[list[SliceAsk], core.SliceState]:
    """Run the slice on the one driver, answering each request with the next reply; every
    reply must be used (the slice asked exactly as many times as scripted)."""
    rec = SliceRecording(state)
    asked: list[SliceAsk] = []
    rest = iter(replies)

    def perform(request: SliceAsk) -> SliceFact:
        asked.append(request)
        return next(rest)

    Drive[core.SliceState, SliceFact, SliceAsk, SliceFact](plan, rec).run_sync(perform)
    assert next(rest, None) is None, "the slice ended before every scripted reply was asked"
    assert rec.facts == list(replies)
    return asked, rec.state


CHANGED = Implemented(True)
GREEN = GatesDone(True)
RED = GatesDone(False)


def test_a_first_pass_slice_is_ready_with_the_reviews_reason_and_exit_0() -> None:
    asked, end = drive(start(), [CHANGED, GREEN, Reviewed("pass", "all clear")])
    assert asked == [Implement("spec", 1), Gates(), NestedReview(1)]
    assert end.outcome == core.Outcome("pass", "all clear", ready=True)
    assert end.outcome.exit_code == 0 and end.first_pass
    assert (end.passes, end.reviews, end.fix_rounds) == (1, 1, 0)


def test_a_conditional_pass_is_ready_and_without_a_reason_says_nothing_blocks() -> None:
    _, end = drive(start(gates=False), [CHANGED, Reviewed("conditional_pass")])
    assert end.outcome == core.Outcome("conditional_pass", "no blocking finding stands", ready=True)
    assert end.outcome.exit_code == 0


def test_without_gates_the_pass_goes_straight_to_review() -> None:
    asked, _ = drive(start(gates=False), [CHANGED, Reviewed("pass")])
    assert asked == [Implement("spec", 1), NestedReview(1)]


def test_a_pass_that_changes_nothing_escalates_with_exit_3() -> None:
    asked, end = drive(start(), [Implemented(False)])
    assert asked == [Implement("spec", 1)]
    assert end.outcome == core.Outcome("escalate", "the implementer produced no change", False)
    assert end.outcome.exit_code == 3 and end.passes == 1 and not end.first_pass


@pytest.mark.parametrize(
    ("outside", "shown"),
    [
        (("../a",), "../a"),
        (("../a", "../b", "../c"), "../a, ../b, ../c"),
        (("../a", "../b", "../c", "../d"), "../a, ../b, ../c …"),
    ],
)
def test_writes_outside_the_worktree_fail_naming_at_most_three_paths(
    outside: tuple[str, ...], shown: str
) -> None:
    _, end = drive(start(), [Implemented(True, outside)])
    assert end.outcome == core.Outcome(
        "fail", f"the implementer wrote outside its worktree ({shown}); refused and reverted", False
    )
    assert end.outcome.exit_code == 1 and end.passes == 1


def test_red_gates_retry_up_to_the_cap_then_fail_counting_every_attempt() -> None:
    replies: list[SliceFact] = [CHANGED, RED, CHANGED, RED, CHANGED, RED]
    asked, end = drive(start(cap=2), replies)
    assert asked == [
        Implement("spec", 1),
        Gates(),
        Implement("gates", 2),
        Gates(),
        Implement("gates", 3),
        Gates(),
    ]
    assert end.outcome == core.Outcome(
        "fail", "the gates stayed red after 3 attempt(s) (gate cap 2)", False
    )
    assert end.outcome.exit_code == 1


def test_a_gate_cap_of_zero_fails_on_the_first_red_run_and_a_timeout_says_so() -> None:
    _, end = drive(start(cap=0), [CHANGED, GatesDone(False, timed_out=True)])
    assert end.outcome == core.Outcome(
        "fail", "a gate timed out after 1 attempt(s) (gate cap 0)", False
    )


def test_a_fix_round_gets_gate_retries_of_its_own() -> None:
    """Red, green, then a failing review: the fix round's red run is the first of its own,
    so a cap of 1 allows one more retry."""
    replies: list[SliceFact] = [
        CHANGED,
        RED,
        CHANGED,
        GREEN,
        Reviewed("fail"),
        CHANGED,
        RED,
        CHANGED,
        GREEN,
        Reviewed("pass"),
    ]
    asked, end = drive(start(cap=1, rounds=1), replies)
    assert asked[5:8] == [Implement("findings", 3), Gates(), Implement("gates", 4)]
    assert end.outcome is not None and end.outcome.ready
    assert (end.passes, end.reviews, end.fix_rounds) == (4, 2, 1)
    assert not end.first_pass


def test_failing_reviews_get_max_attack_rounds_fix_rounds_then_escalate() -> None:
    replies: list[SliceFact] = [CHANGED, GREEN, Reviewed("fail"), CHANGED, GREEN]
    replies += [Reviewed("fail")]
    replies += [CHANGED, GREEN, Reviewed("fail")]
    asked, end = drive(start(rounds=2), replies)
    assert [a for a in asked if isinstance(a, Implement)] == [
        Implement("spec", 1),
        Implement("findings", 2),
        Implement("findings", 3),
    ]
    assert [a for a in asked if isinstance(a, NestedReview)] == [
        NestedReview(1),
        NestedReview(2),
        NestedReview(3),
    ]
    assert end.outcome == core.Outcome(
        "escalate",
        "blocking findings still stand after 2 fix round(s) (max_attack_rounds 2)",
        False,
    )
    assert end.outcome.exit_code == 3 and end.fix_rounds == 2


def test_with_no_fix_rounds_a_failing_review_escalates_at_once() -> None:
    asked, end = drive(start(rounds=0), [CHANGED, GREEN, Reviewed("fail")])
    assert asked == [Implement("spec", 1), Gates(), NestedReview(1)]
    assert end.outcome is not None and end.outcome.verdict == "escalate"
    assert "after 0 fix round(s)" in end.outcome.reason


def test_a_review_that_could_not_conclude_escalates_with_its_reason() -> None:
    _, end = drive(start(), [CHANGED, GREEN, Reviewed("escalate", "no critic ran")])
    assert end.outcome == core.Outcome(
        "escalate", "the review could not conclude: no critic ran", False
    )


def test_the_oracle_is_asked_once_after_the_fix_rounds_then_a_failing_review_escalates() -> None:
    replies: list[SliceFact] = [CHANGED, GREEN, Reviewed("fail"), CHANGED, GREEN]
    replies += [Reviewed("fail"), OraclePlanned("split the parser"), CHANGED, GREEN]
    replies += [Reviewed("fail")]
    asked, end = drive(start(rounds=1, oracle=True), replies)
    assert asked[5:8] == [NestedReview(2), AskOracle(), Implement("plan", 3)]
    assert sum(isinstance(a, AskOracle) for a in asked) == 1
    assert end.outcome == core.Outcome(
        "escalate", "blocking findings still stand after the oracle's plan", False
    )
    assert end.oracle_used


def test_the_oracles_plan_can_lead_to_a_ready_branch() -> None:
    replies: list[SliceFact] = [CHANGED, GREEN, Reviewed("fail"), OraclePlanned("a plan")]
    replies += [CHANGED, GREEN, Reviewed("pass", "fixed")]
    asked, end = drive(start(rounds=0, oracle=True), replies)
    assert asked[3:] == [AskOracle(), Implement("plan", 2), Gates(), NestedReview(2)]
    assert end.outcome == core.Outcome("pass", "fixed", ready=True)
    assert not end.first_pass


def test_after_the_oracles_plan_a_red_gate_run_is_the_first_of_its_own() -> None:
    replies: list[SliceFact] = [CHANGED, GREEN, Reviewed("fail"), OraclePlanned("a plan")]
    replies += [CHANGED, RED, CHANGED, GREEN, Reviewed("pass")]
    asked, end = drive(start(rounds=0, cap=1, oracle=True), replies)
    assert asked[4:7] == [Implement("plan", 2), Gates(), Implement("gates", 3)]
    assert end.outcome is not None and end.outcome.ready


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (OraclePlanned(None, "timed out"), "the oracle gave no plan: timed out"),
        (OraclePlanned("", ""), "the oracle gave no plan"),
        (OraclePlanned(None), "the oracle gave no plan"),
    ],
)
def test_an_oracle_without_a_plan_escalates_saying_why(reply: OraclePlanned, reason: str) -> None:
    _, end = drive(start(rounds=0, oracle=True), [CHANGED, GREEN, Reviewed("fail"), reply])
    assert end.outcome == core.Outcome("escalate", reason, False)
    assert end.oracle_used


def test_a_failed_implementer_escalates_and_the_slice_asks_nothing_more() -> None:
    asked, end = drive(start(), [Implemented(False, (), "backend down")])
    assert asked == [Implement("spec", 1)]
    assert end.outcome == core.Outcome("escalate", "the implementer failed: backend down", False)
    assert end.passes == 1


def test_first_pass_needs_one_review_and_one_pass() -> None:
    _, twice = drive(start(), [CHANGED, RED, CHANGED, GREEN, Reviewed("pass")])
    assert twice.outcome is not None and twice.outcome.ready and not twice.first_pass
    _, failed = drive(start(rounds=0), [CHANGED, GREEN, Reviewed("fail")])
    assert failed.reviews == 1 and failed.passes == 1 and not failed.first_pass


def test_an_ended_slice_requests_nothing_even_if_next_was_not_reset() -> None:
    s = start()
    s.outcome = core.Outcome("fail", "x", False)  # next still names "implement"
    assert request_for(s) is None
    assert plan(s, None).request is None


def test_planning_leaves_the_given_state_as_it_was() -> None:
    s = start()
    before = replace(s)
    step = plan(s, CHANGED)
    assert s == before
    assert step.events == (CHANGED,) and step.request == Gates()
    assert apply(s, CHANGED).passes == 1 and s.passes == 0


def test_a_resumed_slice_continues_from_the_fold_of_its_facts() -> None:
    facts: list[SliceFact] = [CHANGED, RED, CHANGED]
    resumed = fold(start(cap=1), facts)
    assert request_for(resumed) == Gates()
    asked, end = drive(resumed, [GREEN, Reviewed("pass")])
    assert asked == [Gates(), NestedReview(1)]
    assert end.passes == 2 and end.outcome is not None and end.outcome.ready


def test_the_exit_codes_of_the_verdicts() -> None:
    verdicts: list[core.Verdict] = ["pass", "conditional_pass", "fail", "escalate"]
    codes = [core.Outcome(v, "", False).exit_code for v in verdicts]
    assert codes == [0, 0, 1, 3]
