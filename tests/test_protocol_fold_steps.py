"""The fold's one-lookup path (machine.FOLD_STEPS) admits exactly what the checked path
admits, and moves the attack exactly as it does: every action word × actor word × status ×
resolved × defence × declared actor × odd text, through both, compared field by field."""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest
from tests.protocol_helpers import make_attack

from contend.errors import ProtocolError
from contend.protocol import state as st
from contend.protocol.machine import FOLD_STEPS
from contend.protocol.model import Action, Actor, Status
from contend.protocol.state import RoundTally, RunState, ThreadState

_WORDS = ["author", "proposer", "critic", "static", "engine", "human", "oracle", "critic-t", "x"]
_DECLARED = [None, *(str(a) for a in Actor), "nobody"]


def _run(status: Status, resolved: bool, defended: int) -> RunState:
    state = RunState()
    state.threads["t"] = ThreadState(name="t", critic="critic-t", family="fam-a", round=1)
    state.threads["t"].rounds[1] = RoundTally()
    attack = make_attack("A1", status=status, resolved=resolved, defended_count=defended)
    state.attacks["A1"] = attack
    return state


def _outcome(handler: Any, state: RunState, data: dict[str, Any]) -> tuple[Any, ...]:
    try:
        handler(state, data, 7)
    except ProtocolError as exc:  # IllegalTransition is one
        return ("refused", type(exc).__name__, str(exc))
    a = state.attacks["A1"]
    return (
        a.status,
        a.resolved,
        a.re_attacked,
        a.defended_count,
        a.survived_frozen,
        a.history,
        state.threads["t"].rounds[1].re_attacks,
    )


def _lines() -> list[dict[str, Any]]:
    lines = []
    for action, by, declared in itertools.product(
        [*(str(a) for a in Action), "shrug"], _WORDS, _DECLARED
    ):
        data: dict[str, Any] = {"attack": "A1", "action": action, "by": by, "text": "t"}
        if declared is not None:
            data["actor"] = declared
        lines.append(data)
    return lines


_ODD: list[dict[str, Any]] = [
    {"attack": "A1", "action": "fix", "by": "proposer", "text": 3},
    {"attack": "A1", "action": "fix", "by": "proposer", "evidence": ["x"]},
    {"attack": "A1", "action": "fix", "by": "proposer", "commit": 5, "round": 1, "x": 1},
    {"attack": "A1", "action": "fix", "by": "proposer", "commit": "abc", "round": 1, "x": 1},
    {"attack": "A2", "action": "fix", "by": "proposer"},
    {"attack": ["A1"], "action": "fix", "by": "proposer"},
    {"attack": "A1", "action": ["fix"], "by": "proposer"},
    {"attack": "A1", "action": "fix", "by": ["proposer"]},
]


@pytest.mark.parametrize("status", list(Status))
def test_fold_steps_agree_with_the_checked_path(status: Status) -> None:
    for data, resolved, defended in itertools.product([*_lines(), *_ODD], [False, True], [0, 1]):
        fast_state = _run(status, resolved, defended)
        slow_state = copy.deepcopy(fast_state)
        try:
            slow = _outcome(st._checked_transition, slow_state, dict(data))
        except (TypeError, KeyError) as exc:  # the checked path's own crash on junk
            slow = ("crash", type(exc).__name__)
        try:
            fast = _outcome(st._attack_transition, fast_state, dict(data))
        except (TypeError, KeyError) as exc:
            fast = ("crash", type(exc).__name__)
        assert fast == slow, (status, resolved, defended, data)


def test_fold_steps_cover_the_common_lines() -> None:
    # The table is not empty and holds the lines a review writes most.
    assert FOLD_STEPS["fix", "proposer", "open"][2] is Status.FIXED
    assert FOLD_STEPS["re_attack", "critic", "defended"][2] is Status.RE_ATTACKED
    assert ("fix", "critic", "open") not in FOLD_STEPS
