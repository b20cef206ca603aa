"""Plain data of the protocol: severities, statuses, actions, locations, attacks."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from contend.protocol.event_types import HistoryEntry, LocationData


class Severity(StrEnum):
    CRITICAL = "critical"
    MAJOR = "major"
    MINOR = "minor"

    @property
    def rank(self) -> int:
        """Higher is more severe; used for tie-breaks and blocking decisions."""
        return _SEVERITY_RANK[self]

    @property
    def blocks(self) -> bool:
        return self is not Severity.MINOR


_SEVERITY_RANK = {Severity.CRITICAL: 3, Severity.MAJOR: 2, Severity.MINOR: 1}


class Status(StrEnum):
    OPEN = "open"
    FIXED = "fixed"
    CONCEDED = "conceded"
    DEFENDED = "defended"
    ACCEPTED = "accepted"
    WITHDRAWN = "withdrawn"
    RE_ATTACKED = "re_attacked"
    UNRESOLVED = "unresolved"
    DEADLOCKED = "deadlocked"
    UPHELD = "upheld"
    OVERRULED = "overruled"
    WAIVED = "waived"


class Action(StrEnum):
    # proposer
    FIX = "fix"
    CONCEDE = "concede"
    DEFEND = "defend"
    # critic
    ACCEPT = "accept"
    WITHDRAW = "withdraw"
    RE_ATTACK = "re_attack"
    # engine, at a thread's end
    MARK_UNRESOLVED = "mark_unresolved"
    DEADLOCK = "deadlock"
    # human
    UPHOLD = "uphold"
    OVERRULE = "overrule"
    WAIVE = "waive"


class Actor(StrEnum):
    """Who takes an action on an attack. Which actor may take which action from which
    status is one table, protocol/machine.py RULES; the fold and every append check it."""

    PROPOSER = "proposer"  # the author side: an agent, or the author between reviews
    CRITIC = "critic"  # the critic that raised the attack (a model or a static critic)
    ENGINE = "engine"  # contend itself, closing a thread or a withdrawn change
    HUMAN = "human"  # a person's decision (`contend decide`)
    ORACLE = "oracle"  # reports on a deadlock; it has no decision authority: no action


PROPOSER_ACTIONS = frozenset({Action.FIX, Action.CONCEDE, Action.DEFEND})
CRITIC_ACTIONS = frozenset({Action.ACCEPT, Action.WITHDRAW, Action.RE_ATTACK})
ENGINE_ACTIONS = frozenset({Action.MARK_UNRESOLVED, Action.DEADLOCK})
HUMAN_ACTIONS = frozenset({Action.UPHOLD, Action.OVERRULE, Action.WAIVE})
# The only actions that may take an attack out of the unresolved set (DESIGN §2 invariant).
RESOLVING_ACTIONS = frozenset({Action.ACCEPT, Action.WITHDRAW, Action.OVERRULE, Action.WAIVE})


@dataclass(frozen=True, slots=True)
class Location:
    path: str
    start_line: int
    end_line: int
    symbol: str | None = None  # the enclosing function or class, when the critic knows it

    def to_json(self) -> LocationData:
        out: LocationData = {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
        }
        if self.symbol is not None:
            out["symbol"] = self.symbol
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Location:
        """Parse a location read from a ledger or a reply; anything but an object is a
        TypeError (the fold turns it into a protocol error)."""
        if not isinstance(data, dict):
            raise TypeError(f"a location is an object, not {type(data).__name__}")
        symbol = data.get("symbol")
        return cls(
            str(data["path"]),
            int(data["start_line"]),
            int(data["end_line"]),
            str(symbol) if symbol is not None else None,
        )


@dataclass(slots=True)
class RoundCounter:
    """Closed rounds of one thread, shared with its attacks so contention is O(1) to keep."""

    closed: int = 0


@dataclass(slots=True)
class Attack:
    """One addressable objection and everything the fold knows about it."""

    id: str
    thread: str
    critic: str
    family: str
    topic: str
    rule: str
    severity: Severity
    location: Location
    claim: str
    evidence: str
    raised_round: int
    raised_seq: int
    status: Status = Status.OPEN
    resolved: bool = False
    re_attacked: bool = False
    defended_count: int = 0
    history: list[HistoryEntry] = field(default_factory=list)
    fingerprint: str | None = None
    ways_out: tuple[str, ...] = ()  # the evidence-bound ways to resolve it, for the report
    confidence: str | None = None  # the rule's confidence (high/medium/low); None: not stated
    old_evidence: str | None = None  # the code before the change, for diff-aware findings
    # A grouped finding (one rule, one file, several places): every location and the
    # fingerprint of the finding at each, in the same order. Empty: just `location`.
    locations: tuple[Location, ...] = ()
    members: tuple[str, ...] = ()
    # Survival is counted lazily: rounds of the thread closed after the raising round,
    # up to the moment of resolution (frozen then) or up to now while unresolved.
    counter: RoundCounter = field(default_factory=RoundCounter)
    survived_base: int = 0
    survived_frozen: int | None = None

    @property
    def rounds_survived(self) -> int:
        """Closed rounds, after the one that raised it, during which it stayed unresolved."""
        closed = self.counter.closed if self.survived_frozen is None else self.survived_frozen
        return max(0, closed - self.survived_base)

    def freeze_survival(self) -> None:
        self.survived_frozen = self.counter.closed

    @property
    def contention(self) -> int:
        """Rounds survived open, plus one if the critic ever pressed it again."""
        return self.rounds_survived + (1 if self.re_attacked else 0)
