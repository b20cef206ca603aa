"""Which tests judge each mutant: the tests that ran its lines (linemap.select), the
readers of a module-level name for a mutant of its value (reads.py), the fallback for
other import-time code (unseen_tests), one selection for the mutants that are one
program (same_programs); and the path each mutant takes (plan_paths)."""

from __future__ import annotations

import ast
import functools
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import bytecode
import linemap
import patch as patch_mod
import preload
import reads
from mutate import Mutant
from scores import Row


def same_programs(rows: Sequence[Row], classes: bytecode.Classes, durations: Any) -> None:
    """Mutants with the same bytecode are one program: one selection (the union of theirs),
    and an entry of the equivalent list for one stands for all."""
    by_key = {r.mutant.key: r for r in rows}
    shared = bytecode.shared_tests(classes, {r.mutant.key: r.tests for r in rows})
    for row in rows:
        if row.mutant.key in shared:
            row.tests = linemap.order(shared[row.mutant.key], durations)
        if row.mutant.key in classes.identical and row.equivalent is None:
            row.equivalent = bytecode.SAME_AS_ORIGINAL
    for first, others in classes.groups().items():
        members = [by_key[k] for k in (first, *others) if k in by_key]
        listed = next((m for m in members if m.equivalent is not None), None)
        if listed is None:
            continue
        for m in members:
            if m.equivalent is None:
                m.equivalent = (
                    f"the same bytecode as {listed.mutant.key}, listed equivalent: "
                    f"{listed.equivalent}"
                )


def one_per_program(runnable: Sequence[Row], classes: bytecode.Classes) -> dict[str, list[Row]]:
    """Of the mutants to judge that are one program, the first is judged; the others are
    marked `same_as` it and get its outcome afterwards. Returns judged key → the others."""
    first_of: dict[str, Row] = {}
    followers: dict[str, list[Row]] = defaultdict(list)
    for row in runnable:
        program = classes.same_as.get(row.mutant.key, row.mutant.key)
        judged = first_of.setdefault(program, row)
        if judged is not row:
            row.same_as = judged.mutant.key
            followers[judged.mutant.key].append(row)
    return followers


def unseen_tests(
    root: Path,
    source_root: Path,
    sources: dict[Path, str],
    durations: dict[str, float],
    test_files: str | None,
) -> dict[Path, set[str]]:
    """Per mutated file, the tests an import-time mutant no test is credited with runs
    against (beyond those that ran a line of the file): with --test-files, every test of
    that set — the user named the tests that judge these files; without, the tests of the
    files that import the module directly (linemap.importing_tests says why not all)."""
    if test_files:
        globs = test_files.split(",")
        # A cached map may hold more tests than the set (from an earlier run without it).
        chosen = {t for t in durations if any(fnmatch(t.split("::", 1)[0], g) for g in globs)}
        return {path: chosen for path in sources}
    return {
        path: linemap.importing_tests(
            root, preload.module_name(source_root, root / path), durations
        )
        for path in sources
    }


class Narrowing:
    """The readers of a module-level name (reads.py), for a mutant of the pure value bound
    to it: the tests of the lines that load it and of the test files that name it. None
    for any other mutant, or where reads.py cannot follow a use (then the fallback holds).
    `within`: the tests the fallback would choose, when the user named them
    (--test-files) — a reader outside that set is not added."""

    def __init__(
        self,
        root: Path,
        source_root: Path,
        tests_dir: Path,
        covmap: dict[str, Any],
        sources: dict[Path, str],
    ) -> None:
        self.root, self.source_root, self.tests_dir = root, source_root, tests_dir
        self.covmap = covmap
        self.sources = sources
        self.trees: dict[str, ast.Module] = {}
        self._index: reads.Index | None = None
        self._found: dict[tuple[str, tuple[str, ...]], tuple[reads.Readers, set[str]] | str] = {}
        self.narrowed = 0
        self.unread = 0  # read by no test: one test of a file that imports the module
        self._importers: dict[str, str | None] = {}
        self._top_graph: dict[str, set[str]] | None = None
        self.kept: dict[str, int] = defaultdict(int)  # why the fallback was kept → mutants

    def summary(self) -> str:
        """One line: how many module-level values were judged by their readers, and why
        the others kept the fallback ("" when there was no such mutant)."""
        kept = sum(self.kept.values())
        if not (self.narrowed or self.unread or kept):
            return ""
        why = "; ".join(
            f"{n}: {reason}" for reason, n in sorted(self.kept.items(), key=lambda kv: -kv[1])
        )
        return (
            f"module-level values: {self.narrowed} mutant(s) judged by the readers of their "
            f"name, {self.unread} read by no test by one test of a file importing the module "
            f"at its top, {kept} by the fallback" + (f" ({why})" if why else "")
        )

    def index(self) -> reads.Index:
        if self._index is None:
            self._index = reads.Index(
                self.root, self.source_root, self.tests_dir, self.covmap.get("import_lines", {})
            )
        return self._index

    def _binding(self, mutant: Mutant) -> tuple[str, tuple[str, ...], ast.Module] | None:
        """The module and the names of the pure module-level binding whose value holds
        the mutant (and the file's tree), or None when it is in no such value."""
        path = Path(mutant.path)
        source = self.sources[path]
        tree = self.trees.setdefault(mutant.path, ast.parse(source))
        last = source.count("\n", 0, mutant.span[1]) + 1
        names = reads.binding_of_mutant(tree, mutant.line, last)
        if names is None:
            return None
        return preload.module_name(self.source_root, self.root / path), names, tree

    def tests(self, mutant: Mutant) -> set[str] | None:
        binding = self._binding(mutant)
        if binding is None:
            return None
        module, names, _ = binding
        found = self._readers(module, names)
        if isinstance(found, str):
            self.kept[found] += 1
            return None
        result = found[1]
        if not result:
            # No line of any test reads it: the value is seen only if computing it raises,
            # when the module fails to import — in any test file importing it at the top.
            first = self._importer(module)
            if first is None:
                self.kept["no test reads it, and no test file imports it at the top"] += 1
                return None
            self.unread += 1
            return {first}
        self.narrowed += 1
        return set(result)

    def _readers(self, module: str, names: tuple[str, ...]) -> tuple[reads.Readers, set[str]] | str:
        """The readers of `names` and the tests that ran them, or why they are unknown."""
        key = (module, names)
        if key not in self._found:
            try:
                found = self.index().readers(module, names)
                tests = found.tests(self.covmap["files"], self.covmap["durations"])
                self._found[key] = (found, tests)
            except reads.Unfollowable as exc:
                self._found[key] = str(exc)
        return self._found[key]

    def global_patch(self, mutant: Mutant) -> patch_mod.GlobalPatch | str | None:
        """The fast path for a mutant of a module-level value (patch.GlobalPatch), why it
        cannot take it (a reason), or None when the mutant is not in such a value."""
        if not (mutant.import_time and mutant.fallback_lines is None):
            return None
        binding = self._binding(mutant)
        if binding is None:
            return None
        module, names, tree = binding
        path = Path(mutant.path)
        source = self.sources[path]
        found = self._readers(module, names)
        if isinstance(found, str):
            return "a module-level value whose readers are not all known"
        readers = found[0]
        if readers.computed:
            return "a module-level value another one is computed from at import"
        if readers.test_import_time:
            return "a module-level value a test file reads at import or collection"
        mutated = mutant.apply(source)
        code = patch_mod.value_code(mutated, str(self.root / path), mutant.line)
        if code is None:
            return "a module-level value not found in the mutated module"
        loads = set(code.co_names)  # the names the value reads (and attributes: harmless)
        why = patch_mod.bound_once(tree, (*names, *loads))
        if why is not None:
            return f"a module-level value: {why}"
        live = sys.modules.get(module)
        if live is None:
            return "the module is not imported by the suite"
        try:
            # The project's own mutated source, a pure value (reads.is_pure): running
            # mutated project code is what this tool is for.
            # contend: allow security -- evaluates the project's own mutated pure value
            value = eval(code, dict(live.__dict__))
        except Exception:  # contend: allow silent-fallback -- reported as the path's reason
            # The mutant breaks the module's import: the slow path judges that as it is.
            return "a module-level value the mutant makes raise"
        return patch_mod.GlobalPatch(module, names, value, readers.bound)

    def _importer(self, module: str) -> str | None:
        """The fastest test of the test files whose top level imports `module`, directly
        or through project modules that import it at their own top level."""
        if module not in self._importers:
            if self._top_graph is None:
                self._top_graph = _top_graph(self.source_root)
            reaching = _reaching(self._top_graph, module)
            durations: dict[str, float] = self.covmap["durations"]
            tests = [
                t
                for t in durations
                if _parents(_top_imports(self.root / t.split("::", 1)[0], None)) & reaching
            ]
            self._importers[module] = min(tests, key=lambda t: (durations[t], t), default=None)
        return self._importers[module]


@functools.cache
def _top_imports(path: Path, module: str | None) -> frozenset[str]:
    """The modules a file imports at its top level, through `if` and `try` blocks (what
    importing it imports), and `package.name` for `from package import name`; `module`:
    the file's own name, for its relative imports."""
    names: set[str] = set()
    for node in reads.module_statements(ast.parse(path.read_text(), str(path)).body):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = reads.absolute(module, path.name == "__init__.py", node.level, node.module)
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)
    return frozenset(names)


def _parents(names: Iterable[str]) -> set[str]:
    """Each name and its packages: importing `a.b.c` imports `a` and `a.b` first."""
    out: set[str] = set()
    for name in names:
        parts = name.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return out


def _top_graph(source_root: Path) -> dict[str, set[str]]:
    """module → the project modules importing it imports (its top level, its packages)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(source_root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        name = preload.module_name(source_root, path)
        graph[name] = _parents(_top_imports(path, name)) | _parents([name.rpartition(".")[0]])
    return graph


def _reaching(graph: dict[str, set[str]], module: str) -> set[str]:
    """`module` and every module whose import imports it."""
    seen = {module}
    grew = True
    while grew:
        grew = False
        for name, imports in graph.items():
            if name not in seen and imports & seen:
                seen.add(name)
                grew = True
    return seen


def select_all(
    mutants: Sequence[Mutant],
    covmap: dict[str, Any],
    unseen: dict[Path, set[str]],
    narrowing: Narrowing | None,
    named: bool,
    flaky: set[str],
) -> dict[str, set[str]]:
    """key → the tests selected for each mutant, less the flaky ones."""
    out: dict[str, set[str]] = {}
    for m in mutants:
        lines = covmap["files"].get(m.path, {})
        at_import = covmap.get("import_lines", {}).get(m.path, ())
        broad = linemap.select(m, lines, unseen[Path(m.path)], at_import) - flaky
        out[m.key] = broad
        if not (m.import_time and m.fallback_lines is None) or narrowing is None:
            continue
        narrow = narrowing.tests(m)
        if narrow is None:
            continue
        # In place of the fallback, the readers in the tests' own process (within the
        # named set); the tests credited with the line (its subprocess importers) stay.
        narrow = (narrow & broad if named else narrow) | linemap.credited(m, lines)
        narrow -= flaky
        if narrow:
            out[m.key] = narrow
    return out


def plan_paths(
    rows: Sequence[Row],
    sources: dict[Path, str],
    root: Path,
    source_root: Path,
    covmap: dict[str, Any],
    slow_only: bool,
    narrowing: Narrowing | None = None,
) -> Counter[str]:
    """Decides the path of each mutant: a patch for the fast path, or the reason it takes
    the slow one."""
    reasons: Counter[str] = Counter()
    filenames = {path: module_file(root, source_root, path) for path in sources}
    index = patch_mod.FunctionIndex(f for f in filenames.values() if f is not None)
    for row in rows:
        path = Path(row.mutant.path)
        filename = filenames[path]
        if slow_only:
            reasons["--slow-only"] += 1
            continue
        if filename is None:
            reasons["the module is not imported by the suite"] += 1
            continue
        import_lines = covmap.get("import_lines", {}).get(row.mutant.path)
        if import_lines is None:
            reasons["the line map has no import record of the file"] += 1
            continue
        plan = patch_mod.plan(row.mutant, sources[path], filename, import_lines)
        if isinstance(plan, str) and narrowing is not None:
            value = narrowing.global_patch(row.mutant)
            if isinstance(value, patch_mod.GlobalPatch):
                row.patch = value
                continue
            plan = value or plan
        if isinstance(plan, str):
            reasons[plan] += 1
        elif not index.has(plan.function):
            reasons["no live function object"] += 1
        else:
            row.patch = plan
    return reasons


def module_file(root: Path, source_root: Path, path: Path) -> str | None:
    """The file name the imported module's code objects carry, or None if not imported."""
    module = sys.modules.get(preload.module_name(source_root, root / path))
    origin = getattr(module, "__file__", None)
    return str(origin) if origin else None
