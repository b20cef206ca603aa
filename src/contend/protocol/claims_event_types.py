"""The event kinds of a claims run (`contend verify`, claims/events.py), as TypedDicts.

They share the one table of protocol/events.py (EVENT_TYPES) and the published schema of
`contend.event/v1` with the review kinds of protocol/event_types.py; see there for the
conventions (`…Data` is an event's data, the bare name the event with its literal kind).
"""

# No `from __future__ import annotations`: TypedDict reads NotRequired from live annotations.
from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict


class ClaimsRunStartedData(TypedDict):
    files: list[str]
    critics: list[str]


class ClaimCardErrorData(TypedDict):
    file: str
    card: int  # 1-based position in its file; 0: the file itself could not be read
    line: int | None
    claim_id: str | None
    fields: list[str]
    message: str


class ClaimLoadedData(TypedDict):
    claim_id: str
    file: str
    card: int
    line: int | None
    claim_card: dict[str, Any]  # the card as read, kebab-case (schemas/claim-card.v1)


class ClaimGateData(TypedDict):
    claim_id: str
    outcome: str  # bypass | precheck-only | admit
    reasons: list[str]


class RemovedEvidenceData(TypedDict):
    evidence_id: str
    kind: str  # inaccessible | unreadable
    reason: str


class ClaimPrecheckData(TypedDict):
    claim_id: str
    outcome: str  # pass | reject | escalate
    reasons: list[str]
    kept: list[str]
    removed: list[RemovedEvidenceData]
    missing: list[str]


class ClaimAxesData(TypedDict):
    claim_id: str
    assigned: list[str]
    run: list[str]
    not_run: list[str]
    reasons: list[str]


class ClaimFindingData(TypedDict):
    kind: Literal["number", "label", "quote", "entity"]
    claimed: str
    status: Literal["present", "absent", "contradicted"]
    evidence_id: str | None
    where: str
    evidence_line: str | None
    evidence_value: str | None
    note: str


class ClaimCheckAttackData(TypedDict):
    verdict: Literal["reject", "escalate"]
    message: str


class ClaimCheckData(TypedDict):
    claim_id: str
    axis: str
    verdict: Literal["accept", "reject", "escalate"]
    findings: list[ClaimFindingData]
    attacks: list[ClaimCheckAttackData]
    unchecked: list[str]


class ClaimVerdictData(TypedDict):
    claim_id: str
    verdict: str
    reasons: list[str]


class ClaimsRunFinishedData(TypedDict):
    verdict: str
    exit_code: int


ClaimTurnKind = Literal["attack", "no-attack-point", "silent", "unparseable"]
ClaimPosition = Literal["accept", "reject"]
ClaimVerdictValue = Literal["accept", "reject", "escalate", "escalate-human"]


class ClaimReplyData(TypedDict):  # an agent's reply as kept for replay (claims/rounds.py)
    output: dict[str, Any] | None
    error: str | None
    raw_text: str | None
    silent: NotRequired[bool]


class ClaimAttackData(TypedDict):
    id: str
    axis: str
    text: str
    decisive: bool
    evidence: list[str]
    target: NotRequired[str]  # a meta-attack's target: another agent's attack or position
    narrowing: NotRequired[str]


class ClaimConcessionData(TypedDict):
    attack_id: str | None
    text: str
    own_evidence: str | None
    defeated_by: str | None


class ClaimRoundStartedData(TypedDict):
    claim_id: str
    round: int
    context_sha256: str
    surviving_claim: str
    axes: list[str]


class ClaimTurnData(TypedDict):
    claim_id: str
    round: int
    axis: str
    agent: str
    kind: ClaimTurnKind
    position: ClaimPosition | None
    attacks: list[ClaimAttackData]
    meta_attacks: list[ClaimAttackData]
    withdrawn: list[str]
    concessions: list[ClaimConcessionData]
    external_tools: list[str]
    community_sources: list[str]
    error: str | None
    reply: ClaimReplyData | None


class ClaimProtocolErrorData(TypedDict):
    claim_id: str
    round: int
    axis: str  # an axis, or "meta-judge"
    agent: str | None
    kind: str  # silent | unparseable | attack (a bad one) | no-deadlock-report
    error: str
    reply: NotRequired[ClaimReplyData | None]


class ClaimConcessionRefusedData(TypedDict):
    claim_id: str
    round: int
    axis: str
    text: str
    attack_id: str | None
    reason: str


class ClaimProponentData(TypedDict):  # the proponent gave no answer
    claim_id: str
    round: int
    agent: str
    answered: bool
    error: str | None
    reply: ClaimReplyData | None


class ClaimAddedEvidenceData(TypedDict):
    id: str
    locator: str


class ClaimCheckpointData(TypedDict):
    claim_id: str
    round: int
    agent: str
    reply: ClaimReplyData | None
    outcome: str  # the checkpoint's outcome (claims/checkpoint.py)
    added: list[ClaimAddedEvidenceData]
    refused: list[str]
    answers: list[str]
    ignored_answers: list[str]
    narrowed_claim: str | None
    new_assumptions: list[str]
    decision_relevant: bool
    reasons: list[str]


class ClaimConvergenceData(TypedDict):
    claim_id: str
    round: int
    kind: Literal["accept", "reject", "judge-deadlock", "partial", "escalate"]
    reasons: list[str]
    open_attacks: list[str]
    positions: dict[str, ClaimPosition]


# `from` is a keyword: the functional form names it.
ClaimNarrowedData = TypedDict(
    "ClaimNarrowedData",
    {"claim_id": str, "round": int, "attack_id": str, "from": str, "to": str, "reason": str},
)


class ClaimDeadlockReportData(TypedDict):
    claim_id: str
    report: dict[str, Any]  # claims/deadlock.DeadlockReport as JSON
    sentences: list[str]
    agent: NotRequired[str]  # absent: contend's own mechanical report
    reply: NotRequired[ClaimReplyData | None]


class ClaimRoundsFinishedData(TypedDict):
    claim_id: str
    verdict: ClaimVerdictValue
    rounds: int
    reasons: list[str]
    surviving_claim: str | None
    unverified_echo: list[str]


class ClaimAwaitingProponentData(TypedDict):
    claim_id: str
    round: int
    open_attacks: list[ClaimAttackData]
    context_sha256: str


class ClaimProponentReplyData(TypedDict):
    claim_id: str
    round: int
    by: str
    reply: ClaimReplyData


class ClaimDecidedData(TypedDict):
    claim_id: str
    decision: Literal["accept", "reject"]
    note: str
    by: str
    was: ClaimVerdictValue


class ClaimsRunStarted(TypedDict):
    kind: Literal["claims_run_started"]
    data: ClaimsRunStartedData


class ClaimCardError(TypedDict):
    kind: Literal["claim_card_error"]
    data: ClaimCardErrorData


class ClaimLoaded(TypedDict):
    kind: Literal["claim_loaded"]
    data: ClaimLoadedData


class ClaimGate(TypedDict):
    kind: Literal["claim_gate"]
    data: ClaimGateData


class ClaimPrecheck(TypedDict):
    kind: Literal["claim_precheck"]
    data: ClaimPrecheckData


class ClaimAxes(TypedDict):
    kind: Literal["claim_axes"]
    data: ClaimAxesData


class ClaimCheck(TypedDict):
    kind: Literal["claim_check"]
    data: ClaimCheckData


class ClaimVerdict(TypedDict):
    kind: Literal["claim_verdict"]
    data: ClaimVerdictData


class ClaimsRunFinished(TypedDict):
    kind: Literal["claims_run_finished"]
    data: ClaimsRunFinishedData


class ClaimRoundStarted(TypedDict):
    kind: Literal["claim_round_started"]
    data: ClaimRoundStartedData


class ClaimTurn(TypedDict):
    kind: Literal["claim_turn"]
    data: ClaimTurnData


class ClaimProtocolError(TypedDict):
    kind: Literal["claim_protocol_error"]
    data: ClaimProtocolErrorData


class ClaimConcessionRefused(TypedDict):
    kind: Literal["claim_concession_refused"]
    data: ClaimConcessionRefusedData


class ClaimProponent(TypedDict):
    kind: Literal["claim_proponent"]
    data: ClaimProponentData


class ClaimCheckpoint(TypedDict):
    kind: Literal["claim_checkpoint"]
    data: ClaimCheckpointData


class ClaimConvergence(TypedDict):
    kind: Literal["claim_convergence"]
    data: ClaimConvergenceData


class ClaimNarrowed(TypedDict):
    kind: Literal["claim_narrowed"]
    data: ClaimNarrowedData


class ClaimDeadlockReport(TypedDict):
    kind: Literal["claim_deadlock_report"]
    data: ClaimDeadlockReportData


class ClaimRoundsFinished(TypedDict):
    kind: Literal["claim_rounds_finished"]
    data: ClaimRoundsFinishedData


class ClaimAwaitingProponent(TypedDict):
    kind: Literal["claim_awaiting_proponent"]
    data: ClaimAwaitingProponentData


class ClaimProponentReply(TypedDict):
    kind: Literal["claim_proponent_reply"]
    data: ClaimProponentReplyData


class ClaimDecided(TypedDict):
    kind: Literal["claim_decided"]
    data: ClaimDecidedData


ClaimsEvent = (
    ClaimsRunStarted
    | ClaimCardError
    | ClaimLoaded
    | ClaimGate
    | ClaimPrecheck
    | ClaimAxes
    | ClaimCheck
    | ClaimVerdict
    | ClaimsRunFinished
    | ClaimRoundStarted
    | ClaimTurn
    | ClaimProtocolError
    | ClaimConcessionRefused
    | ClaimProponent
    | ClaimCheckpoint
    | ClaimConvergence
    | ClaimNarrowed
    | ClaimDeadlockReport
    | ClaimRoundsFinished
    | ClaimAwaitingProponent
    | ClaimProponentReply
    | ClaimDecided
)
CLAIMS_EVENTS: tuple[type, ...] = (
    ClaimsRunStarted,
    ClaimCardError,
    ClaimLoaded,
    ClaimGate,
    ClaimPrecheck,
    ClaimAxes,
    ClaimCheck,
    ClaimVerdict,
    ClaimsRunFinished,
    ClaimRoundStarted,
    ClaimTurn,
    ClaimProtocolError,
    ClaimConcessionRefused,
    ClaimProponent,
    ClaimCheckpoint,
    ClaimConvergence,
    ClaimNarrowed,
    ClaimDeadlockReport,
    ClaimRoundsFinished,
    ClaimAwaitingProponent,
    ClaimProponentReply,
    ClaimDecided,
)
