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
are read here too; the critic (weakened_tests.py) compares old and new versions. The `Check`
record and canonical text live in weakened_tests_check, expected exceptions and swallowing
blocks in weakened_tests_expect; the names other modules read are re-exported here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping

from contend.critics.static import pyast
from contend.critics.static.pyast import dotted
from contend.critics.static.weakened_tests_check import (
    _EXC,
    _RENAMES,
    _SELF,
    _SUBSTITUTE,
    RANK_EXACT,
    Check,
    IsHelper,
    Tolerance,
    _arg,
    _const_is,
    _make,
    _on_self,
    _tol_value,
    canon,
    exception_names,
    number,
    short,
    walk,
    widened,
)
from contend.critics.static.weakened_tests_expect import (
    _FAIL_FUNCS,
    _RAISES_FUNCS,
    _RAISES_METHODS,
    _WARNS_FUNCS,
    _WARNS_METHODS,
    BROAD_EXCEPTIONS,
    EXPECTATIONS,
    _caught_label,
    _exception_bindings,
    _fold,
    _raises,
    _suppressed,
    _swallows,
)

# What the critic and its other modules read from the assertion model.
__all__ = [
    "BROAD_EXCEPTIONS",
    "EXPECTATIONS",
    "Check",
    "IsHelper",
    "alpha_keys",
    "canon",
    "checks_in",
    "dotted",
    "exception_names",
    "has_checks",
    "rekey",
    "short",
    "substituted_canon",
    "substituted_checks",
    "swallowed_checks",
    "walk",
    "widened",
]

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


_CTX_METHODS = frozenset({"assertLogs", "assertNoLogs"})


_UNITTEST_NAMES = frozenset(
    {*_EQ_METHODS, *_SIMPLE_METHODS, *_TRUE_METHODS, *_FALSE_METHODS, *_ALMOST_METHODS}
    | {*_RAISES_METHODS, *_CTX_METHODS, *_WARNS_METHODS, "fail"}
)


_DEPRECATED_FUNCS = frozenset({"pytest.deprecated_call", "deprecated_call"})


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
    managers: set[int] = set()
    for node in walk(statements):
        if isinstance(node, ast.Assert):
            found.extend(expr_checks(node.test, node))
        elif isinstance(node, ast.Call):
            calls.append(node)
        elif isinstance(node, ast.Assign):
            _note_alias(node, aliases)
        elif isinstance(node, ast.With | ast.AsyncWith):
            managers.update(id(item.context_expr) for item in node.items)
    for call in calls:  # after the walk: an alias may be bound anywhere in the function
        check = _call_check(call, is_helper, aliases)
        if check is None and id(call) in managers:
            check = _expecting_context(call)
        if check is not None:
            found.append(check)
    return found


def _expecting_context(call: ast.Call) -> Check | None:
    """A context manager named as an expectation (tornado's `ExpectLog`, `expect_warnings`)
    checks what happens inside it, as `assertLogs` does: it fails the test when that does not
    happen."""
    name = dotted(call.func) or ""
    last = name.split(".")[-1]
    if not last.lower().startswith("expect"):
        return None
    return _make("ctx:" + last, list(call.args), call, family="ctx", extra=canon(call))


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
