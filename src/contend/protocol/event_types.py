"""The typed table of every event kind a ledger holds (`contend.event/v1`), as TypedDicts.

Each kind has the shape of its `data` (`…Data`) and of the event itself (`{"kind", "data"}`
with the kind as a literal, so a union of events narrows on `kind`). These are the review
kinds, folded by protocol/state.py; the claims kinds of `contend verify` are in
protocol/claims_event_types.py. protocol/events.py EVENT_TYPES is the one table of both,
from which the published JSON Schema (schemas/event.v1.schema.json, `python -m
contend.protocol.schema`) is generated.

A key is Required when the fold needs it: a line without it is refused. Every other key
contend writes is NotRequired, because a ledger written before contend wrote it must still
fold (the fold reads it with a default, in one place: protocol/state.py). Records the
reports only show (topic rejections, deadlock reports, merges) are kept as given. Extra
keys are tolerated, as a versioned log's reader must.
"""

# No `from __future__ import annotations`: TypedDict reads NotRequired from live annotations.
from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

SeverityName = Literal["critical", "major", "minor"]
ActionName = Literal[
    "fix",
    "concede",
    "defend",
    "accept",
    "withdraw",
    "re_attack",
    "mark_unresolved",
    "deadlock",
    "uphold",
    "overrule",
    "waive",
]
ActorName = Literal["proposer", "critic", "engine", "human", "oracle"]
RoleName = Literal["critic", "proposer", "oracle"]
FailureName = Literal["crashed", "timeout", "malformed", "http_status", "unreachable"]


# --- shared pieces -------------------------------------------------------------------------


class LocationData(TypedDict):
    path: str
    start_line: int
    end_line: int
    symbol: NotRequired[str]


class ArtifactData(TypedDict, total=False):
    kind: str  # "change"
    repo: str
    base: str
    head: str | None
    staged: bool
    label: str
    key: str  # the continuation key: which branch or state this review follows


class PersonData(TypedDict):
    name: str
    email: NotRequired[str | None]
    source: NotRequired[str]  # "git config" | "os user"


class ConflictData(TypedDict):
    thread: str
    files: list[str]
    message: str


class PriceData(TypedDict):
    input_per_mtok: float
    output_per_mtok: float
    source: str


class HttpCallData(TypedDict):
    request: dict[str, Any]  # the request body as sent
    status: int | None
    response: str  # its head (RESPONSE_HEAD_CHARS)
    response_bytes: int
    at_s: float
    wall_s: float
    response_cut: NotRequired[bool]
    error: NotRequired[str]


class ToolCallData(TypedDict):
    name: str
    arguments: str | dict[str, Any]  # as the model sent them (some send a JSON string)
    is_error: bool
    result_chars: int
    result_head: str


class ScriptedRequestData(TypedDict):
    system: str
    prompt: str


class RawExchange(TypedDict, total=False):
    """The raw exchange of one agent call, exactly as sent and received: one record, whose
    keys say how the backend talks.

    - an agent CLI (a process): argv, what went in (system + prompt, or stdin), stdout,
      stderr_tail, returncode;
    - an HTTP API: backend, model, base_url, every request body and response head (calls),
      repository tool calls, notes (retries, repairs), tokens;
    - a script (tests, demos): request (system, prompt) and response;
    - any of them: what the cost was based on (cost_known, cost_source or price);
    - a reply too large for the ledger keeps its head only (truncated, bytes, head).
    """

    argv: list[str]
    system: str
    prompt: str
    stdin: str
    stdout: str
    stderr_tail: str
    returncode: int | None
    backend: str
    model: str
    base_url: str
    tokens_in: int
    tokens_out: int
    notes: list[str]
    tool_calls: list[ToolCallData]
    calls: list[HttpCallData]
    request: ScriptedRequestData
    response: str
    cost_known: bool
    cost_source: str
    price: PriceData | None
    truncated: bool
    bytes: int
    head: str


# --- review kinds (protocol/events.py EventKind) -------------------------------------------


class RunStartedData(TypedDict):
    run_id: NotRequired[str]
    artifact: NotRequired[ArtifactData]
    contend: NotRequired[str]
    critics: NotRequired[list[str]]
    proposer: NotRequired[str]
    config_rev: NotRequired[str | None]
    notes: NotRequired[list[str]]


class SpecLoadedData(TypedDict):
    source: str | None
    text: str
    path: NotRequired[str | None]
    chars: NotRequired[int]


class GateRanData(TypedDict, total=False):  # a gate without `ok` did not pass
    name: str
    ok: bool
    cmd: str | list[str]
    exit_code: int | None
    output: str
    when: str | None  # entry | after-fix | merged
    thread: str | None
    wall_s: float


class FileSkippedData(TypedDict):
    path: str
    reason: str
    topic: NotRequired[str | None]
    blocks: NotRequired[bool]  # a code file not reviewed: the verdict cannot be pass


class ThreadStartedData(TypedDict):
    thread: str
    critic: str
    family: NotRequired[str]
    model: NotRequired[str]
    backend: NotRequired[str]
    same_family_as_proposer: NotRequired[bool]


class TopicDeclaredData(TypedDict):
    thread: str
    topic: str


class TopicRejectedData(TypedDict, total=False):  # kept as given, shown in the reports
    thread: str
    topic: str
    duplicates: str


class RoundData(TypedDict):
    thread: str
    round: int


class AttackRaisedData(TypedDict):
    id: str
    thread: str
    critic: str
    family: str
    topic: str
    severity: SeverityName
    location: LocationData
    claim: str
    evidence: str
    round: int
    rule: NotRequired[str]
    fingerprint: NotRequired[str | None]
    ways_out: NotRequired[list[str]]
    confidence: NotRequired[Literal["high", "medium", "low"]]
    old_evidence: NotRequired[str]
    locations: NotRequired[list[LocationData]]
    members: NotRequired[list[str]]


class AttackDroppedData(TypedDict):
    thread: str
    count: NotRequired[int]  # 1 when absent
    reason: NotRequired[str]


class AttackTransitionData(TypedDict):
    attack: str
    action: ActionName
    by: str  # who acted, in words, as the reports show it
    actor: NotRequired[ActorName]  # the role machine.RULES checks (derived from `by` if absent)
    text: NotRequired[str]
    evidence: NotRequired[str]
    commit: NotRequired[str | None]  # a fix's commit in the thread's worktree
    person: NotRequired[PersonData]  # who answered or decided between reviews
    in_source: NotRequired[bool]  # a concession that is an in-code waiver
    change_withdrawn: NotRequired[bool]  # resolved because its code left the reviewed diff
    round: NotRequired[int]


class HistoryEntry(AttackTransitionData):
    """A transition as the fold keeps it on its attack: where it stands and who acted."""

    seq: int
    actor: ActorName  # type: ignore[misc]  # always set by the fold (Required here)


class AttackRelocatedData(TypedDict):
    attack: str
    locations: list[LocationData]
    members: NotRequired[list[str]]
    claim: NotRequired[str]
    evidence: NotRequired[str]
    old_evidence: NotRequired[str | None]


class AgentCallData(TypedDict):
    thread: str
    role: NotRequired[RoleName]  # critic when absent
    tokens_in: NotRequired[int]
    tokens_out: NotRequired[int]
    cost: NotRequired[float]
    usable: NotRequired[bool]  # true when absent
    round: NotRequired[int]
    backend: NotRequired[str]
    model: NotRequired[str]
    family: NotRequired[str]
    wall_s: NotRequired[float]
    bytes_sent: NotRequired[int]  # system prompt and prompt, UTF-8
    exchange: NotRequired[RawExchange]
    findings: NotRequired[int]  # a static critic: how many findings it reported


class AgentFailedData(TypedDict):
    thread: str
    role: NotRequired[RoleName]  # critic when absent
    round: NotRequired[int]
    error: NotRequired[str]
    failure: NotRequired[FailureName]
    status: NotRequired[int]  # the HTTP status, when there is one
    retryable: NotRequired[bool]
    timeout: NotRequired[bool]
    malformed: NotRequired[bool]
    backend: NotRequired[str]
    model: NotRequired[str]


class ProtocolViolationData(TypedDict):
    thread: str
    detail: NotRequired[str]
    role: NotRequired[RoleName]


class DeadlockReportData(TypedDict, total=False):  # kept as given, shown in the reports
    attack: str
    thread: str
    report: dict[str, Any]  # the oracle's report (protocol/reply_schemas ORACLE_SCHEMA)


class MergeData(TypedDict, total=False):  # kept as given, shown in the reports
    merged: str | None
    threads: list[str]
    conflicts: list[ConflictData]


class ThreadEndedData(TypedDict):
    thread: str
    reason: str  # a termination.StopReason, or what ended the session (interrupt, error)


class RunInterruptedData(TypedDict, total=False):
    cause: str  # interrupt | error
    error: str


class RunResumedData(TypedDict):
    pass


class RunFinishedData(TypedDict):
    verdict: str
    reasons: NotRequired[list[str]]
    exit_code: NotRequired[int]
    wall_s: NotRequired[float]


class EscapeRecordedData(TypedDict):
    note: str  # the defect that got through the review, in the person's words
    path: NotRequired[str | None]
    line: NotRequired[int | None]
    topic: NotRequired[str | None]
    person: NotRequired[PersonData]


class RunStarted(TypedDict):
    kind: Literal["run_started"]
    data: RunStartedData


class SpecLoaded(TypedDict):
    kind: Literal["spec_loaded"]
    data: SpecLoadedData


class GateRan(TypedDict):
    kind: Literal["gate_ran"]
    data: GateRanData


class ThreadStarted(TypedDict):
    kind: Literal["thread_started"]
    data: ThreadStartedData


class TopicDeclared(TypedDict):
    kind: Literal["topic_declared"]
    data: TopicDeclaredData


class TopicRejected(TypedDict):
    kind: Literal["topic_rejected"]
    data: TopicRejectedData


class RoundStarted(TypedDict):
    kind: Literal["round_started"]
    data: RoundData


class AttackRaised(TypedDict):
    kind: Literal["attack_raised"]
    data: AttackRaisedData


class AttackDropped(TypedDict):
    kind: Literal["attack_dropped"]
    data: AttackDroppedData


class AttackTransition(TypedDict):
    kind: Literal["attack_transition"]
    data: AttackTransitionData


class AttackRelocated(TypedDict):
    kind: Literal["attack_relocated"]
    data: AttackRelocatedData


class RoundClosed(TypedDict):
    kind: Literal["round_closed"]
    data: RoundData


class AgentCall(TypedDict):
    kind: Literal["agent_call"]
    data: AgentCallData


class AgentFailed(TypedDict):
    kind: Literal["agent_failed"]
    data: AgentFailedData


class FileSkipped(TypedDict):
    kind: Literal["file_skipped"]
    data: FileSkippedData


class ProtocolViolation(TypedDict):
    kind: Literal["protocol_violation"]
    data: ProtocolViolationData


class DeadlockReport(TypedDict):
    kind: Literal["deadlock_report"]
    data: DeadlockReportData


class Merge(TypedDict):
    kind: Literal["merge"]
    data: MergeData


class ThreadEnded(TypedDict):
    kind: Literal["thread_ended"]
    data: ThreadEndedData


class RunInterrupted(TypedDict):
    kind: Literal["run_interrupted"]
    data: RunInterruptedData


class RunResumed(TypedDict):
    kind: Literal["run_resumed"]
    data: RunResumedData


class RunFinished(TypedDict):
    kind: Literal["run_finished"]
    data: RunFinishedData


class EscapeRecorded(TypedDict):
    kind: Literal["escape_recorded"]
    data: EscapeRecordedData


Event = (
    RunStarted
    | SpecLoaded
    | GateRan
    | ThreadStarted
    | TopicDeclared
    | TopicRejected
    | RoundStarted
    | AttackRaised
    | AttackDropped
    | AttackTransition
    | AttackRelocated
    | RoundClosed
    | AgentCall
    | AgentFailed
    | FileSkipped
    | ProtocolViolation
    | DeadlockReport
    | Merge
    | ThreadEnded
    | RunInterrupted
    | RunResumed
    | RunFinished
    | EscapeRecorded
)
REVIEW_EVENTS: tuple[type, ...] = (
    RunStarted,
    SpecLoaded,
    GateRan,
    ThreadStarted,
    TopicDeclared,
    TopicRejected,
    RoundStarted,
    AttackRaised,
    AttackDropped,
    AttackTransition,
    AttackRelocated,
    RoundClosed,
    AgentCall,
    AgentFailed,
    FileSkipped,
    ProtocolViolation,
    DeadlockReport,
    Merge,
    ThreadEnded,
    RunInterrupted,
    RunResumed,
    RunFinished,
    EscapeRecorded,
)
