"""The harness's checks around the mutants: the unmutated code passes a sample first
(smoke), survivors once more on their whole file's tests (--widen), and every killing
test on the unmutated code afterwards (verify_killers) — one that fails there killed
nothing."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import execute
import linemap
from scores import Row


class HarnessError(Exception):
    """The unmutated code does not pass in the harness: no result would mean anything."""


@dataclass(slots=True)
class Context:
    sources: dict[Path, str]
    durations: dict[str, float]
    purges: dict[Path, frozenset[str]]
    project: frozenset[str]

    def jobs(self, rows: Sequence[Row]) -> list[execute.Job]:
        return [
            execute.Job(
                ident=row.mutant.key,
                path=Path(row.mutant.path),
                text=row.mutant.apply(self.sources[Path(row.mutant.path)]),
                tests=row.tests,
                durations=self.durations,
                purge=self.purges[Path(row.mutant.path)],
                project=self.project,
                patch=row.patch,
            )
            for row in rows
        ]

    def unmutated(self, ident: str, path: Path, tests: list[str]) -> execute.Job:
        return execute.Job(
            ident,
            path,
            self.sources[path],
            linemap.order(tests, self.durations),
            self.durations,
            self.purges[path],
            self.project,
            stop_first=False,
        )


def widen(
    ws: execute.Workspace,
    rows: Sequence[Row],
    covmap: dict[str, Any],
    flaky: set[str],
    ctx: Context,
    record: Any,
    stages: execute.Planner,
) -> None:
    """Each survivor once more against every test that ran any line of its file."""
    wider = []
    for row in rows:
        if row.status in (execute.SURVIVED, execute.NO_TESTS) and row.equivalent is None:
            in_file = linemap.file_tests(covmap["files"].get(row.mutant.path, {}))
            everything = linemap.order(in_file - flaky, ctx.durations)
            if set(everything) - set(row.tests):
                row.tests, row.widened = everything, True
                wider.append(row)
    if wider:
        print(f"re-running {len(wider)} survivor(s) against every test of their file", flush=True)
        execute.run_jobs(ws, ctx.jobs(wider), record, stages)


def verify_killers(
    ws: execute.Workspace, rows: Sequence[Row], ctx: Context, broken: set[str]
) -> float:
    """Every test that killed a mutant must pass on the unmutated code in the same
    harness; one that does not (it fails here for another reason) killed nothing — its
    mutants become harness errors instead of kills, and it is added to `broken`."""
    started = time.monotonic()
    by_file: dict[Path, set[str]] = defaultdict(set)
    checked = (execute.KILLED, execute.ABORTED)
    for row in rows:
        if row.status not in checked or not row.killer:
            continue
        if "::" in row.killer:
            by_file[Path(row.mutant.path)].add(row.killer)
        elif row.killer.startswith(_COLLECTING):
            # Killed while a test module was collected: the unmutated code must collect it
            # here too, so one selected test under that collector runs unmutated.
            by_file[Path(row.mutant.path)].add(_under(row.killer[len(_COLLECTING) :], row.tests))
    jobs = [
        ctx.unmutated(f"unmutated {path}", path, sorted(tests))
        for path, tests in sorted(by_file.items())
    ]
    bad: dict[Path, set[str]] = {}
    unvouched: set[Path] = set()

    def note(job: execute.Job, outcome: execute.Outcome) -> None:
        if outcome.status == execute.SURVIVED:
            return
        bad[job.path] = set(outcome.failures)
        if outcome.status == execute.ABORTED or not outcome.failures:
            # The session stopped (or failed without a test to blame): what comes after
            # that point never ran unmutated, so none of this file's killers is vouched for.
            unvouched.add(job.path)

    if jobs:
        print(
            f"re-checking {sum(len(j.tests) for j in jobs)} killing test(s) unmutated", flush=True
        )
        execute.run_jobs(ws, jobs, note)
    for row in rows:
        path = Path(row.mutant.path)
        failing = bad.get(path, set())
        if row.status not in checked or row.killer is None:
            continue
        if row.killer in failing or path in unvouched:
            row.status = execute.ERROR
            broken.add(row.killer)
            print(f"  {row.killer} fails unmutated too: {row.mutant.key} not judged", flush=True)
    return time.monotonic() - started


_COLLECTING = "collecting "


def _under(collector: str, tests: Sequence[str]) -> str:
    """The first of `tests` that the collector `collector` (a node id) collects."""
    inside = [t for t in tests if t.startswith((collector + "::", collector.rstrip("/") + "/"))]
    return (inside or list(tests))[0]


def smoke(ws: execute.Workspace, rows: Sequence[Row], ctx: Context) -> set[str]:
    """The unmutated code must pass in the harness, or no result means anything. Returns
    the sampled tests that fail there while the others pass — a test that depends on
    where the source lives (`test_default_output_path_is_the_published_file` when a child
    re-imports `contend.schemafiles` from its copy): the caller keeps them from judging
    any mutant (as the killer re-check would) and lists them. None passing, or a failure
    that is not a test's, stops the run."""
    sample = sorted(
        {t for r in rows for t in r.tests[:3]}, key=lambda t: ctx.durations.get(t, 0.0)
    )[:30]
    if not sample:
        return set()
    job = ctx.unmutated("unmutated", Path(rows[0].mutant.path), sample)
    outcomes = execute.run_jobs(ws, [job], lambda j, o: None)
    outcome = outcomes[0]
    if outcome.status == execute.SURVIVED:
        return set()
    failing = set(outcome.failures)
    # A session the unmutated code stops (ABORTED), or a test file it cannot collect, is
    # the harness's failure, not a test's.
    uncollected = any(f.startswith(_COLLECTING) for f in failing)
    if outcome.status != execute.KILLED or uncollected or not failing or failing >= set(sample):
        raise HarnessError(
            f"the unmutated code does not pass in the harness ({outcome.status}: "
            f"{outcome.killer} {outcome.detail})"
        )
    return failing
