"""Who can read a module-level name: a narrower, sound selection for import-time mutants.

A mutant in the value of a module-level binding (`NAME = …`, `NAME: T = …`) changes only
what NAME holds, when the value has no side effect (no call but a few pure builtins).
The value runs at import, so coverage credits it to no test, and the fallback selection
runs every test of the named files or of the direct importers (linemap.select). Yet only
code that *loads* NAME can see it:

- in the module itself, a load of NAME in a function body: the tests that ran that line;
- elsewhere, `from m import NAME [as x]` then loads of x, or `m.NAME` through an import of
  m (at any depth of the dotted path): the same, in the project's source files;
- a test file that imports or loads it, or holds the string "NAME" (`getattr`,
  `monkeypatch.setattr`, `mock.patch("m.NAME")`): every test of that file;
- a load at import time that binds another module-level name with a pure value
  (`OTHER = NAME | {…}`), or a re-export (`from m import NAME` in a package): the readers of
  that name too.

Anything this cannot follow raises Unfollowable — the caller keeps the broad selection: a
load at import time of any other kind (a class body, a default, a decorator, an
annotation, which pydantic and `get_type_hints` evaluate later), a load in a function
that ran at import or collection (its result may be cached), a module object that
escapes (`vars(m)`, `getattr(m, x)`, a package passed around), a star import, a module
that reads its own namespace (`globals()`, `vars()`, `eval`, `exec`, a module
`__getattr__`), the string "NAME" (or ending in ".NAME", ":NAME") outside a test file,
the module's dotted name as a string in a file that looks names up by a variable or lists
them, the name in a data file of the checkout (DATA_SUFFIXES: a registry of `module:attr`
strings), a module imported by a computed name whose names are listed or built. A
function's own variable of the same name is not a read (`_shadowed`). The tool's other
assumption is kept as it is for every mutant: a test that runs no line that reads the
value cannot tell it changed.
"""

from __future__ import annotations

import ast
import functools
import re
import subprocess
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Calls whose result depends on their arguments only, with no effect elsewhere.
PURE_CALLS = frozenset(
    {
        "frozenset",
        "set",
        "tuple",
        "list",
        "dict",
        "len",
        "sorted",
        "range",
        "int",
        "str",
        "float",
        "bool",
        "bytes",
        "enumerate",
        "zip",
        "re.compile",
        "MappingProxyType",
        "types.MappingProxyType",
    }
)
# Without arguments, they read the namespace of the module that calls them.
_OWN_NAMESPACE = frozenset({"globals", "vars", "locals", "dir"})
_COMPUTED_IMPORT = frozenset({"import_module", "importlib.import_module", "__import__"})
# They list an object's names: any module they are handed may be read name by name.
_ENUMERATE = frozenset({"vars", "dir", "inspect.getmembers", "getmembers"})
# Data a program may read a `module:NAME` from (a registry, a configuration); not the
# documentation (.md, .html), which names classes and constants for people.
DATA_SUFFIXES = frozenset(
    {".toml", ".json", ".jsonl", ".yaml", ".yml", ".cfg", ".ini", ".txt", ".csv"}
)
_SKIP_DIRS = frozenset({".git", ".venv", "venv", "node_modules", "__pycache__", ".agents-node"})


def dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def is_pure(node: ast.expr) -> bool:
    """An expression whose evaluation changes nothing but its own value."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.NamedExpr | ast.Await | ast.Yield | ast.YieldFrom):
            return False
        if isinstance(sub, ast.Call) and dotted(sub.func) not in PURE_CALLS:
            return False
    return True


def binding_of(tree: ast.Module, line: int) -> tuple[str, ...] | None:
    """The names bound by the module-level simple assignment whose value holds `line`, if
    its value is pure; None when the line is anything else."""
    for stmt in module_statements(tree.body):
        value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
        if value is None or not value.lineno <= line <= (value.end_lineno or value.lineno):
            continue
        assert isinstance(stmt, ast.Assign | ast.AnnAssign)
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if not all(isinstance(t, ast.Name) for t in targets) or not is_pure(value):
            return None
        return tuple(t.id for t in targets if isinstance(t, ast.Name))
    return None


def module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, through `if` and `try` blocks (still module level)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from module_statements(stmt.body)
            yield from module_statements(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            for block in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse):
                yield from module_statements(block)
            yield from module_statements(stmt.finalbody)


class Unfollowable(Exception):
    """A use of the name this cannot follow: keep the broad selection."""


@dataclass
class _File:
    """One Python file, indexed by the identifiers a read of a name can go through."""

    rel: str
    tree: ast.Module
    module: str | None  # its module name, for a file under the source root
    is_package: bool
    parents: dict[int, ast.AST] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)  # local name → dotted path
    by_target: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    names: dict[str, list[ast.Name]] = field(default_factory=lambda: defaultdict(list))
    attrs: dict[str, list[ast.Attribute]] = field(default_factory=lambda: defaultdict(list))
    # (absolute base module, imported name, local name) of every `from … import …`
    froms: dict[str, list[tuple[str, str]]] = field(default_factory=lambda: defaultdict(list))
    objects: dict[str, list[ast.expr]] = field(default_factory=lambda: defaultdict(list))
    star_from: set[str] = field(default_factory=set)
    own_namespace: bool = False  # globals(), vars(), eval, exec, a module __getattr__
    computed_import: bool = False
    enumerates: bool = False  # vars(x), dir(x), x.__dict__, getattr(x, f"…")
    attr_by_variable: bool = False  # getattr(x, name): a name held in a variable
    # every string constant (but those of __all__), by itself and by its last segment
    strings: dict[str, int] = field(default_factory=dict)
    tails: dict[str, int] = field(default_factory=dict)

    def resolve(self, node: ast.expr) -> str | None:
        path = dotted(node)
        if path is None:
            return None
        head, _, rest = path.partition(".")
        if head not in self.aliases:
            return None
        full = self.aliases[head]
        return f"{full}.{rest}" if rest else full


def _parse(rel: str, text: str, module: str | None, is_package: bool) -> _File:
    tree = ast.parse(text, rel)
    f = _File(rel, tree, module, is_package)
    in_all: set[int] = set()
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            f.parents[id(child)] = node
        if isinstance(node, ast.Import):
            for a in node.names:
                local = a.asname or a.name.split(".")[0]
                f.aliases[local] = a.name if a.asname else local
        elif isinstance(node, ast.ImportFrom):
            base = absolute(module, is_package, node.level, node.module)
            for a in node.names:
                if a.name == "*":
                    f.star_from.add(base)
                    continue
                f.aliases[a.asname or a.name] = f"{base}.{a.name}" if base else a.name
                f.froms[a.name].append((base, a.asname or a.name))
        elif isinstance(node, ast.Call):
            name = dotted(node.func)
            if name in ("eval", "exec") or (name in _OWN_NAMESPACE and not node.args):
                f.own_namespace = True
            if name in _COMPUTED_IMPORT and not (
                node.args and isinstance(node.args[0], ast.Constant)
            ):
                f.computed_import = True
            if name in _ENUMERATE and node.args:
                f.enumerates = True
            if name in ("getattr", "hasattr") and len(node.args) > 1:
                if isinstance(node.args[1], ast.JoinedStr | ast.BinOp | ast.Call):
                    f.enumerates = True  # an attribute name built from pieces
                elif not isinstance(node.args[1], ast.Constant):
                    f.attr_by_variable = True
        elif isinstance(node, ast.Attribute) and node.attr == "__dict__":
            f.enumerates = True
        elif isinstance(node, ast.Subscript) and dotted(node.value) == "sys.modules":
            f.computed_import = True
        elif (
            isinstance(node, ast.FunctionDef)
            and node.name in ("__getattr__", "__dir__")
            and node in tree.body
        ):
            f.own_namespace = True
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            in_all.update(id(n) for n in ast.walk(node.value))
    for local, target in f.aliases.items():
        f.by_target[target].append(local)
    shadows: dict[int, frozenset[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in in_all:
                f.strings.setdefault(node.value, node.lineno)
                tail = re.split(r"[.:]", node.value)[-1]
                if tail != node.value:
                    f.tails.setdefault(tail, node.lineno)
        elif isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load):
            root: ast.expr = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and _shadowed(f, root, shadows):
                continue  # a function's own variable of that name, not the module's
            if isinstance(node, ast.Name):
                f.names[node.id].append(node)
            else:
                f.attrs[node.attr].append(node)
            parent = f.parents.get(id(node))
            if not (isinstance(parent, ast.Attribute) and parent.value is node):
                full = f.resolve(node)
                if full is not None:
                    f.objects[full].append(node)
    return f


_Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


def _shadowed(f: _File, name: ast.Name, shadows: dict[int, frozenset[str]]) -> bool:
    """Whether `name` is a variable of an enclosing function (a parameter, or assigned
    there and not by an import, and not declared global): then it is not the module's."""
    child: ast.AST = name
    while id(child) in f.parents:
        parent = f.parents[id(child)]
        if isinstance(parent, _Scope):
            in_body = (
                child is parent.body
                if isinstance(parent, ast.Lambda)
                else any(child is s for s in parent.body)
            )
            if in_body:
                if id(parent) not in shadows:
                    shadows[id(parent)] = _locals(parent)
                if name.id in shadows[id(parent)]:
                    return True
        child = parent
    return False


def _locals(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> frozenset[str]:
    """The names only this function binds: its parameters and what it assigns, less what
    it also imports (an import binds the module's name: followed, not shadowing) or
    declares global or nonlocal."""
    a = fn.args
    params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x)]
    bound = {p.arg for p in params}
    imported: set[str] = set()
    declared: set[str] = set()
    body: list[ast.AST] = [fn.body] if isinstance(fn, ast.Lambda) else list(fn.body)
    while body:
        node = body.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            imported.update((x.asname or x.name).split(".")[0] for x in node.names)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
            body.extend(node.decorator_list)
            if not isinstance(node, ast.ClassDef):
                body.extend(d for d in (*node.args.defaults, *node.args.kw_defaults) if d)
            continue  # its body is its own scope
        if isinstance(node, ast.Lambda):
            body.extend(node.args.defaults)
            continue
        body.extend(ast.iter_child_nodes(node))
    return frozenset(bound - imported - declared)


def absolute(module: str | None, is_package: bool, level: int, target: str | None) -> str:
    if level == 0 or module is None:
        return target or ""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    base = ".".join(parts)
    return f"{base}.{target}" if target else base


@dataclass(frozen=True)
class Readers:
    lines: dict[str, list[tuple[int, int]]]  # source file → line ranges that read the name
    test_files: frozenset[str]  # test files that may read it (every test of them)
    # Where the value is bound under a name at import: (file, name) — the module's own
    # binding, every `from m import NAME [as x]` (re-exports and test files included).
    bound: frozenset[tuple[str, str]] = frozenset()
    # A module-level value computed from it at import (`OTHER = NAME | {…}`): it holds
    # the original's result until the module is imported again.
    computed: bool = False
    # A test file reads it at import or collection (a module-level line, a decorator such
    # as `parametrize`, a default, a class body): collected once, it keeps the original.
    test_import_time: bool = False

    def tests(
        self, covmap_files: dict[str, dict[str, list[str]]], all_tests: Iterable[str]
    ) -> set[str]:
        found: set[str] = set()
        for rel, ranges in self.lines.items():
            by_line = covmap_files.get(rel, {})
            for first, last in ranges:
                for line in range(first, last + 1):
                    found.update(by_line.get(str(line), ()))
        found.update(t for t in all_tests if t.split("::", 1)[0] in self.test_files)
        return found


class Index:
    """Every Python file of the checkout parsed once; where a module-level name is read."""

    def __init__(
        self,
        root: Path,
        source_root: Path,
        tests_dir: Path,
        import_lines: dict[str, list[int]],
    ) -> None:
        self.root = root
        self.tests_dir = tests_dir
        self.import_lines = {p: set(v) for p, v in import_lines.items()}
        self.files: list[_File] = []
        self.by_module: dict[str, _File] = {}
        self.text: list[str] = []  # the checkout's data files (DATA_SUFFIXES)
        for path in checkout_files(root):
            rel = path.relative_to(root).as_posix()
            if path.suffix == ".py":
                module = None
                if path.is_relative_to(source_root):
                    module = _module_name(source_root, path)
                try:
                    f = _parse(rel, path.read_text(), module, path.name == "__init__.py")
                except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
                    raise Unfollowable(f"{rel} does not parse: {exc}") from None
                self.files.append(f)
                if module is not None:
                    self.by_module[module] = f
            elif path.suffix in DATA_SUFFIXES and not path.is_relative_to(HERE):
                # (this tool's own list of equivalent mutants names them by their keys)
                try:
                    self.text.append(path.read_text())
                # contend: allow silent-fallback -- a binary file (an image) holds no name
                # a program looks up; it is not text to search
                except UnicodeDecodeError:
                    continue

    def is_test_file(self, f: _File) -> bool:
        name = f.rel.rsplit("/", 1)[-1]
        return (self.root / f.rel).is_relative_to(self.tests_dir) and (
            name.startswith("test_") or name.endswith("_test.py")
        )

    @functools.cache  # noqa: B019 -- one index per run, alive for the run
    def _in_text_files(self, name: str) -> bool:
        word = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
        return any(word.search(text) for text in self.text)

    def readers(self, module: str, names: Iterable[str]) -> Readers:
        """Where the module-level `names` of `module` can be read; Unfollowable if not known."""
        walk = _Walk()
        todo = [(module, n) for n in names]
        seen: set[tuple[str, str]] = set()
        while todo:
            pair = todo.pop()
            if pair not in seen:
                seen.add(pair)
                todo.extend(self._one(*pair, walk))
        unique = {rel: sorted(set(ranges)) for rel, ranges in walk.lines.items()}
        return Readers(
            unique,
            frozenset(walk.test_files),
            frozenset(walk.bound),
            walk.computed,
            walk.test_import_time,
        )

    def _one(self, module: str, name: str, walk: _Walk) -> list[tuple[str, str]]:
        lines, test_files = walk.lines, walk.test_files
        owner = self.by_module.get(module)
        if owner is None:
            raise Unfollowable(f"{module} is not a source module")
        if owner.own_namespace:
            raise Unfollowable(f"{module} reads its own namespace")
        if self._in_text_files(name):
            raise Unfollowable(f"{name} is named in a data file")
        holders = {module, *_prefixes(module)}
        target = f"{module}.{name}"
        derived: list[tuple[str, str]] = []
        walk.bound.add((owner.rel, name))
        for f in self.files:
            test = self.is_test_file(f)
            found: list[ast.expr] = []
            why = _dynamic(f, module, name, holders, test)
            if why is not None:
                if not test:
                    raise Unfollowable(f"{f.rel}: {why}")
                test_files.add(f.rel)  # whatever a test file does is seen by its tests
                walk.test_import_time |= _mentioned_at_import(f, {name, *f.by_target[target]})
                continue
            for base, local in f.froms.get(name, ()):
                if base == module:
                    walk.bound.add((f.rel, local))
                    if test:
                        test_files.add(f.rel)
                    elif f.module is not None:
                        derived.append((f.module, local))  # a re-export: its readers too
                    else:
                        raise Unfollowable(f"{f.rel} imports {target}")
            if f is owner:
                found += f.names.get(name, [])
            for local in f.by_target.get(target, ()):
                found += f.names.get(local, [])
            for attr in f.attrs.get(name, ()):
                # `m.NAME`, or `.NAME` on what is not known to be another module
                resolved = f.resolve(attr.value)
                if resolved is None or resolved == module:
                    found.append(attr)
            if test and found:
                test_files.add(f.rel)
            if test and f.rel in test_files:
                walk.test_import_time |= _mentioned_at_import(f, {name, *f.by_target[target]})
            if not found or test:
                continue
            if f.module is None:
                raise Unfollowable(f"{f.rel}:{found[0].lineno}: read outside src and tests")
            for node in found:
                computed = self._read_at(f, node, lines)
                walk.computed |= bool(computed)
                derived += computed
        return derived

    def _read_at(
        self, f: _File, node: ast.expr, lines: dict[str, list[tuple[int, int]]]
    ) -> list[tuple[str, str]]:
        """Records where a source file reads the name; returns the module-level names
        bound from it at import (whose readers are readers too)."""
        child: ast.AST = node
        stmt: ast.stmt | None = None
        while id(child) in f.parents:
            parent = f.parents[id(child)]
            if isinstance(child, ast.stmt) and stmt is None:
                stmt = child
            if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
                if any(child is s for s in parent.body):
                    return self._in_body(f, stmt, node, lines)
                raise Unfollowable(f"{f.rel}:{node.lineno}: read where {parent.name} is defined")
            if isinstance(parent, ast.Lambda) and child is parent.body:
                return self._in_body(f, stmt, node, lines)
            if isinstance(parent, ast.arg | ast.AnnAssign) and parent.annotation is child:
                raise Unfollowable(f"{f.rel}:{node.lineno}: read in an annotation")
            if isinstance(parent, ast.ClassDef):
                raise Unfollowable(f"{f.rel}:{node.lineno}: read in a class body")
            child = parent
        names = binding_of(f.tree, node.lineno)
        if f.module is None or names is None or not isinstance(stmt, ast.Assign | ast.AnnAssign):
            raise Unfollowable(f"{f.rel}:{node.lineno}: read at import")
        return [(f.module, n) for n in names]

    def _in_body(
        self,
        f: _File,
        stmt: ast.stmt | None,
        node: ast.expr,
        lines: dict[str, list[tuple[int, int]]],
    ) -> list[tuple[str, str]]:
        first = stmt.lineno if stmt is not None else node.lineno
        last = node.end_lineno or node.lineno
        ran = self.import_lines.get(f.rel, set())
        if any(line in ran for line in range(first, last + 1)):
            raise Unfollowable(f"{f.rel}:{node.lineno}: read by code that ran at import")
        lines[f.rel].append((first, last))
        return []


@dataclass
class _Walk:
    """What following the readers of one value has found so far (see Readers)."""

    lines: dict[str, list[tuple[int, int]]] = field(default_factory=lambda: defaultdict(list))
    test_files: set[str] = field(default_factory=set)
    bound: set[tuple[str, str]] = field(default_factory=set)
    computed: bool = False
    test_import_time: bool = False


def _mentioned_at_import(f: _File, names: set[str]) -> bool:
    """Whether code of `f` that runs at import or collection (outside every function and
    lambda body) names any of `names`: as a name, an attribute, or a string (whole, or
    its last `.`/`:` segment — `getattr`, `mock.patch("m.NAME")`)."""
    todo: list[ast.AST] = [f.tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            # its decorators, defaults and annotations run at import; its body does not
            todo.extend(node.decorator_list)
            todo.extend(d for d in (*node.args.defaults, *node.args.kw_defaults) if d)
            continue
        if isinstance(node, ast.Lambda):
            todo.extend(node.args.defaults)
            continue
        if isinstance(node, ast.Name) and node.id in names:
            return True
        if isinstance(node, ast.Attribute) and node.attr in names:
            return True
        if isinstance(node, ast.alias) and (node.asname or node.name) in names:
            continue  # the import binds it; binding is not reading
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and (node.value in names or re.split(r"[.:]", node.value)[-1] in names)
        ):
            return True
        todo.extend(ast.iter_child_nodes(node))
    return False


def _dynamic(f: _File, module: str, name: str, holders: set[str], test: bool) -> str | None:
    """Why `f` may read `module.name` in a way no load shows, or None. A module got by
    name (`import_module`) is read through `.attr` (a load of the name, followed),
    through `getattr(m, "NAME")` (the string, below), or through a name in a variable:
    from a string of the code or a data file (both searched) — what is left is a name
    listed (`vars`, `dir`, `__dict__`) or built from pieces, and in a test file any
    variable name (its tests are cheap to add)."""
    if module in f.star_from:
        return f"from {module} import *"
    for holder in holders:
        if holder in f.objects:
            return f"line {f.objects[holder][0].lineno}: {holder} used as an object"
    lookup = f.enumerates or f.attr_by_variable
    if f.computed_import and (f.enumerates or (test and f.attr_by_variable)):
        return "a module imported by a computed name, its names listed or looked up"
    if module in f.strings and (test or lookup):
        return f"line {f.strings[module]}: the string {module!r}, and names looked up"
    if name in f.strings:
        return f"line {f.strings[name]}: the string {name!r}"
    if name in f.tails:
        return f"line {f.tails[name]}: a string ending in {name!r}"
    return None


def binding_of_mutant(tree: ast.Module, line: int, span_end_line: int) -> tuple[str, ...] | None:
    """The names a module-level mutant at `line` rebinds, when all of it is in one pure
    simple assignment's value."""
    names = binding_of(tree, line)
    if names is None or binding_of(tree, span_end_line) != names:
        return None
    return names


def checkout_files(root: Path) -> list[Path]:
    """The checkout's files as git sees them (tracked, or new and not ignored); every file
    but environments and caches where it is not a git checkout."""
    done = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=False,
    )
    if done.returncode == 0:
        names = [n for n in done.stdout.decode().split("\0") if n]
        return [root / n for n in sorted(set(names)) if (root / n).is_file()]
    return sorted(_walk(root))


def _prefixes(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _module_name(source_root: Path, path: Path) -> str:
    parts = list(path.relative_to(source_root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _walk(root: Path) -> Iterator[Path]:
    for path in root.iterdir():
        if path.name in _SKIP_DIRS or path.name.startswith("."):
            continue
        if path.is_dir():
            yield from _walk(path)
        elif path.is_file():
            yield path
