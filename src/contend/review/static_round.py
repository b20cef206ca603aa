"""One round of the deterministic critics in author mode, as pure event planning.

The author is the proposer across invocations: between two `contend review` runs they
edit code. This module compares what a static topic finds now with the attacks of its
thread so far and plans the events of the new round:

- a finding still present survives (its contention grows with the round close); if the
  author had defended it in words, the critic presses it again (re_attack): a static
  finding is answered in code — fixed, or waived in code with a reason;
- a finding waived in code with a reason is an evidence-bound concession: concede (by the
  author, with the reason) and accept (by the critic);
- an attack whose finding is gone from the code is resolved by fix (fix + accept) —
  unless its file could not be read this time (skipped), which proves nothing;
- a new finding is raised.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from contend.critics.static.base import Finding, Topic
from contend.protocol import events as ev
from contend.protocol.events import Event, EventKind
from contend.protocol.model import Action, Attack, Location, Status
from contend.protocol.state import RunState

AUTHOR = "author"
STATIC_FAMILY = "static"

_PREFIX = {
    Topic.SILENT_FALLBACK: "SF",
    Topic.TEST_WEAKENING: "TW",
    Topic.BOUNDARY_TYPING: "BT",
    Topic.CONCURRENCY: "CC",
    Topic.SECURITY: "SE",
    Topic.SECRETS: "SK",
}
_AWAITING_ANSWER = frozenset(
    {Status.OPEN, Status.RE_ATTACKED, Status.UNRESOLVED, Status.UPHELD, Status.DEADLOCKED}
)


def thread_name(topic: Topic) -> str:
    return f"static:{topic}"


def plan_static_round(
    state: RunState,
    topic: Topic,
    findings: Sequence[Finding],
    *,
    skipped_paths: Iterable[str],
    model: str,
    wall_s: float,
) -> list[Event]:
    name = thread_name(topic)
    critic = name
    out: list[Event] = []
    thread = state.threads.get(name)
    if thread is None:
        out.append(
            ev.event(
                EventKind.THREAD_STARTED,
                thread=name,
                critic=critic,
                family=STATIC_FAMILY,
                model=model,
                backend="static",
            )
        )
        out.append(ev.event(EventKind.TOPIC_DECLARED, thread=name, topic=str(topic)))
        rnd = 1
    else:
        out.append(
            ev.event(
                EventKind.THREAD_STARTED,
                thread=name,
                critic=critic,
                family=STATIC_FAMILY,
                model=model,
                backend="static",
            )
        )
        rnd = thread.round + 1
    out.append(ev.event(EventKind.ROUND_STARTED, thread=name, round=rnd))
    out.append(
        ev.event(
            EventKind.AGENT_CALL,
            thread=name,
            role="critic",
            backend="static",
            model=model,
            family=STATIC_FAMILY,
            tokens_in=0,
            tokens_out=0,
            cost=0.0,
            wall_s=round(wall_s, 6),
            usable=True,
            findings=len(findings),
        )
    )

    existing = [a for a in state.attacks.values() if a.thread == name and not a.resolved]
    by_print: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        by_print[finding.fingerprint()].append(finding)
    skipped = set(skipped_paths)

    for attack in existing:
        matches = by_print.get(attack.fingerprint or "")
        if matches:
            out.extend(_still_present(attack, matches.pop(0)))
        elif attack.location.path in skipped:
            continue  # not read this time: its absence proves nothing
        else:
            out.extend(_gone(attack))

    counter = sum(1 for a in state.attacks.values() if a.thread == name)
    for group in by_print.values():
        for finding in group:
            counter += 1
            attack_id = f"{_PREFIX[topic]}-{counter}"
            out.append(ev.attack_raised(_attack_of(finding, attack_id, name, rnd, counter)))
            if finding.waived:
                out.extend(_waiver_accepted(attack_id, finding))
    out.append(ev.event(EventKind.ROUND_CLOSED, thread=name, round=rnd))
    out.append(ev.event(EventKind.THREAD_ENDED, thread=name, reason="awaiting_author"))
    return out


def _attack_of(finding: Finding, attack_id: str, thread: str, rnd: int, seq: int) -> Attack:
    evidence = finding.evidence
    if finding.old_evidence:
        evidence = f"{evidence}\n--- before the change ---\n{finding.old_evidence}"
    return Attack(
        id=attack_id,
        thread=thread,
        critic=thread,
        family=STATIC_FAMILY,
        topic=str(finding.topic),
        rule=finding.rule,
        severity=finding.severity,
        location=Location(finding.path, finding.start_line, finding.end_line),
        claim=finding.claim,
        evidence=evidence,
        raised_round=rnd,
        raised_seq=seq,
        fingerprint=finding.fingerprint(),
        ways_out=tuple(w.replace("<topic>", str(finding.topic)) for w in finding.ways_out),
    )


def _waiver_accepted(attack_id: str, finding: Finding) -> list[Event]:
    reason = finding.waiver_reason or ""
    return [
        ev.transition(
            attack_id,
            Action.CONCEDE,
            by=AUTHOR,
            text=reason,
            in_source=True,
            evidence=f"# contend: allow {finding.topic} -- {reason}",
        ),
        ev.transition(
            attack_id,
            Action.ACCEPT,
            by="static",
            text="an in-code waiver with a reason is an evidence-bound concession",
        ),
    ]


def _still_present(attack: Attack, finding: Finding) -> list[Event]:
    if finding.waived:
        if attack.status in _AWAITING_ANSWER:
            return _waiver_accepted(attack.id, finding)
        return [
            ev.transition(
                attack.id,
                Action.ACCEPT,
                by="static",
                text=f"waived in code: {finding.waiver_reason}",
            )
        ]
    if attack.status in (Status.DEFENDED, Status.FIXED):
        return [
            ev.transition(
                attack.id,
                Action.RE_ATTACK,
                by="static",
                text="still present in the code: a static finding is answered in code — fix it, "
                "or waive it in code with a reason",
                evidence=finding.evidence,
            )
        ]
    return []


def _gone(attack: Attack) -> list[Event]:
    if attack.status in _AWAITING_ANSWER:
        return [
            ev.transition(attack.id, Action.FIX, by=AUTHOR, text="the code no longer contains it"),
            ev.transition(
                attack.id,
                Action.ACCEPT,
                by="static",
                text="verified: a re-run of the critic no longer finds it",
            ),
        ]
    return [
        ev.transition(attack.id, Action.WITHDRAW, by="static", text="no longer present in the code")
    ]
