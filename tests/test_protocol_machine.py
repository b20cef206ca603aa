"""The attack state machine: every legal transition, and illegal ones raise."""

from __future__ import annotations

import pytest

from contend.errors import IllegalTransition
from contend.protocol.machine import apply_action, next_status
from contend.protocol.model import Action, Attack, Location, Severity, Status


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
