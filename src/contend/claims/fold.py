"""The fold of a claim's round events into the state its planner plans from.

    fold(start(setup), events) -> State        apply(state, event) -> State

A claim's rounds keep their own state (claims/round_state.State), not the review's
`RunState`; like the review's, it is the fold of what the ledger holds. The round planner
(claims/rounds.py) plans from it: on the one driver (review/driver.Drive) the claims
recorder (`ClaimRecording`) folds each event the planner returns before it plans again,
and a resumed claim starts from the fold of its recorded events.
`tests/test_claims_fold_properties.py` checks, with replies drawn by hypothesis, that the
fold of the recorded events equals the state the planner computed at every step.

What an event does not carry is derived by the same pure functions the planner uses: the
convergence of a round (convergence.converge, whose kind must be the recorded one), the
round context's hash (which must be the recorded one: a changed card or evidence does not
fold), and whether a round waits for the proponent. Kinds that are not the planner's
(claim_axes, claim_verdict, a pause, …) leave the state as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from contend.claims.convergence import (
    Attack,
    Concession,
    ProponentReply,
    Round,
    Turn,
    converge,
    open_attacks,
)
from contend.claims.deadlock import DeadlockReport
from contend.claims.events import Event
from contend.claims.round_state import State, context_hash, round_context
from contend.errors import ProtocolError


def fold(state: State, events: Iterable[Event]) -> State:
    for event in events:
        state = apply(state, event)
    return state


def apply(state: State, event: Event) -> State:
    kind, data = event
    step = _STEPS.get(kind)
    if step is None or data.get("claim_id") != state.setup.claim_id:
        return state
    return step(state, data)


def _round_started(state: State, data: Mapping[str, Any]) -> State:
    number = len(state.rounds) + 1
    if data["round"] != number or data["context_sha256"] != context_hash(round_context(state)):
        raise ProtocolError(
            f"claim {state.setup.claim_id}: the ledger's round {data['round']} was asked with "
            f"another round context than round {number}'s (its card or evidence changed)"
        )
    return replace(state, phase="turns")


def _attack(a: Mapping[str, Any]) -> Attack:
    return Attack(
        str(a["id"]),
        str(a["axis"]),
        str(a["text"]),
        decisive=bool(a["decisive"]),
        evidence=tuple(a["evidence"]),
        narrowing=a.get("narrowing") or None,
        target=a.get("target") or None,
    )


def _turn(state: State, data: Mapping[str, Any]) -> State:
    axis = str(data["axis"])
    turn = Turn(
        axis,
        data["kind"],
        position=data["position"],
        attacks=tuple(_attack(a) for a in data["attacks"]),
        meta_attacks=tuple(_attack(a) for a in data["meta_attacks"]),
        withdrawn=tuple(data["withdrawn"]),
        concessions=tuple(
            Concession(axis, c["attack_id"], c["own_evidence"], c["defeated_by"], c["text"])
            for c in data["concessions"]
        ),
    )
    # As the planner merges them: what one turn names that earlier turns did not.
    tools, sources = list(state.external_tools), list(state.community_sources)
    tools += [t for t in data["external_tools"] if t not in tools]
    sources += [u for u in data["community_sources"] if u not in sources]
    pending = (*state.pending, turn)
    state = replace(
        state, pending=pending, external_tools=tuple(tools), community_sources=tuple(sources)
    )
    if len(pending) < len(state.setup.seats) or state.setup.proponent is None:
        return state
    # Every seat spoke: the round waits for the proponent if an attack is open, else the
    # same step closes it (its `claim_convergence` follows).
    probe = state.claim_rounds([*state.rounds, Round(len(state.rounds) + 1, pending)])
    return replace(state, phase="proponent") if open_attacks(probe) else state


def _protocol_error(state: State, data: Mapping[str, Any]) -> State:
    if data["axis"] == "meta-judge":
        message = f"meta-judge: {data['error']}"
    else:
        message = (
            f"round {data['round']}: {data['axis']} ({data['agent']}) {data['kind']}: "
            f"{data['error']}"
        )
    return replace(state, protocol_errors=(*state.protocol_errors, message))


def _checkpoint(state: State, data: Mapping[str, Any]) -> State:
    """The proponent's reply through the checkpoint: the round's turns stay pending until
    its `claim_convergence` closes it in the same step, or it ends the claim here."""
    added = tuple((str(a["id"]), str(a["locator"])) for a in data["added"])
    reply = ProponentReply(
        new_evidence=tuple(e for e, _ in added),
        answers=tuple(data["answers"]),
        decision_relevant=bool(data["decision_relevant"]),
        narrowed_claim=data["narrowed_claim"],
    )
    state = replace(
        state,
        answered=reply,
        added_evidence=(*state.added_evidence, *added),
        assumptions=(*state.assumptions, *data["new_assumptions"]),
    )
    if reply.narrowed_claim:
        state = _narrow(state, reply.narrowed_claim)
    if data["outcome"] == "escalate":  # the claim ends with this round, unconverged
        rnd = Round(len(state.rounds) + 1, state.pending, reply)
        return replace(state, rounds=(*state.rounds, rnd), pending=(), answered=None)
    return state


def _narrow(state: State, claim: str) -> State:
    return replace(state, retracted=(*state.retracted, state.surviving), surviving=claim)


def _convergence(state: State, data: Mapping[str, Any]) -> State:
    rnd = Round(len(state.rounds) + 1, state.pending, state.answered)
    state = replace(state, rounds=(*state.rounds, rnd), pending=(), answered=None)
    result = converge(state.claim_rounds(), state.surviving)
    if result.kind != data["kind"] or rnd.number != data["round"]:
        raise ProtocolError(
            f"claim {state.setup.claim_id}: round {data['round']} converged to "
            f"{data['kind']!r} in the ledger, but its recorded turns converge to "
            f"{result.kind!r} in round {rnd.number}"
        )
    return replace(
        state,
        convergence=result,
        phase="meta-judge" if result.kind == "judge-deadlock" else "turns",
    )


def _narrowed(state: State, data: Mapping[str, Any]) -> State:
    return _narrow(state, str(data["to"]))


def _deadlock_report(state: State, data: Mapping[str, Any]) -> State:
    return replace(state, deadlock=DeadlockReport.model_validate(data["report"]))


def _rounds_finished(state: State, data: Mapping[str, Any]) -> State:
    return replace(state, phase="done", verdict=data["verdict"], reasons=tuple(data["reasons"]))


_STEPS: Mapping[str, Callable[[State, Mapping[str, Any]], State]] = {
    "claim_round_started": _round_started,
    "claim_turn": _turn,
    "claim_protocol_error": _protocol_error,
    "claim_checkpoint": _checkpoint,
    # claim_proponent (no answer) changes nothing: the round closes with its turns alone.
    "claim_convergence": _convergence,
    "claim_narrowed": _narrowed,
    "claim_deadlock_report": _deadlock_report,
    "claim_rounds_finished": _rounds_finished,
}


class ClaimRecording:
    """The claims recorder on the one driver: the fold of every event recorded so far
    (`state`), and `record`, which folds one step's events and hands them to `sink` (the
    run's ledger: appended and persisted as one step, as they happen)."""

    def __init__(
        self, state: State, sink: Callable[[Sequence[Event]], None], log: list[Event]
    ) -> None:
        self._state = state
        self._sink = sink
        self.log = log

    @property
    def state(self) -> State:
        return self._state

    def record(self, events: Sequence[Event], /) -> None:
        self._state = fold(self._state, events)
        self.log.extend(events)
        self._sink(events)

    def fold_only(self, events: Sequence[Event]) -> None:
        """Events the ledger holds already (a replayed claim's): folded, not written."""
        self._state = fold(self._state, events)
