"""Checks a change added anywhere in its test files: where a check gone from one test went.

A refactor moves assertions between tests: a test split in two, a check moved to a sibling
test, a new test taking over what an old one checked. So before the test-weakening critic
calls an assertion removed it asks whether the same check was *added* by the change to
another test of the changed test files. "The same check" ignores how locals and fixtures
are named: each check is keyed as written, with its locals read as the value they were
last assigned (`reaching_keys`), with its locals renamed by order of binding in the function
(`alpha_keys`), and with its locals renamed by order of appearance in the check itself (so
`assert rv.data == b"x"` in one test is `assert response.data == b"x"` in another). The
keys already treat `x == y` as `y == x`, unittest `assertEqual` as `assert ==`, and a
`try/except`+`assert` expectation as `pytest.raises` of the same exception.

Only checks the change added count (a key a function of the new side has and its old
version — same file, same qualified name — had not): an assertion that already stood in
another test before the change is a duplicate that was dropped, not a moved one.
Pure functions over `pyast` functions; the critic caches the result per change.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterable, Iterator, Mapping

from contend.critics.static import pyast
from contend.critics.static import weakened_tests_coverage as cov
from contend.critics.static import weakened_tests_rules as r
from contend.critics.static.weakened_tests_check import IsHelper
from contend.critics.static.weakened_tests_sides import parse_or_none

# A check keyed without its locals' names must still say something of its own: `x == 1`
# alone (one local, one constant) would match any other test's `y == 1`.
_MIN_NODES = 6


def keys(
    function: pyast.FunctionNode, constants: Mapping[str, ast.expr], is_helper: IsHelper
) -> frozenset[str]:
    """Every key under which the function's checks can be recognised elsewhere."""
    found: set[str] = set(cov.profile(function, constants, is_helper).keys)
    found.update(cov.reaching_keys(function, is_helper))
    found.update(r.alpha_keys(function, is_helper))
    found.update(local_free_keys(function, is_helper))
    return frozenset(found)


def check_keys(
    function: pyast.FunctionNode, is_helper: IsHelper
) -> Iterator[tuple[r.Check, frozenset[str]]]:
    """Each check of `function` (in the order of `checks_in`) with the keys it is known by."""
    checks = r.checks_in(function.body, is_helper)
    reaching = cov.reaching_keys(function, is_helper)
    alpha = r.alpha_keys(function, is_helper)
    free = local_free_keys(function, is_helper)
    for check, *more in zip(checks, reaching, alpha, free, strict=True):
        yield check, frozenset({check.key, *more})


def local_free_keys(function: pyast.FunctionNode, is_helper: IsHelper) -> list[str]:
    """The keys of `checks_in(function.body)` with each local renamed by its order of
    appearance in the check (a check too small to identify keeps its plain key)."""
    local = _locals(function)
    found: list[str] = []
    for check in r.checks_in(function.body, is_helper):
        names: dict[str, str] = {}
        size = 0
        for operand in check.operand_nodes:
            for node in ast.walk(operand):
                size += 1
                if isinstance(node, ast.Name) and node.id in local and node.id not in names:
                    names[node.id] = f"N(_a{len(names)})"
        found.append(r.rekey(check, names) if names and size >= _MIN_NODES else check.key)
    return found


def _locals(function: pyast.FunctionNode) -> frozenset[str]:
    arguments = function.args
    names = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    for node in r.walk(function.body):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return frozenset(names - {"self", "cls"})


Version = tuple[pyast.FunctionNode, Mapping[str, ast.expr], IsHelper]


def added(functions: Iterable[tuple[Version, Version | None]]) -> frozenset[str]:
    """The keys the change added: per (new version of a test, its old version or None) —
    each a function with its side's module constants and helper test — the keys the new
    version has and the old version had not."""
    found: set[str] = set()
    for new, old in functions:
        before = keys(*old) if old is not None else frozenset()
        found.update(keys(*new) - before)
    return frozenset(found)


# Calls by which a test runs test source it wrote (pytest's `pytester` / `testdir`).
_RUNS_SOURCE = frozenset({"inline_run", "inline_runsource", "runpython", "runpython_c"})


def inner_test_keys(function: pyast.FunctionNode, is_helper: IsHelper) -> frozenset[str]:
    """The keys of the checks in test source this test writes as a string and runs
    (`pytester.makepyfile('''def test(): assert ...''')` then `runpytest()`): a check moved
    into such an inner test is still made, and the outer test fails when it fails."""
    runs = any(
        isinstance(node, ast.Call)
        and (
            (name := (r.dotted(node.func) or "").split(".")[-1]).startswith("runpytest")
            or name in _RUNS_SOURCE
        )
        for node in r.walk(function.body)
    )
    if not runs:
        return frozenset()
    found: set[str] = set()
    for node in r.walk(function.body):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if "assert" not in node.value:
            continue
        tree = parse_or_none(textwrap.dedent(node.value))
        if tree is None:  # not test source: prose, a pattern
            continue
        for inner in ast.walk(tree):
            if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
                found.update(c.key for c in r.checks_in(inner.body, is_helper))
    return frozenset(found)
