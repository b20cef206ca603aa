"""The guard model shared by the boundary-typing removal rules: what counts as a validation
check in a Python function and the canonical forms the rules compare old against new.

A guard is an `if ...: raise`, an `assert`, or the `raise` that ends a type dispatch (the
`else:` of an isinstance chain, or the statement after isinstance branches that all
return); `guards_of` finds them, `is_strict` says which the topic owns (TypeError /
ValueError, or `assert isinstance` of a parameter). `shape` blanks parameter names so a
renamed parameter still matches. The rules themselves live in boundary_typing_removed.py
and boundary_typing_isinstance.py.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from contend.critics.static import pyast
from contend.critics.static.base import FileChange, Finding
from contend.critics.static.catalogue import RuleInfo

_VALIDATION_ERRORS = frozenset({"TypeError", "ValueError"})


_LAYOUT = frozenset({"ctx", "type_comment", "kind"})


@dataclass(frozen=True, slots=True)
class Guard:
    """One validation check: the condition(s) that must hold, normalised so that
    `if not c: raise` and `assert c` give the same unit."""

    node: ast.If | ast.Assert | ast.Raise
    units: tuple[ast.expr, ...]


def finding(
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


def parameters(fn: pyast.FunctionNode) -> dict[str, ast.expr | None]:
    args = fn.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    every += [a for a in (args.vararg, args.kwarg) if a is not None]
    return {a.arg: a.annotation for a in every if a.arg not in ("self", "cls")}


def shape(node: ast.AST, params: Iterable[str]) -> str:
    """The node's canonical text with parameter names blanked, so renaming a parameter
    keeps it (depth-safe: `pyast.serialise`)."""
    names = frozenset(params)

    def leaf(inner: ast.AST) -> str | None:
        return "N(_)" if isinstance(inner, ast.Name) and inner.id in names else None

    return pyast.serialise(node, leaf if names else None, _LAYOUT)


def strip_not(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return node.operand
    return node


def _split(node: ast.expr, op: type[ast.boolop]) -> tuple[ast.expr, ...]:
    if isinstance(node, ast.BoolOp) and isinstance(node.op, op):
        return tuple(node.values)
    return (node,)


def raised_name(stmt: ast.Raise) -> str | None:
    exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
    if isinstance(exc, ast.Name):
        return exc.id
    if isinstance(exc, ast.Attribute):
        return exc.attr
    return None


def _is_validation_error(name: str | None) -> bool:
    return name is not None and (name in _VALIDATION_ERRORS or name.endswith("ValidationError"))


def has_isinstance(node: ast.AST) -> bool:
    return any(is_call_to(n, "isinstance") for n in ast.walk(node))


def is_call_to(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def guards_of(fn: pyast.FunctionNode) -> Iterator[Guard]:
    """Checks of a function: every `if ...: raise`, every `assert`, and the `raise` that
    ends a type dispatch — the `else:` of an if/elif chain, or the statement after
    isinstance branches that all return — whose unit is the raised exception. Which of them
    this topic owns is `is_strict`; the rest still count when matching old against new, so
    a guard that merely changed its exception class is not reported as removed."""
    for node in pyast.walk_within(fn):
        if isinstance(node, ast.If) and any(isinstance(s, ast.Raise) for s in node.body):
            # `if a or b: raise` forbids a and b separately: each is its own unit.
            units = _split(node.test, ast.Or) if not _is_not(node.test) else (node.test,)
            yield Guard(node, tuple(strip_not(u) for u in units))
        elif isinstance(node, ast.Assert):
            yield Guard(node, tuple(strip_not(u) for u in _split(node.test, ast.And)))
        if isinstance(node, ast.If) and node.orelse:
            last = node.orelse[-1]
            # `else: raise TypeError(...)`, also as `msg = "..."; raise TypeError(msg)`
            if (
                isinstance(last, ast.Raise)
                and last.exc is not None
                and has_isinstance(node.test)
                and all(isinstance(s, ast.Assign) for s in node.orelse[:-1])
            ):
                yield Guard(last, (last.exc,))
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
                and has_isinstance(previous.test)
                and previous.body
                and isinstance(previous.body[-1], ast.Return | ast.Raise)
                and not previous.orelse
            ):
                yield Guard(stmt, (stmt.exc,))


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


def is_strict(guard: Guard, params: Iterable[str] = ()) -> bool:
    """A guard this topic owns: raising TypeError/ValueError, or asserting isinstance of a
    parameter (an `assert isinstance(self.x, T)` on the object's own state narrows a type
    for the checker; it does not validate input)."""
    if isinstance(guard.node, ast.Assert):
        names = {n.id for n in ast.walk(guard.node.test) if isinstance(n, ast.Name)}
        return has_isinstance(guard.node.test) and bool(names & set(params))
    if isinstance(guard.node, ast.Raise):
        return _is_validation_error(raised_name(guard.node))
    return any(
        isinstance(s, ast.Raise) and _is_validation_error(raised_name(s)) for s in guard.node.body
    )
