"""Replaying a claim's rounds from its ledger (claims/resume.py, `contend verify` on an
interrupted run): the replies the ledger recorded, answered again to the planner's requests
(claims/rounds.py), so no agent is asked twice for a reply it already gave.

`RecordedReplies.reply_for(request)` is the recorded reply to one request, or None. On the
one driver (claims/driver.run_rounds) it stands in for the agents until the ledger runs
out, and the fold (claims/fold.py) is rebuilt on the way; `replay_events` is the same
replay as a pure loop, with no driver and no agent at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from contend.claims.events import Event
from contend.claims.round_state import (
    AgentOutput,
    Reply,
    Request,
    State,
    Step,
    TurnsReply,
    reply_of,
)
from contend.claims.rounds import plan


@dataclass(slots=True)
class RecordedReplies:
    """The replies a ledger recorded for one claim — its agents' turns (`claim_turn`), the
    proponent's (`claim_checkpoint`, `claim_proponent`, or a person's
    `claim_proponent_reply` not yet answered), the meta-judge's (`claim_deadlock_report`,
    `claim_protocol_error`) — with the round context each round's agents really saw."""

    turns: dict[int, dict[str, AgentOutput]] = field(default_factory=dict)
    proponent: dict[int, AgentOutput] = field(default_factory=dict)
    person: dict[int, AgentOutput] = field(default_factory=dict)
    meta: AgentOutput | None = None
    contexts: dict[int, str] = field(default_factory=dict)

    @classmethod
    def of(cls, recorded: Sequence[Event]) -> RecordedReplies:
        out = cls()
        for kind, data in recorded:
            if kind == "claim_round_started":
                out.contexts[int(data["round"])] = str(data["context_sha256"])
            elif kind == "claim_turn":
                got = reply_of(str(data["agent"]), data.get("reply"))
                if got is not None:
                    out.turns.setdefault(int(data["round"]), {})[str(data["axis"])] = got
            elif kind in ("claim_checkpoint", "claim_proponent"):
                got = reply_of(str(data["agent"]), data.get("reply"))
                if got is not None:
                    out.proponent[int(data["round"])] = got
            elif kind == "claim_proponent_reply":
                got = reply_of(str(data.get("by", "human")), data.get("reply"))
                if got is not None:
                    out.person[int(data["round"])] = got
            elif kind in ("claim_deadlock_report", "claim_protocol_error") and (
                kind == "claim_deadlock_report" or data.get("axis") == "meta-judge"
            ):
                got = reply_of(str(data.get("agent") or "meta-judge"), data.get("reply"))
                out.meta = got or out.meta
        return out

    def reply_for(self, request: Request) -> Reply | None:
        """The recorded reply to `request`, or None. A round whose turns are recorded for
        only some of its axes has none (it was cut off mid-write). The turns carry the
        context the agents really saw, as recorded: the planner compares it with the one
        it builds now and refuses a difference (ProtocolError), so a changed card or
        evidence cannot be replayed silently."""
        got_turns = self.turns.get(request.round, {})
        if request.kind == "turns" and got_turns and set(request.axes) <= set(got_turns):
            seen = self.contexts.get(request.round, "")
            return TurnsReply(request.round, seen, got_turns)
        if request.kind == "proponent":
            return self.proponent.get(request.round) or self.person.get(request.round)
        if request.kind == "meta-judge":
            return self.meta
        return None


def replay(state: State, recorded: Sequence[Event]) -> Step:
    """The planner run again over the replies a ledger recorded for one claim: the step it
    had reached (see `replay_events`)."""
    return replay_events(state, recorded)[0]


def replay_events(state: State, recorded: Sequence[Event]) -> tuple[Step, list[Event]]:
    """The planner run again over the replies a ledger recorded for one claim, until a
    request has no recorded reply: that step, and every event the planner produced on the
    way (the last step's included)."""
    replies = RecordedReplies.of(recorded)
    step = plan(state, None)
    produced: list[Event] = list(step.events)
    while step.request is not None:
        reply = replies.reply_for(step.request)
        if reply is None:
            return step, produced
        step = plan(step.state, reply)
        produced.extend(step.events)
    return step, produced
