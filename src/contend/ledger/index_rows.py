"""The rows of the run index (ledger/index.py), derived from a ledger's fold alone: one
`RunRow` per run (its standing verdict, counts, spend — or why it is not intact), and the
rows `contend stats` aggregates — one per attack, per critic thread and per recorded
escape. Pure: the index's SQLite and fingerprints are index.py's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from contend.ledger.entries import Entry
from contend.protocol.model import Action
from contend.protocol.state import RunState
from contend.review.standing import Standing, human_decision

INTACT = "intact"
TAMPERED = "tampered"
UNREADABLE = "unreadable"

_FOUND = frozenset({str(Action.FIX), str(Action.CONCEDE)})


@dataclass(frozen=True, slots=True)
class RunRow:
    run_id: str
    started: str  # UTC timestamp of the run's first event ("" when unreadable)
    key: str
    sessions: int
    verdict: str | None  # None when unfinished, or not intact
    exit_code: int | None
    attacks: int
    unresolved: int
    families: str
    tokens: int
    cost: float
    integrity: str = INTACT  # intact | tampered | unreadable
    problem: str = ""  # why, when not intact
    chain: str = ""  # keyed | unkeyed | mixed
    kind: str = "review"  # review | claims
    branch: str = ""  # the branch (or detached@commit) reviewed
    headline: str = ""  # the unresolved attack with the highest contention
    wall_s: float = 0.0  # wall time of every session together
    phase: str = ""  # finished | unfinished | interrupted
    decided: int = 0  # people's decisions recorded in the run
    escapes: int = 0  # escapes recorded against the run


@dataclass(frozen=True, slots=True)
class AttackRow:
    """What `stats` needs of one attack: who raised it and how it ended."""

    attack_id: str
    thread: str
    critic: str
    family: str
    topic: str
    severity: str
    status: str
    resolved: bool
    found: bool  # the author fixed or conceded it at some point
    decision: str  # the latest person's decision (uphold | overrule | waive), or ""
    rounds: int  # closed rounds it stayed unresolved


@dataclass(frozen=True, slots=True)
class ThreadRow:
    thread: str
    critic: str
    family: str
    topic: str
    cost: float
    tokens: int


@dataclass(frozen=True, slots=True)
class EscapeRow:
    seq: int
    ts: str
    note: str
    path: str
    line: int | None
    topic: str
    person: str


def summarise(
    run_id: str, started: str, now: Standing, chain: str = "", wall_s: float = 0.0
) -> RunRow:
    state = now.state
    top = state.attacks.get(now.headline) if now.headline is not None else None
    return RunRow(
        run_id=run_id,
        started=started,
        key=state.artifact.get("key", ""),
        sessions=state.sessions,
        verdict=None if now.verdict is None else str(now.verdict),
        exit_code=now.exit_code,
        attacks=len(state.attacks),
        unresolved=len(state.unresolved()),
        families=",".join(sorted(state.families())),
        tokens=state.tokens_in + state.tokens_out,
        cost=round(state.cost, 6),
        chain=chain,
        kind="review",
        branch=str(state.artifact.get("key", "")),
        headline=(
            f"[{top.severity}] {top.location.path}:{top.location.start_line} {top.claim}"
            if top is not None
            else ""
        ),
        wall_s=round(wall_s, 3),
        phase=now.phase,
        decided=sum(1 for a in state.attacks.values() for s in a.history if is_human(s)),
        escapes=len(state.escapes),
    )


def is_human(step: Mapping[str, object]) -> bool:
    return step.get("action") in ("uphold", "overrule", "waive")


def attack_rows(state: RunState) -> list[AttackRow]:
    rows = []
    for a in state.attacks.values():
        decision = human_decision(a)
        rows.append(
            AttackRow(
                attack_id=a.id,
                thread=a.thread,
                critic=a.critic,
                family=a.family,
                topic=a.topic,
                severity=str(a.severity),
                status=str(a.status),
                resolved=a.resolved,
                found=any(step.get("action") in _FOUND for step in a.history),
                decision=str(decision["action"]) if decision is not None else "",
                rounds=a.rounds_survived,
            )
        )
    return rows


def thread_rows(state: RunState) -> list[ThreadRow]:
    return [
        ThreadRow(
            t.name, t.critic, t.family, t.topic or "", round(t.cost, 6), t.tokens_in + t.tokens_out
        )
        for t in state.threads.values()
    ]


def escape_rows(state: RunState) -> list[EscapeRow]:
    rows = []
    for e in state.escapes:
        person = e.get("person")
        line = e.get("line")
        rows.append(
            EscapeRow(
                seq=int(e["seq"]),
                ts=str(e.get("ts", "")),
                note=str(e["note"]),
                path=str(e.get("path") or ""),
                line=int(line) if line is not None else None,
                topic=str(e.get("topic") or ""),
                person=str(person.get("name", "")) if isinstance(person, dict) else "",
            )
        )
    return rows


def claims_row(run_id: str, started: str, entries: list[Entry], chain: str) -> RunRow:
    """A `contend verify` run: its claims and the verdict its ledger records."""
    verdicts = {
        str(e["data"].get("claim_id")): str(e["data"].get("verdict"))
        for e in entries
        if e["kind"] == "claim_verdict"
    }
    finished = [e["data"] for e in entries if e["kind"] == "claims_run_finished"]
    last = finished[-1] if finished else None
    return RunRow(
        run_id=run_id,
        started=started,
        key="",
        sessions=1,
        verdict=str(last["verdict"]) if last is not None else None,
        exit_code=int(last["exit_code"]) if last is not None else None,
        attacks=len(verdicts),
        unresolved=sum(1 for v in verdicts.values() if v != "accept"),
        families="",
        tokens=0,
        cost=0.0,
        chain=chain,
        kind="claims",
        phase="finished" if last is not None else "unfinished",
    )


def not_intact(run_id: str, started: str, integrity: str, problem: str) -> RunRow:
    return RunRow(
        run_id=run_id,
        started=started,
        key="",
        sessions=0,
        verdict=None,
        exit_code=None,
        attacks=0,
        unresolved=0,
        families="",
        tokens=0,
        cost=0.0,
        integrity=integrity,
        problem=problem,
    )
