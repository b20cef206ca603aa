"""The attack state machine: every legal transition, and illegal ones raise."""

from __future__ import annotations

import pytest

from contend.errors import IllegalTransition
from contend.protocol.machine import apply_action, next_status
from contend.protocol.model import Action, Attack, Location, Severity, Status
from protocol_helpers import ModelAttack, model_step


def make_attack(status: Status = Status.OPEN, **kw: object) -> Attack:
    attack = Attack(
        id="A1",
        thread="t",
        critic="c",
        family="f",
        topic="x",
        rule="r",
        severity=Severity.MAJOR,
        location=Location("a.py", 1, 1),
        claim="c",
        evidence="e",
        raised_round=1,
        raised_seq=0,
    )
    attack.status = status
    for key, value in kw.items():
        setattr(attack, key, value)
    return attack


@pytest.mark.parametrize(
    ("start", "action", "expected", "resolved"),
    [
        (Status.OPEN, Action.FIX, Status.FIXED, False),
        (Status.OPEN, Action.CONCEDE, Status.CONCEDED, False),
        (Status.OPEN, Action.DEFEND, Status.DEFENDED, False),
        (Status.FIXED, Action.ACCEPT, Status.FIXED, True),
        (Status.DEFENDED, Action.ACCEPT, Status.ACCEPTED, True),
        (Status.CONCEDED, Action.ACCEPT, Status.CONCEDED, True),
        (Status.FIXED, Action.RE_ATTACK, Status.RE_ATTACKED, False),
        (Status.DEFENDED, Action.RE_ATTACK, Status.RE_ATTACKED, False),
        (Status.RE_ATTACKED, Action.DEFEND, Status.DEFENDED, False),
        (Status.OPEN, Action.WITHDRAW, Status.WITHDRAWN, True),
        (Status.DEFENDED, Action.WITHDRAW, Status.WITHDRAWN, True),
        (Status.OPEN, Action.MARK_UNRESOLVED, Status.UNRESOLVED, False),
        (Status.CONCEDED, Action.MARK_UNRESOLVED, Status.CONCEDED, False),
        (Status.UNRESOLVED, Action.FIX, Status.FIXED, False),
        (Status.DEADLOCKED, Action.UPHOLD, Status.UPHELD, False),
        (Status.DEADLOCKED, Action.OVERRULE, Status.OVERRULED, True),
        (Status.UPHELD, Action.WAIVE, Status.WAIVED, True),
    ],
)
def test_legal_transitions(start: Status, action: Action, expected: Status, resolved: bool) -> None:
    attack = make_attack(start)
    assert next_status(attack, action) == (expected, resolved)
    apply_action(attack, action)
    assert attack.status is expected
    assert attack.resolved is resolved


@pytest.mark.parametrize(
    ("start", "action"),
    [
        (Status.OPEN, Action.ACCEPT),  # nothing was answered yet
        (Status.OPEN, Action.RE_ATTACK),
        (Status.RE_ATTACKED, Action.ACCEPT),
        (Status.FIXED, Action.FIX),  # answered twice before a judgement
        (Status.DEFENDED, Action.CONCEDE),
        (Status.OPEN, Action.DEADLOCK),  # never defended
    ],
)
def test_illegal_transitions_raise(start: Status, action: Action) -> None:
    attack = make_attack(start)
    with pytest.raises(IllegalTransition, match=str(action)):
        apply_action(attack, action)
    assert attack.status is start
    assert attack.resolved is False


def test_resolved_attack_accepts_no_further_action() -> None:
    attack = make_attack(Status.FIXED)
    apply_action(attack, Action.ACCEPT)
    for action in Action:
        with pytest.raises(IllegalTransition, match="already resolved"):
            apply_action(attack, action)


def test_deadlock_needs_a_defense_that_was_re_attacked() -> None:
    attack = make_attack()
    apply_action(attack, Action.DEFEND)
    apply_action(attack, Action.RE_ATTACK)
    apply_action(attack, Action.DEADLOCK)
    assert attack.status is Status.DEADLOCKED
    assert attack.re_attacked and not attack.resolved
    assert attack.contention == 1


def test_deadlock_needs_a_defence_ever_made() -> None:
    """Fix → re-attack → deadlock: nobody defended anything, so it is not a deadlock
    between two positions; the fix was rejected and the attack stands."""
    attack = make_attack()
    apply_action(attack, Action.FIX)
    apply_action(attack, Action.RE_ATTACK)
    with pytest.raises(IllegalTransition, match="deadlock is not allowed from status re_attacked"):
        apply_action(attack, Action.DEADLOCK)
    assert attack.status is Status.RE_ATTACKED


def test_deadlock_after_a_defence_holds_even_if_a_fix_came_later() -> None:
    attack = make_attack()
    for action in (Action.DEFEND, Action.RE_ATTACK, Action.FIX, Action.RE_ATTACK):
        apply_action(attack, action)
    assert attack.defended_count == 1
    apply_action(attack, Action.DEADLOCK)
    assert attack.status is Status.DEADLOCKED


def test_a_defended_attack_not_yet_judged_can_deadlock_at_the_cap() -> None:
    attack = make_attack()
    apply_action(attack, Action.DEFEND)
    apply_action(attack, Action.DEADLOCK)
    assert (attack.status, attack.resolved, attack.re_attacked) == (
        Status.DEADLOCKED,
        False,
        False,
    )


@pytest.mark.parametrize("start", [Status.OPEN, Status.FIXED, Status.CONCEDED, Status.UNRESOLVED])
def test_deadlock_is_only_from_a_defended_or_re_attacked_status(start: Status) -> None:
    attack = make_attack(start, defended_count=1)
    with pytest.raises(IllegalTransition):
        apply_action(attack, Action.DEADLOCK)


def test_bookkeeping_of_re_attacks_defences_and_resolution() -> None:
    attack = make_attack()
    apply_action(attack, Action.DEFEND)
    assert (attack.defended_count, attack.re_attacked) == (1, False)
    apply_action(attack, Action.RE_ATTACK)
    apply_action(attack, Action.DEFEND)
    assert (attack.defended_count, attack.re_attacked) == (2, True)
    attack.counter.closed = 4
    apply_action(attack, Action.ACCEPT)
    attack.counter.closed = 9  # rounds closing after the resolution do not count
    assert attack.rounds_survived == 4
    assert attack.contention == 5


def _reachable() -> dict[ModelAttack, tuple[Action, ...]]:
    """Every state an attack can reach from open, by the model, with a path to it."""
    paths: dict[ModelAttack, tuple[Action, ...]] = {ModelAttack(): ()}
    frontier = [ModelAttack()]
    while frontier:
        state = frontier.pop()
        for action in Action:
            after = model_step(state, action)
            if after is not None and after not in paths:
                paths[after] = (*paths[state], action)
                frontier.append(after)
    return paths


REACHABLE = _reachable()


def test_the_model_reaches_every_status() -> None:
    assert {s.status for s in REACHABLE} == set(Status)


@pytest.mark.parametrize(
    "path", sorted(REACHABLE.values(), key=lambda p: [str(a) for a in p]), ids=str
)
def test_every_action_from_every_reachable_state_matches_the_table(
    path: tuple[Action, ...],
) -> None:
    """The machine against an independent table, for each action from each state an
    attack can actually be in (reached through legal actions from open)."""
    expected_state = REACHABLE_BY_PATH[path]
    for action in Action:
        attack = make_attack()
        for step in path:
            apply_action(attack, step)
        assert (attack.status, attack.resolved) == (
            expected_state.status,
            expected_state.resolved,
        )
        expected = model_step(expected_state, action)
        if expected is None:
            with pytest.raises(IllegalTransition):
                next_status(attack, action)
            with pytest.raises(IllegalTransition):
                apply_action(attack, action)
            assert (attack.status, attack.resolved) == (
                expected_state.status,
                expected_state.resolved,
            )
        else:
            assert next_status(attack, action) == (expected.status, expected.resolved), action
            apply_action(attack, action)
            assert (attack.status, attack.resolved) == (expected.status, expected.resolved)
            assert (attack.defended_count > 0) is expected.defended
            assert attack.re_attacked is (Action.RE_ATTACK in (*path, action))


REACHABLE_BY_PATH = {path: state for state, path in REACHABLE.items()}
