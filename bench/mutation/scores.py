"""The mutation run's report: the score per file, per package and in total, the surviving
mutants, where the time went; and results.json with every mutant's outcome."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import bytecode
import cputime
import execute
import patch as patch_mod
from mutate import Mutant

# --fast-only or --sample skipped it, or the run was interrupted first
NOT_RUN = "not_run"


@dataclass(slots=True)
class Row:
    mutant: Mutant
    tests: list[str]
    equivalent: str | None
    status: str = ""
    killer: str | None = None
    seconds: float = 0.0
    widened: bool = False
    patch: patch_mod.Patch | patch_mod.GlobalPatch | None = None
    carried: bool = False  # --incremental: the earlier run's outcome, not judged again
    same_as: str | None = None  # the key of the mutant with the same bytecode judged for it
    path: str = ""  # "fast" or "slow" once planned
    detail: str = ""  # of a survivor: selected tests that did not run under the mutant
    cpu: float = 0.0  # user+system seconds of the children that judged it
    test_cpu: dict[str, float] = field(default_factory=dict)  # of it, per test run
    children: int = 0  # children forked to judge it


def print_report(
    rows: Sequence[Row],
    stale: Sequence[str],
    total_s: float,
    times: dict[str, float],
    out: Path,
    args: argparse.Namespace,
) -> int:
    per_file: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    problems: list[str] = []
    not_run = [r for r in rows if r.status == NOT_RUN]
    for row in rows:
        if row.status == NOT_RUN:
            continue  # neither killed nor survived: counted apart, below the table
        counts = per_file[row.mutant.path]
        counts["mutants"] += 1
        killed = row.status in execute.KILLED_STATES
        if row.equivalent is not None and not killed:
            counts["equivalent"] += 1
            continue
        if row.equivalent is not None:
            problems.append(f"listed as equivalent but killed by {row.killer}: {row.mutant.key}")
        counts[
            "killed" if killed else ("error" if row.status == execute.ERROR else "survived")
        ] += 1
        if row.status == execute.NO_TESTS:
            counts["uncovered"] += 1  # a survivor too: no test could kill it
        if row.status == execute.ERROR:
            problems.append(f"harness error: {row.mutant.key}")
    for key in stale:
        problems.append(f"equivalent list entry matches no mutant: {key}")

    print()
    header = (
        f"{'file':<46} {'mutants':>7} {'killed':>6} {'non-eq':>6} {'equiv':>5} "
        f"{'surv':>4} {'uncov':>5} {'score':>7}"
    )
    print(header)
    print("-" * len(header))
    totals: dict[str, int] = defaultdict(int)
    for file in sorted(per_file):
        c = per_file[file]
        for k, v in c.items():
            totals[k] += v
        print(line(file, c))
    print("-" * len(header))
    packages = by_package(per_file)
    if len(packages) > 1:
        for package in sorted(packages):
            print(line(package + "/", packages[package]))
        print("-" * len(header))
    print(line("total", totals))

    if not_run:
        why = (
            "interrupted"
            if args.interrupted
            else (f"--sample {args.sample}" if args.sample else "--fast-only")
        )
        print(f"\nnot judged ({why}): {len(not_run)} mutants, in no figure above")
        problems.append(f"{len(not_run)} mutants not judged ({why}): a partial run")
        if args.interrupted:
            problems.append("killing tests not re-checked on the unmutated code (interrupted)")
    survivors = [
        r
        for r in rows
        if r.status not in execute.KILLED_STATES and r.equivalent is None and r.status != NOT_RUN
    ]
    if survivors:
        print(f"\nsurviving mutants ({len(survivors)}):")
        for r in sorted(survivors, key=lambda r: (r.mutant.path, r.mutant.line)):
            note = " (not covered: no test runs this line)" if r.status == execute.NO_TESTS else ""
            if r.status == execute.ERROR:
                note = " (harness error)"
            elif r.detail:
                note = f" ({r.detail})"
            print(f"  {r.mutant.path}:{r.mutant.line}  {r.mutant.key.split('::', 1)[1]}{note}")
    widened_kills = [r for r in rows if r.widened and r.status in execute.KILLED_STATES]
    if widened_kills:
        print(f"\nkilled only by the wider re-run ({len(widened_kills)}): the line map missed them")
        for r in widened_kills:
            print(
                f"  {r.mutant.path}:{r.mutant.line}  {r.mutant.key.split('::', 1)[1]} by {r.killer}"
            )
    aborted = [r for r in rows if r.status == execute.ABORTED]
    if aborted:
        print(
            f"\nkilled (session aborted): {len(aborted)} mutants — the suite stopped on them "
            "(SystemExit while a test module imported the mutant, KeyboardInterrupt or "
            "pytest.exit in a test); the collection or test named re-checked unmutated"
        )
    for p in problems:
        print(f"problem: {p}")
    carried = sum(r.carried for r in rows)
    judged = sum(r.seconds > 0 for r in rows)  # carried, listed and uncovered take none
    if carried:
        print(f"\ncarried from {args.incremental}, not judged again: {carried} mutants")
    identical = sum(r.equivalent == bytecode.SAME_AS_ORIGINAL for r in rows)
    shared = sum(r.same_as is not None for r in rows)
    print(
        f"same bytecode as the unmutated module: {identical} mutants (counted as equivalent); "
        f"as another mutant of their file: {shared} (not run: the outcome of that one, "
        "judged against the tests of both, counted for each)"
    )
    rate = f", {60.0 * judged / times['mutants']:.0f} a minute" if times["mutants"] else ""
    print(f"judged in this run: {judged} mutants{rate}")
    for path in ("slow", "fast"):
        done = [r for r in rows if r.seconds > 0 and r.path == path]
        if done:
            took = times.get(f"mutants_{path}", 0.0)
            per = f", {60.0 * len(done) / took:.0f} a minute" if took else ""
            print(
                f"  {path} path: {len(done)} judged in {took:.0f} s{per} "
                f"(child time: median {_median([r.seconds for r in done]):.2f} s, "
                f"killed {sum(r.status in execute.KILLED_STATES for r in done)}, "
                f"survived {sum(r.status == execute.SURVIVED for r in done)}, "
                f"{sum(r.seconds for r in done if r.status == execute.SURVIVED):.0f} s of "
                "child time in survivors)"
            )
    if args.sample or args.interrupted:
        _projection(rows, times, args.planned)
    cpu_report(rows, args.cpu, args.jobs, args.planned if args.sample else None)
    print(
        f"\nrun time {total_s:.0f} s (making mutants {times.get('generate', 0.0):.0f} s, "
        f"bytecode {times.get('bytecode', 0.0):.0f} s, coverage map {times['coverage']:.0f} s, "
        f"mutants {times['mutants']:.0f} s, collecting for the fast path {times['host']:.0f} s, "
        f"survivor re-run {times['widened']:.0f} s, killers re-checked "
        f"{times['killers']:.0f} s) on {args.jobs} worker(s)"
    )
    print("command: .venv/bin/python bench/mutation/run.py " + " ".join(sys.argv[1:]))

    out.mkdir(parents=True, exist_ok=True)
    results = {
        "files": {f: dict(c) for f, c in per_file.items()},
        "packages": {p: dict(c) for p, c in by_package(per_file).items()},
        "sources": args.sources,
        "test_files": args.test_digests,
        "seconds": round(total_s, 1),
        "mutants": [
            {
                "key": r.mutant.key,
                "line": r.mutant.line,
                "status": r.status,
                "equivalent": r.equivalent,
                "killer": r.killer,
                "detail": r.detail,
                "tests": len(r.tests),
                "widened": r.widened,
                "carried": r.carried,
                "same_as": r.same_as,
                "path": r.path,
                "seconds": round(r.seconds, 2),
                "cpu": round(r.cpu, 3),
                "children": r.children,
                # In the order they ran: what ordering the tests differently would save.
                "test_cpu": {t: round(c, 3) for t, c in r.test_cpu.items()},
            }
            for r in rows
        ],
        "problems": problems,
    }
    (out / "results.json").write_text(json.dumps(results, indent=1))
    return 1 if problems else 0


def by_package(per_file: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """The counts summed per directory (the package): the targets are set per package."""
    packages: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for file, counts in per_file.items():
        for k, v in counts.items():
            packages[file.rsplit("/", 1)[0]][k] += v
    return packages


def line(name: str, c: dict[str, int]) -> str:
    non_eq = c["mutants"] - c["equivalent"]
    score = f"{100.0 * c['killed'] / non_eq:.1f}%" if non_eq else "-"
    return (
        f"{name:<46} {c['mutants']:>7} {c['killed']:>6} {non_eq:>6} {c['equivalent']:>5} "
        f"{c['survived'] + c['error']:>4} {c['uncovered']:>5} {score:>7}"
    )


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0


def print_plan(rows: Sequence[Row], durations: dict[str, float], times: dict[str, float]) -> None:
    """Where a run's time would go, before any mutant runs (--plan): how many mutants each
    path judges, how many tests each selects, and the seconds of those tests (in the
    coverage run) — what a surviving mutant costs, since it runs every one."""
    status = defaultdict(int)
    for r in rows:
        status[r.status or ("same program" if r.same_as else r.path)] += 1
    print(f"\n{len(rows)} mutants: " + ", ".join(f"{n} {s}" for s, n in sorted(status.items())))
    print(
        f"making mutants {times.get('generate', 0.0):.0f} s, bytecode "
        f"{times.get('bytecode', 0.0):.0f} s, coverage map {times.get('coverage', 0.0):.0f} s"
    )
    by_file: dict[tuple[str, str], list[float]] = defaultdict(list)
    for path in ("fast", "slow"):
        todo = [r for r in rows if not r.status and r.same_as is None and r.path == path]
        if not todo:
            continue
        counts = sorted(len(r.tests) for r in todo)
        cost = [sum(durations.get(t, 0.0) for t in r.tests) for r in todo]
        first = [durations.get(r.tests[0], 0.0) for r in todo if r.tests]
        for r, c in zip(todo, cost, strict=True):
            by_file[r.mutant.path, path].append(c)
        print(
            f"{path} path: {len(todo)} mutants; selected tests per mutant: median "
            f"{_median(counts):.0f}, 90th percentile {counts[int(0.9 * (len(counts) - 1))]}, "
            f"max {counts[-1]}; seconds of their tests if every one runs (a survivor): "
            f"{sum(cost):.0f} s in all, median {_median(cost):.2f} s; of the first test only "
            f"(killed by it): {sum(first):.0f} s"
        )
    heavy = sorted(by_file.items(), key=lambda kv: -sum(kv[1]))[:12]
    if heavy:
        print("files by seconds of selected tests (all run):")
        for (file, path), costs in heavy:
            print(f"  {file} ({path}): {len(costs)} mutants, {sum(costs):.0f} s")


def _projection(rows: Sequence[Row], times: dict[str, float], planned: dict[str, int]) -> None:
    """--sample: the measured time per judged mutant of each path, times the mutants that
    path has to judge — a projection, printed as one."""
    total = 0.0
    for path in ("slow", "fast"):
        done = sum(r.seconds > 0 and r.path == path for r in rows)
        took = times.get(f"mutants_{path}", 0.0)
        if done and planned.get(path):
            whole = took / done * planned[path]
            total += whole
            print(
                f"projection ({path} path): {planned[path]} mutants at {took / done:.2f} s "
                f"each (measured on {done}) = {whole:.0f} s"
            )
    fixed = times.get("host", 0.0) + times.get("killers", 0.0)
    print(
        f"projection of the mutant phase, not a measured run: {total:.0f} s "
        f"(+ {fixed:.0f} s collecting and re-checking, as measured here)"
    )


def cpu_report(
    rows: Sequence[Row], meter: cputime.Meter, jobs: int, planned: dict[str, int] | None
) -> None:
    """CPU seconds per phase (user+system of this process and every child it waited for):
    what the run costs whatever the load, and the least wall time it needs on `jobs`
    dedicated cores. With `planned` (--sample), the whole run projected from the CPU per
    judged mutant of each path."""
    print(
        "\nCPU time (user+system of this process and every child it waited for; the load "
        "does not change it):"
    )
    print(f"  line map: {meter.get('line map'):.0f} s")
    projected = meter.get("line map")
    for path in ("slow", "fast"):
        total = meter.get(f"{path} path")
        done = [r for r in rows if r.cpu > 0 and r.path == path and not r.carried]
        if not total:
            continue
        mutants = meter.get(f"mutants {path}") - meter.get(f"smoke {path}")
        fixed = total - mutants
        per = mutants / len(done) if done else 0.0
        children = sum(r.cpu for r in done)
        survived = [r for r in done if r.status == execute.SURVIVED]
        in_survivors = sum(r.cpu for r in survived)
        print(
            f"  {path} path: {total:.0f} s — {len(done)} mutants {mutants:.0f} s "
            f"({per:.2f} s a mutant; {children:.0f} s of it in their children), survivors "
            f"{in_survivors:.0f} s ({len(survived)} mutants, "
            f"{in_survivors / len(survived) if survived else 0.0:.2f} s each), "
            f"killers re-checked {meter.get(f'killers {path}'):.0f} s, widened "
            f"{meter.get(f'widened {path}'):.0f} s, smoke run "
            f"{meter.get(f'smoke {path}'):.0f} s"
            + (
                f", collecting in the host {fixed - _checks(meter, path):.0f} s"
                if path == "fast"
                else ""
            )
        )
        if planned is not None and done:
            whole = per * planned.get(path, 0)
            projected += whole + fixed
            print(
                f"    projection: {planned.get(path, 0)} mutants x {per:.2f} s = {whole:.0f} s, "
                f"+ {fixed:.0f} s as measured here (collecting, smoke, killers re-checked)"
            )
    _where_it_went(rows)
    spent = cputime.spent()
    print(
        f"  whole run: {spent:.0f} s — on {jobs} dedicated core(s) at least "
        f"{spent / max(1, jobs):.0f} s of wall time (CPU / cores is a lower bound)"
    )
    if planned is not None:
        print(
            f"  projected CPU of the whole run (not measured): {projected:.0f} s, at least "
            f"{projected / max(1, jobs) / 60:.0f} min on {jobs} dedicated core(s); the killer "
            "re-check grows with the distinct killing tests, so a sample under-counts it"
        )


def _checks(meter: cputime.Meter, path: str) -> float:
    return sum(meter.get(f"{what} {path}") for what in ("smoke", "killers", "widened"))


def _where_it_went(rows: Sequence[Row]) -> None:
    """The mutants' child CPU split: the tests themselves (per test file, in killed and in
    surviving mutants) and the rest of each child — fork, re-import, collection."""
    judged = [r for r in rows if r.cpu > 0 and not r.carried]
    if not judged:
        return
    in_tests = sum(sum(r.test_cpu.values()) for r in judged)
    total = sum(r.cpu for r in judged)
    print(
        f"  the mutants' children: {total:.0f} s, {in_tests:.0f} s in the tests themselves, "
        f"{total - in_tests:.0f} s around them (fork, re-import, collection: "
        f"{(total - in_tests) / len(judged):.2f} s a mutant)"
    )
    per_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for r in judged:
        column = 0 if r.status in execute.KILLED_STATES else 1
        for test, cpu in r.test_cpu.items():
            entry = per_file[test.split("::", 1)[0]]
            entry[column] += cpu
            entry[2] += 1
    heavy = sorted(per_file.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))[:10]
    print("  test files by CPU in the mutants' children (in killed / surviving mutants, runs):")
    for file, (killed, survived, runs) in heavy:
        print(f"    {file}: {killed:.0f} s / {survived:.0f} s, {runs:.0f} test runs")
