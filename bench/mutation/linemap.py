"""The line map — which test ran which line — built, cached and queried.

Built by one pytest session under coverage (covmap.py, in a fresh interpreter) and cached
beside the results. The cache is keyed by the source tree and the test support files
(conftest, helpers, fakes) as a whole, and by each test file on its own: when only test
files changed, only those are run again and merged in, so adding a test costs seconds,
not the whole suite.

When source files changed only inside function bodies — what runs at import (module and
class level code, signatures, defaults, decorators: the file's *skeleton*) is the same,
and no function of the file ran at import or collection — only the test files whose
tests ran a line of a changed file are run again: a test that never entered the file
cannot behave differently for a change that only code it never ran holds. Any other
source change (a skeleton, a file added or removed, a function that ran at import)
rebuilds the whole map.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from mutate import Mutant

HERE = Path(__file__).resolve().parent
# pytest would warn that hypothesis (imported before it starts) cannot be rewritten.
QUIET_REWRITE = ("-W", "ignore::pytest.PytestAssertRewriteWarning")


class CoverageError(Exception):
    pass


def _is_test_file(path: Path) -> bool:
    return path.suffix == ".py" and (
        path.name.startswith("test_") or path.name.endswith("_test.py")
    )


def _files(base: Path) -> list[Path]:
    return sorted(
        f
        for f in base.rglob("*")
        if f.is_file() and "__pycache__" not in f.parts and f.suffix != ".pyc"
    )


def _skeleton(text: str) -> str:
    """A digest of what runs at import: the module with every function body emptied."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return hashlib.sha256(text.encode()).hexdigest()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            node.body = [ast.Pass()]
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()


def _body_lines(text: str) -> set[int]:
    lines: set[int] = set()
    try:
        tree = ast.parse(text)
    # contend: allow silent-fallback -- an unparsable file has no function bodies to name; its
    # skeleton is its whole text (_skeleton), so any edit of it rebuilds the whole line map
    except SyntaxError:
        return lines
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines.update(range(node.body[0].lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def source_digests(root: Path, source_root: Path) -> dict[str, dict[str, str]]:
    """Per file under the source root: its text's digest and its skeleton's (a file that
    is not Python: its text's)."""
    out: dict[str, dict[str, str]] = {}
    for file in _files(source_root):
        data = file.read_bytes()
        text = hashlib.sha256(data).hexdigest()
        skeleton = _skeleton(data.decode("utf-8", "replace")) if file.suffix == ".py" else text
        out[file.relative_to(root).as_posix()] = {"text": text, "skeleton": skeleton}
    return out


def support_digest(root: Path, source_root: Path, tests: Path) -> str:
    """Everything the map depends on but the test files and the source files' texts: the
    test support files, the configuration, covmap.py, and which source files exist."""
    h = hashlib.sha256()
    for file in _files(tests):
        if not _is_test_file(file):
            h.update(file.relative_to(root).as_posix().encode() + b"\0" + file.read_bytes())
    for file in _files(source_root):
        h.update(file.relative_to(root).as_posix().encode() + b"\0")
    for extra in ("pyproject.toml", "setup.cfg", "pytest.ini"):
        if (root / extra).exists():
            h.update((root / extra).read_bytes())
    h.update((HERE / "covmap.py").read_bytes())
    return h.hexdigest()


def _with_sources(
    data: dict[str, Any], root: Path, now: dict[str, dict[str, str]]
) -> dict[str, dict[str, Any]]:
    """`now` with, per Python file, whether any of its function bodies ran at import or
    collection (its import record, which matches the text the map was built on)."""
    out: dict[str, dict[str, Any]] = {}
    for rel, digests in now.items():
        entry: dict[str, Any] = dict(digests)
        ran = set(data["import_lines"].get(rel, ()))
        path = root / rel
        entry["body_at_import"] = bool(
            ran and path.suffix == ".py" and ran & _body_lines(path.read_text())
        )
        out[rel] = entry
    return out


def _body_changes(
    old: dict[str, Any], support: str, now: dict[str, dict[str, str]]
) -> tuple[list[str], set[str]] | None:
    """If every source change since `old` was built is inside function bodies that never
    ran at import: (the changed files, the test files whose tests ran a line of one). None
    when the whole map must be built again."""
    then: dict[str, dict[str, Any]] | None = old.get("sources")
    if old.get("support") != support or then is None or set(then) != set(now):
        return None
    changed = sorted(f for f in now if then[f]["text"] != now[f]["text"])
    test_files: set[str] = set()
    for f in changed:
        if then[f]["skeleton"] != now[f]["skeleton"] or then[f].get("body_at_import", True):
            return None
        for tests in old["files"].get(f, {}).values():
            test_files.update(t.split("::", 1)[0] for t in tests)
    return changed, test_files


def fingerprints(root: Path, source_root: Path, tests: Path) -> tuple[str, dict[str, str]]:
    """(hash of everything but the test files, {test file: its hash})."""
    base = hashlib.sha256()
    per_test: dict[str, str] = {}
    for file in [*_files(source_root), *_files(tests)]:
        rel = file.relative_to(root).as_posix()
        data = file.read_bytes()
        if file.is_relative_to(tests) and _is_test_file(file):
            per_test[rel] = hashlib.sha256(data).hexdigest()
        else:
            base.update(rel.encode() + b"\0" + data)
    for extra in ("pyproject.toml", "setup.cfg", "pytest.ini"):
        if (root / extra).exists():
            base.update((root / extra).read_bytes())
    base.update((HERE / "covmap.py").read_bytes())
    return base.hexdigest(), per_test


def _covmap_command(
    root: Path, source_root: Path, targets: list[str], out: Path, basetemp: Path | None
) -> list[str]:
    return [
        sys.executable,
        str(HERE / "covmap.py"),
        str(out),
        "--root",
        str(root),
        "--source",
        str(source_root),
        "--tests",
        os.pathsep.join(targets),
        "-q",
        "-p",
        "no:cacheprovider",
        f"--rootdir={root}",
        *QUIET_REWRITE,
        *([f"--basetemp={basetemp}"] if basetemp is not None else []),
    ]


def _run_covmap(
    root: Path,
    source_root: Path,
    targets: list[str],
    out: Path,
    shards: int = 1,
    weights: dict[str, float] | None = None,
) -> dict[str, Any]:
    """The map of `targets` (test files or directories), measured by up to `shards`
    coverage sessions at once, merged into one map: what one session of them all would
    have measured, in about 1/shards of the wall time. The files go in twice as many
    groups as sessions (balanced by `weights`, else by file size), heaviest first, each
    to the next free session: a size is a rough guess of a file's seconds, and a session
    that finishes early takes the next group instead of waiting for the other."""
    groups = _groups(root, targets, shards * 2 if shards > 1 else 1, weights or {})
    # The source root first (the mutant children put their copy first), then this
    # directory for the profile module.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(source_root), str(HERE)])}
    parts = (
        [out] if len(groups) == 1 else [out.with_suffix(f".{i}.json") for i in range(len(groups))]
    )
    for part in parts:
        if part.exists():
            part.unlink()
    with tempfile.TemporaryDirectory(prefix="contend-covmap-shards-") as scratch:
        logs = [Path(scratch) / f"log{i}" for i in range(len(groups))]
        waiting = list(range(len(groups)))
        running: dict[int, subprocess.Popen[bytes]] = {}
        try:
            while waiting or running:
                while waiting and len(running) < max(1, shards):
                    i = waiting.pop(0)
                    # Sessions side by side must not share pytest's numbered temporary
                    # directories.
                    temp = Path(scratch) / f"t{i}" if len(groups) > 1 else None
                    with logs[i].open("wb") as log:
                        running[i] = subprocess.Popen(
                            _covmap_command(root, source_root, groups[i], parts[i], temp),
                            cwd=root,
                            env=env,
                            stdout=log,
                            stderr=subprocess.STDOUT,
                        )
                done = [i for i, proc in running.items() if proc.poll() is not None]
                for i in done:
                    del running[i]
                if not done:
                    time.sleep(0.2)
        finally:
            # Stopped (SIGTERM, ^C): no coverage session outlives the run, as none did
            # when one `subprocess.run` measured the map.
            for proc in running.values():
                proc.kill()
                proc.wait()
        outputs = [log.read_text(errors="replace") for log in logs]
    maps: list[dict[str, Any]] = []
    for part, output in zip(parts, outputs, strict=True):
        if not part.exists():
            raise CoverageError(f"the coverage run wrote no map:\n{output[-3000:]}")
        data: dict[str, Any] = json.loads(part.read_text())
        if data["exit_code"] != 0:
            failed = "\n  ".join(data["failed"]) or output[-3000:]
            raise CoverageError(f"the suite is not green; fix it first:\n  {failed}")
        maps.append(data)
    merged = maps[0]
    for group, data in zip(groups[1:], maps[1:], strict=True):
        merged = _merge(merged, data, set(group))
    if len(parts) > 1:
        for part in parts:
            part.unlink()
    return merged


def _groups(
    root: Path, targets: list[str], count: int, weights: dict[str, float]
) -> list[list[str]]:
    """`targets` in at most `count` groups of near-equal weight (the longest first, each to
    the lightest group), heaviest group first: a file's seconds in the last map, else its
    size in bytes."""
    if count <= 1 or len(targets) <= 1 or not all((root / t).is_file() for t in targets):
        return [list(targets)]
    known = all(t in weights for t in targets)

    def weight(t: str) -> float:
        return weights[t] if known else float((root / t).stat().st_size)

    groups: list[list[str]] = [[] for _ in range(min(count, len(targets)))]
    loads = [0.0] * len(groups)
    for t in sorted(targets, key=lambda t: (-weight(t), t)):
        lightest = loads.index(min(loads))
        groups[lightest].append(t)
        loads[lightest] += weight(t)
    order = sorted(range(len(groups)), key=lambda i: -loads[i])
    return [sorted(groups[i]) for i in order]


def _merge(old: dict[str, Any], new: dict[str, Any], files: set[str]) -> dict[str, Any]:
    """`old` with every test of `files` replaced by what `new` measured."""

    def kept(test: str) -> bool:
        return test.split("::", 1)[0] not in files

    merged_files: dict[str, dict[str, list[str]]] = {}
    for path in set(old["files"]) | set(new["files"]):
        lines: dict[str, set[str]] = defaultdict(set)
        for line, tests in old["files"].get(path, {}).items():
            lines[line].update(t for t in tests if kept(t))
        for line, tests in new["files"].get(path, {}).items():
            lines[line].update(tests)
        merged_files[path] = {k: sorted(v) for k, v in lines.items() if v}
    return {
        "exit_code": new["exit_code"],
        "failed": new["failed"],
        "flaky": sorted({t for t in old["flaky"] if kept(t)} | set(new["flaky"])),
        "durations": {
            **{t: d for t, d in old["durations"].items() if kept(t)},
            **new["durations"],
        },
        "files": merged_files,
        # Code run while importing or collecting any file, old or new, stays unpatchable.
        "import_lines": {
            path: sorted(
                set(old["import_lines"].get(path, [])) | set(new["import_lines"].get(path, []))
            )
            for path in set(old["import_lines"]) | set(new["import_lines"])
        },
        "not_preimported": new.get("not_preimported", old["not_preimported"]),
        "preload": _union_in_order(old["preload"], new["preload"]),
        "project_modules": _union_in_order(old["project_modules"], new["project_modules"]),
    }


def _union_in_order(first: list[str], then: list[str]) -> list[str]:
    seen = set(first)
    return [*first, *(n for n in then if n not in seen)]


def load(
    root: Path,
    source_root: Path,
    tests: Path,
    cache: Path,
    fresh: bool,
    only: Sequence[str] = (),
    shards: int = 1,
) -> dict[str, Any]:
    """The line map for the current tree: cached, updated for changed test files, or
    built from the whole suite — or, with `only` (globs relative to the root), from the
    matching test files alone: a test left out can kill no mutant, so the score can only
    come out lower, never higher. A later run without `only` adds the others."""
    base, every_test = fingerprints(root, source_root, tests)
    per_test = {f: h for f, h in every_test.items() if not only or any(fnmatch(f, g) for g in only)}
    if not per_test:
        raise CoverageError(f"no test file matches {', '.join(only)}")
    cache.parent.mkdir(parents=True, exist_ok=True)
    support = support_digest(root, source_root, tests)
    sources_now = source_digests(root, source_root)
    old: dict[str, Any] | None = None
    bodies: tuple[list[str], set[str]] | None = None
    # Each test file's seconds in the last map, stale or not: what balances the shards.
    cached: dict[str, Any] | None = json.loads(cache.read_text()) if cache.exists() else None
    weights: dict[str, float] = defaultdict(float)
    for test, seconds in (cached or {}).get("durations", {}).items():
        weights[test.split("::", 1)[0]] += seconds
    if cached is not None and not fresh:
        old = cached
        if old is not None and old.get("base") != base:
            bodies = _body_changes(old, support, sources_now)
            old = None if bodies is None else old
        if old is not None and "sources" not in old:  # a map from before this record
            old["support"] = support
            old["sources"] = _with_sources(old, root, sources_now)
            cache.write_text(json.dumps(old, indent=0, sort_keys=True))
    started = time.monotonic()
    scratch = cache.with_suffix(".part.json")
    if old is None:
        if only:
            print(
                f"coverage map: running {len(per_test)} test file(s) ({', '.join(only)}) "
                "under coverage …",
                flush=True,
            )
            data = _run_covmap(root, source_root, sorted(per_test), scratch, shards, weights)
            how = f"{len(per_test)} test files"
        else:
            print("coverage map: running the whole suite under coverage …", flush=True)
            whole = [tests.relative_to(root).as_posix()] if shards <= 1 else sorted(per_test)
            data = _run_covmap(root, source_root, whole, scratch, shards, weights)
            how = "whole suite"
    else:
        changed = {f for f, h in per_test.items() if old["tests"].get(f) != h}
        # Gone, or changed outside the selection (its old lines may be wrong): dropped.
        removed = {f for f, h in old["tests"].items() if every_test.get(f) != h} - set(per_test)
        ran_changed: set[str] = set()
        if bodies is not None:
            ran_changed = (bodies[1] & set(every_test)) - changed - removed
            print(
                f"coverage map: function bodies changed in {', '.join(bodies[0])}; "
                f"re-running the {len(ran_changed)} test file(s) that ran them",
                flush=True,
            )
        if not changed and not removed and bodies is None:
            print(f"coverage map: cached ({cache})", flush=True)
            return old
        data = old
        if changed or ran_changed:
            names = ", ".join(sorted(changed))
            if changed:
                print(f"coverage map: re-running changed test files ({names}) …", flush=True)
            new = _run_covmap(
                root, source_root, sorted(changed | ran_changed), scratch, shards, weights
            )
            data = _merge(old, new, changed | removed | ran_changed)
            if bodies is not None:
                # Lines moved in the changed files: their import record is the new one.
                for f in bodies[0]:
                    data["import_lines"][f] = new["import_lines"].get(f, [])
        else:
            nothing = {**old, "files": {}, "durations": {}, "flaky": [], "import_lines": {}}
            data = _merge(old, nothing, removed)
        how = f"{len(changed)} changed and {len(removed)} removed test file(s)"
        if bodies is not None:
            how += f", {len(ran_changed)} that ran changed function bodies"
    if scratch.exists():
        scratch.unlink()
    data["base"] = base
    data["support"] = support
    data["sources"] = _with_sources(data, root, sources_now)
    kept = {} if old is None else {f: h for f, h in old["tests"].items() if f in every_test}
    data["tests"] = {f: h for f, h in {**kept, **per_test}.items() if every_test.get(f) == h}
    cache.write_text(json.dumps(data, indent=0, sort_keys=True))
    seconds = time.monotonic() - started
    print(f"coverage map: {seconds:.0f} s ({how}), {len(data['durations'])} tests", flush=True)
    return data


def _lines_tests(lines: dict[str, list[str]], first: int, last: int) -> set[str]:
    found: set[str] = set()
    for line in range(first, last + 1):
        found.update(lines.get(str(line), ()))
    return found


def select(
    mutant: Mutant,
    lines: dict[str, list[str]],
    unseen: Iterable[str] = (),
    at_import: Collection[int] = (),
) -> set[str]:
    """The tests that can see the mutant: those that ran its lines, and for a line that
    runs at import — module or class level, a default value, or a function body the import
    record `at_import` (the file's lines run while importing or collecting) shows ran then,
    whose result (a table built at import) every later reader sees — also
    `import_time_fallback`'s."""
    tests = credited(mutant, lines)
    if mutant.import_time or _ran_at_import(mutant.select_lines, at_import):
        return tests | import_time_fallback(mutant, lines, unseen, at_import)
    return tests


def credited(mutant: Mutant, lines: dict[str, list[str]]) -> set[str]:
    """The tests the line map credits with the mutant's lines. For an import-time line these
    are only tests that imported the module afresh — in a subprocess they started
    (`python -m contend …`, measured through COVERAGE_PROCESS_START) or for the first time
    inside the test — never the tests of the suite's own process, which imported it once,
    at collection, outside any test's context."""
    return _lines_tests(lines, *mutant.select_lines)


def import_time_fallback(
    mutant: Mutant,
    lines: dict[str, list[str]],
    unseen: Iterable[str] = (),
    at_import: Collection[int] = (),
) -> set[str]:
    """The tests of the suite's own process that may see an import-time mutant (or one in
    a function that ran at import), which the line map credits with none of its lines: the
    tests that ran the function whose default it is, or else every test of the file and
    every test of `unseen` — the tests that may see an import-time value without running
    any line of the file (a dataclass default read through the generated __init__, a
    schema description read by a schema test); run.py chooses them. Added to the credited
    tests, not only used when there are none: a subprocess test credited with a module's
    every import-time line once hid the in-process tests that read its values (a Literal
    read by the published-schema test survived)."""
    # The function's own runners, unless it ran at import: then they are only the tests
    # that imported afresh, and its result may be anywhere (a module constant, a cache).
    body = mutant.fallback_lines
    if body is not None and not _ran_at_import(body, at_import):
        tests = _lines_tests(lines, *body)
        if tests:
            return tests
    return file_tests(lines) | set(unseen)


def _ran_at_import(span: tuple[int, int], at_import: Collection[int]) -> bool:
    first, last = span
    return any(first <= n <= last for n in at_import)


def importing_tests(root: Path, module: str, tests: Iterable[str]) -> set[str]:
    """The tests whose file imports `module` itself (`import m`, `from m import x`,
    `from package import leaf`), at any depth of the file. Direct importers only: the
    tests of a module's constants, defaults and schema live there, while the transitive
    importers of a core module are nearly the whole suite (minutes per surviving mutant)."""
    by_file: dict[str, list[str]] = defaultdict(list)
    for test in tests:
        by_file[test.split("::", 1)[0]].append(test)
    found: set[str] = set()
    for file, ids in by_file.items():
        imported = _imports_of(root / file)
        if module in imported or any(n.startswith(module + ".") for n in imported):
            found.update(ids)
    return found


@functools.cache
def _imports_of(path: Path) -> frozenset[str]:
    """The absolute module names a file imports, and `package.name` for each
    `from package import name` (a submodule or not: the caller asks about modules)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return frozenset(names)


def file_tests(lines: dict[str, list[str]]) -> set[str]:
    return {t for tests in lines.values() for t in tests}


def order(tests: Iterable[str], durations: dict[str, float]) -> list[str]:
    """Fastest test files first, fastest tests first within a file (module fixtures are
    built once per file)."""
    by_file: dict[str, list[str]] = defaultdict(list)
    for t in tests:
        by_file[t.split("::", 1)[0]].append(t)
    for group in by_file.values():
        group.sort(key=lambda t: (durations.get(t, 0.0), t))
    files = sorted(by_file, key=lambda f: (sum(durations.get(t, 0.0) for t in by_file[f]), f))
    return [t for f in files for t in by_file[f]]
