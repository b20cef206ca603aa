"""Which test ran which line: one pytest session under coverage.py with a dynamic context
per test, written as JSON for the mutation runner.

Run as a script (a fresh interpreter, so every module is measured from its first import):

    python covmap.py OUT.json --root DIR --source SRC_DIR --tests PATH[:PATH…] [options…]

The map holds, per measured file (relative to the root), each line and the node ids of
the tests that executed it (setup, call and teardown count), each test's duration, the
outcome of the session, the tests that failed once and passed when run again (flaky),
and the modules the session imported, third-party and the project's own (the runner
pre-imports them once, before forking one child per mutant).

Every module of the project is imported first, and lines run while importing or
collecting are kept apart ("import_lines"): a function that ran then may have left its
result in a module constant or a cache, so the fast path (patch.py) does not patch it.

Python subprocesses a test starts are measured too (coverage's .pth hook, a config in
COVERAGE_PROCESS_START with the test's node id as the static context), so code the tests
run through `python -m contend …` is attributed to them like in-process code.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import coverage
import profile_setup
import pytest

IMPORT_CONTEXT = "<import>"  # lines run while importing or collecting, not in a test
# The running test's node id, for subprocesses (not CONTEND_*: contend refuses unknown ones).
TEST_ENV = "MUTATION_COVMAP_TEST"
SUBPROCESS_CONFIG = """\
[run]
source = {source}
parallel = true
data_file = {data}
context = ${{{env}}}
disable_warnings = no-data-collected, module-not-measured, module-not-imported, couldnt-parse
"""


class _PerTestContext:
    """Switches coverage's dynamic context to the running test's node id."""

    def __init__(self, cov: coverage.Coverage) -> None:
        self.cov = cov
        self.durations: dict[str, float] = {}
        self.failed: list[str] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: object) -> Generator[None]:
        self.cov.switch_context(item.nodeid)
        os.environ[TEST_ENV] = item.nodeid
        started = time.perf_counter()
        try:
            return (yield)
        finally:
            self.durations[item.nodeid] = time.perf_counter() - started
            os.environ[TEST_ENV] = IMPORT_CONTEXT
            self.cov.switch_context(IMPORT_CONTEXT)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.failed.append(report.nodeid)


def _import_all(source: Path) -> list[str]:
    """Imports every module under `source`; returns those that failed (an optional
    extra not installed, say) — they are imported, if at all, by the tests."""
    failed = []
    for path in sorted(source.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(source).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if not parts or parts[-1] == "__main__":
            continue
        try:
            importlib.import_module(".".join(parts))
        except Exception:  # contend: allow silent-fallback -- listed in the map as not pre-imported
            failed.append(".".join(parts))
    return failed


def _subprocess_lines(data_dir: Path, root: Path) -> dict[str, dict[str, set[str]]]:
    """What the measured subprocesses ran: file → line → node ids of the tests."""
    found: dict[str, dict[str, set[str]]] = {}
    for part in sorted(data_dir.glob(".coverage*")):
        data = coverage.CoverageData(basename=str(part))
        data.read()
        data.set_query_contexts(None)
        for measured in data.measured_files():
            rel = Path(measured).resolve().relative_to(root.resolve()).as_posix()
            lines = found.setdefault(rel, {})
            for line, contexts in data.contexts_by_lineno(measured).items():
                tests = {c for c in contexts if c and c != IMPORT_CONTEXT}
                if tests:
                    lines.setdefault(str(line), set()).update(tests)
    return found


def build_map(out: Path, root: Path, source: Path, tests: list[str], options: list[str]) -> int:
    profile_setup.load()
    # As `python -m pytest` from the root has it: a test may import `tests.helpers`.
    sys.path.insert(1, str(root))
    cov = coverage.Coverage(data_file=None, source=[str(source)], config_file=False, messages=False)
    plugin = _PerTestContext(cov)
    scratch = Path(tempfile.mkdtemp(prefix="contend-covmap-"))
    config = scratch / "subprocess.coveragerc"
    config.write_text(
        SUBPROCESS_CONFIG.format(source=source, data=scratch / ".coverage", env=TEST_ENV)
    )
    os.environ["COVERAGE_PROCESS_START"] = str(config)
    os.environ[TEST_ENV] = IMPORT_CONTEXT
    cov.start()
    cov.switch_context(IMPORT_CONTEXT)
    try:
        not_preimported = _import_all(source)
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
        del os.environ["COVERAGE_PROCESS_START"]
    data = cov.get_data()
    data.set_query_contexts(None)
    from_subprocesses = _subprocess_lines(scratch, root)
    shutil.rmtree(scratch)
    files: dict[str, dict[str, list[str]]] = {}
    import_lines: dict[str, list[int]] = {}
    for measured in data.measured_files():
        rel = Path(measured).resolve().relative_to(root.resolve()).as_posix()
        lines: dict[str, list[str]] = {}
        at_import: list[int] = []
        for line, contexts in data.contexts_by_lineno(measured).items():
            if "" in contexts or IMPORT_CONTEXT in contexts:
                at_import.append(line)
            tests = {c for c in contexts if c and c != IMPORT_CONTEXT}
            tests |= from_subprocesses.get(rel, {}).get(str(line), set())
            if tests:
                lines[str(line)] = sorted(tests)
        files[rel] = lines
        import_lines[rel] = sorted(at_import)
    for rel, sub_lines in from_subprocesses.items():
        lines = files.setdefault(rel, {})
        for line, tests in sub_lines.items():
            if line not in lines:
                lines[line] = sorted(tests)
    doc: dict[str, Any] = {
        "exit_code": int(code),
        "failed": plugin.failed,
        "flaky": flaky,
        "durations": plugin.durations,
        "files": files,
        "import_lines": import_lines,
        "not_preimported": not_preimported,
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
