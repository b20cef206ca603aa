"""What the parent imports once, and what each mutant's child must import again.

The parent imports every module the test session imported — third-party ones and the
project's own — before it forks a child per mutant. A child then drops from `sys.modules`
the mutated module and every project module that imports it, directly or through others
(found statically, from the import statements anywhere in each file), and points the
project's packages at its private copy of the source tree, so exactly those are imported
again, from the copy, with the mutant in it. Everything else is shared, unchanged.

A module that imports by computed name (`importlib.import_module`, `__import__`) could
reach the mutated module without an import statement. When that import ran while the
module was imported (or the tests collected), the module may hold what it imported — a
table of the old module's objects — so it is always imported again, with everything that
imports it. When the line map shows the call never ran then (it is inside a function a
test calls), it runs in the child, after the purge, and finds the mutant by itself: such a
module is imported again only if it imports the mutated module by a statement. (Before
this, `contend/__init__.py` importing `contend.integrations.api`, whose `import_module`
runs only when called, made every module of the project a dependent of every mutant: each
slow-path child imported all ~270 of them again, from the copy — where a path computed
from `__file__`, such as the published schemas' directory, is the copy's.)
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from importlib import import_module
from pathlib import Path


def module_name(source_root: Path, path: Path) -> str:
    rel = path.relative_to(source_root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, target] if target else base)


class ImportGraph:
    """Who imports whom among the project's modules. `ran_at_import(path)` gives the lines
    of a file that ran while modules were imported or tests collected (the line map's
    import record), or None when unknown; without it every computed import counts."""

    def __init__(
        self,
        source_root: Path,
        ran_at_import: Callable[[Path], Collection[int] | None] | None = None,
    ) -> None:
        self.source_root = source_root
        self.ran_at_import = ran_at_import
        self.modules: dict[str, Path] = {}
        for path in sorted(source_root.rglob("*.py")):
            if "__pycache__" not in path.parts:
                self.modules[module_name(source_root, path)] = path
        self.imported_by: dict[str, set[str]] = defaultdict(set)
        self.dynamic: set[str] = set()
        for name, path in self.modules.items():
            for target in self._imports(name, path):
                self.imported_by[target].add(name)

    def _ran_at_import(self, path: Path, line: int) -> bool:
        if self.ran_at_import is None:
            return True
        ran = self.ran_at_import(path)
        return ran is None or line in ran

    def _with_parents(self, name: str) -> Iterable[str]:
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            candidate = ".".join(parts[:i])
            if candidate in self.modules:
                yield candidate

    def _imports(self, name: str, path: Path) -> set[str]:
        is_package = path.name == "__init__.py"
        # Importing a module imports its packages first.
        found = set(self._with_parents(name.rpartition(".")[0])) if "." in name else set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found.update(self._with_parents(alias.name))
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, is_package, node.level, node.module)
                found.update(self._with_parents(base))
                for alias in node.names:
                    found.update(self._with_parents(f"{base}.{alias.name}"))
            elif isinstance(node, ast.Call):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if called in ("import_module", "__import__") and self._ran_at_import(
                    path, node.lineno
                ):
                    self.dynamic.add(name)
        found.discard(name)
        return found

    def dependents(self, name: str) -> set[str]:
        """`name`, every module that imports it directly or transitively, and every module
        that imports by computed name (with what imports those)."""
        seen: set[str] = set()
        todo = [name, *self.dynamic]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            todo.extend(self.imported_by.get(current, ()))
        return seen


def preload(names: Iterable[str]) -> tuple[int, list[str]]:
    """Import modules once in the parent, so forked children share them."""
    loaded, failed = 0, []
    for name in names:
        try:
            import_module(name)
            loaded += 1
        except Exception:  # contend: allow silent-fallback -- a speed-up only; failures are listed
            failed.append(name)
    return loaded, failed


def isolate(purge: Iterable[str], project: Iterable[str], overlay: Path) -> None:
    """In a child: forget the modules that must see the mutant, and make the project's
    packages find submodules in `overlay` from now on."""
    for name in purge:
        module = sys.modules.pop(name, None)
        if module is None:
            continue
        parent, _, leaf = name.rpartition(".")
        package = sys.modules.get(parent) if parent else None
        # `from package import leaf` must not find the old module as an attribute.
        if package is not None and getattr(package, leaf, None) is module:
            delattr(package, leaf)
    for name in project:
        module = sys.modules.get(name)
        if module is not None and hasattr(module, "__path__"):
            module.__path__ = [str(overlay.joinpath(*name.split(".")))]
