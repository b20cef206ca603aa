"""The fast path's host: one pytest session that collects the suite once and then, instead
of running it, forks a child per mutant (patch.py puts the mutant into the live function
objects) and runs that mutant's selected tests on the already collected items.

Per mutant this costs a fork and the tests themselves: no interpreter start, no import of
the project, no collection. The child's outcome has the same shape as a slow-path child's
(execute.py judges both alike): the first failing test, every failure, how many ran.

Each child gets its own temporary-directory root, an overlay copy of the source tree with
the mutated file written into it first on PYTHONPATH (so a subprocess a test starts
imports the mutant too), and a pytest-timeout limit per test.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cputime
import execute
import pytest
from linemap import QUIET_REWRITE
from patch import FunctionIndex, GlobalPatch, apply_global


class HostError(Exception):
    pass


@dataclass(slots=True)
class _Recorder:
    first_failure: str | None = None
    failure_text: str = ""
    failures: list[str] = field(default_factory=list)
    ran: int = 0
    aborted: str = ""

    def reset(self) -> None:
        self.first_failure, self.failure_text, self.failures, self.ran = None, "", [], 0
        self.aborted = ""

    def abort(self, nodeid: str, exc: BaseException) -> None:
        """A test stopped the session (KeyboardInterrupt, pytest.exit): it is the failure."""
        self.aborted = f"{nodeid}: {execute.describe_abort(exc)}"
        if nodeid not in self.failures:
            self.failures.append(nodeid)
        if self.first_failure is None:
            self.first_failure, self.failure_text = nodeid, self.aborted


class Host:
    """pytest plugin: after collection, hands the session to `work` instead of running
    the tests; records the reports of the tests a child runs."""

    def __init__(self, work: Callable[[Host], None], filenames: list[str]) -> None:
        self.work = work
        self.filenames = filenames
        self.items: dict[str, pytest.Item] = {}
        self.session: pytest.Session | None = None
        self.index: FunctionIndex | None = None
        self.recorder = _Recorder()
        self.error: BaseException | None = None
        self.collection_errors: list[str] = []
        self.worked = False

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collection_errors.append(report.nodeid)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        self.session = session
        self.items = {item.nodeid: item for item in session.items}
        if self.collection_errors:
            self.error = HostError(
                "the suite does not collect in the host: " + ", ".join(self.collection_errors)
            )
            return True
        # Built after collection, in the process every child is forked from; it finds the
        # live functions through the collector, which sees no frozen object (run.py froze
        # what the parent had loaded).
        gc.unfreeze()
        self.index = FunctionIndex(self.filenames)
        # Every child is forked from here: objects moved out of the collector's reach are
        # never traversed by a child's garbage collection, which would otherwise touch —
        # and so copy — every page of this large heap in every child.
        gc.freeze()
        self.worked = True
        try:
            self.work(self)
        except BaseException as exc:  # re-raised once pytest has unwound (serve)
            self.error = exc
        return True

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        rec = self.recorder
        if report.when == "call":
            rec.ran += 1
        if report.failed and report.nodeid not in rec.failures:
            rec.failures.append(report.nodeid)
        if report.failed and rec.first_failure is None:
            rec.first_failure = report.nodeid
            rec.failure_text = str(report.longrepr)[-1500:]


def serve(ws: execute.Workspace, test_files: list[str], host: Host) -> None:
    """Runs `host.work` inside a pytest session that collected `test_files`."""
    args = [
        *test_files,
        "-q",
        # One line per failure, as in a slow-path child: the long style looks up each
        # frame's source, and inspect.getmodule then resolves the path of every module the
        # host holds (thousands, preloaded) — ~0.25 s of a killed mutant's ~0.4 s.
        "--tb=line",
        # The host's own output is the runner's; a child's goes to its log.
        "-s",
        "-p",
        "no:cacheprovider",
        f"--rootdir={ws.root}",
        *QUIET_REWRITE,
        *ws.pytest_args,
    ]
    # Collected from the project's root, like the coverage run and a slow-path child: test
    # files are named relative to it, and module-level code may read relative paths.
    here = os.getcwd()
    os.chdir(ws.root)
    try:
        code = pytest.main(args, plugins=[host])
    finally:
        os.chdir(here)
    if host.error is not None:
        raise host.error
    if not host.worked:
        raise HostError(f"the host session ended before running (pytest exit {int(code)})")


def fast_child(
    host: Host, ws: execute.Workspace, slot: Any, job: execute.Job, tests: list[str]
) -> int:
    """Runs in the forked child: put the mutant in, run the tests, write the result."""
    os.setpgid(0, 0)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    log = os.open(slot.home / "child.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.chdir(ws.root)
    # The runner's own arguments are not the tests': a mutant that runs a module's
    # `main()` at import (its `__main__` guard negated) must not read them as paths to
    # write to (report/schema.py's main once wrote the schema over its own source).
    sys.argv = ["pytest"]
    overlay = str(ws.seen_at(slot))
    inherited = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = overlay + (os.pathsep + inherited if inherited else "")
    assert host.session is not None and host.index is not None
    factory = host.session.config._tmp_path_factory  # type: ignore[attr-defined]
    factory._given_basetemp = slot.basetemp
    factory._basetemp = None
    rec = host.recorder
    rec.reset()
    test_cpu: dict[str, float] = {}
    raised = ""
    if isinstance(job.patch, GlobalPatch):
        if apply_global(job.patch, list(sys.modules.values())) == 0:
            raised = f"no live binding of {job.patch.module}.{job.patch.names[0]}"
    elif job.patch is not None and host.index.apply(job.patch) == 0:
        raised = f"no live function object for {job.patch.function}"
    items = [host.items[t] for t in tests if t in host.items]
    missing = sorted(set(tests) - set(host.items))
    if not raised:
        for item in items:
            limit = execute.per_test_timeout(job.durations.get(item.nodeid, 0.0))
            item.add_marker(pytest.mark.timeout(limit), append=False)
        for i, item in enumerate(items):
            nextitem = items[i + 1] if i + 1 < len(items) else None
            started = cputime.spent()
            try:
                item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            except execute.ABORTS as exc:
                # As a pytest session would: the session ends here, no later test runs.
                rec.abort(item.nodeid, exc)
                break
            finally:
                test_cpu[item.nodeid] = cputime.spent() - started
            if job.stop_first and rec.first_failure is not None:
                break
    code = 3 if raised else (1 if rec.failures else 0)
    result = {
        "exit": code,
        "first_failure": rec.first_failure,
        "failure_text": rec.failure_text,
        "missing": missing,
        "ran": rec.ran,
        "raised": raised,
        "failures": rec.failures,
        "aborted": rec.aborted,
        "test_cpu": test_cpu,
    }
    (slot.home / "result.json").write_text(json.dumps(result))
    return code
