"""Running the selected tests against one mutant at a time, N mutants at once.

Each worker slot owns a copy of the source tree (an overlay: `slot/src`, with every other
top-level entry of the project linked in, so paths computed from `__file__` still
resolve). For a mutant the parent writes the mutated module into the slot's copy and
forks; the child puts the overlay first on `sys.path` and `PYTHONPATH` (so subprocesses
the tests start see the mutant too) and runs pytest in-process on the selected tests,
fastest first, stopping at the first failure. The parent has pre-imported pytest and the
third-party packages the suite uses, so a child pays only for the project's own modules.

Bytecode in the overlay is compiled with checked source hashes (and Python keeps that
mode when it rewrites a `.pyc`), so a mutant can never be shadowed by a stale `.pyc` of
the original or of an earlier mutant of the same size written in the same second.
"""

from __future__ import annotations

import compileall
import json
import os
import py_compile
import shutil
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cputime
import isolation
import preload
import profile_setup
import pytest
from linemap import QUIET_REWRITE

# Mutant outcomes. killed/timeout/crashed/aborted count as killed; survived/no_tests as
# survived; error means the harness could not judge the mutant and is reported on its own.
# aborted: the mutant stopped the pytest session (SystemExit while a test module imported
# it, KeyboardInterrupt or pytest.exit in a test) — the suite stopped on it, so it was
# detected; the test or the collection it stopped in is its killer, re-checked unmutated.
KILLED, SURVIVED, TIMEOUT, CRASHED, ABORTED, NO_TESTS, ERROR = (
    "killed",
    "survived",
    "timeout",
    "crashed",
    "aborted",
    "no_tests",
    "error",
)
KILLED_STATES = frozenset({KILLED, TIMEOUT, CRASHED, ABORTED})
# What pytest lets through instead of recording a failure: raised while a test module is
# imported (SystemExit, KeyboardInterrupt) or while a test runs (KeyboardInterrupt,
# pytest.exit), it ends the session.
ABORTS: tuple[type[BaseException], ...] = (SystemExit, KeyboardInterrupt, pytest.exit.Exception)


def describe_abort(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]


_LINKED = frozenset({"tests", "bench"})


def per_test_timeout(seconds: float) -> float:
    """How long one test may run under a mutant before pytest-timeout fails it (a mutant
    that loops forever): ten times its time in the coverage run, and at least 20 s."""
    return max(20.0, 10.0 * seconds)


@dataclass(slots=True)
class Job:
    ident: str  # the mutant's key
    path: Path  # the module, relative to the project root
    text: str  # the module's text with the mutation applied
    tests: list[str]  # node ids that can see the mutant
    durations: dict[str, float]  # seconds each test took in the coverage run
    # Pre-imported project modules the child must import again (the mutated one and
    # all that import it), and all pre-imported project modules.
    purge: frozenset[str] = frozenset()
    project: frozenset[str] = frozenset()
    stop_first: bool = True  # False: run every test and report every failure
    # The fast path: what the child changes in the live interpreter (patch.Patch). None
    # on the slow path, where the child imports the mutated module again instead.
    patch: Any = None

    def budget(self, tests: Sequence[str]) -> float:
        return sum(self.durations.get(t, 0.0) for t in tests)


# Splits a job's tests into stages, each run in order in its own child until one fails.
# Collecting a test file costs more than most tests do, so a first stage of the one file
# most likely to kill the mutant, and the rest only if it survives, saves most of it.
Planner = Callable[[Job], list[list[str]]]


def one_stage(job: Job) -> list[list[str]]:
    return [list(job.tests)]


@dataclass(slots=True)
class Outcome:
    ident: str
    status: str
    seconds: float
    tests: int
    killer: str | None = None
    detail: str = ""
    failures: tuple[str, ...] = ()
    cpu: float = 0.0  # user+system seconds of its children (every stage) and what they waited for
    test_cpu: dict[str, float] = field(default_factory=dict)  # of it, per test run
    children: int = 0  # children forked to judge it (one per stage run)


@dataclass(slots=True)
class _Slot:
    index: int
    home: Path
    pid: int = 0
    job: Job | None = None
    original: str = ""
    first_started: float = 0.0
    started: float = 0.0
    deadline: float = 0.0
    runs: int = 0
    stage: list[str] = field(default_factory=list)
    later: list[list[str]] = field(default_factory=list)
    ran: int = 0
    cpu: float = 0.0  # the current job's children so far (os.wait4's rusage)
    children: int = 0  # and how many
    test_cpu: dict[str, float] = field(default_factory=dict)

    @property
    def basetemp(self) -> Path:
        return self.home / "tmp" / f"run{self.runs}"


@dataclass(slots=True)
class Workspace:
    root: Path  # the project root (tests run from here)
    source_root: Path  # the directory put on sys.path, e.g. root/src
    base: Path  # scratch directory owned by this run
    pytest_args: list[str] = field(default_factory=list)
    slots: list[_Slot] = field(default_factory=list)
    # What a forked child runs: the slow path (_child) unless the host installed its own.
    child: Callable[[Workspace, _Slot, Job, list[str]], int] | None = None
    cleaners: list[subprocess.Popen[bytes]] = field(default_factory=list)
    # Each child sees its copy over the checkout (isolation.py) unless `isolate` is off or
    # the probe failed: then `unisolated` says why, and writes are only reported (guard.py).
    isolate: bool = True
    unisolated: str | None = None
    copied: list[str] = field(default_factory=list)  # top-level entries each slot copies

    def discard(self, path: Path) -> None:
        """Delete a finished child's temporary files in the background (a test run can
        leave thousands of files; deleting them is not the next mutant's business)."""
        if path.exists():
            self.cleaners.append(subprocess.Popen(["rm", "-rf", str(path)]))
        self.cleaners = [c for c in self.cleaners if c.poll() is None]

    def reap(self) -> None:
        for cleaner in self.cleaners:
            cleaner.wait()
        self.cleaners = []

    def prepare(self, jobs: int) -> None:
        rel_source = self.source_root.relative_to(self.root)
        self.copied = [rel_source.parts[0]]
        for i in range(jobs):
            home = self.base / f"w{i}"
            if home.exists():
                shutil.rmtree(home)
            home.mkdir(parents=True)
            copy = home / rel_source
            shutil.copytree(
                self.source_root, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
            )
            first = rel_source.parts[0]
            for entry in self.root.iterdir():
                if entry.name == first or entry.name.startswith("."):
                    continue
                # A mutant may run code that writes (a schema generator's `main` once
                # overwrote a source file): what it can write is copied, so it writes into the
                # copy. Only the tests and the benches stay linked — read-only inputs, and
                # bench/ holds the run's own output and fetched data (tens of MB).
                if entry.name in _LINKED:
                    (home / entry.name).symlink_to(entry)
                    continue
                if entry.is_dir():
                    shutil.copytree(entry, home / entry.name, symlinks=True)
                else:
                    shutil.copy2(entry, home / entry.name)
                if i == 0:
                    self.copied.append(entry.name)
            compileall.compile_dir(
                copy,
                quiet=2,
                invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
            )
            (home / "tmp").mkdir()
            self.slots.append(_Slot(i, home))
        if not self.isolate:
            self.unisolated = "--no-isolation"
        elif self.slots:
            self.unisolated = isolation.probe(self.binds(self.slots[0]))

    def binds(self, slot: _Slot) -> list[tuple[Path, Path]]:
        return isolation.binds(self.root, slot.home, self.copied)

    def overlay(self, slot: _Slot) -> Path:
        """The slot's copy of the source tree, where the parent writes the mutant."""
        return slot.home / self.source_root.relative_to(self.root)

    def seen_at(self, slot: _Slot) -> Path:
        """Where a child imports the copy from: the checkout's own source root when the
        child sees its copy there (isolation.py) — so a module that finds the project from
        its `__file__` (contend.schemafiles' published schemas) finds the checkout, as
        in the line-map run — else the copy's own path."""
        return self.source_root if self.unisolated is None else self.overlay(slot)


class _Select:
    """pytest plugin: keep only the wanted tests, in the wanted order; note the first failure."""

    def __init__(self, wanted: Sequence[str], durations: dict[str, float]) -> None:
        self.order = {nodeid: i for i, nodeid in enumerate(wanted)}
        self.durations = durations
        self.missing: list[str] = []
        self.first_failure: str | None = None
        self.failure_text = ""
        self.failures: list[str] = []
        self.ran = 0
        self.aborted = ""  # what stopped the session, if something did
        self.test_cpu: dict[str, float] = {}  # CPU seconds per test run (with its subprocesses)

    def _abort(self, where: str, exc: BaseException) -> None:
        if self.aborted:  # a collector around the one that raised sees it again
            return
        self.aborted = f"{where}: {describe_abort(exc)}"
        if where not in self.failures:
            self.failures.append(where)
        if self.first_failure is None:
            self.first_failure = where
            self.failure_text = self.aborted

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Any:
        try:
            return (yield)
        except ABORTS as exc:
            self._abort(f"collecting {collector.nodeid}", exc)
            raise

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        started = cputime.spent()
        try:
            return (yield)
        except ABORTS as exc:
            self._abort(item.nodeid, exc)
            raise
        finally:
            self.test_cpu[item.nodeid] = cputime.spent() - started

    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        missing = set(self.order) - {item.nodeid for item in items}
        # A mutant of a value a test is parametrized by renames that test's cases
        # (`test_kind[attack]` → `test_kind[XXattackXX]`): the cases of a selected test
        # whose ids the mutant changed run in its place, not silently nowhere.
        renamed = {_base(t): self.order[t] for t in missing if "[" in t}
        rank = dict(self.order)
        stand_in: set[str] = set()
        for item in items:
            if item.nodeid not in rank and _base(item.nodeid) in renamed:
                rank[item.nodeid] = renamed[_base(item.nodeid)]
                stand_in.add(_base(item.nodeid))
        self.missing = sorted(t for t in missing if _base(t) not in stand_in)
        keep = [item for item in items if item.nodeid in rank]
        drop = [item for item in items if item.nodeid not in rank]
        keep.sort(key=lambda item: rank[item.nodeid])
        if drop:
            config.hook.pytest_deselected(items=drop)
        for item in keep:
            limit = per_test_timeout(self.durations.get(item.nodeid, 0.0))
            item.add_marker(pytest.mark.timeout(limit), append=False)
        items[:] = keep

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        where = f"collecting {report.nodeid}"
        if report.failed and where not in self.failures:
            self.failures.append(where)
        if report.failed and self.first_failure is None:
            self.first_failure = where
            self.failure_text = str(report.longrepr)[-1500:]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.ran += 1
        if report.failed and report.nodeid not in self.failures:
            self.failures.append(report.nodeid)
        if report.failed and self.first_failure is None:
            self.first_failure = report.nodeid
            self.failure_text = str(report.longrepr)[-1500:]


def _base(nodeid: str) -> str:
    """A test's node id without its parametrization: `f.py::test_x[a-1]` → `f.py::test_x`."""
    return nodeid.split("[", 1)[0]


def _child(ws: Workspace, slot: _Slot, job: Job, tests: list[str]) -> int:
    """Runs in the forked child. Returns pytest's exit code."""
    os.setpgid(0, 0)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler is not the child's
    log = os.open(slot.home / "child.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.chdir(ws.root)
    # The runner's own arguments are not the tests': a mutant that runs a module's
    # `main()` at import (its `__main__` guard negated) must not read them as paths to
    # write to (report/schema.py's main once wrote the schema over its own source).
    sys.argv = ["pytest"]
    overlay = str(ws.seen_at(slot))
    preload.isolate(job.purge, job.project, ws.seen_at(slot))
    sys.path.insert(0, overlay)
    inherited = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = overlay + (os.pathsep + inherited if inherited else "")
    profile_setup.load()
    select = _Select(tests, job.durations)
    files = sorted({nodeid.split("::", 1)[0] for nodeid in tests})
    args = [
        *files,
        *(["-x"] if job.stop_first else []),
        "-q",
        # One line per failure: a mutant needs the failing test's name, not a traceback,
        # and formatting tracebacks of large reprs costs more than the test.
        "--tb=line",
        "-p",
        "no:cacheprovider",
        f"--basetemp={slot.basetemp}",
        f"--rootdir={ws.root}",
        *QUIET_REWRITE,
        *ws.pytest_args,
    ]
    raised = ""
    try:
        code = int(pytest.main(args, plugins=[select]))
    except ABORTS as exc:
        # Stopped before the session began (a conftest importing the mutant, say): the
        # smoke run showed the unmutated code starts a session here.
        code = int(pytest.ExitCode.INTERRUPTED)
        select._abort("starting the session", exc)
    except Exception as exc:
        # pytest itself raised (e.g. an unraisable-exception warning turned into an error
        # while it shut down, after a failing test left a finalizer behind). The tests
        # that ran are still judged; pytest's own failure is recorded beside them.
        code = int(pytest.ExitCode.INTERNAL_ERROR)
        raised = f"{type(exc).__name__}: {exc}"[:1500]
    result = {
        "exit": code,
        "first_failure": select.first_failure,
        "failure_text": select.failure_text,
        "missing": select.missing,
        "ran": select.ran,
        "raised": raised,
        "failures": select.failures,
        "aborted": select.aborted,
        "test_cpu": select.test_cpu,
    }
    (slot.home / "result.json").write_text(json.dumps(result))
    return code


def _write_mutant(ws: Workspace, slot: _Slot, job: Job) -> None:
    module = ws.root / job.path
    target = ws.overlay(slot) / module.relative_to(ws.source_root)
    slot.original = target.read_text()
    target.write_text(job.text)
    slot.job = job
    slot.ran = 0
    slot.cpu = 0.0
    slot.test_cpu = {}
    slot.children = 0
    slot.first_started = time.monotonic()


def _fork(ws: Workspace, slot: _Slot, job: Job, tests: list[str]) -> None:
    slot.runs += 1
    slot.children += 1
    slot.stage = tests
    result = slot.home / "result.json"
    if result.exists():
        result.unlink()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child never returns into the parent's code
        code = 70
        try:
            if ws.unisolated is None:
                isolation.enter(ws.binds(slot))
            code = (ws.child or _child)(ws, slot, job, tests)
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    slot.pid = pid
    slot.started = time.monotonic()
    slot.deadline = slot.started + timeout_for(job.budget(tests))


def _restore(ws: Workspace, slot: _Slot) -> None:
    assert slot.job is not None
    module = ws.root / slot.job.path
    target = ws.overlay(slot) / module.relative_to(ws.source_root)
    target.write_text(slot.original)


def _judge(slot: _Slot, wait_status: int | None) -> Outcome:
    outcome = _judge_status(slot, wait_status)
    outcome.cpu = slot.cpu
    outcome.test_cpu = dict(slot.test_cpu)
    outcome.children = slot.children
    return outcome


def _judge_status(slot: _Slot, wait_status: int | None) -> Outcome:
    assert slot.job is not None
    job = slot.job
    seconds = time.monotonic() - slot.first_started
    count = len(slot.stage)
    if wait_status is None:
        return Outcome(job.ident, TIMEOUT, seconds, slot.ran, detail="timed out")
    if os.WIFSIGNALED(wait_status):
        sig = os.WTERMSIG(wait_status)
        return Outcome(job.ident, CRASHED, seconds, slot.ran, detail=f"signal {sig}")
    code = os.WEXITSTATUS(wait_status)
    path = slot.home / "result.json"
    if not path.exists():
        log = (slot.home / "child.log").read_text(errors="replace")[-1500:]
        return Outcome(job.ident, ERROR, seconds, slot.ran, detail=f"exit {code}: {log}")
    data: dict[str, Any] = json.loads(path.read_text())
    slot.ran += data["ran"]
    for test, cpu in data.get("test_cpu", {}).items():
        slot.test_cpu[test] = slot.test_cpu.get(test, 0.0) + cpu
    killer = data["first_failure"]
    if data.get("aborted") and killer is not None:
        failures = tuple(data["failures"])
        return Outcome(job.ident, ABORTED, seconds, slot.ran, killer, data["aborted"], failures)
    # A mutant that breaks importing the module fails the collection of every selected
    # file: killed (the smoke run showed the unmutated code collects). None collected with
    # no collection error means the selection is wrong: the harness cannot judge it.
    collect_error = killer is not None and killer.startswith("collecting ")
    if data["missing"] and len(data["missing"]) == count and not collect_error:
        return Outcome(job.ident, ERROR, seconds, 0, detail="none of the selected tests collected")
    if code == 0:
        # Tests the mutant renamed out of existence (a case id it changed with no stand-in)
        # did not judge it: the survivor says so rather than hiding it.
        gone = len(data["missing"])
        detail = f"{gone} selected test(s) not collected under the mutant" if gone else ""
        return Outcome(job.ident, SURVIVED, seconds, slot.ran, detail=detail)
    failed = code in (1, 2) or (code == 3 and data["raised"])
    if failed and killer is not None and "Timeout (>" in data["failure_text"]:
        return Outcome(job.ident, TIMEOUT, seconds, slot.ran, killer, "a test timed out")
    if failed and killer is not None:
        return Outcome(
            job.ident,
            KILLED,
            seconds,
            slot.ran,
            killer,
            data["failure_text"],
            tuple(data["failures"]),
        )
    detail = f"pytest exit {code} {data['raised']}".strip()
    return Outcome(job.ident, ERROR, seconds, slot.ran, killer, detail)


def timeout_for(budget: float) -> float:
    """A backstop only: a test stuck in a loop is stopped by pytest-timeout first
    (per_test_timeout), which fails that test. Generous, because the machine is shared."""
    return 4.0 * budget + 60.0


def run_jobs(
    ws: Workspace,
    jobs: Sequence[Job],
    report: Callable[[Job, Outcome], None],
    plan: Planner = one_stage,
) -> list[Outcome]:
    """Run every job, at most len(ws.slots) at once; `report` is called as each ends.
    `plan` is asked for a job's stages when it starts, so it can use what earlier jobs
    showed (which tests kill mutants of that file)."""
    pending = list(reversed(jobs))
    outcomes: list[Outcome] = []
    busy: dict[int, _Slot] = {}
    free = list(ws.slots)
    try:
        _loop(ws, pending, outcomes, busy, free, report, plan)
    finally:
        # Interrupted (Ctrl-C, SIGTERM) or failed: no child may outlive the run.
        for pid in busy:
            _kill(pid)
            os.waitpid(pid, 0)
    ws.reap()
    return outcomes


def _loop(
    ws: Workspace,
    pending: list[Job],
    outcomes: list[Outcome],
    busy: dict[int, _Slot],
    free: list[_Slot],
    report: Callable[[Job, Outcome], None],
    plan: Planner,
) -> None:
    while pending or busy:
        while free and pending:
            slot = free.pop()
            job = pending.pop()
            stages = [s for s in plan(job) if s]
            _write_mutant(ws, slot, job)
            slot.later = stages[1:]
            _fork(ws, slot, job, stages[0])
            busy[slot.pid] = slot
        finished: list[tuple[_Slot, int | None]] = []
        now = time.monotonic()
        for pid, slot in list(busy.items()):
            done_pid, exited, usage = os.wait4(pid, os.WNOHANG)
            if done_pid:
                slot.cpu += usage.ru_utime + usage.ru_stime
                finished.append((slot, exited))
            elif now > slot.deadline:
                _kill(pid)
                _, _, usage = os.wait4(pid, 0)
                slot.cpu += usage.ru_utime + usage.ru_stime
                finished.append((slot, None))
        if not finished:
            time.sleep(0.01)
            continue
        for slot, status in finished:
            del busy[slot.pid]
            _kill(slot.pid)  # whatever the tests left running in the child's process group
            ws.discard(slot.basetemp)
            assert slot.job is not None
            done = _judge(slot, status)
            if done.status == SURVIVED and slot.later:
                _fork(ws, slot, slot.job, slot.later.pop(0))
                busy[slot.pid] = slot
                continue
            _restore(ws, slot)
            outcomes.append(done)
            report(slot.job, done)
            free.append(slot)


def _kill(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return  # the group is already gone: nothing left to stop
