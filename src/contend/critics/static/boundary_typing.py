"""The `boundary-typing` topic for Python: the change erodes a type or validation boundary.

Rules (severity per base.py's mapping):
    validation-guard-removed        major  `if ...: raise TypeError/ValueError` or
                                           `assert isinstance` gone from a function
    isinstance-replaced-by-constant major  an isinstance check turned into a constant, or
                                           dropped from a condition that otherwise survived
    type-ignore-added               minor  `# type: ignore` (or pyright/mypy/pyre form) added
    cast-to-any-added               minor  `cast(Any, ...)` / `cast("Any", ...)` added
    any-annotation-added            minor  an annotation mentioning `Any` added
    primitive-validated-in-core     minor  a parameter's raw primitive checked (isinstance
                                           str, len > 0, .strip()) outside a boundary module
                                           or parse_/validate_/from_ function

Removal rules compare the old and new version of the same function (by qualified name);
the others report only what sits on added lines and was not already in the old file.
"""

from __future__ import annotations

import ast
import bisect
import builtins
import difflib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from contend.critics.static import pyast
from contend.critics.static.base import (
    FileChange,
    Finding,
    Language,
    Skipped,
    Topic,
    is_test_path,
)
from contend.protocol.model import Severity

_BUILTINS = frozenset(dir(builtins))
_VALIDATION_ERRORS = frozenset({"TypeError", "ValueError"})
_PRIMITIVES = frozenset({"str", "int", "float", "bool", "bytes"})
_STRING_PREDICATES = frozenset(
    {"strip", "isdigit", "isnumeric", "isdecimal", "isalnum", "isalpha", "isspace"}
)
_BOUNDARY_PARTS = frozenset(
    {"cli", "api", "handlers", "views", "routes", "schemas", "boundary", "__main__"}
)
_BOUNDARY_FUNCTION = re.compile(r"^_*(parse|validate|from|check|ensure|coerce|clean)(_|$)")
_CONSTRUCTORS = frozenset({"__init__", "__post_init__", "__new__", "__set__"})
_VALIDATOR_DECORATORS = frozenset(
    {"validator", "field_validator", "model_validator", "root_validator", "setter"}
)
_LAYOUT = frozenset({"ctx", "type_comment", "kind"})
_IGNORE_COMMENT = re.compile(
    r"type:\s*ignore\b|pyright:\s*ignore\b|mypy:\s*ignore-errors|pyre-(ignore|fixme)"
)


@dataclass(frozen=True, slots=True)
class _Guard:
    """One validation check: the condition(s) that must hold, normalised so that
    `if not c: raise` and `assert c` give the same unit."""

    node: ast.If | ast.Assert
    units: tuple[ast.expr, ...]


class BoundaryTypingCritic:
    topic = Topic.BOUNDARY_TYPING
    languages: frozenset[Language] = frozenset({"python"})

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        return pyast.check_python_files(self.topic, changes, _check_file)


CRITIC = BoundaryTypingCritic()


def _check_file(
    change: FileChange, new_tree: ast.Module, old_tree: ast.Module | None
) -> Iterator[Finding]:
    new_funcs = pyast.functions(new_tree)
    old_funcs = pyast.functions(old_tree) if old_tree is not None else {}
    for name, new_fn in new_funcs.items():
        old_fn = old_funcs.get(name)
        if old_fn is None or not _touched(change, old_fn, new_fn):
            continue
        replaced = list(_isinstance_replaced(change, old_fn, new_fn))
        yield from (finding for finding, _ in replaced)
        covered = {line for _, line in replaced}
        yield from _guards_removed(change, old_fn, new_fn, new_funcs, covered)
    yield from _type_ignores(change, new_tree, old_tree)
    yield from _casts_to_any(change, new_tree, old_tree)
    yield from _any_annotations(change, new_tree, old_tree)
    if not _is_boundary_path(change.path):
        yield from _primitive_checks(change, new_funcs, old_funcs)


def _touched(change: FileChange, old_fn: pyast.Function, new_fn: pyast.Function) -> bool:
    """The change added lines to the new version or removed lines from the old one."""
    removed = range(old_fn.start_line, old_fn.end_line + 1)
    return change.touches(new_fn.start_line, new_fn.end_line) or any(
        line in change.removed_lines for line in removed
    )


def _finding(
    change: FileChange,
    rule: str,
    severity: Severity,
    lines: tuple[int, int],
    claim: str,
    old_lines: tuple[int, int] | None = None,
) -> Finding:
    return Finding(
        topic=Topic.BOUNDARY_TYPING,
        rule=rule,
        severity=severity,
        path=change.path,
        start_line=lines[0],
        end_line=lines[1],
        claim=claim,
        evidence=change.new_lines(*lines),
        old_evidence=change.old_lines(*old_lines) if old_lines is not None else None,
    )


# --- removal rules -------------------------------------------------------------------------


def _params(fn: pyast.FunctionNode) -> dict[str, ast.expr | None]:
    args = fn.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    every += [a for a in (args.vararg, args.kwarg) if a is not None]
    return {a.arg: a.annotation for a in every if a.arg not in ("self", "cls")}


def _shape(node: ast.AST, params: Iterable[str]) -> str:
    """The node's canonical text with parameter names blanked, so renaming a parameter
    keeps it (depth-safe: `pyast.serialise`)."""
    names = frozenset(params)

    def leaf(inner: ast.AST) -> str | None:
        return "N(_)" if isinstance(inner, ast.Name) and inner.id in names else None

    return pyast.serialise(node, leaf if names else None, _LAYOUT)


def _strip_not(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return node.operand
    return node


def _split(node: ast.expr, op: type[ast.boolop]) -> tuple[ast.expr, ...]:
    if isinstance(node, ast.BoolOp) and isinstance(node.op, op):
        return tuple(node.values)
    return (node,)


def _raised_name(stmt: ast.Raise) -> str | None:
    exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
    if isinstance(exc, ast.Name):
        return exc.id
    if isinstance(exc, ast.Attribute):
        return exc.attr
    return None


def _is_validation_error(name: str | None) -> bool:
    return name is not None and (name in _VALIDATION_ERRORS or name.endswith("ValidationError"))


def _has_isinstance(node: ast.AST) -> bool:
    return any(_is_call_to(n, "isinstance") for n in ast.walk(node))


def _is_call_to(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def _guards(fn: pyast.FunctionNode) -> Iterator[_Guard]:
    """Checks of a function: every `if ...: raise` and every `assert`. Which of them this
    topic owns is `_is_strict`; the rest still count when matching old against new, so a
    guard that merely changed its exception class is not reported as removed."""
    for node in pyast.walk_within(fn):
        if isinstance(node, ast.If) and any(isinstance(s, ast.Raise) for s in node.body):
            # `if a or b: raise` forbids a and b separately: each is its own unit.
            units = _split(node.test, ast.Or) if not _is_not(node.test) else (node.test,)
            yield _Guard(node, tuple(_strip_not(u) for u in units))
        elif isinstance(node, ast.Assert):
            yield _Guard(node, tuple(_strip_not(u) for u in _split(node.test, ast.And)))


def _is_not(node: ast.AST) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)


def _helpers(fn: pyast.Function, funcs: dict[str, pyast.Function]) -> list[pyast.Function]:
    """Functions of the same file that `fn` calls: `name(...)` a module-level function,
    `self.name(...)` / `cls.name(...)` a method of its own class. Not itself."""
    owner = fn.qualname.rsplit(".", 1)[0] + "." if "." in fn.qualname else ""
    found: dict[str, pyast.Function] = {}
    for node in pyast.walk_within(fn.node):
        if not isinstance(node, ast.Call):
            continue
        target: str | None = None
        if isinstance(node.func, ast.Name):
            target = node.func.id
        elif (
            isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in ("self", "cls")
            and owner
        ):
            target = owner + node.func.attr
        if target is not None and target != fn.qualname and target in funcs:
            found[target] = funcs[target]
    return list(found.values())


@dataclass(slots=True)
class _Unit:
    exact: str
    shape: str
    raises: frozenset[str]
    names: frozenset[str]
    reusable: bool = False
    used: bool = False


def _raised(guard: _Guard) -> frozenset[str]:
    if isinstance(guard.node, ast.Assert):
        return frozenset({"AssertionError"})
    return frozenset(
        name
        for stmt in guard.node.body
        if isinstance(stmt, ast.Raise) and (name := _raised_name(stmt)) is not None
    )


def _names(node: ast.AST) -> frozenset[str]:
    """The names a condition reads, less builtins and self/cls (which every method shares)."""
    return frozenset(
        n.id
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and n.id not in _BUILTINS and n.id not in ("self", "cls")
    )


def _new_units(new_fn: pyast.Function, new_funcs: dict[str, pyast.Function]) -> list[_Unit]:
    """Guard units of the new function, then those of the helpers it calls (reusable: one
    helper may check several arguments), so a guard moved into a helper still counts."""
    owners = [new_fn, *_helpers(new_fn, new_funcs)]
    units: list[_Unit] = []
    for owner in owners:
        params = _params(owner.node)
        for guard in _guards(owner.node):
            raises = _raised(guard)
            units.extend(
                _Unit(
                    pyast.dump(u),
                    _shape(u, params),
                    raises,
                    _names(u),
                    reusable=owner is not new_fn,
                )
                for u in guard.units
            )
    return units


def _claim(pool: list[_Unit], key: str, *, by_shape: bool) -> bool:
    for unit in pool:
        if (unit.shape if by_shape else unit.exact) == key and not unit.used:
            unit.used = not unit.reusable
            return True
    return False


def _claim_rewritten(pool: list[_Unit], unit: ast.expr, raises: frozenset[str]) -> bool:
    """A new guard of this function that matched no old one, raising the same exception or
    reading the same names, is taken as this guard rewritten (`0 < m` became `1 <= m`)."""
    names = _names(unit)
    for candidate in pool:
        if candidate.used or candidate.reusable:
            continue
        if (candidate.raises & raises) or (candidate.names & names):
            candidate.used = True
            return True
    return False


def _unmatched_guards(
    change: FileChange, old_fn: pyast.Function, pool: list[_Unit]
) -> Iterator[tuple[_Guard, list[ast.expr]]]:
    """Old guards the change touched whose units the new side no longer has. Each new unit
    answers for one old unit (so deleting one of two identical checks is seen): exact text
    first, then shape (a parameter renamed), then a leftover rewritten guard; untouched old
    guards claim theirs first."""
    removed = sorted(change.removed_lines)
    params = _params(old_fn.node)
    guards = sorted(
        _guards(old_fn.node),
        key=lambda g: (_hits(removed, *pyast.span(g.node)), g.node.lineno),
    )
    pending = [
        (g, [u for u in g.units if not _claim(pool, pyast.dump(u), by_shape=False)]) for g in guards
    ]
    pending = [
        (g, [u for u in units if not _claim(pool, _shape(u, params), by_shape=True)])
        for g, units in pending
    ]
    for guard, units in pending:
        missing = [u for u in units if not _claim_rewritten(pool, u, _raised(guard))]
        if missing and _hits(removed, *pyast.span(guard.node)) and _is_strict(guard):
            yield guard, missing


def _is_strict(guard: _Guard) -> bool:
    """A guard this topic owns: raising TypeError/ValueError, or asserting isinstance."""
    if isinstance(guard.node, ast.Assert):
        return _has_isinstance(guard.node.test)
    return any(
        isinstance(s, ast.Raise) and _is_validation_error(_raised_name(s)) for s in guard.node.body
    )


def _guards_removed(
    change: FileChange,
    old_fn: pyast.Function,
    new_fn: pyast.Function,
    new_funcs: dict[str, pyast.Function],
    covered: set[int],
) -> Iterator[Finding]:
    old_params = _params(old_fn.node)
    new_params = _params(new_fn.node)
    pool = _new_units(new_fn, new_funcs)
    for guard, missing in _unmatched_guards(change, old_fn, pool):
        start, end = pyast.span(guard.node)
        if start in covered or _moved_into_type(missing, old_params, new_params):
            continue
        line = _map_line(change, old_fn, new_fn, start)
        what = "`assert isinstance`" if isinstance(guard.node, ast.Assert) else "raising guard"
        yield _finding(
            change,
            "validation-guard-removed",
            Severity.MAJOR,
            (line, line),
            f"`{new_fn.qualname}` no longer has the {what} on "
            f"`{pyast.unparse(missing[0])}` (old line {start}); invalid input now flows on "
            "unchecked",
            (start, end),
        )


def _moved_into_type(
    units: Sequence[ast.expr],
    old_params: dict[str, ast.expr | None],
    new_params: dict[str, ast.expr | None],
) -> bool:
    """True when a parameter the guard checked got a new annotation: the check moved into the
    type, which is the boundary-parsing fix this topic asks for."""
    for unit in units:
        for node in ast.walk(unit):
            if isinstance(node, ast.Name) and node.id in old_params and node.id in new_params:
                old_ann, new_ann = old_params[node.id], new_params[node.id]
                if new_ann is not None and (
                    old_ann is None or pyast.dump(old_ann) != pyast.dump(new_ann)
                ):
                    return True
    return False


def _map_line(
    change: FileChange, old_fn: pyast.Function, new_fn: pyast.Function, old_line: int
) -> int:
    """The new-side line where an old line of the function now is, or where it was removed."""
    old = change.old_lines(old_fn.start_line, old_fn.end_line).splitlines()
    new = change.new_lines(new_fn.start_line, new_fn.end_line).splitlines()
    index = old_line - old_fn.start_line
    for tag, i1, i2, j1, _j2 in difflib.SequenceMatcher(a=old, b=new).get_opcodes():
        if i1 <= index < i2:
            offset = index - i1 if tag == "equal" else 0
            return new_fn.start_line + min(j1 + offset, max(len(new) - 1, 0))
    return new_fn.end_line


def _conditions(fn: pyast.FunctionNode) -> Iterator[ast.expr]:
    for node in pyast.walk_within(fn):
        if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
            yield node.test


def _isinstance_calls(node: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Call) and _is_call_to(n, "isinstance")]


def _constant_shape(node: ast.AST, params: Iterable[str]) -> str:
    # `True` and `False` stand for "a constant": either one switches the check off.
    return re.sub(r"\bFalse\b", "True", _shape(node, params))


def _substituted(test: ast.expr, gone: Sequence[ast.Call]) -> ast.expr:
    """A copy of `test` with each vanished isinstance call replaced by `True`."""
    clone = pyast.clone(test)
    twin = dict(zip(map(id, ast.walk(test)), ast.walk(clone), strict=True))
    targets = {id(twin[id(call)]) for call in gone}
    if id(clone) in targets:
        return ast.Constant(True)
    stack: list[ast.AST] = [clone]
    while stack:
        node = stack.pop()
        for name, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                if id(value) in targets:
                    setattr(node, name, ast.Constant(True))
                else:
                    stack.append(value)
            elif isinstance(value, list):
                for index, item in enumerate(value):
                    if isinstance(item, ast.AST) and id(item) in targets:
                        value[index] = ast.Constant(True)
                    elif isinstance(item, ast.AST):
                        stack.append(item)
    return clone


def _isinstance_replaced(
    change: FileChange, old_fn: pyast.Function, new_fn: pyast.Function
) -> Iterator[tuple[Finding, int]]:
    """Findings paired with the old line they explain (so the guard rule does not repeat it)."""
    old_params, new_params = _params(old_fn.node), _params(new_fn.node)
    deficit = Counter(_shape(c, old_params) for c in _isinstance_calls(old_fn.node))
    deficit.subtract(_shape(c, new_params) for c in _isinstance_calls(new_fn.node))
    added, removed = sorted(change.added_lines), sorted(change.removed_lines)
    new_tests = [t for t in _conditions(new_fn.node) if _hits(added, *pyast.span(t))]
    by_shape = {_constant_shape(t, new_params): t for t in reversed(new_tests)}
    constants = [t for t in new_tests if isinstance(_strip_not(t), ast.Constant)]
    for test in sorted(_conditions(old_fn.node), key=lambda t: t.lineno):
        if not _hits(removed, *pyast.span(test)):
            continue
        gone: list[ast.Call] = []
        for call in _isinstance_calls(test):
            key = _shape(call, old_params)
            if deficit[key] > 0:
                deficit[key] -= 1
                gone.append(call)
        if not gone:
            continue
        residual = _without(test, gone)
        substituted = by_shape.get(_constant_shape(_substituted(test, gone), old_params))
        replacement: ast.expr | None = substituted
        if substituted is not None:
            how = f"replaced by a constant: the condition is now `{pyast.unparse(substituted)}`"
        elif residual is not None and _constant_shape(residual, old_params) in by_shape:
            replacement = by_shape[_constant_shape(residual, old_params)]
            how = f"dropped from the condition, which is now `{pyast.unparse(replacement)}`"
        elif constants:
            replacement = constants.pop(0)
            how = f"replaced by the constant condition `{pyast.unparse(replacement)}`"
        if replacement is None:
            continue
        finding = _finding(
            change,
            "isinstance-replaced-by-constant",
            Severity.MAJOR,
            pyast.span(replacement),
            f"`{new_fn.qualname}`: the type check `{pyast.unparse(gone[0])}` was {how}",
            pyast.span(test),
        )
        yield finding, test.lineno


def _without(test: ast.expr, gone: Sequence[ast.AST]) -> ast.expr | None:
    """The condition minus the BoolOp operands that held a vanished isinstance call."""
    if not isinstance(test, ast.BoolOp):
        return None
    keep = [v for v in test.values if not any(g in set(ast.walk(v)) for g in gone)]
    if not keep or len(keep) == len(test.values):
        return None
    return keep[0] if len(keep) == 1 else ast.BoolOp(op=test.op, values=keep)


# --- additive rules ------------------------------------------------------------------------

_Collect = Callable[[Iterable[ast.AST]], list[tuple[str, int]]]


def _hits(sorted_lines: Sequence[int], start: int, end: int) -> bool:
    index = bisect.bisect_left(sorted_lines, start)
    return index < len(sorted_lines) and sorted_lines[index] <= end


def _overlapping(tree: ast.AST, lines: frozenset[int]) -> Iterator[ast.AST]:
    """Nodes whose span overlaps one of `lines`, visiting only such subtrees: a small change
    in a large file costs little."""
    ordered = sorted(lines)
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        start = getattr(node, "lineno", None)
        if start is not None:
            if not _hits(ordered, start, getattr(node, "end_lineno", None) or start):
                continue
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _nodes_on_lines(tree: ast.AST, lines: frozenset[int]) -> Iterator[ast.AST]:
    return (n for n in _overlapping(tree, lines) if getattr(n, "lineno", None) in lines)


def _within_budget(
    hits: Sequence[tuple[str, int]], new: Counter[str], old: Counter[str]
) -> Iterator[tuple[str, int]]:
    """Hits (key, line), at most as many per key as the new file has more of than the old:
    a line that only moved or was renamed introduces nothing."""
    budget = {key: new[key] - old[key] for key in new}
    for key, line in sorted(set(hits), key=lambda hit: hit[1]):
        if budget.get(key, 0) > 0:
            budget[key] -= 1
            yield key, line


def _introduced(
    change: FileChange, new_tree: ast.Module, old_tree: ast.Module | None, collect: _Collect
) -> Iterator[tuple[str, int]]:
    """What `collect` finds on added lines and the old file did not already have. The whole
    files are only counted when an added line holds a candidate."""
    added = change.added_lines
    hits = [hit for hit in collect(_nodes_on_lines(new_tree, added)) if hit[1] in added]
    if not hits:
        return
    new = Counter(key for key, _ in collect(ast.walk(new_tree)))
    old = Counter(key for key, _ in collect(ast.walk(old_tree))) if old_tree else Counter()
    yield from _within_budget(hits, new, old)


def _ignore_comments(text: str, tree: ast.Module) -> list[tuple[str, int]]:
    """(normalised comment, line) of every type-checker silencing comment. A regex finds the
    lines; the AST tells a real comment from the same text inside a string, which is cheaper
    than tokenizing the whole file."""
    lines = text.split("\n")  # numbered as the AST and git number them, not splitlines()
    candidates = [
        (number, match)
        for number, line in enumerate(lines, 1)
        if (match := _IGNORE_COMMENT.search(line)) is not None
    ]
    if not candidates:
        return []
    strings = [
        node
        for node in _overlapping(tree, frozenset(n for n, _ in candidates))
        if isinstance(node, ast.JoinedStr)
        or (isinstance(node, ast.Constant) and isinstance(node.value, str | bytes))
    ]
    found: list[tuple[str, int]] = []
    for number, match in candidates:
        line = lines[number - 1]
        hash_at = line.rfind("#", 0, match.start())
        if hash_at < 0:
            continue
        where = (number, len(line[:hash_at].encode()))  # AST columns count UTF-8 bytes
        if any(_inside(node, where) for node in strings):
            continue
        found.append((" ".join(line[match.start() :].split()), number))
    return found


def _inside(node: ast.AST, where: tuple[int, int]) -> bool:
    start = (int(getattr(node, "lineno", 0)), int(getattr(node, "col_offset", 0)))
    end_line = getattr(node, "end_lineno", None) or start[0]
    end = (int(end_line), int(getattr(node, "end_col_offset", None) or 0))
    return start <= where < end


def _type_ignores(
    change: FileChange, new_tree: ast.Module, old_tree: ast.Module | None
) -> Iterator[Finding]:
    assert change.new_text is not None
    lines = change.new_text.split("\n")
    if not any(_IGNORE_COMMENT.search(lines[n - 1]) for n in change.added_lines if n <= len(lines)):
        return
    new_comments = _ignore_comments(change.new_text, new_tree)
    hits = [(key, line) for key, line in new_comments if line in change.added_lines]
    old_comments = (
        _ignore_comments(change.old_text, old_tree)
        if change.old_text is not None and old_tree is not None
        else []
    )
    new = Counter(key for key, _ in new_comments)
    old = Counter(key for key, _ in old_comments)
    for key, line in _within_budget(hits, new, old):
        yield _finding(
            change,
            "type-ignore-added",
            Severity.MINOR,
            (line, line),
            f"the change silences the type checker with `# {key}` instead of fixing the type",
        )


def _is_any(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "Any"
    if isinstance(node, ast.Attribute):
        return node.attr == "Any"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return re.search(r"\bAny\b", node.value) is not None
    return False


def _casts(nodes: Iterable[ast.AST]) -> list[tuple[str, int]]:
    return [
        ("cast(Any, ...)", node.lineno)
        for node in nodes
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == "cast")
            or (isinstance(node.func, ast.Attribute) and node.func.attr == "cast")
        )
        and node.args
        and _is_any(node.args[0])
    ]


def _casts_to_any(
    change: FileChange, new_tree: ast.Module, old_tree: ast.Module | None
) -> Iterator[Finding]:
    for _, line in _introduced(change, new_tree, old_tree, _casts):
        yield _finding(
            change,
            "cast-to-any-added",
            Severity.MINOR,
            (line, line),
            "the change casts a value to `Any`, switching off type checking for it",
        )


def _annotations(nodes: Iterable[ast.AST]) -> list[tuple[str, int]]:
    found: list[ast.expr] = []
    for node in nodes:
        if isinstance(node, ast.arg) and node.annotation is not None:
            found.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns:
            found.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
    return [
        (pyast.unparse(ann), ann.lineno) for ann in found if any(_is_any(n) for n in ast.walk(ann))
    ]


def _any_annotations(
    change: FileChange, new_tree: ast.Module, old_tree: ast.Module | None
) -> Iterator[Finding]:
    for key, line in _introduced(change, new_tree, old_tree, _annotations):
        yield _finding(
            change,
            "any-annotation-added",
            Severity.MINOR,
            (line, line),
            f"the change annotates with `{key}`, which accepts anything unchecked",
        )


# --- primitive validation deep in core code ------------------------------------------------


def _is_boundary_path(path: str) -> bool:
    pure = PurePosixPath(path.replace("\\", "/"))
    parts = {*pure.parts[:-1], pure.stem}
    return is_test_path(path) or bool(parts & _BOUNDARY_PARTS)


def _is_boundary_function(fn: pyast.FunctionNode) -> bool:
    if fn.name in _CONSTRUCTORS or _BOUNDARY_FUNCTION.match(fn.name):
        return True
    for deco in fn.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in _VALIDATOR_DECORATORS:
            return True
    return False


def _is_primitive_type(node: ast.expr) -> bool:
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(_is_primitive_type(e) for e in node.elts)
    return isinstance(node, ast.Name) and node.id in _PRIMITIVES


def _checked_param(node: ast.AST, params: frozenset[str]) -> str | None:
    """The parameter a raw-primitive check inspects, or None if `node` is no such check."""

    def param(expr: ast.AST) -> str | None:
        return expr.id if isinstance(expr, ast.Name) and expr.id in params else None

    if isinstance(node, ast.Call):
        if _is_call_to(node, "isinstance") and len(node.args) == 2:
            return param(node.args[0]) if _is_primitive_type(node.args[1]) else None
        if isinstance(node.func, ast.Attribute) and node.func.attr in _STRING_PREDICATES:
            return param(node.func.value)
        return None
    if isinstance(node, ast.Compare) and len(node.comparators) == 1:
        left, right = node.left, node.comparators[0]
        if _is_call_to(left, "type") and isinstance(left, ast.Call) and left.args:
            return param(left.args[0]) if _is_primitive_type(right) else None
        if _is_call_to(left, "len") and isinstance(left, ast.Call) and left.args:
            # emptiness (`len(x) > 0`, `len(x) == 0`), the seed's `userId.length > 0`
            is_empty = isinstance(right, ast.Constant) and right.value in (0, 1)
            return param(left.args[0]) if is_empty else None
        if isinstance(right, ast.Constant) and right.value == "":
            return param(left)
    return None


def _primitive_check(node: ast.If | ast.Assert, params: frozenset[str]) -> list[ast.AST]:
    """The raw-primitive checks on parameters that `node` validates with, empty if it is no
    validation. An `if` counts when it raises, or when it combines two checks on one
    parameter, or negates a check and returns early. A plain type dispatch (`if
    isinstance(x, str): x = [x]`) does not, nor does rejecting a type (`if isinstance(x,
    str): raise TypeError`): that is not validating a primitive, it is refusing one."""
    negated = {
        id(inner)
        for sub in ast.walk(node.test)
        if isinstance(sub, ast.UnaryOp) and isinstance(sub.op, ast.Not)
        for inner in ast.walk(sub.operand)
    }
    atoms = [sub for sub in ast.walk(node.test) if _checked_param(sub, params) is not None]
    if not atoms or isinstance(node, ast.Assert):
        return atoms
    checked = [_checked_param(a, params) for a in atoms]
    body = node.body
    if any(isinstance(s, ast.Raise) for s in body):
        return [a for a in atoms if not _is_type_test(a) or id(a) in negated or _is_unequal(a)]
    if len(checked) > len(set(checked)):
        return atoms
    if any(id(a) in negated for a in atoms) and any(isinstance(s, ast.Return) for s in body):
        return atoms
    return []


def _is_type_test(node: ast.AST) -> bool:
    if isinstance(node, ast.Compare):
        return _is_call_to(node.left, "type")
    return _is_call_to(node, "isinstance")


def _is_unequal(node: ast.AST) -> bool:
    return isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.NotEq | ast.IsNot)


@dataclass(frozen=True, slots=True)
class _PrimitiveCheck:
    key: str
    line: int
    function: str
    test: str


def _primitive_candidates(
    funcs: Iterable[pyast.Function], added: frozenset[int] | None = None
) -> list[_PrimitiveCheck]:
    """One entry per checked atom, keyed by its shape, so merging or reordering checks that
    existed before introduces nothing. With `added`, only checks on those lines."""
    found: list[_PrimitiveCheck] = []
    for fn in funcs:
        if _is_boundary_function(fn.node):
            continue
        params = frozenset(_params(fn.node))
        for node in pyast.walk_within(fn.node):
            if not isinstance(node, ast.If | ast.Assert):
                continue
            if added is not None and node.lineno not in added:
                continue
            atoms = _primitive_check(node, params)
            if atoms:
                test = pyast.unparse(node.test)
                found.extend(
                    _PrimitiveCheck(_shape(atom, params), node.lineno, fn.qualname, test)
                    for atom in atoms
                )
    return found


def _primitive_checks(
    change: FileChange,
    new_funcs: dict[str, pyast.Function],
    old_funcs: dict[str, pyast.Function],
) -> Iterator[Finding]:
    added = change.added_lines
    touched = [f for f in new_funcs.values() if change.touches(f.start_line, f.end_line)]
    candidates = _primitive_candidates(touched, added)
    if not candidates:
        return
    by_line = {c.line: c for c in candidates}
    new = Counter(c.key for c in _primitive_candidates(new_funcs.values()))
    old = Counter(c.key for c in _primitive_candidates(old_funcs.values()))
    reported: set[int] = set()
    for _, line in _within_budget([(c.key, c.line) for c in candidates], new, old):
        if line in reported:
            continue
        reported.add(line)
        check = by_line[line]
        yield _finding(
            change,
            "primitive-validated-in-core",
            Severity.MINOR,
            (line, line),
            f"`{check.function}` validates raw primitives (`{check.test}`) inside core code; "
            "parse them into a domain type at the boundary so illegal values cannot reach here",
        )
