"""The assertion record of the test-weakening critic and the canonical text it is keyed by.

`Check` (one assertion: canonical key, strength rank, the names it reads, a tolerance),
`canon` (an expression's text with formatting, `self.`, renamed locals, substituted
parameters and names bound to a caught exception normalised), the numeric reading of
tolerances, and the context variables `canon` reads while one function's checks are
extracted: `_RENAMES` (alpha-equivalence), `_SUBSTITUTE` (parametrize values) and `_EXC`
(names bound to the caught exception). Only weakened_tests_rules and weakened_tests_expect
set them, each for the span of one extraction.
"""

from __future__ import annotations

import ast
import builtins
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass

from contend.critics.static import pyast
from contend.critics.static.pyast import dotted

_SELF = frozenset({"self", "cls"})


# Local-variable renames that `canon` applies while `alpha_keys` runs (empty otherwise).
_RENAMES: ContextVar[Mapping[str, str] | None] = ContextVar("renames", default=None)


# Names replaced by the canonical text of a value (a parametrize case, a loop item, the
# expression a local was assigned) while `substituted_checks` runs.
_SUBSTITUTE: ContextVar[Mapping[str, str] | None] = ContextVar("substitute", default=None)


_BUILTIN_NAMES = frozenset(dir(builtins))


RANK_EXACT = 8


_OP_RANK: dict[str, int] = {
    "eq": 8,
    "is": 8,
    "is_none": 8,
    "approx": 8,
    "almost": 8,
    "isclose": 8,
    "count_eq": 6,
    "regex": 6,
    "cmp": 4,
    "in": 4,
    "isinstance": 4,
    "truthy": 3,
    "falsy": 3,
    "ne": 2,
    "not_in": 2,
    "is_not": 2,
    "not_none": 1,
    "const": 0,
}


# (component, value or None when not a literal, the default it falls back to)
IsHelper = Callable[[str], bool]


Tolerance = tuple[tuple[str, float | None, float], ...]


@dataclass(frozen=True, slots=True)
class Check:
    """One assertion. `node` locates it (the statement or call); `family` says which checks
    may replace each other: "value" (what a value is), "raises" (an expected exception),
    "warns" (an expected warning), "ctx" (logs)."""

    op: str
    family: str
    key: str
    rank: int | None
    node: ast.AST
    tokens: frozenset[str]
    consts: frozenset[str]
    tolerance: Tolerance | None = None
    exceptions: frozenset[str] | None = None
    has_match: bool = False
    members: tuple[str, ...] | None = None
    subject: str = ""
    operands: str = ""
    reflexive: bool = False  # `x == x`: fine for testing __eq__, a tautology as a replacement
    # The operand expressions, for matching a parametrized template against concrete checks.
    operand_nodes: tuple[ast.AST, ...] = ()
    extra: str = ""
    symmetric: bool = False

    @property
    def counts(self) -> bool:
        """Does this check actually check something (`assert True` does not)?"""
        return self.rank != 0


_CANON_SKIP = frozenset({"ctx", "type_comment", "kind"})


def canon(node: ast.AST | None) -> str:
    """ast.dump-like text without positions, ctx or `self.`/`cls.`, for equality of meaning.
    Built without recursion (`pyast.serialise`), so any depth of expression is fine."""
    if node is None:
        return "None"
    return pyast.serialise(node, _canon_leaf, _CANON_SKIP)


def _canon_leaf(node: ast.AST) -> str | None:
    exception = _exception_leaf(node)
    if exception is not None:
        return exception
    if _on_self(node):
        assert isinstance(node, ast.Attribute)  # _on_self checked it
        return f"N({node.attr})"
    if isinstance(node, ast.Name):
        values = _SUBSTITUTE.get()
        if values and node.id in values:
            return values[node.id]
        renames = _RENAMES.get()
        return f"N({renames.get(node.id, node.id) if renames else node.id})"
    if isinstance(node, ast.Constant):
        return f"C({node.value!r})"
    return None


def short(node: ast.AST, limit: int = 120) -> str:
    text = " ".join(pyast.unparse(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


_TOKEN_DEPTH = 24


def _tokens(nodes: Iterable[ast.AST]) -> tuple[frozenset[str], frozenset[str]]:
    """(subject tokens, constant tokens) of operands: the names, attributes, subscripts and
    calls they mention, and their non-trivial literals — what pairs an old check with its
    replacement."""
    tokens: set[str] = set()
    consts: set[str] = set()
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Name):
                if node.id not in _BUILTIN_NAMES and node.id not in _SELF:
                    tokens.add(canon(node))
            elif isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
                # A token is a short handle (`result.status`, `f(x)`); the canonical text of
                # every level of a deep chain would cost the square of its depth.
                if not pyast.depth_exceeds(node, _TOKEN_DEPTH):
                    tokens.add(canon(node))
            elif isinstance(node, ast.Constant) and not isinstance(node.value, bool | None):
                consts.add(repr(node.value))
    return frozenset(tokens), frozenset(consts)


def _make(
    op: str,
    operands: list[ast.expr],
    node: ast.AST,
    *,
    family: str = "value",
    rank: int | None = None,
    symmetric: bool = False,
    extra: str = "",
    tolerance: Tolerance | None = None,
    members: tuple[str, ...] | None = None,
) -> Check:
    texts = [canon(o) for o in operands]
    if symmetric:
        texts.sort()
    tokens, consts = _tokens(operands)
    rank = _OP_RANK.get(op) if rank is None else rank
    return Check(
        op=op,
        family=family,
        key=f"{op}|{'|'.join(texts)}|{extra}",
        rank=rank,
        node=node,
        tokens=tokens,
        consts=consts,
        tolerance=tolerance,
        members=members,
        subject=texts[0] if texts else "",
        operands="|".join(texts),
        reflexive=len(texts) == 2 and texts[0] == texts[1],
        operand_nodes=tuple(operands),
        extra=extra,
        symmetric=symmetric,
    )


_NUMBER_DEPTH = 32  # a tolerance is a short expression; deeper ones are not literals to us


def number(node: ast.AST | None, depth: int = 0) -> float | None:
    """The value of a numeric literal expression (1e-6, -2, 10**-3, 0.5 * 2), else None."""
    if depth > _NUMBER_DEPTH:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        if isinstance(node.value, bool):
            return None
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = number(node.operand, depth + 1)
        if inner is None:
            return None
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp):
        left, right = number(node.left, depth + 1), number(node.right, depth + 1)
        if left is None or right is None:
            return None
        return _binop(node.op, left, right)
    return None


def _binop(op: ast.operator, left: float, right: float) -> float | None:
    if isinstance(op, ast.Add):
        return left + right
    if isinstance(op, ast.Sub):
        return left - right
    if isinstance(op, ast.Mult):
        return left * right
    if isinstance(op, ast.Div):
        return left / right if right else None
    if isinstance(op, ast.Pow) and abs(right) <= 400:
        return float(left**right)
    return None


def _arg(call: ast.Call, index: int, *names: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg in names:
            return kw.value
    if index < len(call.args) and not any(
        isinstance(a, ast.Starred) for a in call.args[: index + 1]
    ):
        return call.args[index]
    return None


def _tol_value(node: ast.expr | None, default: float) -> float | None:
    """The tolerance a parameter sets: its default when absent, None when not a literal."""
    if node is None:
        return default
    value = number(node)
    return None if value is None else abs(value)


def widened(old: Tolerance, new: Tolerance) -> list[str]:
    """The tolerance components that grew, as 'label a -> b' texts. An old value that is not
    a literal cannot be compared; a new literal above the default then still counts."""
    before = {label: (value, default) for label, value, default in old}
    grown: list[str] = []
    for label, value, default in new:
        if label not in before or value is None:
            continue
        old_value, _ = before[label]
        if old_value is None:
            if value > default and not math.isclose(value, default):
                grown.append(f"{label} (not a literal) -> {value:g}, above the default {default:g}")
        elif value > old_value and not math.isclose(value, old_value):
            grown.append(f"{label} {old_value:g} -> {value:g}")
    return grown


@dataclass(frozen=True, slots=True)
class _Bound:
    """Names a test binds to an exception or to recorded warnings: `except E as exc` (the
    exception itself), `with pytest.raises(E) as info` / `assertRaises(E) as cm` (holders:
    `.value` / `.exception` is the exception), `catch_warnings(record=True) as caught`."""

    direct: frozenset[str] = frozenset()
    holders: frozenset[str] = frozenset()
    records: frozenset[str] = frozenset()

    @property
    def any(self) -> bool:
        return bool(self.direct or self.holders or self.records)

    @property
    def names(self) -> frozenset[str]:
        return self.direct | self.holders | self.records


_EXC: ContextVar[_Bound | None] = ContextVar("exception_names", default=None)


_HOLDER_ATTRIBUTES = frozenset({"value", "exception"})


def _exception_leaf(node: ast.AST) -> str | None:
    bound = _EXC.get()
    if bound is None:
        return None
    if isinstance(node, ast.Name) and node.id in bound.direct:
        return "EXC"
    if (
        isinstance(node, ast.Attribute)
        and node.attr in _HOLDER_ATTRIBUTES
        and isinstance(node.value, ast.Name)
        and node.value.id in bound.holders
    ):
        return "EXC"
    return None


def walk(statements: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Parents before children, not descending into nested functions, classes or lambdas."""
    for statement in statements:
        yield statement
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        yield from pyast.walk_within(statement)


def _const_is(node: ast.expr, value: object) -> bool:
    """`node` is the constant `value`, or a name that a parametrize case or loop item being
    substituted binds to it (so `assert f(arg) == expected` with `expected` = `False` is
    read as `assertFalse(f(arg))`, as `assertEqual(f(x), False)` is)."""
    if isinstance(node, ast.Name):
        values = _SUBSTITUTE.get()
        return values is not None and values.get(node.id) == f"C({value!r})"
    return isinstance(node, ast.Constant) and node.value is value


def exception_names(node: ast.expr | None) -> frozenset[str]:
    if isinstance(node, ast.Tuple):
        return frozenset(n for e in node.elts for n in exception_names(e))
    name = dotted(node)
    return frozenset() if name is None else frozenset({name})


def _on_self(func: ast.AST) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in _SELF
    )
