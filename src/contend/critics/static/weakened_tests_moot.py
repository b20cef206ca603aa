"""Checks a change made moot: an old assertion that is gone because what it checked is gone,
not because the test got weaker. The test-weakening critic asks before it reports one.

- it used a function, class, module member or result field (a namedtuple's `errors`) the
  change removed from the code under test — the API changed;
- the new test now expects an exception from a call the old test made and checked the
  results of (the behaviour became a rejection: the values no longer exist);
- it was a failure (`assert False`, `pytest.fail`) and the new test raises instead;
- it sat in the branch of an `if` on the interpreter's version that the change took out
  with the `if`, keeping the other branch (support for old Pythons dropped);
- it expected an exception from a call the new test makes inside an expectation of a log
  record or a warning (the error is logged now; the new test fails if it is still raised);
- it checked a part of a result the test unpacked (`data, errors = load()`) that the new
  test takes whole (`data = load()`): the call returns one value now;
- it checked a field of a result type the change removed (`type(result.data) == str`) and
  the new test makes the same check of the whole result (`type(result) == str`).

Pure functions over the old and new test functions and `weakened_tests_removed.Removed`.
"""

from __future__ import annotations

import ast
import copy
import re
from collections import Counter
from collections.abc import Iterable

from contend.critics.static import pyast
from contend.critics.static import weakened_tests_removed as rm
from contend.critics.static.weakened_tests_rules import (
    EXPECTATIONS,
    Check,
    IsHelper,
    canon,
    checks_in,
    dotted,
    walk,
)


def gone_with_the_api(
    check: Check, removed: rm.Removed, fn: pyast.FunctionNode | None = None
) -> bool:
    """The assertion reads something the change removed from the code under test: a
    function, class, result field or module member, or an attribute or option it defined
    (read as `obj.x` or passed as `x=`, in the assertion or in what its locals were last
    assigned before it)."""
    if rm.mentions(check.node, removed.names | removed.fields):
        return True
    if removed.attributes and any(
        _uses_member(node, removed.attributes) for node in _with_reaching(check, fn)
    ):
        return True
    for node in ast.walk(check.node):
        if isinstance(node, ast.Attribute):
            owner = (pyast.unparse(node.value) if _short(node.value) else "").split(".")[-1]
            if (owner, node.attr) in removed.members:
                return True
    return False


def _uses_member(node: ast.AST, members: frozenset[str]) -> bool:
    return any(
        (isinstance(inner, ast.Attribute) and inner.attr in members)
        or (isinstance(inner, ast.keyword) and inner.arg in members)
        for inner in ast.walk(node)
    )


def _with_reaching(check: Check, fn: pyast.FunctionNode | None) -> list[ast.AST]:
    """The assertion, and the value last assigned (before it, in `fn`) to each local it
    reads: `output = code(text, option=False); assert output == ...` reads the option."""
    found: list[ast.AST] = [check.node]
    if fn is None:
        return found
    line = pyast.span(check.node)[0]
    read = {n.id for n in ast.walk(check.node) if isinstance(n, ast.Name)}
    last: dict[str, ast.AST] = {}
    for node in walk(fn.body):
        if isinstance(node, ast.Assign) and node.lineno < line:
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in read:
                    previous = last.get(target.id)
                    if previous is None or getattr(previous, "lineno", 0) < node.lineno:
                        last[target.id] = node
    found.extend(node.value for node in last.values() if isinstance(node, ast.Assign))
    return found


def _short(node: ast.AST) -> bool:
    return isinstance(node, ast.Name | ast.Attribute) and not pyast.depth_exceeds(node, 8)


def now_rejected(
    old_fn: pyast.FunctionNode,
    new_fn: pyast.FunctionNode,
    old_checks: Iterable[Check],
    new_checks: Iterable[Check],
) -> int | None:
    """The first old line from which the old test's value checks are moot: a call there is
    now made inside a new `pytest.raises` / `assertRaises` block (the change turned the
    behaviour into a rejection). None when there is no such call."""
    before = {c.key for c in old_checks if c.family in EXPECTATIONS}
    blocks = [c for c in new_checks if c.family in EXPECTATIONS and c.key not in before]
    if not blocks:
        return None
    expected = {canon(n) for n in _expectation_calls(new_fn, blocks)}
    lines = [
        node.lineno
        for node in walk(old_fn.body)
        if isinstance(node, ast.Call) and canon(node) in expected
    ]
    return min(lines) if lines else None


def now_reported(
    old_fn: pyast.FunctionNode,
    new_fn: pyast.FunctionNode,
    old_checks: Iterable[Check],
    new_checks: Iterable[Check],
) -> set[int]:
    """Ids of the old test's expected exceptions whose calls the new test makes inside a
    new expectation of a log record or a warning (`assertRaises(E): wait()` ->
    `ExpectLog(log, ...): wait()`): the behaviour changed from raising to reporting, and
    an exception still raised there would fail the new test."""
    old_list = list(old_checks)
    before = Counter(c.key for c in old_list)
    after = Counter(c.key for c in new_checks)
    blocks = [
        c for c in new_checks if c.family in ("ctx", "warns") and after[c.key] > before[c.key]
    ]
    if not blocks:
        return set()
    reported = {canon(n) for n in _expectation_calls(new_fn, blocks)}
    named = [b for b in blocks if names_a_message(b)]
    with_message = {canon(n) for n in _expectation_calls(new_fn, named)} if named else set()
    found: set[int] = set()
    for check in old_list:
        if check.family != "raises":
            continue
        calls = {canon(n) for n in _expectation_calls(old_fn, [check])}
        # An old check of the exception's message needs a new expectation of a message.
        if calls and calls <= (with_message if check.has_match else reported):
            found.add(id(check))
    return found


def names_a_message(check: Check) -> bool:
    """An expectation of a warning with `match=`, or of a log record with a text."""
    if check.family == "warns":
        return check.has_match
    return check.family == "ctx" and any(
        isinstance(a, ast.Constant) and isinstance(a.value, str) for a in check.operand_nodes
    )


_VERSION_NAME = re.compile(r"^(?:PY_?\d+\w*|PYPY|IS_PYPY|PY_VERSION\w*)$")


def on_the_interpreter_version(test: ast.expr) -> bool:
    """Does a condition read the interpreter's version: `sys.version_info`, `sys.version`,
    `platform.python_version()`, or a `PY2` / `PY38` / `PYPY`-style constant?"""
    for node in ast.walk(test):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("version_info", "version")
            and pyast.unparse(node.value).split(".")[-1] in ("sys", "platform")
        ):
            return True
        name = dotted(node) if isinstance(node, ast.Name | ast.Attribute) else None
        if name is not None and (
            name.split(".")[-1] in ("python_version", "python_implementation")
            or _VERSION_NAME.match(name.split(".")[-1])
        ):
            return True
    return False


def old_interpreter_branches(
    old_fn: pyast.FunctionNode,
    new_fn: pyast.FunctionNode,
    new_checks: Iterable[Check],
    is_helper: IsHelper,
) -> set[int]:
    """Ids of the nodes of old checks that sat in a branch of an `if` on the interpreter's
    version which the change removed with the `if` (the new test has no `if` on that
    condition), when the other branch is the one the new test keeps: what only ran on an
    interpreter the project no longer supports."""
    kept_conditions = {
        canon(n.test) for n in walk(new_fn.body) if isinstance(n, ast.If | ast.IfExp)
    }
    new_keys = Counter(c.key for c in new_checks)
    found: set[int] = set()
    for node in walk(old_fn.body):
        if not isinstance(node, ast.If) or not on_the_interpreter_version(node.test):
            continue
        if canon(node.test) in kept_conditions:
            continue
        branches = [checks_in(node.body, is_helper), checks_in(node.orelse, is_helper)]
        kept = [sum(new_keys[c.key] > 0 for c in branch) for branch in branches]
        if not node.orelse or max(kept) == 0:
            # Without an `else`, or with neither branch kept, which interpreter the gone
            # checks ran on is unknown: a check of a new Python's behaviour may be lost.
            continue
        dropped = branches[1 - kept.index(max(kept))]
        found.update(id(c.node) for c in dropped)
    return found


def _expectation_calls(fn: pyast.FunctionNode, blocks: list[Check]) -> Iterable[ast.Call]:
    nodes = {id(c.node) for c in blocks}
    for node in walk(fn.body):
        if isinstance(node, ast.With | ast.AsyncWith) and any(
            id(item.context_expr) in nodes for item in node.items
        ):
            for stmt in node.body:
                yield from (n for n in ast.walk(stmt) if isinstance(n, ast.Call))
        elif isinstance(node, ast.Call) and id(node) in nodes:
            yield from (n for a in node.args[1:] for n in ast.walk(a) if isinstance(n, ast.Call))


def dropped_results(old_fn: pyast.FunctionNode, new_fn: pyast.FunctionNode) -> frozenset[str]:
    """Names the old test unpacked from a call of a function whose result the new test
    takes whole (`data, errors = schema.dump(u)` -> `data = schema.dump(u)`): it returns
    one value now, and what the old test checked of the other part no longer exists."""
    old = _unpacked(old_fn)
    if not old:
        return frozenset()
    arity: dict[str, int] = {}  # callee -> the most values a new binding takes from it
    for node in walk(new_fn.body):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.value, ast.Call)
        ):
            target = node.targets[0]
            taken = len(target.elts) if isinstance(target, ast.Tuple | ast.List) else 1
            key = canon(node.value.func)
            arity[key] = max(arity.get(key, 0), taken)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            arity.setdefault(canon(node.value.func), 0)  # the result not even kept
    bound = {n.id for n in walk(new_fn.body) if isinstance(n, ast.Name)}
    dropped: set[str] = set()
    for call, (size, names) in old.items():
        if call in arity and arity[call] < size:
            dropped.update(names - bound)  # a name the new test still uses is still checked
    return frozenset(dropped)


def _unpacked(fn: pyast.FunctionNode) -> dict[str, tuple[int, set[str]]]:
    """callee -> (how many values a tuple target took from it, the names bound)."""
    found: dict[str, tuple[int, set[str]]] = {}
    for node in walk(fn.body):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Tuple | ast.List)
            and isinstance(node.value, ast.Call)
        ):
            elts = node.targets[0].elts
            key = canon(node.value.func)
            size, names = found.get(key, (0, set()))
            names.update(e.id for e in elts if isinstance(e, ast.Name))
            found[key] = (max(size, len(elts)), names)
    return found


def raises_added(old_fn: pyast.FunctionNode, new_fn: pyast.FunctionNode) -> int:
    """How many more `raise` statements the new test has: each fails the test as an
    `assert False` or `pytest.fail(...)` did."""

    def count(fn: pyast.FunctionNode) -> int:
        return sum(isinstance(n, ast.Raise) for n in walk(fn.body))

    return max(count(new_fn) - count(old_fn), 0)


def made_of_the_whole_result(
    check: Check, new_checks: Iterable[Check], fields: frozenset[str], is_helper: IsHelper
) -> bool:
    """The old check read a field of a result type the change removed (`result.data`), and
    the new test makes the same check with the field access gone (`result`): the call
    returns that value itself now, so nothing was dropped."""
    if not fields or not any(
        isinstance(n, ast.Attribute) and n.attr in fields for n in ast.walk(check.node)
    ):
        return False
    node = _FieldsDropped(fields).visit(copy.deepcopy(check.node))
    statement = node if isinstance(node, ast.stmt) else ast.Expr(value=node)
    remade = {c.key for c in checks_in([statement], is_helper)}
    return bool(remade & {c.key for c in new_checks})


class _FieldsDropped(ast.NodeTransformer):
    def __init__(self, fields: frozenset[str]) -> None:
        self.fields = fields

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        inner: ast.expr = self.visit(node.value)  # an expression's transform is one
        if node.attr in self.fields:
            return inner
        node.value = inner
        return node
