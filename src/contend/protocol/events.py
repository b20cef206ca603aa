"""The event kinds of a run. Events are plain JSON-able dicts: {"kind": ..., "data": {...}}.

The ledger adds the envelope (schema, seq, id, ts, prev, hash); the core reads only
"kind", "seq" and "data", so a fold of 100,000 events stays cheap.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from contend.protocol.model import Action, Attack, Location, Severity


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


Event = dict[str, Any]


def event(kind: EventKind, **data: Any) -> Event:
    return {"kind": str(kind), "data": data}


def attack_raised(attack: Attack) -> Event:
    # Optional fields are written only when set, so ledgers without them fold unchanged.
    optional: dict[str, Any] = {}
    if attack.confidence is not None:
        optional["confidence"] = attack.confidence
    if attack.old_evidence is not None:
        optional["old_evidence"] = attack.old_evidence
    if attack.locations:
        optional["locations"] = [loc.to_json() for loc in attack.locations]
        optional["members"] = list(attack.members)
    return event(
        EventKind.ATTACK_RAISED,
        id=attack.id,
        thread=attack.thread,
        critic=attack.critic,
        family=attack.family,
        topic=attack.topic,
        rule=attack.rule,
        severity=str(attack.severity),
        location=attack.location.to_json(),
        claim=attack.claim,
        evidence=attack.evidence,
        round=attack.raised_round,
        fingerprint=attack.fingerprint,
        ways_out=list(attack.ways_out),
        **optional,
    )


def attack_relocated(
    attack_id: str,
    locations: list[Location],
    members: list[str],
    *,
    claim: str,
    evidence: str,
    old_evidence: str | None,
) -> Event:
    """A grouped finding's places changed between reviews (some fixed, some added, lines
    moved): the attack keeps its identity and its history; where it is, and the claim and
    evidence of its first place, follow the code."""
    return event(
        EventKind.ATTACK_RELOCATED,
        attack=attack_id,
        locations=[loc.to_json() for loc in locations],
        members=members,
        claim=claim,
        evidence=evidence,
        old_evidence=old_evidence,
    )


def transition(
    attack_id: str, action: Action, *, by: str, text: str = "", evidence: str = "", **extra: Any
) -> Event:
    return event(
        EventKind.ATTACK_TRANSITION,
        attack=attack_id,
        action=str(action),
        by=by,
        text=text,
        evidence=evidence,
        **extra,
    )


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
