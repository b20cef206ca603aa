"""Step 4 of seeds/002: convergence and the verdict, as pure functions over a claim's rounds.

The round driver (agents by axis, the proponent between rounds) records what happened as
`Round`s; `converge` says what follows:

- `accept`          every assigned agent completed the independent cycle, the last round
                    brought no attack, meta-attack or relevant evidence, nothing is open,
                    and the consensus rule passes for acceptance.
- `reject`          a decisive attack stands unanswered, the proponent brought no
                    decision-relevant evidence, and the consensus rule supports rejection.
- `judge-deadlock`  the 50-round cap, or no attack point and no state delta while the
                    positions still conflict (or an attack stands that the rule does not
                    reject on): the meta-judge writes its report → `escalate-human`.
- `partial`         a named uncertainty remains and the next round can change something.
- `escalate`        a protocol failure: an agent silent or unparseable two rounds in a row
                    (never `accept`), or an attack repeated without narrowing the claim.

Consensus is unanimity unless the card or configuration says `majority` or `weighted`.
Positions are never counted to dismiss an attack under unanimity: one standing decisive
attack without unanimous rejection is a deadlock, not an acceptance.

A concession is valid only in the seed's shape — "my evidence X was specifically defeated by
opposing evidence Y" — with X the conceding agent's own evidence and Y a known, different
item; anything else is refused with a reason and resolves nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from contend.claims.card import ConsensusRule

TurnKind = Literal["attack", "no-attack-point", "silent", "unparseable"]
Position = Literal["accept", "reject"]
ConvergenceKind = Literal["accept", "reject", "judge-deadlock", "partial", "escalate"]
Verdict = Literal["accept", "reject", "escalate", "escalate-human"]
SAFETY_CAP = 50
SILENCE_LIMIT = 2


@dataclass(frozen=True, slots=True)
class Attack:
    id: str
    axis: str
    text: str
    decisive: bool = True
    evidence: tuple[str, ...] = ()
    fingerprint: str = ""  # what makes two attacks "the same"; the normalised text if empty
    narrowing: str | None = None  # a narrower claim that would answer it
    target: str | None = None  # a meta-attack names the attacked agent's axis

    def key(self) -> str:
        return self.fingerprint or " ".join(re.findall(r"\w+", self.text.casefold()))


@dataclass(frozen=True, slots=True)
class Concession:
    by: str  # the conceding agent's axis
    attack_id: str | None
    own_evidence: str | None  # X: the evidence of the conceding side
    defeated_by: str | None  # Y: the opposing evidence that defeated it
    text: str = ""


@dataclass(frozen=True, slots=True)
class Turn:
    axis: str
    kind: TurnKind
    position: Position | None = None
    attacks: tuple[Attack, ...] = ()
    meta_attacks: tuple[Attack, ...] = ()
    withdrawn: tuple[str, ...] = ()
    concessions: tuple[Concession, ...] = ()

    @property
    def usable(self) -> bool:
        """An attack turn that carries no attack is as unusable as silence."""
        if self.kind == "attack":
            return bool(self.attacks or self.meta_attacks)
        return self.kind == "no-attack-point"


@dataclass(frozen=True, slots=True)
class ProponentReply:
    new_evidence: tuple[str, ...] = ()
    answers: tuple[str, ...] = ()  # attack ids the new evidence answers
    decision_relevant: bool = False  # the checkpoint: it changes the surviving claim/assumptions
    narrowed_claim: str | None = None


@dataclass(frozen=True, slots=True)
class Round:
    number: int
    turns: tuple[Turn, ...]
    proponent: ProponentReply | None = None


@dataclass(frozen=True, slots=True)
class ClaimRounds:
    axes: tuple[str, ...]
    rounds: tuple[Round, ...] = ()
    evidence_ids: frozenset[str] = frozenset()
    consensus: ConsensusRule = "unanimity"
    weights: Mapping[str, float] | None = None
    cap: int = SAFETY_CAP


@dataclass(frozen=True, slots=True)
class Convergence:
    kind: ConvergenceKind
    reasons: tuple[str, ...]
    open_attacks: tuple[Attack, ...] = ()
    refused_concessions: tuple[tuple[Concession, str], ...] = field(default=())


# --- concessions -------------------------------------------------------------------------

_CONCESSION = re.compile(
    r"my evidence\s+(?P<x>[\w.:/#-]+)\s+(?:was|is|has been)\s+(?:specifically\s+)?defeated\s+"
    r"by\s+(?:the\s+)?(?:opposing\s+)?evidence\s+(?P<y>[\w.:/#-]+)",
    re.IGNORECASE,
)


def parse_concession(by: str, text: str, attack_id: str | None = None) -> Concession:
    """A concession from free text; X and Y are None when the text does not name them."""
    match = _CONCESSION.search(text)
    if match is None:
        return Concession(by, attack_id, None, None, text)
    return Concession(by, attack_id, match.group("x"), match.group("y").rstrip("."), text)


def check_concession(
    concession: Concession, own_evidence: Iterable[str], known_evidence: Iterable[str]
) -> str | None:
    """None when the concession is evidence-bound; else why it is refused."""
    own = set(own_evidence)
    known = set(known_evidence) | own
    if concession.own_evidence is None or concession.defeated_by is None:
        return (
            "not evidence-bound: a concession must say 'my evidence X was specifically "
            "defeated by opposing evidence Y'"
        )
    if concession.own_evidence == concession.defeated_by:
        return f"evidence {concession.own_evidence} cannot defeat itself"
    if concession.own_evidence not in own:
        return f"{concession.own_evidence} is not evidence this agent put forward"
    if concession.defeated_by not in known:
        return f"{concession.defeated_by} is no evidence on record"
    return None


# --- the round state -----------------------------------------------------------------------


def _turns_of(state: ClaimRounds, axis: str) -> list[Turn | None]:
    return [next((t for t in r.turns if t.axis == axis), None) for r in state.rounds]


def silent_streak(state: ClaimRounds, axis: str) -> int:
    """Rounds in a row, counting back from the last, in which `axis` gave no usable turn
    (silent, unparseable, or absent)."""
    streak = 0
    for turn in reversed(_turns_of(state, axis)):
        if turn is not None and turn.usable:
            break
        streak += 1
    return streak


def _known_evidence(state: ClaimRounds) -> set[str]:
    known = set(state.evidence_ids)
    for r in state.rounds:
        for turn in r.turns:
            for attack in (*turn.attacks, *turn.meta_attacks):
                known.update(attack.evidence)
        if r.proponent is not None:
            known.update(r.proponent.new_evidence)
    return known


def concessions(state: ClaimRounds) -> tuple[list[Concession], list[tuple[Concession, str]]]:
    """(valid, refused with reason) concessions over all rounds."""
    known = _known_evidence(state)
    valid: list[Concession] = []
    refused: list[tuple[Concession, str]] = []
    for r in state.rounds:
        for turn in r.turns:
            own = {e for a in _attacks_by(state, turn.axis) for e in a.evidence}
            for concession in turn.concessions:
                why = check_concession(concession, own, known)
                if why is None:
                    valid.append(concession)
                else:
                    refused.append((concession, why))
    return valid, refused


def _attacks_by(state: ClaimRounds, axis: str) -> list[Attack]:
    return [
        a
        for r in state.rounds
        for t in r.turns
        if t.axis == axis
        for a in (*t.attacks, *t.meta_attacks)
    ]


def open_attacks(state: ClaimRounds) -> list[Attack]:
    """Raised and not resolved: not withdrawn by its agent, not conceded (evidence-bound)
    by it, not answered by a narrowing the proponent adopted."""
    raised: dict[str, Attack] = {}
    closed: set[str] = set()
    valid, _ = concessions(state)
    conceded = {(c.by, c.attack_id) for c in valid}
    for r in state.rounds:
        for turn in r.turns:
            for attack in (*turn.attacks, *turn.meta_attacks):
                raised.setdefault(attack.id, attack)
            closed.update(a for a in turn.withdrawn if a in raised and raised[a].axis == turn.axis)
        if r.proponent is not None and r.proponent.narrowed_claim:
            closed.update(r.proponent.answers)
    for axis, attack_id in conceded:
        if attack_id is None:
            closed.update(a.id for a in raised.values() if a.axis == axis)
        elif attack_id in raised and raised[attack_id].axis == axis:
            closed.add(attack_id)
    return [a for a in raised.values() if a.id not in closed]


def positions(state: ClaimRounds) -> dict[str, Position]:
    """Each axis's standing position: its latest stated one, else reject while it has an open
    decisive attack, else accept."""
    open_by_axis = {a.axis for a in open_attacks(state) if a.decisive}
    found: dict[str, Position] = {}
    for axis in state.axes:
        stated = [t.position for t in _turns_of(state, axis) if t is not None and t.position]
        if stated:
            found[axis] = stated[-1]
        else:
            found[axis] = "reject" if axis in open_by_axis else "accept"
    return found


def consensus(
    standing: Mapping[str, Position],
    rule: ConsensusRule = "unanimity",
    weights: Mapping[str, float] | None = None,
) -> Position | None:
    """The position the rule supports, or None when it supports none."""
    if not standing:
        return None
    values = list(standing.values())
    if rule == "unanimity":
        return values[0] if all(v == values[0] for v in values) else None
    sides: tuple[Position, Position] = ("accept", "reject")
    if rule == "majority":
        for side in sides:
            if values.count(side) * 2 > len(values):
                return side
        return None
    if not weights:
        raise ValueError("weighted consensus needs weights")
    total = sum(weights.get(axis, 0.0) for axis in standing)
    for side in sides:
        share = sum(weights.get(axis, 0.0) for axis, v in standing.items() if v == side)
        if total > 0 and share * 2 > total:
            return side
    return None


def repeated_attacks(state: ClaimRounds) -> list[Attack]:
    """Attacks of the last round that repeat one of an earlier round."""
    if len(state.rounds) < 2:
        return []
    earlier = {
        a.key() for r in state.rounds[:-1] for t in r.turns for a in (*t.attacks, *t.meta_attacks)
    }
    last = state.rounds[-1]
    return [a for t in last.turns for a in (*t.attacks, *t.meta_attacks) if a.key() in earlier]


@dataclass(frozen=True, slots=True)
class RepeatDecision:
    kind: Literal["narrow", "escalate"]
    narrowed_claim: str | None
    reason: str


def on_repeat(attack: Attack, surviving_claim: str) -> RepeatDecision:
    """The seed: a repeated attack shrinks the claim card or switches to escalation."""
    if attack.narrowing and attack.narrowing.strip() != surviving_claim.strip():
        return RepeatDecision(
            "narrow", attack.narrowing, f"attack {attack.id} repeated: the claim is narrowed"
        )
    return RepeatDecision(
        "escalate",
        None,
        f"attack {attack.id} ({attack.axis}) repeated with no narrower claim to answer it",
    )


def _state_delta(last: Round, refused: Sequence[tuple[Concession, str]] = ()) -> list[str]:
    delta: list[str] = []
    if any(t.attacks or t.meta_attacks for t in last.turns):
        delta.append("new attacks")
    # A refused concession resolves nothing, so it changes nothing either.
    refused_ids = {id(c) for c, _ in refused}
    if any(t.withdrawn or any(id(c) not in refused_ids for c in t.concessions) for t in last.turns):
        delta.append("withdrawals or concessions")
    if last.proponent is not None and last.proponent.decision_relevant:
        delta.append("decision-relevant evidence from the proponent")
    if last.proponent is not None and last.proponent.narrowed_claim:
        delta.append("a narrowed claim")
    return delta


def converge(state: ClaimRounds, surviving_claim: str = "") -> Convergence:
    """Step 4 on the rounds so far (see the module docstring for the rules)."""
    _, refused = concessions(state)
    refused_t = tuple(refused)
    if not state.rounds:
        return Convergence("partial", ("the independent attack cycle has not run",))
    for axis in state.axes:
        if silent_streak(state, axis) >= SILENCE_LIMIT:
            return Convergence(
                "escalate",
                (f"{axis}: no usable turn {SILENCE_LIMIT} rounds in a row (silent or "
                 "unparseable) — a protocol error, never an acceptance",),
                refused_concessions=refused_t,
            )  # fmt: skip
    at_cap = len(state.rounds) >= state.cap
    last = state.rounds[-1]
    open_now = tuple(open_attacks(state))

    def going_on(reason: str) -> Convergence:
        if at_cap:
            return Convergence(
                "judge-deadlock",
                (f"the safety cap of {state.cap} rounds is reached", reason),
                open_now,
                refused_t,
            )
        return Convergence("partial", (reason,), open_now, refused_t)

    unusable = [axis for axis in state.axes if silent_streak(state, axis) == 1]
    if unusable:
        return going_on(f"no usable turn from {', '.join(unusable)} this round: it speaks again")
    for attack in repeated_attacks(state):
        decision = on_repeat(attack, surviving_claim)
        if decision.kind == "escalate":
            return Convergence("escalate", (decision.reason,), open_now, refused_t)
    standing = positions(state)
    agreed = consensus(standing, state.consensus, state.weights)
    delta = _state_delta(last, refused)
    answered = (
        set(last.proponent.answers)
        if last.proponent and last.proponent.decision_relevant
        else set()
    )
    unanswered = [a for a in open_now if a.decisive and a.id not in answered]
    if not delta and not open_now:
        if agreed == "accept":
            return Convergence(
                "accept",
                ("every agent completed the cycle with no attack point; the "
                 f"{state.consensus} rule accepts",),
                refused_concessions=refused_t,
            )  # fmt: skip
        return Convergence(
            "judge-deadlock",
            (f"no attack point and no state delta, but the positions conflict: {_show(standing)}",),
            open_now,
            refused_t,
        )
    proponent_silent = last.proponent is None or not last.proponent.decision_relevant
    if unanswered and proponent_silent:
        if agreed == "reject":
            return Convergence(
                "reject",
                (f"decisive attack {unanswered[0].id} ({unanswered[0].axis}) stands unanswered: "
                 f"{unanswered[0].text}",
                 f"the {state.consensus} rule supports rejection: {_show(standing)}"),
                open_now,
                refused_t,
            )  # fmt: skip
        if not delta:
            return Convergence(
                "judge-deadlock",
                (f"decisive attack {unanswered[0].id} stands, but the {state.consensus} rule "
                 f"does not reject: {_show(standing)}",),
                open_now,
                refused_t,
            )  # fmt: skip
    if delta:
        return going_on("the last round changed the state: " + ", ".join(delta))
    return Convergence(
        "judge-deadlock",
        ("attacks remain open and no round can change them: " + ", ".join(a.id for a in open_now),),
        open_now,
        refused_t,
    )


def _show(standing: Mapping[str, Position]) -> str:
    return ", ".join(f"{axis} {position}" for axis, position in standing.items())


def verdict_of(kind: ConvergenceKind, *, deadlock_reported: bool) -> Verdict | None:
    """The claim's verdict once the rounds stop (None: `partial`, keep going). A deadlock
    becomes `escalate-human` only once the meta-judge's report exists."""
    if kind == "partial":
        return None
    if kind == "judge-deadlock":
        return "escalate-human" if deadlock_reported else "escalate"
    return kind


def exit_code(verdicts: Sequence[Verdict], *, bad_cards: int = 0) -> int:
    """0 every claim accepted; 1 any reject; 2 a card could not be read (and nothing was
    rejected); 3 any escalate or escalate-human. Nothing verified is not 0."""
    if "reject" in verdicts:
        return 1
    if bad_cards:
        return 2
    if not verdicts or any(v in ("escalate", "escalate-human") for v in verdicts):
        return 3
    return 0
