"""What critics, proposers and oracles answer, parsed into typed values at the boundary.

An agent's structured output is checked against the schema it was given
(protocol/reply_schemas.py) and then read into the dataclasses below, so a planner never touches
the raw JSON. Output that does not fit is a ProtocolError: the planner records the reply
as unusable (malformed), as it does a reply the backend itself could not parse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from contend.protocol.model import Action, Severity
from contend.protocol.reply_schemas import CRITIC_SCHEMA, ORACLE_SCHEMA, PROPOSER_SCHEMA, validate


@dataclass(frozen=True, slots=True)
class Objection:
    severity: Severity
    path: str
    start_line: int
    end_line: int
    claim: str
    evidence: str
    expected: str


@dataclass(frozen=True, slots=True)
class Judgement:
    objection_id: str
    action: Action  # accept | withdraw | re_attack
    reason: str


@dataclass(frozen=True, slots=True)
class CriticReply:
    topic: str
    objections: tuple[Objection, ...]
    judgements: tuple[Judgement, ...]


@dataclass(frozen=True, slots=True)
class Answer:
    objection_id: str
    action: Action  # fix | concede | defend
    text: str
    evidence: str


@dataclass(frozen=True, slots=True)
class ProposerReply:
    answers: tuple[Answer, ...]


def parse_critic(output: Any) -> CriticReply:
    data = validate(output, CRITIC_SCHEMA, what="critic")
    return CriticReply(
        topic=data["topic"],
        objections=tuple(
            Objection(
                severity=Severity(o["severity"]),
                path=o["path"],
                start_line=int(o["start_line"]),
                end_line=int(o["end_line"]),
                claim=o["claim"],
                evidence=o["evidence"],
                expected=o["expected"],
            )
            for o in data["objections"]
        ),
        judgements=tuple(
            Judgement(j["objection_id"], Action(j["action"]), j["reason"])
            for j in data["judgements"]
        ),
    )


def parse_proposer(output: Any) -> ProposerReply:
    data = validate(output, PROPOSER_SCHEMA, what="proposer")
    return ProposerReply(
        tuple(
            Answer(a["objection_id"], Action(a["action"]), a["text"], a["evidence"])
            for a in data["answers"]
        )
    )


def parse_oracle(output: Any) -> dict[str, Any]:
    """The deadlock report, as the oracle wrote it (the reports show it field by field)."""
    return validate(output, ORACLE_SCHEMA, what="oracle")
