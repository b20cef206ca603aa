"""Fold a finished RunState and its Outcome into a Report. Pure: no clock, no I/O.

Conventions read from the fold (set by the review engine):
- a `concede` transition with `in_source: true` is an in-code waiver (`# contend: allow …`)
  and its `text` is the waiver's reason;
- a `withdraw` transition with `change_withdrawn: true` resolves a dispute whose code left
  the reviewed diff; a `person` on a transition names who answered or decided;
- caveats are the minor items of a conditional pass (README): a `fail` or `escalate` report
  lists its unresolved disputes, not caveats;
- gate dicts carry name, cmd (string or argv list), ok, exit_code, output, when;
- `state.spec` carries `source` (absent or empty: there was no spec), optionally `path` and
  `text`.
A gate or skip entry missing a required key raises: a report must not paper over a hole.
"""

from __future__ import annotations

import shlex

from pydantic import JsonValue, TypeAdapter

from contend import __version__
from contend.protocol.contention import ranked
from contend.protocol.event_types import (
    AgentFailedData,
    FileSkippedData,
    GateRanData,
    HistoryEntry,
    PersonData,
    SpecLoadedData,
)
from contend.protocol.model import Action, Attack, Status
from contend.protocol.model import Location as Place
from contend.protocol.state import RunState, ThreadState, failure_kind
from contend.protocol.verdict import Outcome, Verdict
from contend.report.model import (
    Dispute,
    Exchange,
    Failure,
    Gate,
    Location,
    Person,
    Report,
    Site,
    Skipped,
    Spec,
    Stats,
    Thread,
    Tool,
)

_JSON_DICT: TypeAdapter[dict[str, JsonValue]] = TypeAdapter(dict[str, JsonValue])


def build_report(state: RunState, outcome: Outcome, *, wall_time_s: float) -> Report:
    attacks = list(state.attacks.values())
    return Report(
        tool=Tool(version=__version__),
        run_id=state.run_id,
        verdict=outcome.verdict.value,
        exit_code=outcome.exit_code,
        reasons=list(outcome.reasons),
        caveats=list(outcome.caveats) if outcome.verdict is Verdict.CONDITIONAL_PASS else [],
        headline=outcome.headline,
        spec=_spec(state.spec),
        disputes=[_dispute(a) for a in ranked(a for a in attacks if not a.resolved)],
        resolved=[_dispute(a) for a in ranked(a for a in attacks if a.resolved)],
        history={a.id: [_exchange(h) for h in a.history] for a in attacks},
        ways_out={a.id: list(a.ways_out) for a in attacks if a.ways_out},
        fingerprints={a.id: a.fingerprint for a in attacks},
        confidence={a.id: a.confidence for a in attacks if a.confidence is not None},
        old_evidence={a.id: a.old_evidence for a in attacks if a.old_evidence is not None},
        failures=[_failure(t, f) for t in state.threads.values() for f in t.failure_log],
        gates=[_gate(g) for g in state.gates],
        skipped=[_skipped(s) for s in state.skipped],
        threads=[_thread(t) for t in state.threads.values()],
        deadlocks=[_JSON_DICT.validate_python(d) for d in state.deadlock_reports],
        merges=[_JSON_DICT.validate_python(m) for m in state.merges],
        stats=_stats(state, attacks, wall_time_s),
    )


def _dispute(a: Attack) -> Dispute:
    return Dispute(
        id=a.id,
        thread=a.thread,
        critic=a.critic,
        family=a.family,
        topic=a.topic,
        rule=a.rule,
        severity=a.severity,
        status=a.status,
        location=Location(
            path=a.location.path, start_line=a.location.start_line, end_line=a.location.end_line
        ),
        claim=a.claim,
        evidence=a.evidence,
        contention=a.contention,
        rounds_survived=a.rounds_survived,
        re_attacked=a.re_attacked,
        locations=[_site(loc, fp) for loc, fp in _sites(a)],
    )


def _sites(a: Attack) -> list[tuple[Place, str | None]]:
    if not a.locations:
        return [(a.location, a.fingerprint)]
    members: list[str | None] = list(a.members)
    members += [None] * (len(a.locations) - len(members))
    return list(zip(a.locations, members, strict=True))


def _site(loc: Place, fingerprint: str | None) -> Site:
    return Site(
        path=loc.path,
        start_line=loc.start_line,
        end_line=loc.end_line,
        symbol=loc.symbol,
        fingerprint=fingerprint,
    )


def _exchange(h: HistoryEntry) -> Exchange:
    return Exchange(
        seq=h["seq"],
        action=Action(h["action"]),
        by=h["by"],
        text=h.get("text", ""),
        evidence=h.get("evidence", ""),
        round=h.get("round"),
        in_source=h.get("in_source", False),
        change_withdrawn=h.get("change_withdrawn", False),
        person=_person(h.get("person")),
    )


def _person(data: PersonData | None) -> Person | None:
    if data is None:
        return None
    return Person(name=data["name"], email=data.get("email") or None, source=data["source"])


def _failure(t: ThreadState, f: AgentFailedData) -> Failure:
    return Failure(
        thread=t.name,
        critic=t.critic,
        role=f.get("role", "critic"),
        round=f.get("round"),
        backend=f.get("backend", t.backend),
        model=f.get("model", t.model),
        kind=failure_kind(f),
        error=f["error"],
    )


def _gate(g: GateRanData) -> Gate:
    cmd = g.get("cmd", "")
    return Gate(
        name=g["name"],
        cmd=shlex.join(cmd) if isinstance(cmd, list) else cmd,
        ok=g["ok"],
        exit_code=g.get("exit_code"),
        output=g.get("output", ""),
        when=g.get("when"),
        thread=g.get("thread"),
    )


def _skipped(s: FileSkippedData) -> Skipped:
    return Skipped(path=s["path"], reason=s["reason"], topic=s.get("topic") or None)


def _spec(spec: SpecLoadedData | None) -> Spec:
    if spec is None:
        return Spec(source=None, path=None, chars=None)
    return Spec(
        source=spec["source"] or None, path=spec.get("path") or None, chars=len(spec["text"])
    )


def _thread(t: ThreadState) -> Thread:
    return Thread(
        name=t.name,
        critic=t.critic,
        family=t.family,
        model=t.model,
        backend=t.backend,
        topic=t.topic,
        rounds=len(t.closed_rounds),
        ended=t.ended,
        calls=t.calls,
        failures=t.failures,
        tokens_in=t.tokens_in,
        tokens_out=t.tokens_out,
        cost=round(t.cost, 6),
        dropped_attacks=t.dropped_attacks,
        violations=list(t.violations),
        same_family_as_proposer=t.same_family_as_proposer,
        # A critic whose latest call failed has not reviewed the current code, whatever
        # the reason the thread paused with (e.g. awaiting_author in author mode).
        failed=t.failed or t.malformed_streak > 0,
    )


def _stats(state: RunState, attacks: list[Attack], wall_time_s: float) -> Stats:
    threads = list(state.threads.values())
    # Counted by final status: a fix the critic re-attacked is no longer "fixed", while a
    # concession nobody accepted still stands as conceded-unfixed (a bug the critic found).
    fixed = sum(1 for a in attacks if a.status is Status.FIXED)
    conceded = sum(1 for a in attacks if a.status is Status.CONCEDED)
    resolved = sum(1 for a in attacks if a.resolved)
    return Stats(
        attacks=len(attacks),
        unresolved=len(attacks) - resolved,
        resolved=resolved,
        fixed=fixed,
        conceded=conceded,
        critic_found_bug_rate=round((fixed + conceded) / len(attacks), 4) if attacks else None,
        rounds=max((len(t.closed_rounds) for t in threads), default=0),
        threads=len(threads),
        calls=sum(t.calls for t in threads),
        failures=sum(t.failures for t in threads),
        tokens_in=state.tokens_in,
        tokens_out=state.tokens_out,
        cost=round(state.cost, 6),
        wall_time_s=round(wall_time_s, 3),
        # Only families that produced usable output count, as in the verdict's minimum.
        families=sorted(f for f in state.families() if f),
        dropped_attacks=sum(t.dropped_attacks for t in threads),
        skipped_files=len(state.skipped),
    )
