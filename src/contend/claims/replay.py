"""Replaying a claim's rounds from its ledger (claims/resume.py, `contend verify` on an
interrupted run): the planner (claims/rounds.py) run again over the replies the ledger
recorded, so no agent is asked twice for a reply it already gave.
"""

from __future__ import annotations

from collections.abc import Sequence

from contend.claims.events import Event
from contend.claims.round_state import AgentOutput, Reply, State, Step, TurnsReply, reply_of
from contend.claims.rounds import plan


def replay(state: State, recorded: Sequence[Event]) -> Step:
    """The planner run again over the replies a ledger recorded for one claim: the step it
    had reached (see `replay_events`)."""
    return replay_events(state, recorded)[0]


def replay_events(state: State, recorded: Sequence[Event]) -> tuple[Step, list[Event]]:
    """The planner run again over the replies a ledger recorded for one claim — its
    agents' turns (`claim_turn`), the proponent's replies (`claim_checkpoint`,
    `claim_proponent`, or a person's `claim_proponent_reply` not yet answered), the
    meta-judge's (`claim_deadlock_report`, `claim_protocol_error`) — until a request has no
    recorded reply: that step, and every event the planner produced on the way (the last
    step's included). A round whose turns are recorded for only some of its axes is not
    fed (it was cut off mid-write: the caller sees more recorded events than produced).
    The planner refuses turns whose round context differs from the one it builds
    (ProtocolError), so a changed card or evidence cannot be replayed silently."""
    turns: dict[int, dict[str, AgentOutput]] = {}
    proponent: dict[int, AgentOutput] = {}
    person: dict[int, AgentOutput] = {}
    meta: AgentOutput | None = None
    contexts: dict[int, str] = {}
    for kind, data in recorded:
        if kind == "claim_round_started":
            contexts[int(data["round"])] = str(data["context_sha256"])
        elif kind == "claim_turn":
            got = reply_of(str(data["agent"]), data.get("reply"))
            if got is not None:
                turns.setdefault(int(data["round"]), {})[str(data["axis"])] = got
        elif kind in ("claim_checkpoint", "claim_proponent"):
            got = reply_of(str(data["agent"]), data.get("reply"))
            if got is not None:
                proponent[int(data["round"])] = got
        elif kind == "claim_proponent_reply":
            got = reply_of(str(data.get("by", "human")), data.get("reply"))
            if got is not None:
                person[int(data["round"])] = got
        elif kind in ("claim_deadlock_report", "claim_protocol_error") and (
            kind == "claim_deadlock_report" or data.get("axis") == "meta-judge"
        ):
            meta = reply_of(str(data.get("agent") or "meta-judge"), data.get("reply")) or meta
    step = plan(state, None)
    produced: list[Event] = list(step.events)
    while step.request is not None:
        request = step.request
        got_turns = turns.get(request.round, {})
        if request.kind == "turns" and got_turns and set(request.axes) <= set(got_turns):
            # The context the agents really saw, as recorded: the planner compares it with
            # the one it builds now and refuses a difference.
            seen = contexts.get(request.round, "")
            reply: Reply = TurnsReply(request.round, seen, got_turns)
        elif request.kind == "proponent" and request.round in proponent:
            reply = proponent[request.round]
        elif request.kind == "proponent" and request.round in person:
            reply = person[request.round]
        elif request.kind == "meta-judge" and meta is not None:
            reply = meta
        else:
            return step, produced
        step = plan(step.state, reply)
        produced.extend(step.events)
    return step, produced
