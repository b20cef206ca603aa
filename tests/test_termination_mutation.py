"""When a thread stops and what its end leaves (protocol/termination.py), where the mutation
run (bench/mutation/) found it unguarded: a round the critic was never heard in is not
quiet, and only the round cap deadlocks a defended attack — a thread stopped by its spend
leaves the dispute unresolved, which blocks (`fail`), not deadlocked, which escalates.
On threads folded from real events; the verdict is decide's."""

from __future__ import annotations

import pytest

from contend.protocol.model import Action, Status
from contend.protocol.state import ThreadState
from contend.protocol.termination import (
    Limits,
    StopReason,
    deadlocks_at,
    is_steady,
    left_unresolved,
    should_stop,
)
from contend.protocol.verdict import Verdict, decide
from protocol_helpers import RunBuilder


def test_rounds_in_which_the_critic_was_never_heard_are_not_quiet() -> None:
    run = RunBuilder().thread()
    run.critic_round()  # the critic looked and found nothing
    for _ in range(2):  # then two rounds with no call of the critic at all
        run.open_round()
        run.close_round()
    thread: ThreadState = run.thread_state()
    assert not is_steady(thread)
    assert should_stop(thread, Limits(max_rounds=5)) is None
    run.critic_round()
    run.critic_round()
    assert should_stop(run.thread_state(), Limits(max_rounds=5)) is StopReason.STEADY_STATE


def _defended_and_pressed() -> RunBuilder:
    run = RunBuilder().thread()
    run.critic_round(raises=("A1",))
    run.act("A1", Action.DEFEND)
    run.critic_round(re_attacks=("A1",))
    return run


@pytest.mark.parametrize(
    "reason",
    [r for r in StopReason if r is not StopReason.ROUND_CAP],
)
def test_only_the_round_cap_deadlocks_a_defended_attack(reason: StopReason) -> None:
    run = _defended_and_pressed()
    attacks = list(run.state.attacks.values())
    assert [a.id for a in deadlocks_at(StopReason.ROUND_CAP, attacks)] == ["A1"]
    assert deadlocks_at(reason, attacks) == []


def test_a_pressed_dispute_fails_when_spend_stops_its_thread_and_escalates_at_the_cap() -> None:
    for reason, verdict, status in (
        (StopReason.COST_CAP, Verdict.FAIL, Status.UNRESOLVED),
        (StopReason.ROUND_CAP, Verdict.ESCALATE, Status.DEADLOCKED),
    ):
        run = _defended_and_pressed()
        attacks = list(run.state.attacks.values())
        for attack in deadlocks_at(reason, attacks):
            run.act(attack.id, Action.DEADLOCK)
        for attack in left_unresolved(reason, list(run.state.attacks.values())):
            run.act(attack.id, Action.MARK_UNRESOLVED)
        run.end("t", str(reason))
        assert run.state.attacks["A1"].status is status
        assert decide(run.state).verdict is verdict, reason


@pytest.mark.parametrize("reason", [StopReason.AWAITING_AUTHOR, StopReason.INTERRUPT])
def test_a_paused_thread_leaves_its_open_attacks_open(reason: StopReason) -> None:
    run = RunBuilder().thread()
    run.critic_round(raises=("A1",))
    attacks = list(run.state.attacks.values())
    assert left_unresolved(reason, attacks) == []
    assert [a.id for a in left_unresolved(StopReason.STEADY_STATE, attacks)] == ["A1"]
    assert [a.id for a in left_unresolved(StopReason.CRASHED, attacks)] == ["A1"]


def test_the_end_of_a_thread_leaves_resolved_and_standing_attacks_as_they_are() -> None:
    run = RunBuilder().thread()
    run.critic_round(raises=("FIXED", "PRESSED", "OPEN", "CONCEDED"))
    run.act("FIXED", Action.FIX, Action.ACCEPT)
    run.act("PRESSED", Action.DEFEND)
    run.act("CONCEDED", Action.CONCEDE)
    run.critic_round(re_attacks=("PRESSED",))
    run.act("PRESSED", Action.DEADLOCK)
    assert run.state.attacks["FIXED"].resolved
    assert run.state.attacks["PRESSED"].status is Status.DEADLOCKED
    ended = left_unresolved(StopReason.ROUND_CAP, list(run.state.attacks.values()))
    assert [a.id for a in ended] == ["OPEN"]
