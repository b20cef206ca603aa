"""A claim's state as the fold of what its ledger holds (claims/fold.py), where the mutation
run (bench/mutation/) found it unguarded: a ledger holding another claim's events, a round
or a convergence that does not match the recorded turns (a resumed claim must refuse it,
not plan from it), what the fold keeps of the turns and the proponent's replies (the tools
and sources named, the narrowed claim, the added evidence and assumptions, the protocol
errors a report shows), and the recorder that writes each step to the ledger."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from contend.claims.events import Event
from contend.claims.fold import ClaimRecording, apply, fold
from contend.claims.round_state import AgentOutput, Request, Setup, State, TurnsReply, start
from contend.claims.rounds import plan
from contend.errors import ProtocolError

AXES = {"internal-logic": "internal-logic", "external-fact": "external-fact"}

ATTACK = {
    "no_attack_point": False,
    "position": "reject",
    "attacks": [
        {"text": "the sample is small", "decisive": True, "evidence": ["E1"], "narrowing": "n"}
    ],
    "meta_attacks": [],
    "withdrawn": [],
    "concessions": [],
    "external_tools": ["tool-a", "tool-b"],
    "community_sources": ["https://forum.example/1"],
}
QUIET = {
    "no_attack_point": True,
    "position": "accept",
    "attacks": [],
    "meta_attacks": [],
    "withdrawn": [],
    "concessions": [],
    "external_tools": ["tool-b"],
    "community_sources": [],
}
NARROWING = {
    "evidence": [{"source_type": "logic", "argument": "it follows"}],
    "answers": ["IL-1"],
    "narrowed_claim": "a narrower claim",
    "added_assumptions": ["warm cache"],
    "withdrawn_evidence": [],
    "schema_context": "",
    "note": "",
}


def setup(claim_id: str = "C", **kw: Any) -> Setup:
    return Setup(claim_id, "a claim", {"schema-context": ""}, {"E1": "x"}, AXES, **kw)


def planned(
    s: Setup,
    turns: Mapping[str, Mapping[str, Any] | None],
    proponent: Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> tuple[list[Event], State]:
    """The planner run to its end with the same replies every round: its events and end."""
    step = plan(start(s), None)
    events = list(step.events)
    while step.request is not None:
        r: Request = step.request
        if r.kind == "turns":
            by_axis = {
                a: AgentOutput(a, turns[a], None if turns[a] is not None else "backend failed")
                for a in r.axes
            }
            reply: TurnsReply | AgentOutput = TurnsReply(r.round, r.context_sha256, by_axis)
        else:
            out = proponent if r.kind == "proponent" else meta
            reply = AgentOutput(r.kind, out, None if out is not None else "backend failed")
        step = plan(step.state, reply)
        events += step.events
    return events, step.state


def kinds(events: list[Event]) -> list[str]:
    return [k for k, _ in events]


# --- what the fold keeps ---------------------------------------------------------------------


def test_the_fold_keeps_the_narrowed_claim_evidence_assumptions_tools_and_sources() -> None:
    s = setup(proponent="proponent", cap=2)
    events, end = planned(s, {"internal-logic": ATTACK, "external-fact": QUIET}, NARROWING)
    state = fold(start(s), events)
    assert state == end
    assert state.phase == "done" and state.verdict == end.verdict is not None
    assert (state.surviving, state.retracted) == ("a narrower claim", ("a claim",))
    assert state.added_evidence == (("P1-1", "it follows"), ("P2-1", "it follows"))
    assert state.assumptions == ("warm cache",)
    # Named once each, in the order first named, whichever turn named them again.
    assert state.external_tools == ("tool-a", "tool-b")
    assert state.community_sources == ("https://forum.example/1",)
    assert [r.number for r in state.rounds] == [1, 2]
    assert state.rounds[0].proponent is not None
    assert state.rounds[0].proponent.new_evidence == ("P1-1",)
    assert state.rounds[0].proponent.narrowed_claim == "a narrower claim"
    [attack] = state.rounds[0].turns[0].attacks
    assert (attack.id, attack.axis, attack.decisive, attack.narrowing) == (
        "IL-1",
        "internal-logic",
        True,
        "n",
    )
    assert state.reasons == end.reasons and state.reasons


def test_a_round_every_seat_spoke_in_waits_for_the_proponent_only_if_an_attack_is_open() -> None:
    s = setup(proponent="proponent")
    events, _ = planned(s, {"internal-logic": ATTACK, "external-fact": QUIET}, NARROWING)
    turns = [i for i, (k, _) in enumerate(events) if k == "claim_turn"][:2]
    after_one = fold(start(s), events[: turns[0] + 1])
    after_both = fold(start(s), events[: turns[1] + 1])
    assert after_one.phase == "turns" and len(after_one.pending) == 1
    assert after_both.phase == "proponent" and len(after_both.pending) == 2

    quiet, _ = planned(s, {"internal-logic": QUIET, "external-fact": QUIET}, NARROWING)
    last_turn = max(i for i, (k, _) in enumerate(quiet) if k == "claim_turn")
    assert fold(start(s), quiet[: last_turn + 1]).phase == "turns"
    # Without a proponent a round never waits for one.
    alone = setup()
    attacked, _ = planned(alone, {"internal-logic": ATTACK, "external-fact": QUIET})
    last_turn = [i for i, (k, _) in enumerate(attacked) if k == "claim_turn"][1]
    assert fold(start(alone), attacked[: last_turn + 1]).phase == "turns"


def test_a_proponent_that_escalates_at_the_checkpoint_closes_its_round_in_the_fold() -> None:
    s = setup(proponent="proponent")
    events, _ = planned(s, {"internal-logic": ATTACK, "external-fact": QUIET}, NARROWING)
    checkpoint = kinds(events).index("claim_checkpoint")
    kind, data = events[checkpoint]
    escalated: Event = (kind, {**data, "outcome": "escalate"})
    state = fold(start(s), [*events[:checkpoint], escalated])
    assert len(state.rounds) == 1 and state.pending == () and state.answered is None
    assert state.rounds[0].proponent is not None
    assert state.rounds[0].proponent.answers == ("IL-1",)
    # Continued, the round stays open until its convergence closes it.
    open_round = fold(start(s), events[: checkpoint + 1])
    assert open_round.rounds == () and len(open_round.pending) == 2
    assert open_round.answered is not None


def test_protocol_errors_are_kept_as_the_report_words_them() -> None:
    s = setup(meta_judge="meta-judge", cap=1)
    events, end = planned(s, {"internal-logic": None, "external-fact": ATTACK})
    state = fold(start(s), events)
    assert state == end
    assert state.protocol_errors == (
        "round 1: internal-logic (internal-logic) unparseable: backend failed",
        "meta-judge: meta-judge meta-judge: backend failed",
    )
    assert state.deadlock is not None and state.deadlock == end.deadlock


# --- what the fold refuses or leaves alone -------------------------------------------------


def test_another_claims_events_and_unknown_kinds_leave_the_state_as_it_was() -> None:
    s = setup(proponent="proponent", cap=2)
    mine, end = planned(s, {"internal-logic": ATTACK, "external-fact": QUIET}, NARROWING)
    theirs, _ = planned(
        setup("D", proponent="proponent", cap=2), {"internal-logic": QUIET, "external-fact": QUIET}
    )
    mixed: list[Event] = []
    for i, event in enumerate(mine):
        mixed.append(event)
        if i < len(theirs):
            mixed.append(theirs[i])
    mixed.append(("claim_verdict", {"claim_id": "C", "verdict": "pass"}))
    assert fold(start(s), mixed) == end
    assert apply(end, theirs[-1]) is end


def _changed(events: list[Event], event_kind: str, **change: Any) -> list[Event]:
    i = kinds(events).index(event_kind)
    k, data = events[i]
    return [*events[:i], (k, {**data, **change}), *events[i + 1 :]]


def test_a_round_recorded_under_another_number_does_not_fold() -> None:
    s = setup()
    events, _ = planned(s, {"internal-logic": ATTACK, "external-fact": QUIET})
    with pytest.raises(ProtocolError, match="the ledger's round 2 was asked with another"):
        fold(start(s), _changed(events, "claim_round_started", round=2))


def test_a_round_asked_with_another_context_does_not_fold() -> None:
    s = setup()
    events, _ = planned(s, {"internal-logic": ATTACK, "external-fact": QUIET})
    with pytest.raises(ProtocolError, match="another round context than round 1's"):
        fold(start(s), _changed(events, "claim_round_started", context_sha256="0" * 64))


def test_a_convergence_the_recorded_turns_do_not_give_does_not_fold() -> None:
    s = setup()
    events, _ = planned(s, {"internal-logic": ATTACK, "external-fact": QUIET})
    kind = next(d for k, d in events if k == "claim_convergence")["kind"]
    other = "converged" if kind != "converged" else "escalate"
    with pytest.raises(ProtocolError, match=f"converged to {other!r} in the ledger"):
        fold(start(s), _changed(events, "claim_convergence", kind=other))
    with pytest.raises(ProtocolError, match="round 2 converged to"):
        fold(start(s), _changed(events, "claim_convergence", round=2))


def test_a_recorded_narrowing_retracts_the_surviving_claim() -> None:
    s = setup()
    state = apply(start(s), ("claim_narrowed", {"claim_id": "C", "to": "a smaller claim"}))
    assert (state.surviving, state.retracted) == ("a smaller claim", ("a claim",))


# --- the recorder ----------------------------------------------------------------------------


def test_the_recorder_folds_each_step_and_hands_it_to_the_ledger_once() -> None:
    s = setup()
    events, end = planned(s, {"internal-logic": QUIET, "external-fact": QUIET})
    written: list[list[Event]] = []
    log: list[Event] = []
    rec = ClaimRecording(start(s), lambda step: written.append(list(step)), log)
    half = len(events) // 2
    rec.record(events[:half])
    rec.record(events[half:])
    assert rec.state == end
    assert written == [events[:half], events[half:]]
    assert log == events

    replayed = ClaimRecording(start(s), lambda step: written.append(list(step)), [])
    replayed.fold_only(events)
    assert replayed.state == end and replayed.log == []
    assert len(written) == 2


def test_a_claim_cut_right_after_a_converged_round_resumes_at_the_next_rounds_turns() -> None:
    s = setup()
    events, end = planned(s, {"internal-logic": ATTACK, "external-fact": QUIET})
    first = kinds(events).index("claim_convergence")
    assert events[first][1]["kind"] != "judge-deadlock"
    cut = fold(start(s), events[: first + 1])
    assert cut.phase == "turns" and cut.convergence is not None
    step = plan(cut, None)
    assert step.request is not None
    assert (step.request.kind, step.request.round) == ("turns", 2)
    assert fold(cut, events[first + 1 :]) == end


def test_a_claim_cut_right_after_a_judge_deadlock_resumes_at_the_meta_judge() -> None:
    s = setup(meta_judge="meta-judge")
    # No attack point on either axis, yet one accepts and one rejects: a deadlock.
    events, end = planned(
        s, {"internal-logic": QUIET, "external-fact": {**QUIET, "position": "reject"}}
    )
    at = kinds(events).index("claim_convergence")
    assert events[at][1]["kind"] == "judge-deadlock"
    cut = fold(start(s), events[: at + 1])
    # The planner then waits for the meta-judge's report, not for another round's turns.
    assert cut.phase == "meta-judge"
    with pytest.raises(ProtocolError, match="expected the meta-judge's reply"):
        plan(cut, None)
    assert fold(cut, events[at + 1 :]) == end
