"""Which test ran which line: one pytest session under coverage.py with a dynamic context
per test, written as JSON for the mutation runner.

Run as a script (a fresh interpreter, so every module is measured from its first import):

    python covmap.py OUT.json --root DIR --source SRC_DIR --tests PATH[:PATH…] [options…]

The map holds, per measured file (relative to the root), each line and the node ids of
the tests that executed it (setup, call and teardown count), each test's duration, the
outcome of the session, the tests that failed once and passed when run again (flaky),
and the modules the session imported, third-party and the project's own (the runner
pre-imports them once, before forking one child per mutant).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import coverage
import profile_setup
import pytest


class _PerTestContext:
    """Switches coverage's dynamic context to the running test's node id."""

    def __init__(self, cov: coverage.Coverage) -> None:
        self.cov = cov
        self.durations: dict[str, float] = {}
        self.failed: list[str] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: object) -> Generator[None]:
        self.cov.switch_context(item.nodeid)
        started = time.perf_counter()
        try:
            return (yield)
        finally:
            self.durations[item.nodeid] = time.perf_counter() - started
            self.cov.switch_context("")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.failed.append(report.nodeid)


def build_map(out: Path, root: Path, source: Path, tests: list[str], options: list[str]) -> int:
    profile_setup.load()
    cov = coverage.Coverage(data_file=None, source=[str(source)], config_file=False, messages=False)
    plugin = _PerTestContext(cov)
    cov.start()
    try:
        code = pytest.main([*tests, *options], plugins=[plugin])
        flaky: list[str] = []
        if code == pytest.ExitCode.TESTS_FAILED and plugin.failed:
            # On a shared machine a timing-sensitive test can fail under load: run the
            # failures once more. Those that pass now are flaky — the runner never lets
            # them decide a mutant — and those that fail again make the suite red.
            first = plugin.failed
            plugin.failed = []
            code = pytest.main([*first, *options], plugins=[plugin])
            flaky = sorted(set(first) - set(plugin.failed))
    finally:
        cov.stop()
    data = cov.get_data()
    data.set_query_contexts(None)
    files: dict[str, dict[str, list[str]]] = {}
    for measured in data.measured_files():
        rel = Path(measured).resolve().relative_to(root.resolve()).as_posix()
        lines: dict[str, list[str]] = {}
        for line, contexts in data.contexts_by_lineno(measured).items():
            tests = sorted(c for c in contexts if c)
            if tests:
                lines[str(line)] = tests
        files[rel] = lines
    doc: dict[str, Any] = {
        "exit_code": int(code),
        "failed": plugin.failed,
        "flaky": flaky,
        "durations": plugin.durations,
        "files": files,
        # In first-import order: importing `_asyncio` before `asyncio`, say, leaves asyncio
        # half C, half Python ("Timeout should be used inside a task").
        "preload": _third_party(list(sys.modules), root),
        "project_modules": _project(list(sys.modules), source),
    }
    out.write_text(json.dumps(doc, indent=0, sort_keys=True))
    return int(code)


def _third_party(names: list[str], root: Path) -> list[str]:
    """Modules imported by the session that are not the project's own code (installed
    packages and the standard library — the virtualenv may live inside the root)."""
    found: list[str] = []
    project = root.resolve()
    installed = [Path(p).resolve() for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}]
    for name in names:
        module = sys.modules.get(name)
        origin = getattr(module, "__file__", None) if module is not None else None
        if not origin or name == "__main__" or name.startswith("__"):
            continue
        where = Path(origin).resolve()
        if where.is_relative_to(project) and not any(where.is_relative_to(p) for p in installed):
            continue
        found.append(name)
    return found


def _project(names: list[str], source: Path) -> list[str]:
    """Modules of the project (under the source root) the session imported."""
    found: list[str] = []
    base = source.resolve()
    for name in names:
        origin = getattr(sys.modules.get(name), "__file__", None)
        if origin and Path(origin).resolve().is_relative_to(base):
            found.append(name)
    return found


def main(argv: list[str]) -> int:
    """OUT.json --root DIR --source DIR --tests PATH[:PATH…] [pytest options…]"""
    out, rest = Path(argv[0]), argv[1:]
    own: dict[str, str] = {}
    while rest and rest[0] in ("--root", "--source", "--tests"):
        own[rest[0]] = rest[1]
        rest = rest[2:]
    tests = own["--tests"].split(os.pathsep)
    return build_map(out, Path(own["--root"]), Path(own["--source"]), tests, rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
