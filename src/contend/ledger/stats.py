"""The figures of `contend stats`: whether the critics earn their keep (DESIGN §7).

Pure: the index's rows in (index.stats_rows), figures out. Per group (topic, model
family, critic or branch) and in total:

    raised                attacks raised
    found_rate            fixed or conceded by the author at some point ÷ raised
                          (the critic found a real defect, by the author's own answer)
    survival_rate         reached a person ÷ raised: still unresolved, or resolved only by
                          a person's overrule or waiver (not by the parties)
    rounds_to_resolution  closed rounds an attack stayed open before it was resolved
                          (mean and median over resolved attacks)
    false_alarm_rate      overruled ÷ decided, over the attacks a person decided (latest
                          decision per attack)
    escapes               defects a person recorded as got through (`contend escape`),
                          counted against the critics on that run — those of its topic
                          when it names the topic of one of them
    cost_per_review       spend of the group's threads ÷ runs it was in (USD)
    time_per_review       wall time of those runs ÷ runs (seconds, every session)

A rate with nothing to divide by is None (shown as "-"), never 0.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from contend.ledger.index import StatsRows
from contend.ledger.index_rows import AttackRow, ThreadRow

By = Literal["topic", "family", "critic", "branch"]
BY_CHOICES: tuple[By, ...] = ("topic", "family", "critic", "branch")
_RESOLVED_BY_PERSON = frozenset({"overruled", "waived"})


@dataclass(slots=True)
class _Tally:
    raised: int = 0
    found: int = 0
    survived: int = 0
    rounds: list[int] = field(default_factory=list)
    decided: int = 0
    overruled: int = 0
    escapes: int = 0
    runs: set[str] = field(default_factory=set)
    cost: float = 0.0
    wall: dict[str, float] = field(default_factory=dict)

    def add(self, a: AttackRow) -> None:
        self.raised += 1
        self.found += a.found
        if not a.resolved or a.status in _RESOLVED_BY_PERSON:
            self.survived += 1
        if a.resolved:
            self.rounds.append(a.rounds)
        if a.decision:
            self.decided += 1
            self.overruled += a.decision == "overrule"

    def figures(self) -> dict[str, Any]:
        runs = len(self.runs)
        return {
            "runs": runs,
            "raised": self.raised,
            "found": self.found,
            "found_rate": _rate(self.found, self.raised),
            "survived": self.survived,
            "survival_rate": _rate(self.survived, self.raised),
            "resolved": len(self.rounds),
            "rounds_to_resolution_mean": (
                round(statistics.fmean(self.rounds), 3) if self.rounds else None
            ),
            "rounds_to_resolution_median": (
                statistics.median(self.rounds) if self.rounds else None
            ),
            "decided": self.decided,
            "overruled": self.overruled,
            "false_alarm_rate": _rate(self.overruled, self.decided),
            "escapes": self.escapes,
            "cost_per_review": round(self.cost / runs, 6) if runs else None,
            "time_per_review_s": round(sum(self.wall.values()) / runs, 3) if runs else None,
        }


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _thread_key(by: By, branch: str) -> Callable[[ThreadRow], str]:
    def key(t: ThreadRow) -> str:
        if by == "topic":
            return t.topic or "(no topic)"
        if by == "family":
            return t.family or "(unknown)"
        if by == "critic":
            return t.critic
        return branch or "(no branch)"

    return key


def _attack_key(by: By, branch: str, a: AttackRow) -> str:
    if by == "topic":
        return a.topic or "(no topic)"
    if by == "family":
        return a.family or "(unknown)"
    if by == "critic":
        return a.critic
    return branch or "(no branch)"


def group(rows: StatsRows, by: By) -> dict[str, dict[str, Any]]:
    """Figures per value of `by`, sorted by key."""
    tallies: dict[str, _Tally] = defaultdict(_Tally)
    for run in rows.runs:
        threads = rows.threads[run.run_id]
        key_of = _thread_key(by, run.branch)
        for t in threads:
            tally = tallies[key_of(t)]
            tally.runs.add(run.run_id)
            tally.cost += t.cost
            tally.wall[run.run_id] = run.wall_s
        for a in rows.attacks[run.run_id]:
            tally = tallies[_attack_key(by, run.branch, a)]
            tally.add(a)
            tally.runs.add(run.run_id)
            tally.wall[run.run_id] = run.wall_s
        for e in rows.escapes[run.run_id]:
            on_topic = [t for t in threads if e.topic and t.topic == e.topic]
            for name in sorted({key_of(t) for t in (on_topic or threads)}):
                tallies[name].escapes += 1
    return {name: tallies[name].figures() for name in sorted(tallies)}


def totals(rows: StatsRows) -> dict[str, Any]:
    tally = _Tally()
    for run in rows.runs:
        tally.runs.add(run.run_id)
        tally.cost += run.cost
        tally.wall[run.run_id] = run.wall_s
        for a in rows.attacks[run.run_id]:
            tally.add(a)
        tally.escapes += len(rows.escapes[run.run_id])
    return tally.figures()


def compute(rows: StatsRows, by: tuple[By, ...]) -> dict[str, Any]:
    """The whole figure set: totals, and the groups for each `by`."""
    return {
        "schema": "contend.stats/v1",
        "totals": totals(rows),
        "by": {name: group(rows, name) for name in by},
        "escapes": [
            {
                "run": run_id,
                "seq": e.seq,
                "ts": e.ts,
                "note": e.note,
                "path": e.path or None,
                "line": e.line,
                "topic": e.topic or None,
                "person": e.person,
            }
            for run_id in sorted(rows.escapes)
            for e in rows.escapes[run_id]
        ],
    }
