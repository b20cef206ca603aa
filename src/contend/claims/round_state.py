"""The data of one claim's rounds (claims/rounds.py plans over it): what does not change
(`Setup`), the state between two steps (`State`), the requests the planner makes and the
replies the driver (claims/driver.py) feeds back, the one round context every agent of a
round sees, and a reply as the ledger keeps it for replay. Pure data, no I/O.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from contend.claims.convergence import (
    SAFETY_CAP,
    Attack,
    ClaimRounds,
    Convergence,
    ProponentReply,
    Round,
    Turn,
    Verdict,
    open_attacks,
)
from contend.claims.deadlock import DeadlockReport
from contend.claims.events import Event
from contend.protocol import claims_event_types as ct

Phase = Literal["turns", "proponent", "meta-judge", "done"]
INTERNAL_FACT = "internal-fact"  # the deterministic checker's spec on its axis


@dataclass(frozen=True, slots=True)
class Setup:
    """What does not change during a claim's rounds."""

    claim_id: str
    claim_text: str
    card: Mapping[str, Any]  # the card as read, kebab-case (for the round context)
    evidence: Mapping[str, str]  # kept evidence id → locator
    seats: Mapping[str, str]  # axis → agent spec, in the assigned order
    consensus: Literal["unanimity", "majority", "weighted"] = "unanimity"
    weights: Mapping[str, float] | None = None
    proponent: str | None = None
    person_proponent: bool = False  # the proponent is a person: its turn pauses the run
    meta_judge: str | None = None
    web_access: frozenset[str] = frozenset()  # axes whose agent can read the web
    web_asked: bool = False  # web access was asked for (`--web-access`)
    external_tool: bool = False  # the card says the claim is about an external tool
    cap: int = SAFETY_CAP


@dataclass(frozen=True, slots=True)
class State:
    setup: Setup
    rounds: tuple[Round, ...] = ()
    phase: Phase = "turns"
    pending: tuple[Turn, ...] = ()  # this round's turns, while the proponent answers
    surviving: str = ""
    assumptions: tuple[str, ...] = ()
    added_evidence: tuple[tuple[str, str], ...] = ()
    retracted: tuple[str, ...] = ()
    convergence: Convergence | None = None
    verdict: Verdict | None = None
    reasons: tuple[str, ...] = ()
    deadlock: DeadlockReport | None = None
    protocol_errors: tuple[str, ...] = ()
    external_tools: tuple[str, ...] = ()
    community_sources: tuple[str, ...] = ()
    # Only inside one step of the fold (claims/fold.py): the proponent's reply between its
    # checkpoint and the close of its round. None at every step's end.
    answered: ProponentReply | None = None

    def claim_rounds(self, rounds: Sequence[Round] | None = None) -> ClaimRounds:
        ids = frozenset(self.setup.evidence) | {e for e, _ in self.added_evidence}
        return ClaimRounds(
            axes=tuple(self.setup.seats),
            rounds=tuple(self.rounds if rounds is None else rounds),
            evidence_ids=ids,
            consensus=self.setup.consensus,
            weights=self.setup.weights,
            cap=self.setup.cap,
        )

    @property
    def web_seated(self) -> bool:
        return bool(self.setup.web_access & set(self.setup.seats))

    @property
    def unverified_echo(self) -> tuple[str, ...]:
        """External tools the claim relies on, unless an agent that really had web access
        cited community reports: otherwise the result rests on official documentation
        alone ("unverified echo"). Sources named by an agent without web access do not
        count: it could not have read them."""
        tools = self.external_tools or (
            ("the claim's external tool",) if self.setup.external_tool else ()
        )
        if not tools or (self.web_seated and self.community_sources):
            return ()
        return tools


def start(setup: Setup, assumptions: Sequence[str] = ()) -> State:
    return State(setup, surviving=setup.claim_text, assumptions=tuple(assumptions))


@dataclass(frozen=True, slots=True)
class AgentOutput:
    """One reply as the driver got it: the structured output, or why there is none."""

    agent: str
    output: Mapping[str, Any] | None
    error: str | None = None
    raw_text: str = ""
    silent: bool = False  # the agent had no turn to give at all (error says why)


@dataclass(frozen=True, slots=True)
class TurnsReply:
    round: int
    context_sha256: str
    by_axis: Mapping[str, AgentOutput]


@dataclass(frozen=True, slots=True)
class Request:
    """What the planner asks the driver for. `turns` fans out to every seat in `axes` with
    the one round context: an agent is given web access if its axis is in `web_access`;
    an axis in `checks` is answered by contend's deterministic checker, not an agent. The
    proponent's turn is a `person`'s when one is seated: the driver pauses the run there."""

    kind: Literal["turns", "proponent", "meta-judge"]
    round: int
    context: Mapping[str, Any]
    axes: tuple[str, ...] = ()
    web_access: frozenset[str] = frozenset()
    checks: tuple[str, ...] = ()
    person: bool = False

    @property
    def context_sha256(self) -> str:
        return context_hash(self.context)


Reply = TurnsReply | AgentOutput


@dataclass(frozen=True, slots=True)
class Step:
    state: State
    events: list[Event] = field(default_factory=list)
    request: Request | None = None


def context_hash(context: Mapping[str, Any]) -> str:
    text = json.dumps(context, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- the round context ---------------------------------------------------------------------


def attack_json(a: Attack) -> ct.ClaimAttackData:
    out: ct.ClaimAttackData = {
        "id": a.id,
        "axis": a.axis,
        "text": a.text,
        "decisive": a.decisive,
        "evidence": list(a.evidence),
    }
    if a.target:
        out["target"] = a.target
    if a.narrowing:
        out["narrowing"] = a.narrowing
    return out


def round_context(state: State) -> dict[str, Any]:
    """The one context every agent of the next round gets (the same for all of them)."""
    s = state.setup
    history = [
        {
            "round": r.number,
            "turns": [
                {
                    "axis": t.axis,
                    "kind": t.kind,
                    "position": t.position,
                    "attacks": [attack_json(a) for a in t.attacks],
                    "meta_attacks": [attack_json(a) for a in t.meta_attacks],
                    "withdrawn": list(t.withdrawn),
                    "concessions": [c.text for c in t.concessions],
                }
                for t in r.turns
            ],
            "proponent": None
            if r.proponent is None
            else {
                "new_evidence": list(r.proponent.new_evidence),
                "answers": list(r.proponent.answers),
                "decision_relevant": r.proponent.decision_relevant,
                "narrowed_claim": r.proponent.narrowed_claim,
            },
        }
        for r in state.rounds
    ]
    return {
        "claim_id": s.claim_id,
        "round": len(state.rounds) + 1,
        "surviving_claim": state.surviving,
        "original_claim": s.claim_text,
        "card": dict(s.card),
        "required_assumptions": list(state.assumptions),
        "evidence": {**s.evidence, **dict(state.added_evidence)},
        "axes": list(s.seats),
        "open_attacks": [attack_json(a) for a in open_attacks(state.claim_rounds())],
        "rounds": history,
    }


def reply_record(got: AgentOutput | None) -> ct.ClaimReplyData | None:
    """A reply as the ledger keeps it, enough to replay the planner (`replay`): the
    structured output, or the error and the raw text."""
    if got is None:
        return None
    record: ct.ClaimReplyData = {
        "output": None if got.output is None else dict(got.output),
        "error": got.error,
        "raw_text": got.raw_text if got.output is None else None,
    }
    if got.silent:
        record["silent"] = True
    return record


def reply_of(agent: str, record: Mapping[str, Any] | None) -> AgentOutput | None:
    if record is None:
        return None
    return AgentOutput(
        agent,
        record["output"],
        record["error"],
        record["raw_text"] or "",
        silent=bool(record.get("silent", False)),
    )
