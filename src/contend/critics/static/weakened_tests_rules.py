"""What a Python test checks, and how strongly: the assertion model of the test-weakening critic.

Every assertion of a function (plain `assert`, unittest `self.assert*`, mock `assert_called*`,
`pytest.raises` / `assertRaises` blocks, `pytest.fail` / `self.fail`, and calls to helpers of
the same file that themselves assert) becomes a `Check` with a canonical `key` (formatting,
messages, operand order of `==`, and `self.` are ignored, so equivalent spellings match) and a
strength `rank`:

    8  exact: ==, is, is None, approx / almostEqual / isclose, mock called-with
    6  near-exact: countEqual, regex match, mock called-once / any-call
    4  partial: membership, isinstance, ordering (<, >=), mock called
    3  truthiness: truthy, falsy
    2  exclusion: !=, not in, is not
    1  existence: is not None
    0  constant: `assert True` checks nothing
    None  unknown strength (custom helpers, other assert_* functions): never compared

`assertEqual(a, True)` canonicalises to `assertTrue(a)` (and False / None likewise), which the
team treats as equivalent. Skip markers, swallowing try/except blocks and mock.patch targets
are read here too; the critic (weakened_tests.py) compares old and new versions.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass

from contend.critics.static import pyast

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

_MOCK_RANK: dict[str, int] = {
    "assert_called_once_with": 8,
    "assert_called_with": 8,
    "assert_has_calls": 8,
    "assert_awaited_once_with": 8,
    "assert_awaited_with": 8,
    "assert_has_awaits": 8,
    "assert_any_call": 6,
    "assert_any_await": 6,
    "assert_called_once": 6,
    "assert_awaited_once": 6,
    "assert_called": 4,
    "assert_awaited": 4,
}
_MOCK_UNRANKED = frozenset({"assert_not_called", "assert_not_awaited"})

_EQ_METHODS = frozenset(
    {
        "assertEqual",
        "assertEquals",
        "failUnlessEqual",
        "assertListEqual",
        "assertTupleEqual",
        "assertDictEqual",
        "assertSetEqual",
        "assertSequenceEqual",
        "assertMultiLineEqual",
    }
)
_SIMPLE_METHODS: dict[str, tuple[str, int]] = {
    "assertCountEqual": ("count_eq", 2),
    "assertItemsEqual": ("count_eq", 2),
    "assertNotEqual": ("ne", 2),
    "assertNotEquals": ("ne", 2),
    "failIfEqual": ("ne", 2),
    "assertIs": ("is", 2),
    "assertIsNot": ("is_not", 2),
    "assertIsNone": ("is_none", 1),
    "assertIsNotNone": ("not_none", 1),
    "assertIn": ("in", 2),
    "assertNotIn": ("not_in", 2),
    "assertIsInstance": ("isinstance", 2),
    "assertGreater": ("cmp", 2),
    "assertGreaterEqual": ("cmp", 2),
    "assertLess": ("cmp", 2),
    "assertLessEqual": ("cmp", 2),
    "assertRegex": ("regex", 2),
    "assertRegexpMatches": ("regex", 2),
}
_ORDERING: dict[str, type[ast.cmpop]] = {
    "assertGreater": ast.Gt,
    "assertGreaterEqual": ast.GtE,
    "assertLess": ast.Lt,
    "assertLessEqual": ast.LtE,
}
_TRUE_METHODS = frozenset({"assertTrue", "assert_", "failUnless"})
_FALSE_METHODS = frozenset({"assertFalse", "failIf"})
_ALMOST_METHODS = frozenset({"assertAlmostEqual", "assertAlmostEquals", "failUnlessAlmostEqual"})
_RAISES_METHODS = frozenset(
    {"assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "failUnlessRaises"}
)
_CTX_METHODS = frozenset({"assertLogs", "assertNoLogs"})
_WARNS_METHODS = frozenset({"assertWarns", "assertWarnsRegex"})
_RAISES_FUNCS = frozenset({"pytest.raises", "raises"})
_UNITTEST_NAMES = frozenset(
    {*_EQ_METHODS, *_SIMPLE_METHODS, *_TRUE_METHODS, *_FALSE_METHODS, *_ALMOST_METHODS}
    | {*_RAISES_METHODS, *_CTX_METHODS, *_WARNS_METHODS, "fail"}
)
_WARNS_FUNCS = frozenset({"pytest.warns", "warns"})
_DEPRECATED_FUNCS = frozenset({"pytest.deprecated_call", "deprecated_call"})
_FAIL_FUNCS = frozenset({"pytest.fail", "self.fail", "fail"})
BROAD_EXCEPTIONS = frozenset({"Exception", "BaseException", "builtins.Exception"})
_DEPRECATIONS = frozenset({"DeprecationWarning", "PendingDeprecationWarning"})
# Families whose checks expect something to happen in a block: compared by what they expect.
EXPECTATIONS = frozenset({"raises", "warns"})

# (rel default, abs default, index of rel positional, index of abs positional)
_ISCLOSE_DEFAULTS: dict[str, tuple[float, float, int, int]] = {
    "math.isclose": (1e-9, 0.0, 99, 99),
    "cmath.isclose": (1e-9, 0.0, 99, 99),
    "isclose": (1e-9, 0.0, 99, 99),
    "np.isclose": (1e-5, 1e-8, 2, 3),
    "numpy.isclose": (1e-5, 1e-8, 2, 3),
    "np.allclose": (1e-5, 1e-8, 2, 3),
    "numpy.allclose": (1e-5, 1e-8, 2, 3),
    "np.testing.assert_allclose": (1e-7, 0.0, 2, 3),
    "numpy.testing.assert_allclose": (1e-7, 0.0, 2, 3),
    "assert_allclose": (1e-7, 0.0, 2, 3),
}
_ISCLOSE_KW = {"rel": ("rel_tol", "rtol"), "abs": ("abs_tol", "atol")}
_APPROX_REL, _APPROX_ABS = 1e-6, 1e-12

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


# --------------------------------------------------------------------------- canonical text


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


def dotted(node: ast.AST | None) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        names.append(node.id)
        return ".".join(reversed(names))
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


# --------------------------------------------------------------------------- numbers


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


# --------------------------------------------------------------------------- extraction


def checks_in(statements: Iterable[ast.AST], is_helper: IsHelper) -> list[Check]:
    """Every check inside these statements (not inside nested functions or classes), in
    source order. `is_helper(name)` says whether a same-file function of that name asserts;
    calling one is a check. The parts of one expectation are one check (see `_fold`): an
    exception caught by name in any spelling is `EXC` in the keys."""
    statements = list(statements)
    bound = _exception_bindings(statements)
    token = _EXC.set(bound) if bound.any else None
    try:
        found = _extract(statements, is_helper)
        if any(
            isinstance(n, ast.Try | ast.TryStar | ast.With | ast.AsyncWith)
            for n in walk(statements)
        ):
            found = _fold(statements, found, bound)
    finally:
        if token is not None:
            _EXC.reset(token)
    found.sort(key=lambda c: pyast.span(c.node))
    return found


def _extract(statements: list[ast.AST], is_helper: IsHelper) -> list[Check]:
    found: list[Check] = []
    aliases: dict[str, str] = {}
    calls: list[ast.Call] = []
    for node in walk(statements):
        if isinstance(node, ast.Assert):
            found.extend(expr_checks(node.test, node))
        elif isinstance(node, ast.Call):
            calls.append(node)
        elif isinstance(node, ast.Assign):
            _note_alias(node, aliases)
    for call in calls:  # after the walk: an alias may be bound anywhere in the function
        check = _call_check(call, is_helper, aliases)
        if check is not None:
            found.append(check)
    return found


# --------------------------------------------------------------------------- expectations


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
_MESSAGE_ATTRIBUTES = frozenset({"args", "message", "msg"})


def _exception_bindings(statements: list[ast.AST]) -> _Bound:
    direct: set[str] = set()
    holders: set[str] = set()
    records: set[str] = set()
    for node in walk(statements):
        if isinstance(node, ast.ExceptHandler) and node.name:
            direct.add(node.name)
        elif isinstance(node, ast.Assign) and records and _mentions(node.value, frozenset(records)):
            # `(warning,) = caught`, `first = caught[0]`: a recorded warning too
            records.update(
                n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)
            )
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                target, expr = item.optional_vars, item.context_expr
                if not isinstance(target, ast.Name) or not isinstance(expr, ast.Call):
                    continue
                name = dotted(expr.func) or ""
                last = name.split(".")[-1]
                if last == "catch_warnings" and any(
                    k.arg == "record" and not _const_is(k.value, False) for k in expr.keywords
                ):
                    records.add(target.id)
                elif (
                    name in _RAISES_FUNCS
                    or name in _WARNS_FUNCS
                    or last in _RAISES_METHODS
                    or last in _WARNS_METHODS
                ):
                    holders.add(target.id)
    return _Bound(frozenset(direct), frozenset(holders), frozenset(records))


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


def _mentions(node: ast.AST, names: frozenset[str]) -> str | None:
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and inner.id in names:
            return inner.id
    return None


def _about_message(node: ast.AST, name: str) -> bool:
    """Does this check look at the text of the exception or warning bound to `name`
    (`str(exc)`, `exc.args`, `info.value.message`, `caught[0].message`)?"""
    names = frozenset({name})
    for inner in ast.walk(node):
        if (
            isinstance(inner, ast.Call)
            and isinstance(inner.func, ast.Name)
            and inner.func.id in ("str", "repr")
            and inner.args
            and _mentions(inner.args[0], names)
        ):
            return True
        if (
            isinstance(inner, ast.Attribute)
            and inner.attr in _MESSAGE_ATTRIBUTES
            and _mentions(inner.value, names)
        ):
            return True
    return False


def _expectation(
    family: str, names: frozenset[str], node: ast.AST, has_match: bool, how: str
) -> Check:
    return Check(
        op=family,
        family=family,
        key=f"{family}|{'|'.join(sorted(names))}|{how}|{has_match}",
        rank=RANK_EXACT,
        node=node,
        tokens=frozenset(names),
        consts=frozenset(),
        exceptions=names,
        has_match=has_match,
        subject=", ".join(sorted(names)),
    )


def _fold(statements: list[ast.AST], found: list[Check], bound: _Bound) -> list[Check]:
    """One check per expectation, as `pytest.raises(E, match=...)` states it:
    - a `try` whose body ends in a failure (or whose `else` fails), or whose handler
      asserts on the caught exception, expects that exception; the failure call and the
      handler's checks of the message become that expectation (`has_match`);
    - checks of the message of `info.value` / `cm.exception` after a raises block, and
      `info.match(...)`, become its `has_match`;
    - checks on `catch_warnings(record=True)` records become one expected warning (its
      category from `issubclass(w.category, C)`, its message checks its `has_match`)."""
    by_node = {id(c.node): c for c in found}
    dropped: set[int] = set()
    replaced: dict[int, Check] = {}
    added: list[Check] = []
    owners: dict[str, Check] = {}
    for node in walk(statements):
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                check = by_node.get(id(item.context_expr))
                if check is None or check.family not in EXPECTATIONS:
                    continue
                # What the block runs is part of what is expected: two `assertRaises(E)`
                # blocks around different calls are different checks.
                block = ",".join(canon(stmt) for stmt in node.body)
                check = dataclasses.replace(check, key=f"{check.key}|{block}")
                replaced[id(by_node[id(item.context_expr)])] = check
                if isinstance(item.optional_vars, ast.Name):
                    owners[item.optional_vars.id] = check
        elif isinstance(node, ast.Try | ast.TryStar):
            expected = _try_expectation(node, found, dropped)
            if expected is not None:
                added.append(expected)
    matched = {
        node.func.value.id
        for node in walk(statements)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "match"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in owners
    }
    for check in found:
        name = _mentions(check.node, bound.holders) if id(check) not in dropped else None
        if name in owners and _about_message(check.node, name):
            matched.add(name)
            dropped.add(id(check))
    for name in matched:
        owner = owners[name]
        replaced[id(owner)] = dataclasses.replace(replaced.get(id(owner), owner), has_match=True)
    if bound.records:
        expected = _warnings_expectation(bound.records, found, dropped)
        if expected is not None:
            added.append(expected)
    kept = [replaced.get(id(c), c) for c in found if id(c) not in dropped]
    return kept + added


def _try_expectation(
    node: ast.Try | ast.TryStar, found: list[Check], dropped: set[int]
) -> Check | None:
    handlers = [
        h
        for h in node.handlers
        if h.type is not None
        and not exception_names(h.type) & {"AssertionError"}
        and not any(isinstance(n, ast.Raise) for n in ast.walk(h))
    ]
    if not handlers:
        return None
    tail = node.body[-1]
    fails = [
        c
        for c in found
        if c.op == "fail"
        and (
            c.node is tail or _inside(c.node, tail) or any(_inside(c.node, s) for s in node.orelse)
        )
    ]
    names: set[str] = set()
    has_match = False
    for handler in handlers:
        about = [c for c in found if handler.name and _within(c.node, handler)]
        messages = [c for c in about if _about_message(c.node, handler.name or "")]
        if fails or about:
            names.update(exception_names(handler.type))
        has_match = has_match or bool(messages)
        dropped.update(id(c) for c in messages)
    if not names:
        return None
    dropped.update(id(c) for c in fails)
    return _expectation("raises", frozenset(names), node, has_match, "try")


def _warnings_expectation(
    records: frozenset[str], found: list[Check], dropped: set[int]
) -> Check | None:
    """Every check of the recorded warnings (and of names taken from them) as one."""
    about = [c for c in found if id(c) not in dropped and _mentions(c.node, records)]
    if not about:
        return None
    categories: set[str] = set()
    for check in about:
        for inner in ast.walk(check.node):
            if isinstance(inner, ast.Call) and dotted(inner.func) == "issubclass":
                if len(inner.args) == 2:
                    categories.update(exception_names(inner.args[1]))
            elif isinstance(inner, ast.Compare) and _is_category(inner.left):
                categories.update(n for c in inner.comparators for n in exception_names(c))
            elif (
                isinstance(inner, ast.Call)
                and len(inner.args) == 2
                and (dotted(inner.func) or "").split(".")[-1] in ("assertEqual", "assertIs")
                and _is_category(inner.args[0])
            ):
                categories.update(exception_names(inner.args[1]))
    has_match = any(_about_message(c.node, r) for c in about for r in records)
    dropped.update(id(c) for c in about)
    node = min((c.node for c in about), key=pyast.span)
    return _expectation("warns", frozenset(categories or {"Warning"}), node, has_match, "record")


def _is_category(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "category"


def _inside(node: ast.AST, container: ast.AST) -> bool:
    return any(inner is node for inner in ast.walk(container))


def _within(node: ast.AST, handler: ast.ExceptHandler) -> bool:
    return any(_inside(node, stmt) for stmt in handler.body)


def no_helpers(name: str) -> bool:
    return False


def substituted_checks(
    statements: Iterable[ast.AST], is_helper: IsHelper, values: Mapping[str, str]
) -> list[Check]:
    """`checks_in` with each name in `values` read as the canonical text it maps to (a
    parametrize case, a loop item, the expression a local holds)."""
    token = _SUBSTITUTE.set(values)
    try:
        return checks_in(statements, is_helper)
    finally:
        _SUBSTITUTE.reset(token)


def rekey(check: Check, values: Mapping[str, str]) -> str:
    """The check's key with each name in `values` read as its canonical text."""
    if not check.operand_nodes or not values:
        return check.key
    texts = [substituted_canon(o, values) for o in check.operand_nodes]
    if check.symmetric:
        texts.sort()
    return f"{check.op}|{'|'.join(texts)}|{check.extra}"


def substituted_canon(node: ast.AST, values: Mapping[str, str]) -> str:
    token = _SUBSTITUTE.set(values)
    try:
        return canon(node)
    finally:
        _SUBSTITUTE.reset(token)


def alpha_keys(function: pyast.FunctionNode, is_helper: IsHelper) -> list[str]:
    """The keys of `checks_in(function.body)`, in the same order, with local variables
    renamed by order of first binding: a consistently renamed local does not change them."""
    token = _RENAMES.set(_local_names(function))
    try:
        return [c.key for c in checks_in(function.body, is_helper)]
    finally:
        _RENAMES.reset(token)


def _local_names(function: pyast.FunctionNode) -> dict[str, str]:
    first: dict[str, tuple[int, int]] = {}

    def bind(name: str, node: ast.AST) -> None:
        where = (int(getattr(node, "lineno", 0)), int(getattr(node, "col_offset", 0)))
        if name not in _SELF and (name not in first or where < first[name]):
            first[name] = where

    arguments = function.args
    for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
        bind(arg.arg, arg)
    for node in walk(function.body):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bind(node.id, node)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bind(node.name, node)
    ordered = sorted(first, key=lambda name: first[name])
    return {name: f"_local{i}" for i, name in enumerate(ordered)}


def walk(statements: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Parents before children, not descending into nested functions, classes or lambdas."""
    for statement in statements:
        yield statement
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        yield from pyast.walk_within(statement)


def has_checks(statements: Iterable[ast.AST]) -> bool:
    return any(c.counts for c in checks_in(statements, no_helpers))


def expr_checks(expr: ast.expr, node: ast.AST) -> list[Check]:
    """Checks of `assert expr` (an `and` is split into its parts)."""
    if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.And):
        return [c for value in expr.values for c in expr_checks(value, node)]
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return [_negated(expr.operand, node)]
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
        return [_compare(expr.left, expr.ops[0], expr.comparators[0], node)]
    if isinstance(expr, ast.Compare):
        return [_make("cmp", [expr], node)]
    if isinstance(expr, ast.Constant):
        return [_make("const" if expr.value else "fail", [expr], node)]
    if isinstance(expr, ast.Call):
        name = dotted(expr.func) or ""
        if name == "isinstance" and len(expr.args) == 2:
            return [_make("isinstance", list(expr.args), node)]
        if name in _ISCLOSE_DEFAULTS and len(expr.args) >= 2:
            return [_isclose(name, expr, node)]
    return [_make("truthy", [expr], node)]


_NEGATE: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}


def _negated(operand: ast.expr, node: ast.AST) -> Check:
    if isinstance(operand, ast.Compare) and len(operand.ops) == 1:
        flipped = _NEGATE.get(type(operand.ops[0]))
        if flipped is not None:
            return _compare(operand.left, flipped(), operand.comparators[0], node)
        return _make("cmp", [operand], node)
    if isinstance(operand, ast.UnaryOp) and isinstance(operand.op, ast.Not):
        return expr_checks(operand.operand, node)[0]
    return _make("falsy", [operand], node)


def _const_is(node: ast.expr, value: object) -> bool:
    """`node` is the constant `value`, or a name that a parametrize case or loop item being
    substituted binds to it (so `assert f(arg) == expected` with `expected` = `False` is
    read as `assertFalse(f(arg))`, as `assertEqual(f(x), False)` is)."""
    if isinstance(node, ast.Name):
        values = _SUBSTITUTE.get()
        return values is not None and values.get(node.id) == f"C({value!r})"
    return isinstance(node, ast.Constant) and node.value is value


def _compare(left: ast.expr, op: ast.cmpop, right: ast.expr, node: ast.AST) -> Check:
    if isinstance(op, ast.Eq | ast.Is):
        for a, b in ((left, right), (right, left)):
            if _const_is(b, True):
                return _make("truthy", [a], node)
            if _const_is(b, False):
                return _make("falsy", [a], node)
            if _const_is(b, None):
                return _make("is_none", [a], node)
            if isinstance(op, ast.Eq) and _is_approx(b):
                return _approx(a, b, node)
        return _make("eq" if isinstance(op, ast.Eq) else "is", [left, right], node, symmetric=True)
    if isinstance(op, ast.NotEq | ast.IsNot):
        for a, b in ((left, right), (right, left)):
            if _const_is(b, None):
                return _make("not_none", [a], node)
        return _make("ne" if isinstance(op, ast.NotEq) else "is_not", [left, right], node)
    if isinstance(op, ast.In):
        return _membership(left, right, node)
    if isinstance(op, ast.NotIn):
        return _make("not_in", [left, right], node)
    return _make("cmp", [left, right], node, extra=type(op).__name__)


def _membership(item: ast.expr, collection: ast.expr, node: ast.AST) -> Check:
    members: tuple[str, ...] | None = None
    rank = None
    if isinstance(collection, ast.List | ast.Tuple | ast.Set):
        members = tuple(short(e) for e in collection.elts)
        if len(set(members)) == 1:
            rank = RANK_EXACT  # `x in [v]` is `x == v`
    return _make("in", [item, collection], node, rank=rank, members=members)


def _is_approx(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and (dotted(node.func) or "").split(".")[-1] == "approx"


def _approx(actual: ast.expr, call: ast.expr, node: ast.AST) -> Check:
    assert isinstance(call, ast.Call)  # guaranteed by _is_approx
    expected = call.args[0] if call.args else call
    rel_node, abs_node = _arg(call, 1, "rel"), _arg(call, 2, "abs")
    rel = _tol_value(rel_node, _APPROX_REL)
    if rel_node is None and abs_node is not None:
        rel = 0.0  # pytest: abs alone means relative tolerance is not considered
    tolerance: Tolerance = (
        ("rel", rel, _APPROX_REL),
        ("abs", _tol_value(abs_node, _APPROX_ABS), _APPROX_ABS),
    )
    extra = f"{canon(rel_node)}|{canon(abs_node)}"
    return _make("approx", [actual, expected], node, extra=extra, tolerance=tolerance)


def _isclose(name: str, call: ast.Call, node: ast.AST) -> Check:
    rel_default, abs_default, rel_index, abs_index = _ISCLOSE_DEFAULTS[name]
    rel_node = _arg(call, rel_index, *_ISCLOSE_KW["rel"])
    abs_node = _arg(call, abs_index, *_ISCLOSE_KW["abs"])
    tolerance: Tolerance = (
        ("rel", _tol_value(rel_node, rel_default), rel_default),
        ("abs", _tol_value(abs_node, abs_default), abs_default),
    )
    extra = f"{canon(rel_node)}|{canon(abs_node)}"
    return _make("isclose", list(call.args[:2]), node, extra=extra, tolerance=tolerance)


def _almost(call: ast.Call, node: ast.AST) -> Check | None:
    if len(call.args) < 2:
        return None
    places_node, delta_node = _arg(call, 2, "places"), _arg(call, 99, "delta")
    default = 0.5 * 10.0**-7  # unittest: places=7 rounds to 7 decimals
    if delta_node is not None:
        tolerance: Tolerance = (("abs", _tol_value(delta_node, 0.0), default),)
    else:
        places = number(places_node) if places_node is not None else 7.0
        value = None if places is None else 0.5 * 10.0**-places
        tolerance = (("abs", value, default),)
    extra = f"{canon(places_node)}|{canon(delta_node)}"
    return _make("almost", list(call.args[:2]), node, extra=extra, tolerance=tolerance)


def exception_names(node: ast.expr | None) -> frozenset[str]:
    if isinstance(node, ast.Tuple):
        return frozenset(n for e in node.elts for n in exception_names(e))
    name = dotted(node)
    return frozenset() if name is None else frozenset({name})


def _raises(call: ast.Call, node: ast.AST, *, regex_method: bool, family: str = "raises") -> Check:
    exc_node = _arg(call, 0, "expected_exception", "exception", "expected_warning")
    match_node = _arg(call, 1, "expected_regex") if regex_method else _arg(call, 99, "match")
    names = exception_names(exc_node)
    if family == "warns" and not call.args and exc_node is None:
        names = _DEPRECATIONS  # pytest.deprecated_call()
    rest = [a for a in call.args[2 if regex_method else 1 :] if not isinstance(a, ast.Starred)]
    tokens, consts = _tokens(rest)
    # The call-form `assertRaises(E, f, *args)` names what it runs: part of the check.
    called = ",".join(canon(a) for a in [*call.args[2 if regex_method else 1 :], *call.keywords])
    return Check(
        op=family,
        family=family,
        key=(f"{family}|{'|'.join(sorted(names))}|{canon(match_node)}|{canon(exc_node)}|{called}"),
        rank=RANK_EXACT,
        node=node,
        tokens=tokens | frozenset(names),
        consts=consts,
        exceptions=names,
        has_match=match_node is not None,
        subject=", ".join(sorted(names)),
    )


def _note_alias(node: ast.Assign, aliases: dict[str, str]) -> None:
    """Record `eq = self.assertEqual`: calling `eq` is calling the unittest method."""
    if len(node.targets) != 1:
        return
    target, value = node.targets[0], node.value
    if (
        isinstance(target, ast.Name)
        and isinstance(value, ast.Attribute)
        and _on_self(value)
        and value.attr in _UNITTEST_NAMES
    ):
        aliases[target.id] = value.attr


def _call_check(call: ast.Call, is_helper: IsHelper, aliases: Mapping[str, str]) -> Check | None:
    node = call
    name = dotted(call.func) or ""
    last = name.split(".")[-1] if name else ""
    if isinstance(call.func, ast.Attribute):
        last = call.func.attr
    elif isinstance(call.func, ast.Name) and call.func.id in aliases:
        last = aliases[call.func.id]
        name = f"self.{last}"
    if name in _RAISES_FUNCS or last in _RAISES_METHODS:
        return _raises(call, node, regex_method=last.startswith("assertRaisesRegex"))
    if name in _WARNS_FUNCS or name in _DEPRECATED_FUNCS or last in _WARNS_METHODS:
        regex = last == "assertWarnsRegex"
        return _raises(call, node, regex_method=regex, family="warns")
    if last in _CTX_METHODS:
        return _make("ctx:" + last, list(call.args), node, family="ctx", extra=canon(call))
    return _plain_call_check(call, name, last, node, is_helper)


def _plain_call_check(
    call: ast.Call, name: str, last: str, node: ast.AST, is_helper: IsHelper
) -> Check | None:
    args = list(call.args)
    if last in _EQ_METHODS and len(args) >= 2:
        return _compare(args[0], ast.Eq(), args[1], node)
    if last in _SIMPLE_METHODS and len(args) >= _SIMPLE_METHODS[last][1]:
        op, arity = _SIMPLE_METHODS[last]
        if op in ("is", "ne", "is_not", "not_in"):
            opnode: ast.cmpop = {
                "is": ast.Is(),
                "ne": ast.NotEq(),
                "is_not": ast.IsNot(),
                "not_in": ast.NotIn(),
            }[op]
            return _compare(args[0], opnode, args[1], node)
        if op == "in":
            return _membership(args[0], args[1], node)
        if op == "cmp":
            return _compare(args[0], _ORDERING[last](), args[1], node)
        return _make(op, args[:arity], node)
    if last in _TRUE_METHODS and args:
        return expr_checks(args[0], node)[0]
    if last in _FALSE_METHODS and args:
        return _negated(args[0], node)
    if last in _ALMOST_METHODS:
        return _almost(call, node)
    if name in _ISCLOSE_DEFAULTS and name.split(".")[-1].startswith("assert"):
        return _isclose(name, call, node) if len(args) >= 2 else None
    if last in _MOCK_RANK or last in _MOCK_UNRANKED:
        assert isinstance(call.func, ast.Attribute)  # `last` came from an attribute
        receiver = call.func.value
        return _make(
            "mock",
            [receiver, *args],
            node,
            rank=_MOCK_RANK.get(last),
            extra=last + "|" + "|".join(canon(k) for k in call.keywords),
        )
    if name in _FAIL_FUNCS:
        return _make("fail", [], node, extra=canon(call))
    if (isinstance(call.func, ast.Name) or _on_self(call.func)) and is_helper(last):
        return _make("helper:" + last, args, node, extra=canon(call))
    if last.startswith("assert"):
        return _make("call:" + last, args, node, extra=canon(call))
    return None


def _on_self(func: ast.AST) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in _SELF
    )


# --------------------------------------------------------------------------- swallowing


_SWALLOWING = frozenset({"AssertionError", "Exception", "BaseException"})


def swallowed_checks(
    statements: Iterable[ast.AST], is_helper: IsHelper
) -> list[tuple[ast.AST, str, Check]]:
    """(block, caught, check) for each check inside a try whose handler catches
    AssertionError or a broad class (or is bare) without re-raising or failing, and inside
    `with suppress(AssertionError | Exception)`."""
    found: list[tuple[ast.AST, str, Check]] = []
    for node in walk(statements):
        if isinstance(node, ast.Try | ast.TryStar):
            caught = [h for h in node.handlers if _swallows(h)]
            if caught:
                label = _caught_label(caught[0].type)
                found.extend((node, label, c) for c in checks_in(node.body, is_helper))
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                suppressed = _suppressed(item.context_expr)
                if suppressed is not None:
                    found.extend((node, suppressed, c) for c in checks_in(node.body, is_helper))
    return found


def _swallows(handler: ast.ExceptHandler) -> bool:
    names = exception_names(handler.type) if handler.type is not None else frozenset()
    if handler.type is not None and not {n.split(".")[-1] for n in names} & _SWALLOWING:
        return False
    for node in walk(handler.body):
        if isinstance(node, ast.Raise):
            return False
        if isinstance(node, ast.Call) and (dotted(node.func) or "") in _FAIL_FUNCS:
            return False
    return True


def _caught_label(node: ast.expr | None) -> str:
    return "a bare except" if node is None else f"except {short(node)}"


def _suppressed(expr: ast.expr) -> str | None:
    if not isinstance(expr, ast.Call):
        return None
    if (dotted(expr.func) or "").split(".")[-1] != "suppress":
        return None
    names = {n.split(".")[-1] for a in expr.args for n in exception_names(a)}
    return f"with {short(expr)}" if names & _SWALLOWING else None
