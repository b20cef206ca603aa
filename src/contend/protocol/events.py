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


Event = dict[str, Any]


def event(kind: EventKind, **data: Any) -> Event:
    return {"kind": str(kind), "data": data}


def attack_raised(attack: Attack) -> Event:
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
    )
