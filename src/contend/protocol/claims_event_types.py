"""The event kinds of a claims run (`contend verify`, claims/events.py), as TypedDicts.

They share the one table of protocol/events.py (EVENT_TYPES) and the published schema of
`contend.event/v1` with the review kinds of protocol/event_types.py; see there for the
conventions (`…Data` is an event's data, the bare name the event with its literal kind).
"""

# No `from __future__ import annotations`: TypedDict reads NotRequired from live annotations.
from typing import Any, Literal

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
)
