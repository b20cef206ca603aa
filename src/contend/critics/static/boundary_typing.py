"""The `boundary-typing` topic for Python: the change erodes a type or validation boundary.

Rules (the catalogue below and in boundary_typing_marks.py):
    validation-guard-removed        major  `if ...: raise TypeError/ValueError`, the
                                           `raise TypeError` that ends a type dispatch (an
                                           `else:` or the fall-through after isinstance
                                           branches), or `assert isinstance` gone from a
                                           function of library code
    isinstance-replaced-by-constant major  an isinstance check turned into a constant, or
                                           dropped from a condition that otherwise survived
    type-ignore-added               minor  see boundary_typing_marks.py: the additive rules,
    cast-to-any-added               minor  taste-level by design
    any-annotation-added            minor
    primitive-validated-in-core     minor

Removal rules compare the old and new version of the same function (by qualified name). A
guard moved into a helper the function calls, into the parameter's type, merged with
another or raising another exception class is not removed. Test files have no input guards:
an `assert isinstance` in a test is a test's check (the test-weakening topic's). A guard
whose `raise` became `return <default>` under the same condition is silent-fallback's
`raise-to-default`, the more specific rule, and is not reported here as well.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import difflib
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from contend.critics.static import boundary_typing_marks as marks
from contend.critics.static import boundary_typing_primitives as primitives
from contend.critics.static import pyast
from contend.critics.static import silent_fallback_ast as sa
from contend.critics.static.base import (
    Confidence,
    FileChange,
    Finding,
    Language,
    Skipped,
    Topic,
    is_test_path,
)
from contend.critics.static.catalogue import PYTHON, RuleInfo, waiver_way
from contend.protocol.model import Severity

_TOPIC = Topic.BOUNDARY_TYPING
GUARD_REMOVED = RuleInfo(
    "validation-guard-removed",
    _TOPIC,
    Severity.MAJOR,
    Confidence.HIGH,
    PYTHON,
    "a check that refused invalid input (a raise of TypeError / ValueError, an `assert "
    "isinstance`) is gone, and nothing in the function, its helpers or its parameter types "
    "does that job now",
    (
        "restore the check shown under 'before the change'",
        "or move it where it still runs: a helper the function calls, or the parameter's type",
        waiver_way(_TOPIC),
    ),
)
ISINSTANCE_CONSTANT = RuleInfo(
    "isinstance-replaced-by-constant",
    _TOPIC,
    Severity.MAJOR,
    Confidence.HIGH,
    PYTHON,
    "a type check was replaced by a constant or dropped from its condition, so values of "
    "any type now take that branch",
    ("restore the isinstance check in the condition", waiver_way(_TOPIC)),
)
RULES: tuple[RuleInfo, ...] = (GUARD_REMOVED, ISINSTANCE_CONSTANT, *marks.RULES)

_BUILTINS = frozenset(dir(builtins))
_VALIDATION_ERRORS = frozenset({"TypeError", "ValueError"})
_LAYOUT = frozenset({"ctx", "type_comment", "kind"})


@dataclass(frozen=True, slots=True)
class _Guard:
    """One validation check: the condition(s) that must hold, normalised so that
    `if not c: raise` and `assert c` give the same unit."""

    node: ast.If | ast.Assert | ast.Raise
    units: tuple[ast.expr, ...]


class BoundaryTypingCritic:
    topic = Topic.BOUNDARY_TYPING
    languages: frozenset[Language] = frozenset({"python"})

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        python = [c for c in changes if c.language == "python"]
        context = marks.Changed([(c, _tree(c.old_text), _tree(c.new_text)) for c in python])

        def check_file(
            change: FileChange, new_tree: ast.Module, old_tree: ast.Module | None
        ) -> Iterator[Finding]:
            return _check_file(change, new_tree, old_tree, context)

        return pyast.check_python_files(self.topic, changes, check_file)


CRITIC = BoundaryTypingCritic()


def _tree(text: str | None) -> ast.Module | None:
    if text is None:
        return None
    return pyast.parse_old_side(text)


def _check_file(
    change: FileChange,
    new_tree: ast.Module,
    old_tree: ast.Module | None,
    context: marks.Changed,
) -> Iterator[Finding]:
    new_funcs = pyast.functions(new_tree)
    old_funcs = pyast.functions(old_tree) if old_tree is not None else {}
    if not is_test_path(change.path):
        for name, new_fn in new_funcs.items():
            old_fn = old_funcs.get(name)
            if old_fn is None or not _touched(change, old_fn, new_fn):
                continue
            replaced = list(_isinstance_replaced(change, old_fn, new_fn))
            yield from (finding for finding, _ in replaced)
            covered = {line for _, line in replaced}
            yield from _guards_removed(change, old_fn, new_fn, new_funcs, covered)
    yield from marks.type_ignores(change, new_tree, context)
    yield from marks.casts_to_any(change, new_tree, context)
    yield from marks.any_annotations(change, new_tree, context)
    yield from primitives.primitive_checks(change, new_funcs, old_funcs)


def _touched(change: FileChange, old_fn: pyast.Function, new_fn: pyast.Function) -> bool:
    """The change added lines to the new version or removed lines from the old one."""
    removed = range(old_fn.start_line, old_fn.end_line + 1)
    return change.touches(new_fn.start_line, new_fn.end_line) or any(
        line in change.removed_lines for line in removed
    )


def _finding(
    change: FileChange,
    info: RuleInfo,
    lines: tuple[int, int],
    claim: str,
    old_lines: tuple[int, int],
    symbol: str,
) -> Finding:
    return info.finding(
        path=change.path,
        lines=lines,
        claim=claim,
        evidence=change.new_lines(*lines),
        old_evidence=change.old_lines(*old_lines),
        symbol=pyast.symbol_of(symbol),
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
    """Checks of a function: every `if ...: raise`, every `assert`, and the `raise` that
    ends a type dispatch — the `else:` of an if/elif chain, or the statement after
    isinstance branches that all return — whose unit is the raised exception. Which of them
    this topic owns is `_is_strict`; the rest still count when matching old against new, so
    a guard that merely changed its exception class is not reported as removed."""
    for node in pyast.walk_within(fn):
        if isinstance(node, ast.If) and any(isinstance(s, ast.Raise) for s in node.body):
            # `if a or b: raise` forbids a and b separately: each is its own unit.
            units = _split(node.test, ast.Or) if not _is_not(node.test) else (node.test,)
            yield _Guard(node, tuple(_strip_not(u) for u in units))
        elif isinstance(node, ast.Assert):
            yield _Guard(node, tuple(_strip_not(u) for u in _split(node.test, ast.And)))
        if isinstance(node, ast.If) and node.orelse:
            last = node.orelse[-1]
            # `else: raise TypeError(...)`, also as `msg = "..."; raise TypeError(msg)`
            if (
                isinstance(last, ast.Raise)
                and last.exc is not None
                and _has_isinstance(node.test)
                and all(isinstance(s, ast.Assign) for s in node.orelse[:-1])
            ):
                yield _Guard(last, (last.exc,))
    for body in _blocks(fn):
        for index, stmt in enumerate(body):
            if not isinstance(stmt, ast.Raise) or stmt.exc is None:
                continue
            before = index - 1
            while before >= 0 and isinstance(body[before], ast.Assign):
                before -= 1  # the message put in a variable first
            previous = body[before] if before >= 0 else None
            if (
                isinstance(previous, ast.If)
                and _has_isinstance(previous.test)
                and previous.body
                and isinstance(previous.body[-1], ast.Return | ast.Raise)
                and not previous.orelse
            ):
                yield _Guard(stmt, (stmt.exc,))


def _blocks(fn: pyast.FunctionNode) -> Iterator[list[ast.stmt]]:
    """Every statement list of a function, not those of nested functions or classes."""
    yield fn.body
    for node in pyast.walk_within(fn):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


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
    if isinstance(guard.node, ast.Raise):
        name = _raised_name(guard.node)
        return frozenset({name}) if name else frozenset()
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
        key=lambda g: (marks.hits(removed, *pyast.span(g.node)), g.node.lineno),
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
        if missing and marks.hits(removed, *pyast.span(guard.node)) and _is_strict(guard, params):
            yield guard, missing


def _is_strict(guard: _Guard, params: Iterable[str] = ()) -> bool:
    """A guard this topic owns: raising TypeError/ValueError, or asserting isinstance of a
    parameter (an `assert isinstance(self.x, T)` on the object's own state narrows a type
    for the checker; it does not validate input)."""
    if isinstance(guard.node, ast.Assert):
        names = {n.id for n in ast.walk(guard.node.test) if isinstance(n, ast.Name)}
        return _has_isinstance(guard.node.test) and bool(names & set(params))
    if isinstance(guard.node, ast.Raise):
        return _is_validation_error(_raised_name(guard.node))
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
        if _became_default(guard, new_fn):
            continue  # silent-fallback's raise-to-default says it, with the old raise
        line = _map_line(change, old_fn, new_fn, start)
        delegate = _namesake_delegate(new_fn, missing)
        if isinstance(guard.node, ast.Raise):
            claim = (
                f"`{new_fn.qualname}` no longer raises `{_raised_name(guard.node)}` for values "
                f"its type checks do not handle (old line {start}); " + _fall_through(new_fn, line)
            )
        else:
            what = "`assert isinstance`" if isinstance(guard.node, ast.Assert) else "raising guard"
            claim = (
                f"`{new_fn.qualname}` no longer has the {what} on "
                f"`{pyast.unparse(missing[0])}` (old line {start}); invalid input now flows on "
                "unchecked"
            )
        found = _finding(change, GUARD_REMOVED, (line, line), claim, (start, end), new_fn.qualname)
        if delegate is not None:
            # The function became a wrapper of its namesake elsewhere (the implementation
            # moved, its guards presumably with it): not demonstrated, so not blocking.
            found = dataclasses.replace(
                found,
                claim=f"{found.claim} (it now hands `{_short_names(missing)}` to "
                f"`{delegate}`, which may keep the guard)",
                severity=Severity.MINOR,
                confidence=Confidence.MEDIUM,
            )
        yield found


def _namesake_delegate(new_fn: pyast.Function, units: Sequence[ast.expr]) -> str | None:
    """The callee, when the new function calls a function of its own name on another object
    (`werkzeug.utils.send_file` from `send_file`, `super().save` from `save`; not itself)
    and passes it every parameter the guard checked (all of them, for a guard on a local)."""
    params = _params(new_fn.node)
    checked = {
        n.id for unit in units for n in ast.walk(unit) if isinstance(n, ast.Name) and n.id in params
    }
    # A guard on a local (derived from the arguments): the wrapper must forward them all.
    checked = checked or set(params)
    for node in pyast.walk_within(new_fn.node):
        if not isinstance(node, ast.Call) or pyast.callee_name(node) != new_fn.node.name:
            continue
        owner = node.func.value if isinstance(node.func, ast.Attribute) else None
        if owner is None or (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
            continue  # recursion, not a wrapper
        passed = {
            n.id
            for arg in [*node.args, *(k.value for k in node.keywords)]
            for n in ast.walk(arg)
            if isinstance(n, ast.Name)
        }
        if checked and checked <= passed:
            return pyast.unparse(node.func)
    return None


def _short_names(units: Sequence[ast.expr]) -> str:
    return ", ".join(dict.fromkeys(pyast.unparse(u) for u in units))


def _became_default(guard: _Guard, new_fn: pyast.Function) -> bool:
    """The guard's condition is still tested, but its branch now returns a default instead
    of raising: the raise-to-default pattern."""
    if not isinstance(guard.node, ast.If):
        return False
    test = pyast.dump(guard.node.test)
    return any(
        isinstance(node, ast.If)
        and pyast.dump(node.test) == test
        and not any(isinstance(s, ast.Raise) for s in node.body)
        and any(isinstance(s, ast.Return) and sa.is_default(s.value, None) for s in node.body)
        for node in pyast.walk_within(new_fn.node)
    )


def _fall_through(new_fn: pyast.Function, line: int) -> str:
    """What such values now reach: the return at (or after) the line the raise was."""
    returns = sorted(
        (n for n in pyast.walk_within(new_fn.node) if isinstance(n, ast.Return)),
        key=lambda n: n.lineno,
    )
    after = [r for r in returns if r.lineno >= line] or returns[-1:]
    if not after:
        return "they now pass through unchecked"
    return f"they now reach `{sa.clip(pyast.unparse(after[0]))}` (line {after[0].lineno})"


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
    new_tests = [t for t in _conditions(new_fn.node) if marks.hits(added, *pyast.span(t))]
    by_shape = {_constant_shape(t, new_params): t for t in reversed(new_tests)}
    constants = [t for t in new_tests if isinstance(_strip_not(t), ast.Constant)]
    for test in sorted(_conditions(old_fn.node), key=lambda t: t.lineno):
        if not marks.hits(removed, *pyast.span(test)):
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
            ISINSTANCE_CONSTANT,
            pyast.span(replacement),
            f"`{new_fn.qualname}`: the type check `{pyast.unparse(gone[0])}` was {how}",
            pyast.span(test),
            new_fn.qualname,
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
