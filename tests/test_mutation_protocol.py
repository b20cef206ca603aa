"""The fold and the verdict, second pass of the mutation run (issue 18): behaviour of the
run state that the survivors showed unguarded, checked on the folded state and the
verdict, not on the lines."""

from __future__ import annotations

from contend.protocol.state import fold


def test_a_session_without_a_run_id_keeps_the_one_the_run_has() -> None:
    """A run_started that names no run leaves the run's id as it was: none for the first
    session, the first session's for a later one."""
    assert fold([{"kind": "run_started", "data": {}}]).run_id == ""
    state = fold(
        [
            {"kind": "run_started", "data": {"run_id": "r1"}},
            {"kind": "run_started", "data": {}},
        ]
    )
    assert (state.run_id, state.sessions) == ("r1", 2)
