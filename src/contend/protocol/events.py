"""The event kinds of a run and their typed builders: {"kind": ..., "data": {...}}.

The shape of every kind's data is a TypedDict in protocol/event_types.py (review) and
protocol/claims_event_types.py (claims); EVENT_TYPES below is the one table of both, from
which the published schema of `contend.event/v1` is generated. Writers use the builders,
so mypy checks every event against its kind; `event()` builds one without that check, for
tests that spell out odd or old ledgers.

The ledger adds the envelope (schema, seq, id, ts, prev, hash); the core reads only
"kind", "seq" and "data", so a fold of 100,000 events stays cheap.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, cast, get_args, get_type_hints

from typing_extensions import TypedDict, Unpack

from contend.protocol import claims_event_types as ct
from contend.protocol import event_types as et
from contend.protocol.event_types import ActorName, AttackRaisedData, PersonData
from contend.protocol.event_types import Event as Event  # the union of the review events
from contend.protocol.model import Action, Actor, Attack, Location, Severity


class EventKind(StrEnum):
    RUN_STARTED = "run_started"
    SPEC_LOADED = "spec_loaded"
    GATE_RAN = "gate_ran"
    THREAD_STARTED = "thread_started"
    TOPIC_DECLARED = "topic_declared"
    TOPIC_REJECTED = "topic_rejected"
    ROUND_STARTED = "round_started"
    ATTACK_RAISED = "attack_raised"
    ATTACK_DROPPED = "attack_dropped"
    ATTACK_TRANSITION = "attack_transition"
    ATTACK_RELOCATED = "attack_relocated"
    ROUND_CLOSED = "round_closed"
    AGENT_CALL = "agent_call"
    AGENT_FAILED = "agent_failed"
    FILE_SKIPPED = "file_skipped"
    PROTOCOL_VIOLATION = "protocol_violation"
    DEADLOCK_REPORT = "deadlock_report"
    MERGE = "merge"
    THREAD_ENDED = "thread_ended"
    RUN_INTERRUPTED = "run_interrupted"
    RUN_RESUMED = "run_resumed"
    RUN_FINISHED = "run_finished"
    # A person records a defect that got through this run's review (`contend escape`).
    ESCAPE_RECORDED = "escape_recorded"


def _kind_of(event_type: type) -> str:
    (kind,) = get_args(get_type_hints(event_type)["kind"])
    return str(kind)


# The one table: every kind a `contend.event/v1` ledger may hold → the TypedDict of its event.
EVENT_TYPES: dict[str, type] = {_kind_of(t): t for t in (*et.REVIEW_EVENTS, *ct.CLAIMS_EVENTS)}


def event(kind: EventKind, **data: Any) -> dict[str, Any]:
    """An event of `kind` whose data is not checked against the kind (tests only)."""
    return {"kind": str(kind), "data": data}


# --- typed builders, one per kind ----------------------------------------------------------


def run_started(**data: Unpack[et.RunStartedData]) -> et.RunStarted:
    return {"kind": "run_started", "data": data}


def spec_loaded(**data: Unpack[et.SpecLoadedData]) -> et.SpecLoaded:
    return {"kind": "spec_loaded", "data": data}


def gate_ran(**data: Unpack[et.GateRanData]) -> et.GateRan:
    return {"kind": "gate_ran", "data": data}


def thread_started(**data: Unpack[et.ThreadStartedData]) -> et.ThreadStarted:
    return {"kind": "thread_started", "data": data}


def topic_declared(**data: Unpack[et.TopicDeclaredData]) -> et.TopicDeclared:
    return {"kind": "topic_declared", "data": data}


def topic_rejected(**data: Unpack[et.TopicRejectedData]) -> et.TopicRejected:
    return {"kind": "topic_rejected", "data": data}


def round_started(**data: Unpack[et.RoundData]) -> et.RoundStarted:
    return {"kind": "round_started", "data": data}


def round_closed(**data: Unpack[et.RoundData]) -> et.RoundClosed:
    return {"kind": "round_closed", "data": data}


def attack_dropped(**data: Unpack[et.AttackDroppedData]) -> et.AttackDropped:
    return {"kind": "attack_dropped", "data": data}


def agent_call(**data: Unpack[et.AgentCallData]) -> et.AgentCall:
    return {"kind": "agent_call", "data": data}


def agent_failed(**data: Unpack[et.AgentFailedData]) -> et.AgentFailed:
    return {"kind": "agent_failed", "data": data}


def file_skipped(**data: Unpack[et.FileSkippedData]) -> et.FileSkipped:
    return {"kind": "file_skipped", "data": data}


def protocol_violation(**data: Unpack[et.ProtocolViolationData]) -> et.ProtocolViolation:
    return {"kind": "protocol_violation", "data": data}


def deadlock_report(**data: Unpack[et.DeadlockReportData]) -> et.DeadlockReport:
    return {"kind": "deadlock_report", "data": data}


def merge(**data: Unpack[et.MergeData]) -> et.Merge:
    return {"kind": "merge", "data": data}


def thread_ended(**data: Unpack[et.ThreadEndedData]) -> et.ThreadEnded:
    return {"kind": "thread_ended", "data": data}


def run_interrupted(**data: Unpack[et.RunInterruptedData]) -> et.RunInterrupted:
    return {"kind": "run_interrupted", "data": data}


def run_resumed() -> et.RunResumed:
    return {"kind": "run_resumed", "data": {}}


def run_finished(**data: Unpack[et.RunFinishedData]) -> et.RunFinished:
    return {"kind": "run_finished", "data": data}


def escape_recorded(**data: Unpack[et.EscapeRecordedData]) -> et.EscapeRecorded:
    return {"kind": "escape_recorded", "data": data}


def attack_raised(attack: Attack) -> et.AttackRaised:
    data: AttackRaisedData = {
        "id": attack.id,
        "thread": attack.thread,
        "critic": attack.critic,
        "family": attack.family,
        "topic": attack.topic,
        "rule": attack.rule,
        "severity": attack.severity.value,
        "location": attack.location.to_json(),
        "claim": attack.claim,
        "evidence": attack.evidence,
        "round": attack.raised_round,
        "fingerprint": attack.fingerprint,
        "ways_out": list(attack.ways_out),
    }
    # Optional fields are written only when set, so ledgers without them fold unchanged.
    if attack.confidence is not None:
        data["confidence"] = cast(Any, attack.confidence)
    if attack.old_evidence is not None:
        data["old_evidence"] = attack.old_evidence
    if attack.locations:
        data["locations"] = [loc.to_json() for loc in attack.locations]
        data["members"] = list(attack.members)
    return {"kind": "attack_raised", "data": data}


def attack_relocated(
    attack_id: str,
    locations: list[Location],
    members: list[str],
    *,
    claim: str,
    evidence: str,
    old_evidence: str | None,
) -> et.AttackRelocated:
    """A grouped finding's places changed between reviews (some fixed, some added, lines
    moved): the attack keeps its identity and its history; where it is, and the claim and
    evidence of its first place, follow the code."""
    return {
        "kind": "attack_relocated",
        "data": {
            "attack": attack_id,
            "locations": [loc.to_json() for loc in locations],
            "members": members,
            "claim": claim,
            "evidence": evidence,
            "old_evidence": old_evidence,
        },
    }


class _Actor(TypedDict, total=False):
    actor: ActorName


class TransitionExtras(TypedDict, total=False):
    commit: str | None
    person: PersonData
    in_source: bool
    change_withdrawn: bool
    round: int


def transition(
    attack_id: str,
    action: Action,
    *,
    by: str,
    actor: Actor | None = None,
    text: str = "",
    evidence: str = "",
    **extra: Unpack[TransitionExtras],
) -> et.AttackTransition:
    """`by` is who acted in words (shown in the reports); `actor` is the role the table of
    machine.RULES checks. Left out, it is derived from `by` when the event is appended."""
    named: _Actor = {} if actor is None else {"actor": actor.value}
    data: et.AttackTransitionData = {
        "attack": attack_id,
        "action": action.value,
        "by": by,
        "text": text,
        "evidence": evidence,
        **named,
        **extra,
    }
    return {"kind": "attack_transition", "data": data}


_SEVERITIES = {str(s): s for s in Severity}
CONFIDENCES = frozenset({"high", "medium", "low"})


def _confidence(data: dict[str, Any]) -> str | None:
    value = data.get("confidence")
    if value is None:
        return None
    if value not in CONFIDENCES:
        raise ValueError(f"confidence {value!r} is not one of {sorted(CONFIDENCES)}")
    return str(value)


def attack_from_raised(data: dict[str, Any], seq: int) -> Attack:
    return Attack(
        id=str(data["id"]),
        thread=str(data["thread"]),
        critic=str(data["critic"]),
        family=str(data["family"]),
        topic=str(data["topic"]),
        rule=str(data.get("rule", "")),
        severity=_SEVERITIES[data["severity"]],
        location=Location.from_json(data["location"]),
        claim=str(data["claim"]),
        evidence=str(data["evidence"]),
        raised_round=int(data["round"]),
        raised_seq=seq,
        fingerprint=data.get("fingerprint"),
        ways_out=tuple(str(w) for w in data.get("ways_out", ())),
        confidence=_confidence(data),
        old_evidence=str(data["old_evidence"]) if data.get("old_evidence") is not None else None,
        locations=tuple(Location.from_json(loc) for loc in data.get("locations", ())),
        members=tuple(str(m) for m in data.get("members", ())),
    )
