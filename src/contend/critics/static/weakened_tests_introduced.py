"""What a change put into a Python test that hides a failure, for the `test-weakening` critic:
skips without an issue reference (on a test, or on a whole module or class), assertions put
under a handler that swallows them, and patches of the unit the test itself calls."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from pathlib import PurePosixPath

from contend.critics.static import pyast
from contend.critics.static import weakened_tests_markers as mk
from contend.critics.static import weakened_tests_rules as r
from contend.critics.static.base import (
    Finding,
)
from contend.critics.static.weakened_tests_sides import (
    RULE_MOCKED_UNIT,
    RULE_SKIP,
    RULE_SWALLOWED,
    File,
    Ref,
    Reporter,
    Side,
    old_lines_of,
)


def _skip_keys(fn: pyast.Function | None, probes: frozenset[str]) -> Counter[str]:
    return Counter(_skip_key(m) for m in _skips_of(fn, probes)) if fn else Counter()


def _skip_key(marker: ast.AST) -> str:
    """A skip marker by what it skips and when, not by its reason's wording: a reason
    reworded (or requoted by a sweep) leaves the same skip, not a new one. String conditions
    (`skipif("sys.platform == 'win32'")`) are conditions, not reasons, and stay."""
    call = marker.value if isinstance(marker, ast.Expr) else marker
    if not isinstance(call, ast.Call):
        return r.canon(marker)
    condition_first = (r.dotted(call.func) or "").split(".")[-1] in ("skipif", "xfail")
    args = [
        a
        for i, a in enumerate(call.args)
        if not (isinstance(a, ast.Constant) and isinstance(a.value, str))
        or (i == 0 and condition_first)
    ]
    keywords = [k for k in call.keywords if k.arg not in ("reason", "msg")]
    return r.canon(ast.Call(func=call.func, args=args, keywords=keywords))


def _skips_of(
    fn: pyast.Function, probes: frozenset[str], *, unconditional_only: bool = False
) -> list[ast.AST]:
    """Skip markers of a function: its decorators and the skips in its body (only those
    that are statements of the body itself, when `unconditional_only`); `probes`: the
    module's optional-import names, whose skips are environment checks."""
    markers: list[ast.AST] = [m for d in fn.node.decorator_list for m in mk.skip_markers(d, probes)]
    body = mk.body_skips(fn.node.body)
    if unconditional_only:
        top = {id(s) for s in fn.node.body} | {
            id(s.value) for s in fn.node.body if isinstance(s, ast.Expr)
        }
        body = [skip for skip in body if id(skip) in top]
    return markers + body


def new_skips(
    report: Reporter, old_fn: pyast.Function | None, new_fn: pyast.Function
) -> Iterator[Finding]:
    """Skips the change added. In a brand-new test only a blanket skip counts: a skip under a
    runtime condition there is a guard the test was written with, not a test switched off."""
    new_side = report.file.new
    probes = mk.optional_imports(new_side.tree if new_side is not None else None)
    before = _skip_keys(old_fn, probes)
    for marker in _skips_of(new_fn, probes, unconditional_only=old_fn is None):
        if old_fn is None and mk.is_conditional(marker):
            continue
        key = _skip_key(marker)
        if before[key]:
            before[key] -= 1
            continue
        finding = _skip_finding(report, marker, "", _head_of(new_fn.node, marker))
        if finding is not None:
            yield finding


def _head_of(fn: pyast.FunctionNode, marker: ast.AST) -> tuple[int, int] | None:
    """For a marker among the test's decorators: the lines from the `def` through the
    comments and docstring that open its body, where the test says why it is marked."""
    if not any(marker is d or marker in ast.walk(d) for d in fn.decorator_list):
        return None
    first = fn.body[0]
    docstring = (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )
    end = pyast.span(first)[1] if docstring else pyast.span(first)[0] - 1
    return fn.lineno, max(end, fn.lineno)


def _skip_finding(
    report: Reporter, marker: ast.AST, scope: str, head: tuple[int, int] | None = None
) -> Finding | None:
    start, end = pyast.span(marker)
    if mk.has_issue_reference(report.file.change.new_lines(start, end)):
        return None
    if head is not None and mk.has_issue_reference(report.file.change.new_lines(*head)):
        return None
    kind = mk.skip_kind(marker)
    claim = f"{scope}{kind} added without an issue reference in its reason: `{r.short(marker)}`"
    return report.at(RULE_SKIP, marker, claim, None)


def new_swallows(
    report: Reporter,
    old_fn: pyast.Function | None,
    old_side: Side | None,
    new_fn: pyast.Function,
    new_side: Side,
) -> Iterator[Finding]:
    before: Counter[str] = Counter()
    old_plain: dict[str, r.Check] = {}
    if old_fn is not None and old_side is not None:
        swallowed = r.swallowed_checks(old_fn.node.body, old_side.is_helper)
        before.update(f"{label}|{check.key}" for _, label, check in swallowed)
        old_plain = {c.key: c for c in r.checks_in(old_fn.node.body, old_side.is_helper)}
    blocks: dict[int, tuple[ast.AST, str, list[r.Check]]] = {}
    for block, label, check in r.swallowed_checks(new_fn.node.body, new_side.is_helper):
        key = f"{label}|{check.key}"
        if before[key]:
            before[key] -= 1
            continue
        blocks.setdefault(id(block), (block, label, []))[2].append(check)
    for block, label, checks in blocks.values():
        asserted = ", ".join(f"`{r.short(c.node, 80)}`" for c in checks)
        claim = f"{asserted} now sits under {label}, which swallows the failure"
        olds = [old_plain[c.key] for c in checks if c.key in old_plain]
        old_evidence = None
        if olds and old_side is not None:
            old_evidence = "\n".join(old_lines_of(old_side, c.node) for c in olds)
        yield report.at(RULE_SWALLOWED, block, claim, old_evidence)


def new_unit_mocks(
    report: Reporter, old_fn: pyast.Function | None, new_ref: Ref
) -> Iterator[Finding]:
    before = {p.target for p in mk.patches(old_fn.node)} if old_fn else set()
    called = mk.called_names(new_ref.new.node)
    module = _module_under_test(new_ref.file.change.path)
    tree = new_ref.file.new.tree if new_ref.file.new else None
    imported, modules = _imports(tree) if tree is not None else ({}, {})
    for patch in mk.patches(new_ref.new.node):
        if patch.target in before or patch.name not in called:
            continue
        source = imported.get(patch.name)
        patched = _real_module(patch, modules)
        if source is not None and patched is not None and source != patched:
            continue  # patches `os.scandir`, calls the `scandir` of another module
        named = len(patch.name) >= 3 and _named_after(patch.name, new_ref.qualname)
        in_module = module is not None and patch.module.split(".")[-1] == module
        side = new_ref.file.new
        asserted = (
            not named
            and not in_module
            and side is not None
            and mk.result_is_asserted(new_ref.new.node, patch.name, side.is_helper)
        )
        if named or in_module or asserted:
            why = (
                "the test is named after it"
                if named
                else f"it lives in `{module}`"
                if in_module
                else "the test asserts on what it returns"
            )
            claim = (
                f"patches `{patch.target}` and then calls `{patch.name}` itself, so it tests "
                f"the mock instead of the unit ({why})"
            )
            yield report.at(RULE_MOCKED_UNIT, patch.node, claim, None)


def _imports(tree: ast.Module) -> tuple[dict[str, str], dict[str, str]]:
    """(names imported `from m import name` -> last part of m, module aliases bound by
    `import a.b as c` / `import os` -> last part of the module)."""
    names: dict[str, str] = {}
    modules: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module:
            for alias in stmt.names:
                names[alias.asname or alias.name] = stmt.module.split(".")[-1]
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                bound = alias.asname or alias.name.split(".")[0]
                modules[bound] = alias.name.split(".")[-1] if alias.asname else bound
    return names, modules


def _real_module(patch: mk.Patch, modules: dict[str, str]) -> str | None:
    """The last part of the module a patch replaces a function in, when it is known: a
    string target names it; `patch.object(m, ...)` only when `m` is an imported module."""
    if not patch.module:
        return None
    if isinstance(patch.node, ast.Call) and patch.node.args:
        first = patch.node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return patch.module.split(".")[-1]
    return modules.get(patch.module.split(".")[0]) if "." not in patch.module else None


def _named_after(unit: str, qualname: str) -> bool:
    """The test's name says it tests `unit`: `test_<unit>…` / `test<Unit>…`, or the class
    holding it is `Test<Unit>…`. A word later in the name (`test_keepalive_expires_on_time`
    for `time`, `test_worker_init_process` for `init_process`) names what the test is
    about, not the unit it calls."""
    parts = qualname.split(".")
    names = [parts[-1].removeprefix("test")] + [
        p.removeprefix("Test") for p in parts[:-1] if p.startswith("Test")
    ]
    return any(_norm(name).startswith(_norm(unit)) for name in names)


def _norm(name: str) -> str:
    return name.lower().replace("_", "")


def _module_under_test(path: str) -> str | None:
    stem = PurePosixPath(path.replace("\\", "/")).stem
    if stem.startswith("test_"):
        return stem[len("test_") :] or None
    if stem.endswith("_test"):
        return stem[: -len("_test")] or None
    return None


def _scope_markers(tree: ast.Module) -> list[tuple[str, ast.expr]]:
    """(scope, marker) of skips that cover many tests: a module or class `pytestmark`, and
    class decorators."""
    found: list[tuple[str, ast.expr]] = []
    probes = mk.optional_imports(tree)

    def visit(body: list[ast.stmt], scope: str) -> None:
        for statement in body:
            if isinstance(statement, ast.Assign | ast.AnnAssign):
                targets = (
                    statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                )
                if statement.value is not None and any(
                    isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets
                ):
                    found.extend((scope, m) for m in mk.skip_markers(statement.value, probes))
            elif isinstance(statement, ast.ClassDef):
                name = f"class {statement.name}"
                for decorator in statement.decorator_list:
                    found.extend((name, m) for m in mk.skip_markers(decorator, probes))
                visit(statement.body, name)

    visit(tree.body, "module")
    return found


def scope_skips(file: File) -> Iterator[Finding]:
    if file.new is None:
        return
    before = Counter(r.canon(m) for _, m in _scope_markers(file.old.tree)) if file.old else None
    for scope, marker in _scope_markers(file.new.tree):
        key = r.canon(marker)
        if before is not None and before[key]:
            before[key] -= 1
            continue
        report = Reporter(file, scope, pyast.span(marker))
        finding = _skip_finding(report, marker, "every test in it skipped: ")
        if finding is not None:
            yield finding
