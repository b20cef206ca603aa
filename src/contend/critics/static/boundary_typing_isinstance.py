"""The `isinstance-replaced-by-constant` rule of the boundary-typing topic: an isinstance
check in a condition the change touched was turned into a constant (`True`, `False`) or
dropped from a condition that otherwise survived, so values of any type take that branch.

Counts isinstance calls per function by shape (parameter names blanked): only calls the new
version has fewer of are candidates. Each finding carries the old line it explains, so the
guard-removed rule does not report the same check again.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from contend.critics.static import boundary_typing_guards as guards
from contend.critics.static import boundary_typing_marks as marks
from contend.critics.static import pyast
from contend.critics.static.base import Confidence, FileChange, Finding, Topic
from contend.critics.static.catalogue import PYTHON, RuleInfo, waiver_way
from contend.protocol.model import Severity

_TOPIC = Topic.BOUNDARY_TYPING
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


def _conditions(fn: pyast.FunctionNode) -> Iterator[ast.expr]:
    for node in pyast.walk_within(fn):
        if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
            yield node.test


def _isinstance_calls(node: ast.AST) -> list[ast.Call]:
    return [
        n for n in ast.walk(node) if isinstance(n, ast.Call) and guards.is_call_to(n, "isinstance")
    ]


def _constant_shape(node: ast.AST, params: Iterable[str]) -> str:
    # `True` and `False` stand for "a constant": either one switches the check off.
    return re.sub(r"\bFalse\b", "True", guards.shape(node, params))


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


def isinstance_replaced(
    change: FileChange, old_fn: pyast.Function, new_fn: pyast.Function
) -> Iterator[tuple[Finding, int]]:
    """Findings paired with the old line they explain (so the guard rule does not repeat it)."""
    old_params, new_params = guards.parameters(old_fn.node), guards.parameters(new_fn.node)
    deficit = Counter(guards.shape(c, old_params) for c in _isinstance_calls(old_fn.node))
    deficit.subtract(guards.shape(c, new_params) for c in _isinstance_calls(new_fn.node))
    added, removed = sorted(change.added_lines), sorted(change.removed_lines)
    new_tests = [t for t in _conditions(new_fn.node) if marks.hits(added, *pyast.span(t))]
    by_shape = {_constant_shape(t, new_params): t for t in reversed(new_tests)}
    constants = [t for t in new_tests if isinstance(guards.strip_not(t), ast.Constant)]
    for test in sorted(_conditions(old_fn.node), key=lambda t: t.lineno):
        if not marks.hits(removed, *pyast.span(test)):
            continue
        gone: list[ast.Call] = []
        for call in _isinstance_calls(test):
            key = guards.shape(call, old_params)
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
        finding = guards.finding(
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
