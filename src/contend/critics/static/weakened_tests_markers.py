"""Markers a test carries and doubles it installs: skips (and whether a skip's condition is a
real environment check) and mock patches (and whether the test asserts on what a patched
call returns). Read by the test-weakening critic (weakened_tests.py); pure functions.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

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
# Where a condition reads the platform, the interpreter or an optional feature.
_ENVIRONMENT_SOURCES = frozenset(
    {
        "sys.platform",
        "sys.implementation",
        "sys.maxsize",
        "sys.byteorder",
        "sys.flags",
        "sys.modules",
        "sys.version",
        "sys.hexversion",
        "sys.getwindowsversion",
        "sys.pypy_version_info",
        "sys.gettotalrefcount",
        "sys.getrefcount",
        "os.name",
        "os.uname",
        "os.geteuid",
        "os.getuid",
        "os.sep",
        "platform",
        "shutil.which",
        "hasattr",
        "find_spec",
        "importlib.util.find_spec",
        "support",
        "test.support",
    }
)
_FLAG_NAME = re.compile(
    r"^_*(?:(?:HAVE|HAS|have|has|IS|is|ON|on|requires?|REQUIRES?|SKIP_IF_NO|NO)_\w+"
    r"|PY\d*|PYPY|CPYTHON|JYTHON|IRONPYTHON|WIN(?:DOWS|32)?|MACOS|OSX|DARWIN|LINUX|POSIX)$"
)
_ENVIRONMENT_VARIABLES = frozenset({"os.environ", "os.getenv", "environ", "getenv"})
_VERSIONS = [(3, minor, 0, "final", 0) for minor in range(6, 20)]
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})
_ISSUE_REF = re.compile(
    r"#\d+|\b[A-Z][A-Z0-9]+-\d+\b|https?://\S*/(?:issues|pull|merge_requests)/"
    # an issue or pull request named by its number in words: "fixed in 2325", "see issue 12"
    r"|\b(?:issues?|prs?|pull(?: request)?|bugs?|tickets?|(?:fix(?:ed|es)?|resolved|tracked)"
    r" (?:in|by))\s+\d{2,}\b",
    re.IGNORECASE,
)


def has_issue_reference(text: str) -> bool:
    return _ISSUE_REF.search(text) is not None


def optional_imports(tree: ast.Module | None) -> frozenset[str]:
    """Names a module binds by an optional-dependency probe: imported in a `try` whose
    handler catches ImportError, or assigned in that handler (`cython = None`). A skip on such
    a name asks whether the dependency is installed — an environment check."""
    names: set[str] = set()
    for statement in tree.body if tree is not None else ():
        if not isinstance(statement, ast.Try) or not any(
            h.type is not None
            and {n.split(".")[-1] for n in exception_names(h.type)} & _IMPORT_ERRORS
            for h in statement.handlers
        ):
            continue
        for node in walk([*statement.body, *statement.handlers]):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(names)


def skip_markers(expr: ast.expr, probes: frozenset[str] = frozenset()) -> list[ast.expr]:
    """Skip / xfail markers inside a decorator or `pytestmark` value (pytest.mark.skip(...),
    unittest.skipIf(...), a bare @unittest.expectedFailure, pytest.param(marks=...));
    `probes`: the module's optional-import names (`optional_imports`)."""
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
    return [m for m in found if not _environment_only(m, probes)]


def _is_skip_marker(node: ast.expr) -> bool:
    name = dotted(node)
    if name is None:
        return False
    parts = name.split(".")
    if parts[-1] not in SKIP_DECORATORS:
        return False
    return len(parts) == 1 or "mark" in parts or parts[0] == "unittest"


def _environment_only(marker: ast.expr, probes: frozenset[str]) -> bool:
    """A conditional skip whose condition is a real environment check (or that can never
    trigger): it states portability. One that always triggers, or depends on CI or on
    anything else, is a skip like any other."""
    if not isinstance(marker, ast.Call):
        return False
    kind = (dotted(marker.func) or "").split(".")[-1]
    if kind not in _CONDITIONAL or not marker.args:
        return False
    verdict = judge_condition(marker.args[0], probes)
    never = "false" if kind != "skipUnless" else "true"
    return verdict in ("environment", never)


def is_conditional(marker: ast.AST) -> bool:
    """A skipif / skipIf / skipUnless / xfail marker given a condition."""
    if not isinstance(marker, ast.Call):
        return False
    kind = (dotted(marker.func) or "").split(".")[-1]
    if kind in _CONDITIONAL:
        return bool(marker.args)
    return kind == "xfail" and bool(marker.args) and not isinstance(marker.args[0], ast.Constant)


def _is_environment(condition: ast.expr) -> bool:
    """An `if` around a skip call: the skip runs when the condition holds."""
    return judge_condition(condition) in ("environment", "false")


def judge_condition(condition: ast.expr, probes: frozenset[str] = frozenset()) -> str:
    """What a skip condition depends on: "environment" (the platform, the interpreter
    version or an optional feature, and nothing else), "true" / "false" (the same on every
    supported Python and platform: `sys.version_info >= (3,)`, `... or True`, a bare
    `sys.platform`), or "other" (CI variables, constants of the test, anything unknown)."""
    if isinstance(condition, ast.Constant) and isinstance(condition.value, str):
        text = condition.value
        try:  # pytest's old string conditions: skipif("sys.platform == 'win32'")
            condition = ast.parse(text, mode="eval").body
        # contend: allow silent-fallback -- an unparsable string is judged as it stands
        except (SyntaxError, ValueError):
            return "true" if text else "false"
    return _judge(condition, 0, probes)


_JUDGE_DEPTH = 40


def _judge(node: ast.expr, depth: int, probes: frozenset[str] = frozenset()) -> str:
    if depth > _JUDGE_DEPTH:
        return "other"
    if isinstance(node, ast.BoolOp):
        parts = [_judge(v, depth + 1, probes) for v in node.values]
        absorbing, neutral = ("true", "false") if isinstance(node.op, ast.Or) else ("false", "true")
        if absorbing in parts:
            return absorbing
        rest = [p for p in parts if p != neutral]
        if not rest:
            return neutral
        return "environment" if all(p == "environment" for p in rest) else "other"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _judge(node.operand, depth + 1, probes)
        return {"true": "false", "false": "true"}.get(inner, inner)
    if isinstance(node, ast.Constant):
        return "true" if node.value else "false"
    version = _version_verdict(node)
    if version is not None:
        return version
    names = [dotted(n) or "" for n in ast.walk(node) if isinstance(n, ast.Name | ast.Attribute)]
    if any(_matches(name, _ENVIRONMENT_VARIABLES) for name in names):
        return "other"  # CI and other environment variables: a skip that hides failures
    if isinstance(node, ast.Name) and node.id in probes:
        return "environment"  # the optional dependency imported, or not
    if isinstance(node, ast.Name | ast.Attribute):
        # A bare value: a feature flag is a real condition; `sys.platform` is always truthy.
        name = dotted(node) or ""
        flag = _FLAG_NAME.match(name.split(".")[-1]) is not None
        return "environment" if flag or name.startswith(("support.", "sys.flags.")) else "true"
    if _is_none_probe(node):
        return "environment"  # `yaml is None`: an optional dependency that failed to import
    if any(_matches(name, _ENVIRONMENT_SOURCES) for name in names):
        return "environment"
    if any(_FLAG_NAME.match(name.split(".")[-1]) for name in names if name):
        return "environment"
    return "other"


def _matches(name: str, sources: frozenset[str]) -> bool:
    parts = name.split(".")
    return any(".".join(parts[:i]) in sources for i in range(1, len(parts) + 1))


def _is_none_probe(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Compare)
        and isinstance(node.left, ast.Name)
        and len(node.ops) == 1
        and isinstance(node.ops[0], ast.Is | ast.IsNot)
        and isinstance(node.comparators[0], ast.Constant)
        and node.comparators[0].value is None
    )


def _version_verdict(node: ast.expr) -> str | None:
    """A comparison of `sys.version_info` (or its slice, index, major, minor) with
    literals, evaluated on every Python 3 from 3.6 to 3.19: "true" or "false" when the
    answer never changes, "environment" when it does; None for anything else."""
    if not isinstance(node, ast.Compare):
        return None
    operands = [node.left, *node.comparators]
    if not any(_version_part(o, _VERSIONS[0]) is not None for o in operands):
        return None
    answers = set()
    for version in _VERSIONS:
        values = [_version_part(o, version) for o in operands]
        if any(v is None for v in values):
            return None
        try:
            answers.add(
                all(
                    _compare(op, left, right)
                    for op, left, right in zip(node.ops, values, values[1:], strict=False)
                )
            )
        except TypeError:
            return None
    if len(answers) == 2:
        return "environment"
    return "true" if answers == {True} else "false"


def _version_part(node: ast.expr, version: tuple[object, ...]) -> object | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | str):
        return node.value
    if isinstance(node, ast.Tuple) and all(isinstance(e, ast.Constant) for e in node.elts):
        return tuple(e.value for e in node.elts if isinstance(e, ast.Constant))
    name = dotted(node)
    if name == "sys.version_info":
        return version
    if name in ("sys.version_info.major", "sys.version_info.minor"):
        return version[0] if name.endswith("major") else version[1]
    if isinstance(node, ast.Subscript) and dotted(node.value) == "sys.version_info":
        index = node.slice
        if isinstance(index, ast.Constant) and isinstance(index.value, int):
            return version[index.value]
        if (
            isinstance(index, ast.Slice)
            and index.lower is None
            and index.step is None
            and isinstance(index.upper, ast.Constant)
            and isinstance(index.upper.value, int)
        ):
            return version[: index.upper.value]
    return None


def _compare(op: ast.cmpop, left: object, right: object) -> bool:
    compare: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
        ast.Lt: operator.lt,
        ast.LtE: operator.le,
        ast.Gt: operator.gt,
        ast.GtE: operator.ge,
        ast.Eq: operator.eq,
        ast.NotEq: operator.ne,
    }
    function = compare.get(type(op))
    if function is None:
        raise TypeError("not a version comparison")
    return function(left, right)


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
    return any(
        check.node is expr and check.family in ("raises", "warns", "ctx") for check in checks
    )


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
