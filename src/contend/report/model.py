"""The shape of report.json (`contend.report/v1`, DESIGN §8) as pydantic models.

This module owns the contract other tools read: the required keys of a dispute and of the
top level are fixed by DESIGN §8 and must not change within v1; extra top-level keys may be
added (and are, below). The JSON Schema published at schemas/report.v1.schema.json is
generated from these models (`python -m contend.report.schema`), never written by hand.

It also owns `how_resolved`, the one reading of an attack's history that every renderer
shares, so Markdown, SARIF and text cannot disagree on why a dispute left the open set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from contend.protocol.model import Action, Severity, Status
from contend.report.escape import json_text

SCHEMA_ID = "contend.report/v1"

VerdictName = Literal["pass", "conditional_pass", "fail", "escalate"]


class _Model(BaseModel):
    # Unknown keys are an error: a report that does not match the contract must not load.
    # Serialised output always has every key, so the published schema requires them all.
    model_config = ConfigDict(
        extra="forbid", frozen=True, json_schema_serialization_defaults_required=True
    )


class Location(_Model):
    path: str = Field(description="Path relative to the repository root, '/' separated.")
    start_line: int = Field(description="1-based first line; 0 when the attack names a file.")
    end_line: int = Field(description="1-based last line, inclusive.")


class Site(_Model):
    """One place of a dispute: a repeated finding of one rule in one file has several."""

    path: str
    start_line: int
    end_line: int
    symbol: str | None = Field(
        default=None, description="The enclosing function or class, when the critic knows it."
    )
    fingerprint: str | None = Field(
        default=None, description="The fingerprint of the finding at this place."
    )


class Dispute(_Model):
    """One attack. The keys of DESIGN §8 plus `locations`; anything else goes in a
    top-level map keyed by id."""

    id: str
    thread: str
    critic: str
    family: str
    topic: str
    rule: str
    severity: Severity
    status: Status
    location: Location
    claim: str
    evidence: str
    contention: int = Field(description="rounds_survived + 1 if re_attacked.")
    rounds_survived: int
    re_attacked: bool
    locations: list[Site] = Field(
        description="Every place of the dispute, in line order; the first is `location`. "
        "Repeated findings of one rule in one file are one dispute with several places."
    )


class Person(_Model):
    """Who gave a human answer or decision."""

    name: str
    email: str | None
    source: str = Field(description="'git config' (the repository's user.name) or 'os user'.")


class Exchange(_Model):
    """One answer or judgement on an attack, in ledger order: who said what."""

    seq: int
    action: Action
    by: str
    text: str
    evidence: str
    round: int | None = None
    in_source: bool = Field(
        default=False, description="True for a concession made by an in-code waiver."
    )
    change_withdrawn: bool = Field(
        default=False,
        description="True for a withdrawal because the code left the reviewed diff (the "
        "author withdrew that part of the change), not because the critic changed its mind.",
    )
    person: Person | None = Field(
        default=None, description="The person behind a human answer or decision."
    )


class Gate(_Model):
    name: str
    cmd: str
    ok: bool
    exit_code: int | None
    output: str
    when: str | None
    thread: str | None = None


class Skipped(_Model):
    path: str
    reason: str
    topic: str | None


class Spec(_Model):
    source: str | None = Field(description="Where the spec came from; null when there was none.")
    path: str | None = None
    chars: int | None = None


class Thread(_Model):
    name: str
    critic: str
    family: str
    model: str
    backend: str
    topic: str | None
    rounds: int = Field(description="Closed rounds of this thread.")
    ended: str | None
    calls: int
    failures: int
    tokens_in: int
    tokens_out: int
    cost: float
    dropped_attacks: int
    violations: list[str] = Field(
        default_factory=list,
        description="Protocol violations by this thread's agents (unknown ids, illegal "
        "judgements, fixes that changed nothing or broke a gate).",
    )
    same_family_as_proposer: bool = Field(
        default=False,
        description="The critic shares the proposer's model family (allowed only with a "
        "different model): its blind spots may be the author's.",
    )
    failed: bool = Field(
        default=False,
        description="The critic's last call failed, or the thread ended by a liveness "
        "failure: its review of the current code is missing (see `failures`).",
    )


class Failure(_Model):
    """One failed agent call: which agent, and why (crash, timeout, garbage, HTTP status)."""

    thread: str
    critic: str
    role: str
    round: int | None
    backend: str
    model: str
    kind: str = Field(description="timeout, malformed, or error (or the agent's own kind).")
    error: str


class Stats(_Model):
    attacks: int
    unresolved: int
    resolved: int
    fixed: int
    conceded: int
    critic_found_bug_rate: float | None = Field(
        description="(fixed + conceded) / attacks: the share of objections the author fixed "
        "or conceded (open ones are not counted as bugs until answered); null when there "
        "were no attacks."
    )
    rounds: int = Field(description="Most closed rounds of any thread.")
    threads: int
    calls: int
    failures: int
    tokens_in: int
    tokens_out: int
    cost: float
    wall_time_s: float
    families: list[str]
    dropped_attacks: int
    skipped_files: int


class Tool(_Model):
    name: Literal["contend"] = "contend"
    version: str


class Report(_Model):
    schema_: Literal["contend.report/v1"] = Field(default="contend.report/v1", alias="schema")
    tool: Tool
    run_id: str
    verdict: VerdictName
    exit_code: int
    reasons: list[str]
    caveats: list[str]
    headline: str | None = Field(description="Id of the most contended unresolved dispute.")
    spec: Spec
    disputes: list[Dispute] = Field(description="Unresolved, ranked by contention.")
    resolved: list[Dispute] = Field(description="Resolved; status says how.")
    history: dict[str, list[Exchange]] = Field(description="Answers and judgements per id.")
    ways_out: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Per id, the evidence-bound ways to resolve it (fix, waiver, defense).",
    )
    fingerprints: dict[str, str | None]
    confidence: dict[str, str] = Field(
        default_factory=dict,
        description="Per id, the rule's confidence (high/medium/low) where the critic states "
        "one; the third ranking key after contention and severity.",
    )
    old_evidence: dict[str, str] = Field(
        default_factory=dict,
        description="Per id, the code before the change, for findings about what the change "
        "removed or widened.",
    )
    failures: list[Failure] = Field(
        default_factory=list,
        description="Every failed agent call of the run, with its reason.",
    )
    gates: list[Gate]
    skipped: list[Skipped]
    threads: list[Thread]
    deadlocks: list[dict[str, JsonValue]]
    merges: list[dict[str, JsonValue]]
    stats: Stats

    # `schema` shadows a BaseModel attribute, hence the alias; serialise by alias always.
    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        populate_by_name=True,
        json_schema_serialization_defaults_required=True,
    )

    def dispute(self, attack_id: str) -> Dispute:
        for d in (*self.disputes, *self.resolved):
            if d.id == attack_id:
                return d
        raise KeyError(attack_id)

    def to_dict(self) -> dict[str, JsonValue]:
        return self.model_dump(mode="json", by_alias=True)

    def to_json(self) -> str:
        """report.json text: keys in model order (stable), UTF-8, one trailing newline, no
        raw control character (they are JSON-escaped; the data is unchanged)."""
        return json_text(self.to_dict()) + "\n"


# Human-readable words for each way out of the open set.
_HOW = {
    Status.FIXED: "fixed by the author, fix accepted by the critic",
    Status.ACCEPTED: "defense accepted by the critic",
    Status.CONCEDED: "conceded by the author, concession accepted",
    Status.WITHDRAWN: "withdrawn by the critic",
    Status.OVERRULED: "overruled by a human",
    Status.WAIVED: "waived by a human",
}
# Which answer carries the reason for each resolved status.
_REASON_ACTIONS = {
    Status.FIXED: (Action.FIX,),
    Status.ACCEPTED: (Action.DEFEND,),
    Status.CONCEDED: (Action.CONCEDE,),
    Status.WITHDRAWN: (Action.WITHDRAW,),
    Status.OVERRULED: (Action.OVERRULE,),
    Status.WAIVED: (Action.WAIVE,),
}


@dataclass(frozen=True, slots=True)
class Resolution:
    how: str
    reason: str
    in_source: bool
    person: Person | None = None  # who decided, for a human decision


def how_resolved(dispute: Dispute, exchanges: list[Exchange]) -> Resolution:
    """How a resolved dispute left the open set and the words that justified it.

    The reason is the text of the latest answer of the kind that matches the status (the
    concede text for a waiver, the withdraw text for a withdrawal, ...); an empty reason is
    reported as such, not invented.
    """
    if dispute.status not in _HOW:
        raise ValueError(f"dispute {dispute.id} has status {dispute.status}, not a resolution")
    wanted = _REASON_ACTIONS[dispute.status]
    answer = next((x for x in reversed(exchanges) if x.action in wanted), None)
    reason = answer.text if answer is not None else ""
    in_source = answer is not None and answer.in_source and dispute.status is Status.CONCEDED
    how = "waived in code with a reason (in-source concession)" if in_source else None
    if answer is not None and answer.change_withdrawn and dispute.status is Status.WITHDRAWN:
        how = "withdrawn with the change (its code left the reviewed diff)"
    person = answer.person if answer is not None else None
    return Resolution(how or _HOW[dispute.status], reason, in_source, person)
