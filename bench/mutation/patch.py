"""Putting a mutant into an already imported module: the fast path.

A mutant inside a function body changes only that function's code object. The runner's
parent has imported every project module and collected the whole test suite once; for
such a mutant a forked child swaps the mutated code object into the live function
object(s) (`function.__code__ = …`) and runs the selected tests — no re-import of the
project and no collection per mutant. Every reference to the function (imported names,
bound methods, dispatch tables, decorators' wrappers) sees the mutant, because they all
hold the same function object.

A mutant is *patchable* when it lies in a function defined at import time (at module
level or in a class body, possibly under an `if`/`try`) and:
- the edit is in the body, or is a default argument value (then `__defaults__` /
  `__kwdefaults__` is patched instead);
- the function never ran while modules were imported or tests collected (its lines carry
  no "<import>" context in the line map): a value computed then (a module constant, a
  cache, a parametrize list) would keep the original's result;
- the mutated code needs the same closure cells as the original (removing a `super()`
  call can drop the `__class__` cell: such a mutant takes the slow path).

A module-level value is patchable too (`GlobalPatch`) when reads.py found every reader
of its name: a pure value (`NAME = …`, no call but a few pure builtins), bound once,
read only where a function body runs (or in a test), never computed into another
module-level value, and never read by a test file at import or collection. Then the
value is computed again from the mutated expression and rebound wherever it is bound
under a name (the module, each `from m import NAME [as x]`): every reader looks the name
up when it runs, so it sees the mutant as it would after a re-import.

Everything else (class-level code, values read at import, defaults of nested functions)
takes the slow path: a child imports the mutated module, and all that import it, again.
"""

from __future__ import annotations

import ast
import functools
import gc
import types
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from mutate import Mutant

FunctionKey = tuple[str, str, int]  # (file name, qualified name, first line)


@dataclass(frozen=True, slots=True)
class Patch:
    """What a child changes in the live interpreter to put one mutant in."""

    function: FunctionKey
    code: types.CodeType | None = None  # the whole function's mutated code, or
    default: tuple[str, int | str, object] | None = None  # ("pos", i, v) / ("kw", name, v)


@dataclass(frozen=True, slots=True)
class GlobalPatch:
    """What a child rebinds to put a mutant of a module-level value in."""

    module: str  # the module that binds the value
    names: tuple[str, ...]  # the names its assignment binds
    # The mutated value, computed once when the run is planned, in the process every
    # child is forked from (its module's namespace there is the one the child has).
    value: object
    bound: frozenset[tuple[str, str]]  # (file, name): every binding of it at import

    @property
    def function(self) -> FunctionKey:
        # What run.py reports as the patched object; no function is patched.
        return ("", f"{self.module}.{self.names[0]}", 0)


def value_code(mutated_source: str, filename: str, line: int) -> types.CodeType | None:
    """The mutated value of the module-level assignment whose value holds `line`,
    compiled on its own; None when the line is in no such value."""
    tree = ast.parse(mutated_source, filename)
    for stmt in _module_statements(tree.body):
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
            value = stmt.value
            if value.lineno <= line <= (value.end_lineno or value.lineno):
                return compile(ast.Expression(value), filename, "eval", dont_inherit=True)
    return None


def bound_once(tree: ast.Module, names: Iterable[str]) -> str | None:
    """Why re-evaluating a value of `names` in the module's final namespace would not give
    what an import computes (None when it would): a name bound more than once at module
    level (a later statement may rebind or extend it), or declared global in a function,
    or deleted."""
    wanted = set(names)
    count: dict[str, int] = defaultdict(int)
    for stmt in _module_statements(tree.body):
        for name in _binds(stmt):
            count[name] += 1
    for node in ast.walk(tree):
        if isinstance(node, ast.Global) and wanted & set(node.names):
            return f"{sorted(wanted & set(node.names))[0]} is declared global in a function"
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Del) and node.id in wanted:
            return f"{node.id} is deleted"
    again = sorted(n for n in wanted if count[n] > 1)
    return f"{again[0]} is bound more than once at module level" if again else None


def _binds(stmt: ast.stmt) -> Iterator[str]:
    """The module-level names one statement binds (not those of nested blocks)."""
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = list(stmt.targets)
    elif isinstance(stmt, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
        targets = [stmt.target]
    elif isinstance(stmt, ast.With | ast.AsyncWith):
        targets = [i.optional_vars for i in stmt.items if i.optional_vars is not None]
    elif isinstance(stmt, ast.Import | ast.ImportFrom):
        for a in stmt.names:
            yield (a.asname or a.name).split(".")[0]
    elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield stmt.name
    for target in targets:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                yield node.id
    for node in _own_expressions(stmt):
        for sub in ast.walk(node):
            if isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
                yield sub.target.id


def _own_expressions(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The expressions of a statement itself, not of the blocks it holds."""
    for name, value in ast.iter_fields(stmt):
        if name in ("body", "orelse", "finalbody", "handlers"):
            continue
        if isinstance(value, ast.AST):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, ast.AST))


def _module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, through `if`, `try` and `with` blocks."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If | ast.Try | ast.With):
            for block in _blocks(stmt):
                yield from _module_statements(block)


def apply_global(patch: GlobalPatch, modules: Iterable[types.ModuleType]) -> int:
    """Puts a value mutant in: rebinds the mutated value wherever the original is bound
    at import. Returns how many bindings changed (0: the module is not loaded)."""
    by_file: dict[str, types.ModuleType] = {}
    for module in modules:
        origin = getattr(module, "__file__", None)
        if isinstance(origin, str):
            by_file[origin] = module
    owner = next((m for m in by_file.values() if m.__name__ == patch.module), None)
    if owner is None:
        return 0
    originals = [owner.__dict__[n] for n in patch.names if n in owner.__dict__]
    changed = 0
    for origin, module in by_file.items():
        for rel, name in patch.bound:
            if not origin.endswith("/" + rel) and origin != rel:
                continue
            # Only the binding that holds the original object: a module may bind the
            # same name to something else.
            if name in module.__dict__ and any(module.__dict__[name] is o for o in originals):
                setattr(module, name, patch.value)
                changed += 1
    return changed


def _defined_functions(
    tree: ast.Module,
) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    """Functions whose `def` runs at import: at module level or in class bodies, under
    any `if`/`try`/`with` — with their qualified names."""

    def walk(
        body: list[ast.stmt], prefix: str
    ) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
        for stmt in body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                yield stmt, prefix + stmt.name
            elif isinstance(stmt, ast.ClassDef):
                yield from walk(stmt.body, f"{prefix}{stmt.name}.")
            elif isinstance(stmt, ast.If | ast.Try | ast.With):
                for block in _blocks(stmt):
                    yield from walk(block, prefix)

    yield from walk(tree.body, "")


def _blocks(stmt: ast.If | ast.Try | ast.With) -> list[list[ast.stmt]]:
    if isinstance(stmt, ast.If):
        return [stmt.body, stmt.orelse]
    if isinstance(stmt, ast.With):
        return [stmt.body]
    return [stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody]


def _first_line(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    # A decorated function's code starts at its first decorator (3.11).
    return min([fn.lineno, *(d.lineno for d in fn.decorator_list)])


class _Lines:
    def __init__(self, source: str) -> None:
        self.starts = [0]
        for line in source.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, line: int, byte_col: int, source: str) -> int:
        start = self.starts[line - 1]
        text = source[start : self.starts[line]] if line < len(self.starts) else source[start:]
        return start + len(text.encode("utf-8")[:byte_col].decode("utf-8"))


def _span(node: ast.AST, lines: _Lines, source: str) -> tuple[int, int]:
    return (
        lines.offset(node.lineno, node.col_offset, source),  # type: ignore[attr-defined]
        lines.offset(node.end_lineno, node.end_col_offset, source),  # type: ignore[attr-defined]
    )


def _find_code(code: types.CodeType, qualname: str, first: int) -> types.CodeType | None:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_qualname == qualname and const.co_firstlineno == first:
                return const
            # Functions are found under the module's code and class bodies' code only.
            if "<locals>" not in const.co_qualname and const.co_name[:1] != "<":
                inner = _find_code(const, qualname, first)
                if inner is not None:
                    return inner
    return None


def plan(
    mutant: Mutant,
    source: str,
    filename: str,
    import_lines: Iterable[int],
) -> Patch | str:
    """The patch that puts `mutant` into the live module, or why it cannot (a reason)."""
    lines, functions = _parsed(source)
    start, end = mutant.span
    ran_at_import = set(import_lines)
    for fn, qualname in functions:
        fn_start, fn_end = _span(fn, lines, source)
        if not (fn_start <= start and end <= fn_end):
            continue
        key: FunctionKey = (filename, qualname, _first_line(fn))
        body_start = _span(fn.body[0], lines, source)[0]
        last = fn.end_lineno or fn.lineno
        # The `def` line itself runs at import; a line of the body must not.
        if ran_at_import & set(range(fn.body[0].lineno, last + 1)):
            return "the function runs at import or collection"
        if start >= body_start:
            return _body_patch(mutant, source, filename, key)
        return _default_patch(mutant, fn, key, lines, source)
    return "not inside a function defined at import"


@functools.lru_cache(maxsize=8)
def _parsed(
    source: str,
) -> tuple[_Lines, list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]]:
    """Parsed once per file, not once per mutant (the mutants of a file come in a row)."""
    return _Lines(source), list(_defined_functions(ast.parse(source)))


@functools.lru_cache(maxsize=8)
def _compiled(source: str, filename: str) -> types.CodeType:
    return compile(source, filename, "exec", dont_inherit=True)


def _body_patch(mutant: Mutant, source: str, filename: str, key: FunctionKey) -> Patch | str:
    original = _find_code(_compiled(source, filename), key[1], key[2])
    mutated_module = compile(mutant.apply(source), filename, "exec", dont_inherit=True)
    mutated = _find_code(mutated_module, key[1], key[2])
    if original is None or mutated is None:
        return "its code object was not found"
    if mutated.co_freevars != original.co_freevars:
        return "the mutant changes the function's closure cells"
    return Patch(key, code=mutated)


def _default_patch(
    mutant: Mutant,
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    key: FunctionKey,
    lines: _Lines,
    source: str,
) -> Patch | str:
    if mutant.operator != "default":
        return "an edit in the signature other than a default value"
    value = ast.literal_eval(mutant.replacement)
    args = fn.args
    for i, node in enumerate(args.defaults):
        if _span(node, lines, source) == mutant.span:
            return Patch(key, default=("pos", i, value))
    for arg, node in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if node is not None and _span(node, lines, source) == mutant.span:
            return Patch(key, default=("kw", arg.arg, value))
    return "a default value that was not found"


class FunctionIndex:
    """The live function objects of the project's modules, by (file, qualname, line)."""

    def __init__(self, filenames: Iterable[str]) -> None:
        wanted = set(filenames)
        self.functions: dict[FunctionKey, list[types.FunctionType]] = defaultdict(list)
        for obj in gc.get_objects():
            if isinstance(obj, types.FunctionType):
                code = obj.__code__
                if code.co_filename in wanted:
                    key = (code.co_filename, code.co_qualname, code.co_firstlineno)
                    self.functions[key].append(obj)

    def has(self, key: FunctionKey) -> bool:
        return bool(self.functions.get(key))

    def apply(self, patch: Patch) -> int:
        """Puts the mutant in; returns how many function objects it changed."""
        targets = self.functions.get(patch.function, [])
        for fn in targets:
            if patch.code is not None:
                fn.__code__ = patch.code
            elif patch.default is not None:
                kind, where, value = patch.default
                if kind == "pos":
                    assert isinstance(where, int) and fn.__defaults__ is not None
                    values = list(fn.__defaults__)
                    values[where] = value
                    fn.__defaults__ = tuple(values)
                else:
                    assert isinstance(where, str) and fn.__kwdefaults__ is not None
                    fn.__kwdefaults__ = {**fn.__kwdefaults__, where: value}
        return len(targets)
