"""Mutation testing of contend's core: does the suite fail when the code is wrong?

    .venv/bin/python bench/mutation/run.py [TARGET…] [-j 2]

A TARGET is a file or a directory (relative to the project root), optionally narrowed to
one function or class with `FILE::Scope` (e.g. `src/contend/review/engine.py::_Session._body`).
Without targets it runs the default set (DEFAULT_TARGETS: protocol/, ledger/, report/, the
verdict-bearing parts of review/ and the planners claims/rounds.py, claims/fold.py,
harness/core.py and harness/plan.py — protocol/plan.py and protocol/turns.py are in
protocol/), its line map built from DEFAULT_TEST_FILES (the test files that judge it;
`--whole-suite` for all); the score is printed per file, per package (directory) and in
total.

Steps: (0) every mutant is compiled: one with the unmutated module's bytecode is
equivalent by construction, and mutants with the same bytecode are judged once
(bytecode.py); (1) pytest under coverage.py maps every line to the tests that ran it, one
session per worker at a time on a share of the test files (linemap.py; cached in
bench/out/mutation/, only changed test files re-run when only tests changed); (2) each
mutant (mutate.py) runs only against the tests that executed its lines (an import-time
line no test is credited with: also every --test-files test, or the tests of the files
importing its module — see _unseen_tests), in a forked child, stopping at
the first failure (execute.py) — tests that killed earlier mutants of the same function
first, then files near the mutant, each test by its expected cost to a failure, and on
the slow path in stages of 1, 2, 4, … files (staging.py). A mutant inside
a function that did not run at import takes the fast path: the child is forked from one
session that collected the selected test files once, and swaps the mutated code into the
live function objects (patch.py, host.py); any other mutant the slow path: the child
imports the mutated module again from a private copy of the source tree; (3) with
--widen, every survivor is run again against every test that executed any line of its
file; (4) the score per file is printed — killed /
non-equivalent, with the equivalent mutants (bench/mutation/equivalent.toml, each with its
reason) apart — then every surviving mutant and where the time went (scores.py). Results
are also written to bench/out/mutation/results.json. `--plan` stops after the line map and
prints where a run's time would go.

Exit status: 0 when every mutant was judged; 1 when the harness could not judge one
(an error), an entry of the equivalent list was killed (so it is not equivalent), or an
entry no longer matches any mutant; 2 on bad usage.
"""

from __future__ import annotations

import argparse
import functools
import gc
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import bytecode
import choose
import cputime
import execute
import guard
import host
import incremental
import judging
import linemap
import preload
import profile_setup
import scores
from mutate import OPERATORS, Mutant, mutants_of
from patch import GlobalPatch
from scores import NOT_RUN, Row
from staging import Learner, file_of
from targets import (
    UsageError,
    changed_lines,
    load_equivalents,
    parse_targets,
    stale_equivalents,
    touches,
)

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[1]
DEFAULT_TARGETS = (
    "src/contend/protocol",
    "src/contend/ledger",
    "src/contend/report",
    "src/contend/review/static_round.py",
    # where the verdict is decided and what decides it is passed in
    "src/contend/review/engine.py::_Session._body",
    "src/contend/review/respond.py::answer",
    "src/contend/review/respond.py::answer_in_run",
    # the planners (issue 18): what the claim rounds and the harness do next
    "src/contend/claims/rounds.py",
    "src/contend/claims/fold.py",  # the claim planner's state, folded from events
    "src/contend/harness/core.py",
    "src/contend/harness/plan.py",  # the pure harness planner
)

# The test files that judge the default set: the line map is built from these alone (a
# whole-suite map costs about twice the CPU, ≈ 800 s against ≈ 440 s measured, and puts
# the end-to-end tests of every command under each core line, all of which a survivor
# must run). A test left out kills nothing, so the score can only come out lower;
# `--whole-suite` builds the map from every test file instead.
DEFAULT_TEST_FILES = (
    "tests/test_protocol*.py",
    "tests/test_ledger*.py",
    "tests/test_report*.py",
    "tests/test_verdict.py",
    "tests/test_termination*.py",
    "tests/test_planner*.py",
    "tests/test_claims*.py",
    "tests/test_harness*.py",
    "tests/test_*_mutation*.py",
    "tests/test_agent_thread.py",
    "tests/test_event_schema.py",
    "tests/test_calls_raw_exchange.py",
    "tests/test_sarif.py",
    "tests/test_status_index.py",
    "tests/test_scripted_gate.py",
    "tests/test_agent_claude.py",
    "tests/test_agent_codex.py",
    "tests/test_agent_api_anthropic.py",
    "tests/test_agent_api_openai.py",
    "tests/test_agent_gemini.py",
    "tests/test_mutation_protocol.py",
    "tests/test_reply_schema_file.py",
)


# -- running --------------------------------------------------------------------------


def _progress(total: int) -> Any:
    state = {"done": 0, "started": time.monotonic()}

    def report(job: execute.Job, outcome: execute.Outcome) -> None:
        state["done"] += 1
        done = state["done"]
        if outcome.status not in execute.KILLED_STATES:
            note = (
                f" ({outcome.detail})"
                if outcome.status == execute.SURVIVED and outcome.detail
                else ""
            )
            print(f"  [{done}/{total}] {outcome.status}: {job.ident}{note}", flush=True)
        elif done % 50 == 0 or done == total:
            elapsed = time.monotonic() - state["started"]
            print(f"  [{done}/{total}] {elapsed:.0f} s", flush=True)

    return report


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # unwinds through run_jobs, which stops every child


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="*", help="files, directories or FILE::Scope")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="mutants run at once (2)")
    parser.add_argument("--root", type=Path, default=PROJECT, help="project root")
    parser.add_argument("--source-root", default="src", help="directory on sys.path (src)")
    parser.add_argument("--tests", default="tests", help="test directory (tests)")
    parser.add_argument("--equivalents", type=Path, default=HERE / "equivalent.toml")
    parser.add_argument("--out", type=Path, help="results directory (bench/out/mutation)")
    parser.add_argument("--fresh-coverage", action="store_true", help="rebuild the map")
    parser.add_argument(
        "--test-files",
        metavar="GLOBS",
        help="build the line map from these test files only (comma-separated globs from the "
        "root): faster, and a test left out kills nothing, so the score can only be lower "
        "(default without targets: DEFAULT_TEST_FILES; with targets: every test file)",
    )
    parser.add_argument(
        "--whole-suite",
        action="store_true",
        help="build the line map from every test file, also for the default set",
    )
    parser.add_argument("--operators", help=f"comma-separated subset of {','.join(OPERATORS)}")
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    parser.add_argument(
        "--plan",
        action="store_true",
        help="build the line map, then print where the run's time would go (paths, selected "
        "tests per mutant, test seconds) and run no mutant",
    )
    parser.add_argument(
        "--check-equivalents",
        action="store_true",
        help="run the listed equivalent mutants too (a killed one is reported as a problem)",
    )
    parser.add_argument(
        "--widen",
        action="store_true",
        help="re-run survivors against every test that ran any line of their file",
    )
    parser.add_argument(
        "--since", metavar="REV", help="mutate only lines changed since REV (git diff REV)"
    )
    parser.add_argument(
        "--fast-only",
        action="store_true",
        help="skip the slow-path mutants (module and class level): reported as not judged",
    )
    parser.add_argument(
        "--rerun",
        type=Path,
        metavar="RESULTS",
        help="re-judge only the mutants not killed in RESULTS (an earlier results.json of "
        "the same source files); its kills are counted as they were, not run again",
    )
    parser.add_argument(
        "--incremental",
        metavar="RESULTS[,RESULTS…]",
        help="carry over every outcome of RESULTS that still stands (the mutated file, and "
        "the killing test's file or for a survivor every test file, unchanged); judge the "
        "rest: the mutants of files changed since, new ones, survivors once tests changed",
    )
    parser.add_argument(
        "--sample",
        type=int,
        metavar="K",
        help="judge every K-th mutant of each path only, for a rate and a projection of the "
        "whole run; the others are reported as not judged (a partial run, exit 1)",
    )
    parser.add_argument(
        "--no-isolation",
        action="store_true",
        help="children share the checkout (no mount namespace): a mutant's writes into it "
        "are reported after the run, not prevented",
    )
    parser.add_argument(
        "--broad-import-time",
        action="store_true",
        help="judge a module-level value by the fallback (every test of the named files or "
        "of the direct importers), not by the readers of its name",
    )
    parser.add_argument(
        "--slow-only",
        action="store_true",
        help="judge every mutant on the slow path (re-import per mutant), to check the fast one",
    )
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    try:
        return _run(args)
    except (UsageError, judging.HarnessError) as exc:
        print(f"mutation: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mutation: interrupted; no result", file=sys.stderr)
        return 130


def _run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    args.cpu = cputime.Meter()
    root: Path = args.root.resolve()
    source_root = (root / args.source_root).resolve()
    tests_dir = (root / args.tests).resolve()
    out: Path = args.out if args.out is not None else root / "bench" / "out" / "mutation"
    operators = set(args.operators.split(",")) if args.operators else set(OPERATORS)
    if unknown := operators - set(OPERATORS):
        raise UsageError(f"unknown operator(s): {', '.join(sorted(unknown))}")
    if args.whole_suite and args.test_files:
        raise UsageError("--whole-suite and --test-files name different line maps: give one")
    if not args.targets and not args.test_files and not args.whole_suite:
        args.test_files = ",".join(DEFAULT_TEST_FILES)
    targets = parse_targets(root, args.targets or DEFAULT_TARGETS)
    equivalents = load_equivalents(args.equivalents)

    sources: dict[Path, str] = {}
    mutants: list[Mutant] = []
    t0 = time.monotonic()
    for target in targets:
        if target.path not in sources:
            sources[target.path] = (root / target.path).read_text()
        found = [
            m
            for m in mutants_of(target.path.as_posix(), sources[target.path])
            if target.wants(m) and m.operator in operators
        ]
        if target.scope is not None and not found:
            raise UsageError(f"no mutant in {target.path}::{target.scope} (no such scope?)")
        mutants.extend(found)
    # The same file may be named twice (a directory and a scope in it): one mutant once.
    mutants = list({m.key: m for m in mutants}.values())
    times = {"generate": time.monotonic() - t0}
    if args.since:
        changed = {path: changed_lines(root, args.since, path) for path in sources}
        mutants = [m for m in mutants if touches(m, sources[Path(m.path)], changed[Path(m.path)])]
        print(f"--since {args.since}: {len(mutants)} mutants on changed lines", flush=True)
    if args.rerun and args.incremental:
        raise UsageError("--rerun and --incremental: one or the other")
    try:
        earlier = incremental.earlier_kills(args.rerun, sources) if args.rerun else {}
    except incremental.IncrementalError as exc:
        raise UsageError(str(exc)) from None
    args.test_digests = incremental.test_file_digests(root, tests_dir)
    carried: dict[str, incremental.Carried] = {}
    inc: incremental.Plan | None = None
    if args.incremental:
        try:
            inc = incremental.plan_all(
                [Path(p) for p in args.incremental.split(",")],
                {p.as_posix(): text for p, text in sources.items()},
                args.test_digests,
            )
        except incremental.IncrementalError as exc:
            raise UsageError(str(exc)) from None
        carried = {k: c for k, c in inc.carried.items() if k in {m.key for m in mutants}}
        print(
            f"--incremental: {len(carried)} of {len(mutants)} outcomes carried from "
            f"{args.incremental}; files changed since: {len(inc.changed_files)}"
            + (f" ({', '.join(inc.changed_files)})" if inc.changed_files else "")
            + (
                "; test files changed: survivors judged again"
                + (" where a changed test file is selected for them" if inc.survivors else "")
                if inc.tests_changed
                else ""
            ),
            flush=True,
        )
    if args.list:
        for m in mutants:
            mark = "  [equivalent]" if m.key in equivalents else ""
            print(f"{m.path}:{m.line}  {m.key}{mark}")
        print(f"{len(mutants)} mutants")
        return 0

    t0 = time.monotonic()
    classes = bytecode.classify(
        {p.as_posix(): text for p, text in sources.items()}, mutants, out / "bytecode.json"
    )
    times["bytecode"] = time.monotonic() - t0
    t0 = time.monotonic()
    try:
        with args.cpu.phase("line map"):
            covmap = linemap.load(
                root,
                source_root,
                tests_dir,
                out / "covmap.json",
                args.fresh_coverage,
                args.test_files.split(",") if args.test_files else (),
                shards=max(1, args.jobs),
            )
    except linemap.CoverageError as exc:
        raise UsageError(str(exc)) from None
    covmap_s = time.monotonic() - t0
    durations: dict[str, float] = covmap["durations"]
    flaky = set(covmap["flaky"])
    if flaky:
        print(
            f"flaky in the coverage run, never used to judge a mutant: {', '.join(sorted(flaky))}"
        )
    unseen = choose.unseen_tests(root, source_root, sources, durations, args.test_files)
    narrowing = (
        None
        if args.broad_import_time
        else choose.Narrowing(root, source_root, tests_dir, covmap, sources)
    )
    chosen = choose.select_all(mutants, covmap, unseen, narrowing, bool(args.test_files), flaky)
    rows = [
        Row(m, linemap.order(chosen[m.key], durations), equivalents.get(m.key)) for m in mutants
    ]
    if narrowing is not None and narrowing.summary():
        print(narrowing.summary(), flush=True)
    choose.same_programs(rows, classes, durations)
    if inc is not None and inc.survivors:
        stands = 0
        for row in rows:
            was = inc.still_survives(row.mutant.key, {file_of(t) for t in row.tests})
            if was is not None and row.mutant.key not in carried:
                carried[row.mutant.key] = was
                stands += 1
        print(
            f"--incremental: {stands} of {len(inc.survivors)} survivors carried (no changed "
            f"test file is selected for them: {', '.join(sorted(inc.changed_tests))})",
            flush=True,
        )
    # Pre-import what the suite imports, the project's own modules last and from the real
    # tree; a slow-path child imports again only what the mutant can reach (preload.py).
    sys.path.insert(0, str(source_root))
    # As `python -m pytest` from the root has it: a test may import `tests.helpers`.
    sys.path.insert(1, str(root))
    project = frozenset(covmap["project_modules"])
    loaded, failed = preload.preload([*covmap["preload"], *covmap["project_modules"]])
    import_lines = covmap.get("import_lines", {})
    graph = preload.ImportGraph(
        source_root, lambda p: import_lines.get(p.resolve().relative_to(root).as_posix())
    )
    purges: dict[Path, frozenset[str]] = {}
    for path in sources:
        name = preload.module_name(source_root, root / path)
        purges[path] = frozenset(graph.dependents(name) & project)
    print(
        f"{len(rows)} mutants in {len(sources)} files; preloaded {loaded} packages"
        + (f" ({len(failed)} failed: {', '.join(failed)})" if failed else ""),
        flush=True,
    )
    for row in rows:
        if row.mutant.key in carried:
            was = carried[row.mutant.key]
            row.status, row.killer, row.carried = was.status, was.killer, True
        elif row.mutant.key in earlier:
            row.status, row.killer = earlier[row.mutant.key]
        elif not row.tests:
            row.status = execute.NO_TESTS
        elif row.equivalent is not None and not args.check_equivalents:
            row.status = "equivalent"
        elif row.mutant.key in classes.identical:
            row.status = "equivalent"  # --check-equivalents too: it is the same program
    runnable = [r for r in rows if not r.status]
    followers = choose.one_per_program(runnable, classes)
    runnable = [r for r in runnable if r.same_as is None]
    if earlier:
        print(
            f"--rerun: {sum(r.mutant.key in earlier for r in rows)} mutants killed in "
            f"{args.rerun} counted as killed; {len(runnable)} to judge",
            flush=True,
        )
    args.interrupted = False
    slow_reasons = choose.plan_paths(
        runnable, sources, root, source_root, covmap, args.slow_only, narrowing
    )
    fast = [r for r in runnable if r.patch is not None]
    slow = [r for r in runnable if r.patch is None]
    for r in fast:
        r.path = "fast"
    for r in slow:
        r.path = "slow"
    if args.fast_only:
        for r in slow:
            r.status = NOT_RUN
    why = ", ".join(f"{n} {reason}" for reason, n in slow_reasons.most_common())
    rebound = sum(isinstance(r.patch, GlobalPatch) for r in fast)
    print(
        f"{len(fast)} mutants on the fast path"
        + (f" ({rebound} of them module-level value(s) rebound)" if rebound else "")
        + f", {len(slow)} on the slow path"
        + (f" ({why})" if why else "")
        + (" — not run (--fast-only)" if args.fast_only and slow else ""),
        flush=True,
    )
    if args.fast_only:
        slow = []
    args.planned = {"fast": len(fast), "slow": len(slow)}
    if args.sample:
        # Every K-th mutant of each path, in source order: a measured rate, the rest counted
        # as not judged (and the run reported as partial), never as killed or survived.
        fast, slow = fast[:: args.sample], slow[:: args.sample]
        chosen = {id(r) for r in (*fast, *slow)}
        for r in runnable:
            if id(r) not in chosen and not r.status:
                r.status = NOT_RUN
        print(
            f"--sample {args.sample}: judging {len(fast)} of the {args.planned['fast']} "
            f"fast-path and {len(slow)} of the {args.planned['slow']} slow-path mutants",
            flush=True,
        )

    by_key = {r.mutant.key: r for r in rows}
    learner = Learner(
        durations,
        near=_near_test_files(root, source_root, sources, covmap, durations),
        credited={
            r.mutant.key: frozenset(
                map(file_of, linemap.credited(r.mutant, covmap["files"].get(r.mutant.path, {})))
            )
            for r in (*fast, *slow)
        },
    )
    learner.scopes = {r.mutant.key: r.mutant.scope for r in rows}
    report = _progress(len(fast) + len(slow))

    def record(job: execute.Job, outcome: execute.Outcome) -> None:
        row = by_key[job.ident]
        row.status, row.killer, row.seconds = outcome.status, outcome.killer, outcome.seconds
        row.detail = outcome.detail if outcome.status == execute.SURVIVED else ""
        row.cpu += outcome.cpu  # a mutant judged again (widened, re-judged) costs both
        row.children += outcome.children
        for test, cpu in outcome.test_cpu.items():
            row.test_cpu[test] = row.test_cpu.get(test, 0.0) + cpu
        if outcome.status == execute.ERROR:
            print(f"  error: {job.ident}: {outcome.detail}", flush=True)

    def both(job: execute.Job, outcome: execute.Outcome) -> None:
        record(job, outcome)
        report(job, outcome)
        if outcome.killer is not None and outcome.status in execute.KILLED_STATES:
            learner.killed(job.path.as_posix(), outcome.killer, job.ident)

    ctx = judging.Context(sources, durations, purges, project)
    times.update(coverage=covmap_s, mutants=0.0, widened=0.0, killers=0.0, host=0.0)
    if args.plan:
        scores.print_plan(rows, durations, times)
        return 0

    def phase(ws: execute.Workspace, rows_now: list[Row]) -> None:
        """Mutants, survivors widened (--widen), killers re-checked: all in one harness."""
        t0 = time.monotonic()
        which = rows_now[0].path  # "fast" or "slow"
        label = f"mutants_{which}"
        staging = learner.one_stage if which == "fast" else learner.stages
        try:
            with args.cpu.phase(f"mutants {which}"):
                with args.cpu.phase(f"smoke {which}"):
                    rows_now = _smoke(ws, rows_now, ctx)
                execute.run_jobs(ws, ctx.jobs(rows_now), both, staging)
        finally:  # interrupted too: the rate of what was judged is still measured
            took = time.monotonic() - t0
            times["mutants"] += took
            times[label] = times.get(label, 0.0) + took
        if args.widen:
            t0 = time.monotonic()
            with args.cpu.phase(f"widened {which}"):
                judging.widen(ws, rows_now, covmap, flaky, ctx, record, staging)
            times["widened"] += time.monotonic() - t0
        broken: set[str] = set()
        with args.cpu.phase(f"killers {which}"):
            times["killers"] += judging.verify_killers(ws, rows_now, ctx, broken)
        # A test that fails unmutated in the harness (it depends on where the source
        # lives, say) stopped its mutants before the tests that could judge them: judge
        # those once more without it; one left with no test stays a harness error.
        again = [r for r in rows_now if r.status == execute.ERROR and r.killer in broken]
        for row in again:
            row.tests = [t for t in row.tests if t not in broken]
        again = [r for r in again if r.tests]
        if again:
            print(
                f"re-judging {len(again)} mutant(s) without the {len(broken)} test(s) "
                "that fail unmutated in the harness",
                flush=True,
            )
            t0 = time.monotonic()
            with args.cpu.phase(f"mutants {which}"):
                execute.run_jobs(ws, ctx.jobs(again), record, staging)
            times["mutants"] += time.monotonic() - t0
            with args.cpu.phase(f"killers {which}"):
                times["killers"] += judging.verify_killers(ws, again, ctx, broken)

    before = guard.snapshot(root, out)
    with tempfile.TemporaryDirectory(prefix="contend-mutation-") as scratch:
        ws = execute.Workspace(root, source_root, Path(scratch), isolate=not args.no_isolation)
        ws.prepare(max(1, args.jobs))
        print(
            "each child sees its worker's copy over the checkout's "
            + ", ".join(ws.copied)
            + " (its own mount namespace): a mutant's writes there land in the copy"
            if ws.unisolated is None
            else f"children not isolated ({ws.unisolated}): writes into the checkout are "
            "reported after the run, not prevented",
            flush=True,
        )
        profile_setup.load()
        # The slow path forks from this process before any test module is imported; the
        # fast path's host then collects the suite here, once, and forks from that. What is
        # loaded now is out of the garbage collector's reach: a child's collection would
        # otherwise touch, and so copy, every page of it (host.py freezes again).
        gc.freeze()
        try:
            if slow:
                with args.cpu.phase("slow path"):
                    phase(ws, slow)
            if fast:
                with args.cpu.phase("fast path"):
                    _fast_phase(ws, fast, args, covmap, root, sources, phase, times)
        except KeyboardInterrupt:
            # Stopped (SIGTERM, ^C): what was judged is reported, the rest as not judged.
            for row in runnable:
                if not row.status:
                    row.status = NOT_RUN
            print("\ninterrupted: the report below covers the mutants judged so far", flush=True)
            args.interrupted = True
    for key, others in followers.items():
        judged = by_key[key]
        for row in others:
            row.status, row.killer = judged.status or NOT_RUN, judged.killer

    total_s = time.monotonic() - started
    args.sources = {path.as_posix(): incremental.digest(text) for path, text in sources.items()}
    stale = (
        []
        if args.operators or args.since
        else stale_equivalents(equivalents, [r.mutant for r in rows], targets)
    )
    code = scores.print_report(rows, stale, total_s, times, out, args)
    spoiled = guard.changed(before, guard.snapshot(root, out))
    if spoiled:
        print(
            f"\nthe checkout changed while mutants ran ({len(spoiled)} file(s)): a mutant or a "
            "test wrote into it; check and restore them (e.g. `git checkout -- FILE`):\n  "
            + "\n  ".join(spoiled[:50]),
            flush=True,
        )
        return 1
    return code


def _near_test_files(
    root: Path,
    source_root: Path,
    sources: dict[Path, str],
    covmap: dict[str, Any],
    durations: dict[str, float],
) -> dict[str, frozenset[str]]:
    """Per mutated file, the test files that ran a line of it or import its module: where
    a mutant with no earlier kill to go by is most likely to be seen (staging.Learner)."""
    near: dict[str, frozenset[str]] = {}
    for path in sources:
        ran = linemap.file_tests(covmap["files"].get(path.as_posix(), {}))
        module = preload.module_name(source_root, root / path)
        importing = linemap.importing_tests(root, module, durations)
        near[path.as_posix()] = frozenset(map(file_of, ran | importing))
    return near


def _smoke(ws: execute.Workspace, rows: list[Row], ctx: judging.Context) -> list[Row]:
    """The unmutated code must pass a sample in the harness (judging.smoke); a sampled test
    that fails there while others pass judges no mutant. Returns the rows left to judge."""
    broken = judging.smoke(ws, rows, ctx)
    if not broken:
        return rows
    print(
        "fail on the unmutated code in the harness, so they judge no mutant: "
        + ", ".join(sorted(broken)),
        flush=True,
    )
    for row in rows:
        row.tests = [t for t in row.tests if t not in broken]
        if not row.tests:
            row.status, row.killer = execute.ERROR, None  # reported, exit 1
    return [r for r in rows if r.tests]


def _fast_phase(
    ws: execute.Workspace,
    fast: list[Row],
    args: argparse.Namespace,
    covmap: dict[str, Any],
    root: Path,
    sources: dict[Path, str],
    phase: Any,
    times: dict[str, float],
) -> None:
    """Runs the fast-path mutants inside one host session that collected their tests."""
    needed = {t for r in fast for t in r.tests}
    if args.widen:
        for r in fast:
            needed |= linemap.file_tests(covmap["files"].get(r.mutant.path, {}))
    test_files = sorted({t.split("::", 1)[0] for t in needed})
    filenames = sorted({str(root / p) for p in sources})

    def work(h: host.Host) -> None:
        ws.child = functools.partial(host.fast_child, h)
        phase(ws, fast)

    phases = ("mutants", "widened", "killers")  # what `phase` adds to; the rest is the host's
    t0, before = time.monotonic(), sum(times[k] for k in phases)
    host.serve(ws, test_files, host.Host(work, filenames))
    times["host"] = time.monotonic() - t0 - (sum(times[k] for k in phases) - before)


if __name__ == "__main__":
    sys.exit(main())
