"""The fold and the verdict, second pass of the mutation run (issue 18): behaviour of the
run state that the survivors showed unguarded, checked on the folded state and the
verdict, not on the lines."""

from __future__ import annotations

import pytest

from contend.errors import ProtocolError
from contend.protocol import events as ev
from contend.protocol.events import EventKind
from contend.protocol.model import Action, Actor
from contend.protocol.state import fold
from protocol_helpers import RunBuilder


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


@pytest.mark.parametrize(
    "extra",
    [{"round": "two"}, {"commit": 5}, {"in_source": "yes"}],
)
def test_a_transition_with_every_common_word_and_a_bad_extra_is_refused(
    extra: dict[str, object],
) -> None:
    """Six common members (attack, action, by, actor, text, evidence) plus one extra of
    the wrong type: the fold must check the extra, however many common members came with it."""
    run = RunBuilder().thread()
    run.open_round()
    run.critic_output()
    run.raise_attack("A1")
    run.close_round()
    base = ev.transition(
        "A1", Action.DEFEND, by="author", actor=Actor.PROPOSER, text="t", evidence="e"
    )
    bad = {**base, "data": {**base["data"], **extra}}
    assert len(bad["data"]) == 7
    with pytest.raises(ProtocolError):
        run.emit(bad)
    assert run.state.attacks["A1"].history == []
    run.emit(base)  # the same line without the extra is admitted
    assert len(run.state.attacks["A1"].history) == 1


def test_every_declared_topic_is_kept_in_order_for_later_critics() -> None:
    """What a later critic is told is taken: every topic declared, in declaration order."""
    run = RunBuilder().thread("t1").thread("t2")
    run.add(EventKind.TOPIC_DECLARED, thread="t2", topic="concurrency")
    run.add(EventKind.TOPIC_DECLARED, thread="t1", topic="input validation")
    assert run.state.declared_topics == ["concurrency", "input validation"]
    assert run.thread_state("t1").topic == "input validation"


def test_an_attack_recorded_after_its_round_closed_survives_every_later_close() -> None:
    """Rounds survived count the closes after the raising round: when the raising round is
    already closed (the attack is recorded after its close), the next close is one."""
    run = RunBuilder().thread()
    run.critic_round()
    run.critic_round()  # rounds 1 and 2 closed
    run.raise_attack("A1")  # raised in round 2, recorded after its close
    assert run.state.attacks["A1"].rounds_survived == 0
    run.critic_round()
    assert run.state.attacks["A1"].rounds_survived == 1


@pytest.mark.parametrize(
    ("failed", "kind"),
    [
        ({"failure": "malformed"}, "malformed"),
        ({"failure": "timeout", "malformed": True}, "timeout"),
        ({"timeout": True}, "timeout"),  # a ledger written before `failure`
        ({"malformed": True}, "malformed"),
        ({}, "error"),
    ],
)
def test_how_an_agent_failed_is_its_failure_else_what_its_flags_say(
    failed: dict[str, object], kind: str
) -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.add(EventKind.AGENT_FAILED, thread="t", role="critic", error="boom", **failed)
    assert run.thread_state().critic_failure == kind


def test_a_usable_output_clears_how_the_critic_last_failed() -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.critic_failure("t", "crashed")
    assert run.thread_state().critic_failure is not None
    run.critic_output()
    assert run.thread_state().critic_failure is None


@pytest.mark.parametrize("data", [{}, {"note": ""}, {"note": "  \n"}])
def test_an_escape_without_a_note_is_refused(data: dict[str, object]) -> None:
    run = RunBuilder()
    with pytest.raises(ProtocolError, match="has no note"):
        run.add(EventKind.ESCAPE_RECORDED, **data)
    assert run.state.escapes == []


def test_an_escape_is_kept_with_the_position_it_was_recorded_at() -> None:
    run = RunBuilder()
    run.add(EventKind.ESCAPE_RECORDED, note="a race the critics missed")
    assert run.state.escapes == [{"seq": 1, "note": "a race the critics missed"}]


def test_admit_names_the_seq_the_refused_line_would_have_had() -> None:
    """admit checks a transition before it is written, as the fold will: its error names
    the position the line would take, the one the fold would name."""
    from contend.protocol.state import admit

    run = RunBuilder().thread()
    run.open_round()
    run.critic_output()
    run.raise_attack("A1")
    line = ev.transition("A1", Action.DEFEND, by="author", actor=Actor.PROPOSER, text="t")
    bad = {**line, "data": {**line["data"], "text": 7}}
    nxt = run.state.last_seq + 1
    with pytest.raises(ProtocolError, match=rf"transition on attack A1 at seq {nxt}: text 7"):
        admit(run.state, bad)  # type: ignore[arg-type]
    with pytest.raises(ProtocolError, match=rf"transition on attack A1 at seq {nxt}: text 7"):
        run.emit(bad)


def test_a_later_round_closed_twice_is_refused() -> None:
    """Not only round 1: any round closed again, after others closed before it."""
    run = RunBuilder().thread()
    run.critic_round()
    run.critic_round()  # rounds 1 and 2 closed
    with pytest.raises(ProtocolError, match="round 2 closed out of order"):
        run.close_round()
    assert run.thread_state().closed_rounds == [1, 2]
