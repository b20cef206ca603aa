"""Markers a test carries and doubles it installs: skips (and whether a skip's condition is a
real environment check) and mock patches (and whether the test asserts on what a patched
call returns). Read by the test-weakening critic (weakened_tests.py); pure functions.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

from contend.critics.static import pyast
from contend.critics.static.weakened_tests_rules import (
    Check,
    IsHelper,
    canon,
    checks_in,
    dotted,
    exception_names,
    walk,
)

# --------------------------------------------------------------------------- skips


SKIP_DECORATORS = frozenset({"skip", "skipif", "xfail", "skipIf", "skipUnless", "expectedFailure"})
_SKIP_CALLS = frozenset({"pytest.skip", "pytest.xfail", "self.skipTest", "skipTest"})
_SKIP_RAISES = frozenset({"SkipTest", "unittest.SkipTest", "pytest.skip.Exception"})
_CONDITIONAL = frozenset({"skipif", "skipIf", "skipUnless"})
# A skip conditioned on the platform or interpreter is a portability statement, not a
# weakening: these spellings in the condition exempt it.
_ENVIRONMENT = re.compile(
    r"\bsys\.|\bos\.name\b|\bplatform\.|\bhasattr\(|find_spec|shutil\.which|\bsupport\."
    r"|\b(?:HAVE|HAS|have|has|IS|is|requires?)_\w+"
)
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})
_ISSUE_REF = re.compile(
    r"#\d+|\b[A-Z][A-Z0-9]+-\d+\b|https?://\S*/(?:issues|pull|merge_requests)/", re.IGNORECASE
)


def has_issue_reference(text: str) -> bool:
    return _ISSUE_REF.search(text) is not None


def skip_markers(expr: ast.expr) -> list[ast.expr]:
    """Skip / xfail markers inside a decorator or `pytestmark` value (pytest.mark.skip(...),
    unittest.skipIf(...), a bare @unittest.expectedFailure, pytest.param(marks=...))."""
    found: list[ast.expr] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Call) and _is_skip_marker(node.func):
            found.append(node)
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                visit(argument)
            return
        if isinstance(node, ast.Attribute | ast.Name) and _is_skip_marker(node):
            found.append(node)
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(expr)
    return [m for m in found if not _environment_only(m)]


def _is_skip_marker(node: ast.expr) -> bool:
    name = dotted(node)
    if name is None:
        return False
    parts = name.split(".")
    if parts[-1] not in SKIP_DECORATORS:
        return False
    return len(parts) == 1 or "mark" in parts or parts[0] == "unittest"


def _environment_only(marker: ast.expr) -> bool:
    if not isinstance(marker, ast.Call):
        return False
    if (dotted(marker.func) or "").split(".")[-1] not in _CONDITIONAL or not marker.args:
        return False
    return _is_environment(marker.args[0])


def _is_environment(condition: ast.expr) -> bool:
    """A condition on the platform, the interpreter or an optional feature (not on CI or on
    a constant): a skip under it states portability, it does not hide a failure."""
    return _ENVIRONMENT.search(pyast.unparse(condition)) is not None


def body_skips(statements: Iterable[ast.AST]) -> list[ast.AST]:
    """`pytest.skip(...)`, `pytest.xfail(...)`, `self.skipTest(...)`, `raise SkipTest(...)`."""
    found: list[ast.AST] = []
    exempt: set[int] = set()
    for node in walk(statements):
        if id(node) in exempt:
            continue
        if _guards_environment(node):
            exempt.update(id(inner) for inner in walk([node]))
        elif isinstance(node, ast.Call) and (dotted(node.func) or "") in _SKIP_CALLS:
            found.append(node)
        elif isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if (dotted(target) or "") in _SKIP_RAISES:
                found.append(node)
    return found


def _guards_environment(node: ast.AST) -> bool:
    """An `if` on the environment, or an `except ImportError`: skips under it are portability."""
    if isinstance(node, ast.If | ast.IfExp):
        return _is_environment(node.test)
    if isinstance(node, ast.ExceptHandler) and node.type is not None:
        return bool({n.split(".")[-1] for n in exception_names(node.type)} & _IMPORT_ERRORS)
    return False


def skip_kind(marker: ast.AST) -> str:
    target: ast.AST = marker
    if isinstance(marker, ast.Raise) and marker.exc is not None:
        target = marker.exc
    if isinstance(target, ast.Call):
        target = target.func
    last = (dotted(target) or "skip").split(".")[-1]
    return "xfail" if last in ("xfail", "expectedFailure") else "skip"


# --------------------------------------------------------------------------- patching


@dataclass(frozen=True, slots=True)
class Patch:
    node: ast.AST
    module: str
    name: str

    @property
    def target(self) -> str:
        return f"{self.module}.{self.name}" if self.module else self.name


_PATCH_FUNCS = frozenset({"patch", "mock.patch", "unittest.mock.patch", "mocker.patch"})
_PATCH_OBJECT = frozenset({f"{p}.object" for p in _PATCH_FUNCS})
_SETATTR = frozenset({"monkeypatch.setattr"})


def patches(function: pyast.FunctionNode) -> list[Patch]:
    """mock.patch / patch.object / mocker.patch / monkeypatch.setattr targets in a function
    (decorators, with-items and calls), with a literal target."""
    nodes = [n for d in function.decorator_list for n in ast.walk(d)]
    nodes.extend(walk(function.body))
    found = [_patch_of(n) for n in nodes if isinstance(n, ast.Call)]
    return [p for p in found if p is not None]


def _patch_of(call: ast.Call) -> Patch | None:
    name = dotted(call.func) or ""
    first = call.args[0] if call.args else None
    second = call.args[1] if len(call.args) > 1 else None
    if name in _PATCH_FUNCS or (name in _SETATTR and len(call.args) == 2):
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            module, _, attr = first.value.rpartition(".")
            return Patch(call, module, attr) if attr else None
        return None
    is_object = name in _PATCH_OBJECT or (name in _SETATTR and len(call.args) >= 3)
    if is_object and isinstance(second, ast.Constant) and isinstance(second.value, str):
        return Patch(call, dotted(first) or "", second.value)
    return None


def called_names(function: pyast.FunctionNode) -> frozenset[str]:
    """Names this function's body calls directly (`f(...)`, `obj.f(...)`)."""
    names: set[str] = set()
    for node in walk(function.body):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                names.add(node.func.id)
            elif isinstance(node.func, ast.Attribute):
                names.add(node.func.attr)
    return frozenset(names)


def result_is_asserted(function: pyast.FunctionNode, name: str, is_helper: IsHelper) -> bool:
    """Does a direct call of `name` in this function feed an assertion: the call sits inside
    one, or its result reaches one through local assignments?"""
    checks = checks_in(function.body, is_helper)
    inside = {id(node) for check in checks for node in ast.walk(check.node)}
    calls = [
        node
        for node in walk(function.body)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == name)
            or (isinstance(node.func, ast.Attribute) and node.func.attr == name)
        )
    ]
    # A call in the body of `with pytest.raises(...)` is what that check asserts about.
    for node in walk(function.body):
        if isinstance(node, ast.With | ast.AsyncWith) and any(
            id(item.context_expr) in inside and _check_is_block(item.context_expr, checks)
            for item in node.items
        ):
            inside.update(id(inner) for inner in walk(node.body))
    if any(id(call) in inside for call in calls):
        return True
    bindings = _bindings(function)
    sources = {id(call) for call in calls}
    tainted: set[str] = set()
    changed = True
    while changed:  # grows monotonically over finitely many names
        changed = False
        for value, targets in bindings:
            if not _mentions(value, sources, tainted):
                continue
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name) and leaf.id not in tainted:
                        tainted.add(leaf.id)
                        changed = True
    names = {canon(ast.Name(id=n)) for n in tainted}
    return any(check.tokens & names for check in checks)


def _check_is_block(expr: ast.expr, checks: list[Check]) -> bool:
    """Is this with-item one of the checks that assert about their block (raises, warns)?"""
    return any(check.node is expr and check.family in ("raises", "ctx") for check in checks)


def _bindings(function: pyast.FunctionNode) -> list[tuple[ast.expr, list[ast.expr]]]:
    """(value, targets) of every local binding: assignments, `with ... as`, `for ... in`."""
    found: list[tuple[ast.expr, list[ast.expr]]] = []
    for node in walk(function.body):
        if isinstance(node, ast.Assign):
            found.append((node.value, list(node.targets)))
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
            found.append((node.value, [node.target]))
        elif isinstance(node, ast.For | ast.AsyncFor):
            found.append((node.iter, [node.target]))
        elif isinstance(node, ast.With | ast.AsyncWith):
            found.extend(
                (item.context_expr, [item.optional_vars])
                for item in node.items
                if item.optional_vars is not None
            )
    return found


def _mentions(value: ast.expr, sources: set[int], tainted: set[str]) -> bool:
    return any(
        id(node) in sources or (isinstance(node, ast.Name) and node.id in tainted)
        for node in ast.walk(value)
    )
