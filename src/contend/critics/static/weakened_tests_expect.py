"""What a Python test expects to be raised or warned, and what swallows a failure.

`pytest.raises` / `assertRaises` / `pytest.warns` blocks, try/except-fail expectations and
the names bound to the caught exception (read while one function's checks are extracted,
weakened_tests_rules.checks_in); and the try/except blocks that swallow an assertion's
failure. Part of the assertion model of weakened_tests_rules.
"""

from __future__ import annotations

import ast
import dataclasses

from contend.critics.static import pyast
from contend.critics.static.pyast import dotted
from contend.critics.static.weakened_tests_check import (
    RANK_EXACT,
    Check,
    _arg,
    _Bound,
    _const_is,
    _tokens,
    canon,
    exception_names,
    short,
    walk,
)

_RAISES_METHODS = frozenset(
    {"assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "failUnlessRaises"}
)


_WARNS_METHODS = frozenset({"assertWarns", "assertWarnsRegex"})


_RAISES_FUNCS = frozenset({"pytest.raises", "raises"})


_WARNS_FUNCS = frozenset({"pytest.warns", "warns"})


_FAIL_FUNCS = frozenset({"pytest.fail", "self.fail", "fail"})


BROAD_EXCEPTIONS = frozenset({"Exception", "BaseException", "builtins.Exception"})


_DEPRECATIONS = frozenset({"DeprecationWarning", "PendingDeprecationWarning"})


# Families whose checks expect something to happen in a block: compared by what they expect.
EXPECTATIONS = frozenset({"raises", "warns"})


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
    tail = node.body[-1]
    if not handlers or isinstance(tail, ast.Raise):
        # A body that ends in its own `raise` always reaches the handler: the test raises
        # to get an exception object (a traceback to render), it expects nothing of the
        # code under test; the handler's assertions are checks like any other.
        return None
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


_SWALLOWING = frozenset({"AssertionError", "Exception", "BaseException"})


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
