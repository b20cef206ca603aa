"""The claims report (`contend.claims/v1`): per claim the verdict and the seed's Step 5
outputs, as pydantic models. The JSON Schema at schemas/claims.v1.schema.json is generated
from them (`python -m contend.claims.schema`), never written by hand.

Per claim: the verdict (`accept | reject | escalate | escalate-human`), the surviving
(narrowed) claim, required assumptions, the guarantee boundary, the rounds log, retracted
claims, rejection reasons, escalation issues, which axes ran and which did not, what
became of each evidence item, the internal-fact findings, and the deadlock report when the
meta-judge wrote one. The top level carries the overall verdict and exit code, the cards
that could not be read, and counts.

Overall verdict: `reject` if any claim is rejected; else `escalate-human` if any claim
waits for a person; else `escalate` if any claim escalated, a card could not be read, or no
claim was verified; else `accept`. The exit code follows convergence.exit_code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from contend.claims.convergence import Verdict, exit_code
from contend.claims.deadlock import DeadlockReport
from contend.report.escape import json_text

SCHEMA_ID = "contend.claims/v1"
Stage = Literal["bypass", "precheck", "internal-fact", "rounds"]


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, json_schema_serialization_defaults_required=True
    )


class Source(_Model):
    file: str
    card: int = Field(description="1-based position of the card in its file.")
    line: int | None = Field(default=None, description="Line where the card starts (YAML).")


class EvidenceOutcome(_Model):
    id: str
    kind: Literal["web", "local", "logic"]
    locator: str = Field(description="URL, or file with page and region, or the argument.")
    status: Literal["checked", "removed", "unchecked"] = Field(
        description="checked by a critic that ran; removed at the precheck; or kept but not "
        "checked (web sources are not fetched offline; logic is for the logic axes)."
    )
    reason: str | None = None


class CheckFinding(_Model):
    """One number, quote, label or entity of the claim against the cited region."""

    kind: Literal["number", "label", "quote", "entity"]
    claimed: str
    status: Literal["present", "absent", "contradicted"]
    evidence_id: str | None
    where: str = Field(description="Evidence, file, page, region and line.")
    evidence_line: str | None = Field(description="The matching evidence line, quoted.")
    evidence_value: str | None
    note: str


class AttackLog(_Model):
    id: str
    axis: str
    text: str
    decisive: bool
    evidence: list[str]
    target: str | None = Field(default=None, description="The attacked axis (meta-attack).")


class ConcessionLog(_Model):
    text: str
    own_evidence: str | None
    defeated_by: str | None
    refused: str | None = Field(default=None, description="Why it was refused, if it was.")


class TurnLog(_Model):
    axis: str
    agent: str
    kind: Literal["attack", "no-attack-point", "silent", "unparseable"]
    position: Literal["accept", "reject"] | None
    attacks: list[AttackLog]
    meta_attacks: list[AttackLog]
    withdrawn: list[str]
    concessions: list[ConcessionLog]


class ProponentLog(_Model):
    new_evidence: list[str]
    answers: list[str]
    decision_relevant: bool
    narrowed_claim: str | None


class RoundLog(_Model):
    number: int
    turns: list[TurnLog]
    proponent: ProponentLog | None


class GuaranteeBoundary(_Model):
    guarantees: list[str]
    non_guarantees: list[str]


class EscalationIssue(_Model):
    issue: str
    missing: list[str] = Field(description="Fields, locators or evidence that are missing.")
    decision_needed: str


class Axes(_Model):
    assigned: list[str]
    run: list[str]
    not_run: list[str]
    reasons: list[str]


class HumanDecision(_Model):
    """A person's ruling on an escalated claim, recorded later with `contend decide`."""

    decision: Literal["accept", "reject"]
    note: str
    by: str
    was: Verdict = Field(description="The verdict the rounds had reached.")


class ClaimResult(_Model):
    claim_id: str
    source: Source
    claim_text: str
    level: Literal[1, 2, 3]
    verdict: Verdict
    stage: Stage = Field(description="Where the verdict was reached.")
    summary: str = Field(description="One line: why this verdict.")
    reasons: list[str]
    surviving_claim: str | None = Field(description="The narrow claim that survived; None if none.")
    required_assumptions: list[str]
    guarantee_boundary: GuaranteeBoundary
    rounds_log: list[RoundLog]
    retracted_claims: list[str]
    rejection_reasons: list[str]
    escalation_issues: list[EscalationIssue]
    axes: Axes
    evidence: list[EvidenceOutcome]
    checks: list[CheckFinding]
    deadlock_report: DeadlockReport | None = None
    decision: HumanDecision | None = Field(
        default=None, description="A person's later ruling (`contend decide --run`)."
    )
    unverified_echo: list[str] = Field(
        default_factory=list,
        description="External tools the claim relies on that no agent with web access "
        "checked: 'unverified echo (official docs only)'.",
    )
    controls: list[ControlLog] = Field(
        default_factory=list,
        description="Level 3: changed copies of the claim the verifier must reject.",
    )


class ControlLog(_Model):
    """A changed copy of the claim the verifier had to reject (level 3)."""

    candidate: str
    changed: str
    verdict: Literal["accept", "reject", "escalate"]


class CardErrorLog(_Model):
    file: str
    card: int = Field(description="1-based position in the file; 0 for the whole file.")
    line: int | None
    claim_id: str | None
    fields: list[str]
    message: str


class Stats(_Model):
    claims: int
    accepted: int
    rejected: int
    escalated: int
    escalated_human: int
    card_errors: int
    rounds: int


class ClaimsReport(_Model):
    schema_: Literal["contend.claims/v1"] = Field(default="contend.claims/v1", alias="schema")
    verdict: Verdict
    exit_code: int
    claims: list[ClaimResult]
    card_errors: list[CardErrorLog]
    stats: Stats

    model_config = ConfigDict(populate_by_name=True)

    def to_json(self) -> str:
        return json_text(self.model_dump(mode="json", by_alias=True)) + "\n"


def overall_verdict(verdicts: Sequence[Verdict], card_errors: int) -> Verdict:
    if "reject" in verdicts:
        return "reject"
    if "escalate-human" in verdicts:
        return "escalate-human"
    if "escalate" in verdicts or card_errors or not verdicts:
        return "escalate"
    return "accept"


def build_report(
    claims: Sequence[ClaimResult], card_errors: Sequence[CardErrorLog]
) -> ClaimsReport:
    verdicts = [c.verdict for c in claims]
    return ClaimsReport(
        verdict=overall_verdict(verdicts, len(card_errors)),
        exit_code=exit_code(verdicts, bad_cards=len(card_errors)),
        claims=list(claims),
        card_errors=list(card_errors),
        stats=Stats(
            claims=len(claims),
            accepted=verdicts.count("accept"),
            rejected=verdicts.count("reject"),
            escalated=verdicts.count("escalate"),
            escalated_human=verdicts.count("escalate-human"),
            card_errors=len(card_errors),
            rounds=sum(len(c.rounds_log) for c in claims),
        ),
    )
