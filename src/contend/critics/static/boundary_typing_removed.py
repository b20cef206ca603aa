"""The `validation-guard-removed` rule of the boundary-typing topic: a check that refused
invalid input (`if ...: raise TypeError/ValueError`, the `raise TypeError` that ends a type
dispatch, `assert isinstance` of a parameter) is gone from a function of library code.

Old and new versions of the same function are compared by qualified name. A guard moved into
a helper the function calls, into the parameter's type, merged with another, rewritten or
raising another exception class is not removed; one whose `raise` became `return <default>`
is silent-fallback's `raise-to-default` and is left to it. When the function became a
wrapper of a namesake elsewhere that it hands every checked value, the guard may have moved
with the implementation: the finding is kept, but minor (the critic cannot read the callee —
another library, or a `super()` that may not check — so the removal is not demonstrated,
and a guard silently dropped behind a new wrapper must still be seen).
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import difflib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from contend.critics.static import boundary_typing_guards as guards
from contend.critics.static import boundary_typing_marks as marks
from contend.critics.static import pyast
from contend.critics.static import silent_fallback_ast as sa
from contend.critics.static.base import Confidence, FileChange, Finding, Topic
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


_BUILTINS = frozenset(dir(builtins))


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


def _raised(guard: guards.Guard) -> frozenset[str]:
    if isinstance(guard.node, ast.Assert):
        return frozenset({"AssertionError"})
    if isinstance(guard.node, ast.Raise):
        name = guards.raised_name(guard.node)
        return frozenset({name}) if name else frozenset()
    return frozenset(
        name
        for stmt in guard.node.body
        if isinstance(stmt, ast.Raise) and (name := guards.raised_name(stmt)) is not None
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
        params = guards.parameters(owner.node)
        for guard in guards.guards_of(owner.node):
            raises = _raised(guard)
            units.extend(
                _Unit(
                    pyast.dump(u),
                    guards.shape(u, params),
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
) -> Iterator[tuple[guards.Guard, list[ast.expr]]]:
    """Old guards the change touched whose units the new side no longer has. Each new unit
    answers for one old unit (so deleting one of two identical checks is seen): exact text
    first, then shape (a parameter renamed), then a leftover rewritten guard; untouched old
    guards claim theirs first."""
    removed = sorted(change.removed_lines)
    params = guards.parameters(old_fn.node)
    old_guards = sorted(
        guards.guards_of(old_fn.node),
        key=lambda g: (marks.hits(removed, *pyast.span(g.node)), g.node.lineno),
    )
    pending = [
        (g, [u for u in g.units if not _claim(pool, pyast.dump(u), by_shape=False)])
        for g in old_guards
    ]
    pending = [
        (g, [u for u in units if not _claim(pool, guards.shape(u, params), by_shape=True)])
        for g, units in pending
    ]
    for guard, units in pending:
        missing = [u for u in units if not _claim_rewritten(pool, u, _raised(guard))]
        if (
            missing
            and marks.hits(removed, *pyast.span(guard.node))
            and guards.is_strict(guard, params)
        ):
            yield guard, missing


def guards_removed(
    change: FileChange,
    old_fn: pyast.Function,
    new_fn: pyast.Function,
    new_funcs: dict[str, pyast.Function],
    covered: set[int],
) -> Iterator[Finding]:
    old_params = guards.parameters(old_fn.node)
    new_params = guards.parameters(new_fn.node)
    pool = _new_units(new_fn, new_funcs)
    for guard, missing in _unmatched_guards(change, old_fn, pool):
        start, end = pyast.span(guard.node)
        if start in covered or _moved_into_type(missing, old_params, new_params):
            continue
        if _became_default(guard, new_fn):
            continue  # silent-fallback's raise-to-default says it, with the old raise
        if _raise_kept(guard, old_fn, new_fn):
            continue  # its raise still ends the function: the condition became control flow
        line = _map_line(change, old_fn, new_fn, start)
        delegate = _namesake_delegate(old_fn, new_fn, missing)
        if isinstance(guard.node, ast.Raise):
            raised = guards.raised_name(guard.node)
            claim = (
                f"`{new_fn.qualname}` no longer raises `{raised}` for values "
                f"its type checks do not handle (old line {start}); " + _fall_through(new_fn, line)
            )
        else:
            what = "`assert isinstance`" if isinstance(guard.node, ast.Assert) else "raising guard"
            claim = (
                f"`{new_fn.qualname}` no longer has the {what} on "
                f"`{pyast.unparse(missing[0])}` (old line {start}); invalid input now flows on "
                "unchecked"
            )
        found = guards.finding(
            change, GUARD_REMOVED, (line, line), claim, (start, end), new_fn.qualname
        )
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


def _namesake_delegate(
    old_fn: pyast.Function, new_fn: pyast.Function, units: Sequence[ast.expr]
) -> str | None:
    """The callee, when the new function calls a function of its own name on another object
    (`werkzeug.utils.send_file` from `send_file`, `super().save` from `save`; not itself)
    that the old one did not call — it became a wrapper — and passes it every parameter the
    guard checked (all of them, for a guard on a local)."""
    before = {
        pyast.unparse(n.func) for n in pyast.walk_within(old_fn.node) if isinstance(n, ast.Call)
    }
    params = guards.parameters(new_fn.node)
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
        if checked and checked <= passed and pyast.unparse(node.func) not in before:
            return pyast.unparse(node.func)
    return None


def _short_names(units: Sequence[ast.expr]) -> str:
    return ", ".join(dict.fromkeys(pyast.unparse(u) for u in units))


def _raise_kept(guard: guards.Guard, old_fn: pyast.Function, new_fn: pyast.Function) -> bool:
    """Every `raise` of the guard (same exception, same message) is still in the function as
    often as before: the code was restructured around it (two lists merged into one, the
    raise reached after a loop that returns on success), the refusal kept. One of two
    identical raises gone still changes the count and is reported."""
    node = guard.node
    raises = (
        [node]
        if isinstance(node, ast.Raise)
        else [s for s in ast.walk(node) if isinstance(s, ast.Raise) and s.exc is not None]
        if isinstance(node, ast.If)
        else []
    )
    if not raises:
        return False

    def count(fn: pyast.Function) -> Counter[str]:
        return Counter(
            pyast.dump(n) for n in pyast.walk_within(fn.node) if isinstance(n, ast.Raise)
        )

    before, after = count(old_fn), count(new_fn)
    return all(after[key] >= before[key] for key in {pyast.dump(r) for r in raises})


def _became_default(guard: guards.Guard, new_fn: pyast.Function) -> bool:
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
