"""Who acted on an attack (protocol/machine.py), where the mutation run (bench/mutation/)
found it unguarded: a ledger line `by` the oracle names the oracle, which has no decision
authority — the line is refused as an action the oracle may not take, in the fold and
before anything is appended, not as a line whose actor nobody can tell."""

from __future__ import annotations

import pytest

from contend.errors import IllegalTransition
from contend.protocol import events as ev
from contend.protocol.model import Action, Status
from contend.protocol.state import admit
from protocol_helpers import RunBuilder


@pytest.mark.parametrize(
    ("action", "who"),
    [(Action.WITHDRAW, "critic or engine"), (Action.ACCEPT, "critic"), (Action.DEADLOCK, "engine")],
)
def test_a_line_by_the_oracle_is_refused_as_the_oracles_action(action: Action, who: str) -> None:
    run = RunBuilder().thread()
    run.critic_round(raises=("A1",))
    line = ev.transition("A1", action, by="oracle", text="the report says so")
    refusal = f"attack A1: oracle may not {action} (only the {who} may)"
    with pytest.raises(IllegalTransition) as before_append:
        admit(run.state, line)
    assert str(before_append.value) == refusal
    with pytest.raises(IllegalTransition) as in_the_fold:
        run.emit(dict(line))
    assert str(in_the_fold.value) == refusal
    assert run.state.attacks["A1"].status is Status.OPEN
    assert run.state.attacks["A1"].history == []
