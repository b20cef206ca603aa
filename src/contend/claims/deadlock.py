"""The meta-judge's deadlock report (seeds/002 Step 4.5): its shape, its one allowed
wording, and a mechanical skeleton built from the rounds.

The meta-judge appears only at deadlock and has no decision authority: the model has no
verdict field and refuses any key it does not define, so a meta-judge that tries to decide
is a protocol error (`parse_deadlock_report`). After the report the claim's verdict is
`escalate-human`; the person's decision is recorded later, by the caller.

Allowed wording, one sentence per deadlocked issue: "Issue X is deadlocked. Support uses
evidence Y. Opposition attacks with Z. Cause is W. Human decision required."
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from contend.errors import ProtocolError

Cause = Literal[
    "missing-evidence", "evidence-interpretation", "domain-expertise", "value-judgment", "other"
]


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, json_schema_serialization_defaults_required=True
    )


class DeadlockIssue(_Model):
    subclaim: str = Field(description="The unresolved sub-claim.")
    issue: str = Field(description="One sentence: what is deadlocked.")
    support_evidence: list[str] = Field(description="Final supporting evidence (ids or text).")
    support_final: str = Field(description="The supporting side's final argument.")
    opposition_attack: str = Field(description="The opposing side's final attack.")
    opposition_evidence: list[str]
    cause: Cause
    decision_needed: str = Field(description="The information or judgment a person must give.")


class DeadlockReport(_Model):
    written_by: str = Field(description="The meta-judge agent, or contend (mechanical).")
    agreed_subclaims: list[str]
    unresolved: list[DeadlockIssue] = Field(min_length=1)
    reason: str = Field(description="Why the rounds deadlocked (cap, conflict, …).")

    def sentences(self) -> list[str]:
        """The report in the seed's allowed wording, one line per issue."""
        return [
            f"Issue {i.issue.rstrip('.')} is deadlocked. Support uses evidence "
            f"{', '.join(i.support_evidence) or 'none'}. Opposition attacks with "
            f"{i.opposition_attack.rstrip('.')}. Cause is {i.cause}. Human decision required."
            for i in self.unresolved
        ]


def parse_deadlock_report(data: Mapping[str, Any], *, written_by: str) -> DeadlockReport:
    """A meta-judge's reply as a report; a verdict, a decision or any other unknown key is
    refused (ProtocolError), since the meta-judge has no decision authority."""
    body = dict(data)
    forbidden = sorted(k for k in body if k in ("verdict", "decision", "accept", "reject"))
    if forbidden:
        raise ProtocolError(
            f"meta-judge {written_by} tried to decide ({', '.join(forbidden)}): it has no "
            "decision authority and writes the deadlock report only"
        )
    body.setdefault("written_by", written_by)
    try:
        return DeadlockReport.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "report"
        raise ProtocolError(
            f"meta-judge {written_by} wrote an unusable deadlock report: {where}: {first['msg']}"
        ) from exc


def mechanical_report(
    *,
    reason: str,
    open_attacks: Sequence[tuple[str, str, Sequence[str]]],
    support_evidence: Sequence[str],
    agreed: Sequence[str] = (),
) -> DeadlockReport:
    """A report built from the rounds alone, for when no meta-judge could write one (it is
    marked so): one issue per open attack (id, text, its evidence); the cause is not
    guessed (`other`), and the person is asked to rule on the attack."""
    return DeadlockReport(
        written_by="contend (mechanical: no meta-judge report)",
        agreed_subclaims=list(agreed),
        reason=reason,
        unresolved=[
            DeadlockIssue(
                subclaim=text,
                issue=f"{attack_id}: {text}",
                support_evidence=list(support_evidence),
                support_final="the claim as it stands with its evidence",
                opposition_attack=text,
                opposition_evidence=list(evidence),
                cause="other",
                decision_needed=f"uphold or dismiss attack {attack_id}",
            )
            for attack_id, text, evidence in open_attacks
        ]
        or [
            DeadlockIssue(
                subclaim="the claim as a whole",
                issue="the agents' positions conflict with no attack point left",
                support_evidence=list(support_evidence),
                support_final="the agents that accept",
                opposition_attack="the agents that reject, with no new attack",
                opposition_evidence=[],
                cause="other",
                decision_needed="accept or reject the claim",
            )
        ],
    )
