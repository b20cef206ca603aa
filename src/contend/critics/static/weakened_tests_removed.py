"""What a change removed from, or deprecates in, the code under test (its non-test files), for
the test-weakening critic: `Removed` (functions and classes, identifier-like strings, the
fields of removed result types, module members, deprecation warnings added or dropped), read
by `removed_behaviour`; and whether a test exercises it (`tests_removed_behaviour`,
`deprecated_use`, `mentions`). A test of a unit the change removed may go with it; a check
of something deprecated is reported as minor.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from contend.critics.static import pyast
from contend.critics.static.weakened_tests_coverage import references
from contend.critics.static.weakened_tests_rules import (
    dotted,
    walk,
)

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{2,}$")
_DEPRECATIONS = frozenset({"DeprecationWarning", "PendingDeprecationWarning", "FutureWarning"})
# Strings so common in code that their disappearance says nothing about one test.
_COMMON = frozenset({"name", "value", "type", "data", "self", "args", "kwargs", "utf-8", "key"})


@dataclass(frozen=True, slots=True)
class Removed:
    """What the change took out of the code under test (its non-test files): functions and
    classes, identifier-like string constants (`"__title__"`, the `"inst"` of
    `changes.pop("inst")`), and how many deprecation warnings it stopped emitting."""

    names: frozenset[str]
    strings: frozenset[str]
    deprecations: int
    # (module, name): what a module stopped defining or re-exporting, though another
    # module may still define the same name.
    members: frozenset[tuple[str, str]] = frozenset()
    # The fields of the removed result types (a namedtuple's "data", "errors"; the
    # attributes a removed class set): what a test read off the results the API no longer
    # returns.
    fields: frozenset[str] = frozenset()
    # What the change deprecates: functions that start warning, and the names a new
    # deprecation message quotes ("The 'cls' parameter is deprecated").
    deprecated: frozenset[str] = frozenset()
    # Modules that emit more deprecation warnings after the change than before.
    deprecating: frozenset[str] = frozenset()
    # Attributes, options and keyword parameters the code under test defined (`self.x =`,
    # a class-level field, a parameter) and no longer names anywhere: what a check read
    # through `obj.x` or passed as `x=` no longer exists.
    attributes: frozenset[str] = frozenset()
    # Every field of the removed result types, however common its name ("data"): a check
    # of `result.data` remade as a check of `result` (the call returns the data itself now).
    result_fields: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class _Summary:
    """A module read as text (regular expressions, no tree walk: this runs on every changed
    file): its quoted identifier-like strings, how often it names a deprecation warning
    class, and its lines that say "deprecat"."""

    strings: frozenset[str]
    warnings: int
    deprecation_texts: frozenset[str]


_QUOTED_IDENTIFIER = re.compile(r"""(['"])([A-Za-z_][A-Za-z0-9_]{2,})\1""")
_WARNING_CLASS = re.compile(r"\b(?:Pending)?DeprecationWarning\b|\bFutureWarning\b")


@functools.lru_cache(maxsize=64)
def _summary(text: str) -> _Summary:
    return _Summary(
        frozenset(m.group(2) for m in _QUOTED_IDENTIFIER.finditer(text)),
        len(_WARNING_CLASS.findall(text)),
        frozenset(line.strip() for line in text.split("\n") if "deprecat" in line.lower()),
    )


def removed_behaviour(
    sources: Iterable[tuple[str, str | None, str | None]],
    parse: Callable[[str | None], ast.Module | None],
) -> Removed:
    """What the changed files of the code under test (path, old text, new text) lost."""
    before: set[str] = set()
    after: set[str] = set()
    old_strings: set[str] = set()
    new_strings: set[str] = set()
    members: set[tuple[str, str]] = set()
    fields: set[str] = set()
    deprecated: set[str] = set()
    deprecating: set[str] = set()
    defined: set[str] = set()
    named: set[str] = set()
    warned = 0
    for path, old_text, new_text in sources:
        old, new = parse(old_text), parse(new_text)
        if old is not None:
            defined.update(_members_defined(old))
        if new is not None:
            named.update(_identifiers(new))
        old_summary = _summary(old_text) if old_text is not None else None
        new_summary = _summary(new_text) if new_text is not None else None
        if old is not None and old_summary is not None:
            kept = _module_members(new) if new is not None else frozenset()
            gone = _module_members(old) - kept
            members.update((module_stem(path), name) for name in gone)
            fields.update(_fields_of(old, gone))
            before.update(pyast.defined_names(old))
            old_strings.update(old_summary.strings)
            warned += old_summary.warnings
        if new is not None and new_summary is not None:
            after.update(pyast.defined_names(new))
            new_strings.update(new_summary.strings)
            warned -= new_summary.warnings
            if new_summary.warnings > (old_summary.warnings if old_summary else 0):
                deprecating.add(module_stem(path))
            if new_summary.warnings:
                # A function can start warning while another warning of the module goes
                # (moved elsewhere with its code): asked of every module that warns at all.
                deprecated.update(_newly_deprecated(old, new, old_summary, new_summary))
    return Removed(
        frozenset(before - after),
        frozenset(old_strings - new_strings - _COMMON),
        max(warned, 0),
        frozenset(members),
        frozenset(fields - _COMMON),
        frozenset(deprecated - _COMMON),
        frozenset(deprecating),
        frozenset(defined - named - _COMMON),
        result_fields=frozenset(fields),
    )


def _members_defined(tree: ast.Module) -> set[str]:
    """Names a module defines as members or options: `self.x = ...` / `cls.x = ...`
    targets, class-level fields, and function parameters (keywords a caller can pass)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id in ("self", "cls")
                ):
                    found.add(target.attr)
        elif isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    found.add(stmt.target.id)
                elif isinstance(stmt, ast.Assign):
                    found.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.arguments):
            found.update(a.arg for a in [*node.args, *node.kwonlyargs])
    return {name for name in found if _IDENTIFIER.match(name) and name not in ("self", "cls")}


def _identifiers(tree: ast.Module) -> set[str]:
    """Every name a module uses in any role, strings that could name one included — but
    for the strings of a collection bound to a `*deprecated*` name (isort's
    `DEPRECATED_SETTINGS = ("not_skip", ...)`): listed there, a setting is accepted and
    ignored, which is what removing it means."""
    retired: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(
            node.value, ast.Tuple | ast.List | ast.Set | ast.Dict
        ):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and "deprecat" in t.id.lower() for t in targets):
                retired.update(id(n) for n in ast.walk(node.value))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in retired:
            continue
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.arg) or (isinstance(node, ast.keyword) and node.arg):
            found.add(node.arg or "")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", node.value))
        elif isinstance(node, ast.alias):
            found.add((node.asname or node.name).split(".")[-1])
    return found


def deprecated_use(function: pyast.FunctionNode, removed: Removed) -> str | None:
    """What of the deprecated behaviour this test uses: a deprecated name, or a module the
    change made warn (`import werkzeug` where werkzeug/__init__.py now warns)."""
    found = mentions(function, removed.deprecated)
    if found is not None or not removed.deprecating:
        return found
    for node in walk(function.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[-1] in removed.deprecating:
                    return alias.name
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[-1] in removed.deprecating
        ):
            return node.module
    return None


def _fields_of(tree: ast.Module, names: frozenset[str]) -> Iterator[str]:
    """Field names of the removed namedtuples and the attributes of the removed classes."""
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
            targets = {t.id for t in stmt.targets if isinstance(t, ast.Name)}
            callee = (dotted(stmt.value.func) or "").split(".")[-1]
            if targets & names and callee == "namedtuple" and len(stmt.value.args) >= 2:
                spec = stmt.value.args[1]
                if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
                    yield from spec.value.replace(",", " ").split()
                elif isinstance(spec, ast.List | ast.Tuple):
                    yield from (
                        e.value
                        for e in spec.elts
                        if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    )
        elif isinstance(stmt, ast.ClassDef) and stmt.name in names:
            for node in ast.walk(stmt):
                if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                    yield node.target.id
                elif (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.ctx, ast.Store)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "self"
                ):
                    yield node.attr


def module_stem(path: str) -> str:
    """The name a module is imported by: `pkg/progress.py` -> `progress`, `pkg/__init__.py`
    -> `pkg`."""
    parts = path.replace("\\", "/").removesuffix(".py").split("/")
    return parts[-2] if parts[-1] == "__init__" and len(parts) > 1 else parts[-1]


def _module_members(tree: ast.Module) -> frozenset[str]:
    """Names a module defines or re-exports at its top level."""
    names: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*")
        elif isinstance(stmt, ast.Assign):
            names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            names.add(stmt.target.id)
    return frozenset(names)


_QUOTED = re.compile(r"[`'\"]([A-Za-z_][A-Za-z0-9_.]*)(?:\(\))?[`'\"]")


def _newly_deprecated(
    old: ast.Module | None,
    new: ast.Module,
    old_summary: _Summary | None,
    new_summary: _Summary,
) -> Iterator[str]:
    """Names a module starts deprecating: quoted in a new deprecation message, or
    functions that start warning (asked of every module that names a deprecation warning)."""
    before = old_summary.deprecation_texts if old_summary is not None else frozenset()
    for text in new_summary.deprecation_texts - before:
        for quoted in _QUOTED.findall(text):
            yield quoted.rsplit(".", 1)[-1]
    old_funcs = pyast.functions(old) if old is not None else {}
    for qualname, fn in pyast.functions(new).items():
        if _warns_deprecation(fn.node) and not (
            qualname in old_funcs and _warns_deprecation(old_funcs[qualname].node)
        ):
            yield fn.node.name


def _warns_deprecation(fn: pyast.FunctionNode) -> bool:
    """The function emits a deprecation warning or documents itself as deprecated."""
    doc = ast.get_docstring(fn) or ""
    if ".. deprecated::" in doc:
        return True
    return any(
        isinstance(node, ast.Name) and node.id in _DEPRECATIONS for node in pyast.walk_within(fn)
    )


def mentions(node: ast.AST, tokens: frozenset[str]) -> str | None:
    """The first of `tokens` this code uses as an attribute, a keyword, a called or plain
    name, or a string."""
    if not tokens:
        return None
    for inner in ast.walk(node):
        token: str | None = None
        if isinstance(inner, ast.Attribute):
            token = inner.attr
        elif isinstance(inner, ast.keyword):
            token = inner.arg
        elif isinstance(inner, ast.Name):
            token = inner.id
        elif isinstance(inner, ast.Constant) and isinstance(inner.value, str):
            token = inner.value
        if token is not None and token in tokens:
            return token
    return None


def tests_removed_behaviour(
    function: pyast.FunctionNode, removed: Removed, module: ast.Module | None = None
) -> bool:
    """Did this test exercise what the change removed: a function or class now gone (or
    gone from the module the test takes it from), an attribute, keyword or string the code
    no longer knows, or a deprecation warning the code no longer emits (the deprecated
    behaviour was removed, per its policy)?"""
    if references(function, removed.names) or _uses_members(function, removed, module):
        return True
    for node in walk(function.body):
        token: str | None = None
        if isinstance(node, ast.Attribute) and not (
            isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
        ):
            token = node.attr
        elif isinstance(node, ast.keyword):
            token = node.arg
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            token = node.value
        if token is not None and token in removed.strings:
            return True
    return removed.deprecations > 0 and _expects_deprecation(function)


def _uses_members(
    function: pyast.FunctionNode, removed: Removed, module: ast.Module | None
) -> bool:
    """`progress._RefreshThread`, or `_RefreshThread` imported from `...progress` (at the
    top of the test file or in the test), where `progress` no longer defines it."""
    if not removed.members:
        return False
    imported: dict[str, str] = {}
    inside = [n for n in walk(function.body) if isinstance(n, ast.ImportFrom)]
    for stmt in [*(module.body if module is not None else []), *inside]:
        if isinstance(stmt, ast.ImportFrom) and stmt.module:
            source = stmt.module.split(".")[-1]
            imported.update((a.asname or a.name, source) for a in stmt.names)
            if stmt in inside and any((source, a.name) in removed.members for a in stmt.names):
                return True
    for node in walk(function.body):
        owner: str | None = None
        name = ""
        if isinstance(node, ast.Attribute):
            owner, name = dotted(node.value), node.attr
        elif isinstance(node, ast.Name):
            owner, name = imported.get(node.id), node.id
        if owner and (owner.split(".")[-1], name) in removed.members:
            return True
    return False


def _expects_deprecation(function: pyast.FunctionNode) -> bool:
    """The test expects a deprecation warning, or runs its code under a context manager
    that silences one (`with ignore_deprecation():`): it exercises deprecated behaviour."""
    for node in walk(function.body):
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                call = item.context_expr
                name = dotted(call.func) if isinstance(call, ast.Call) else None
                if name and "deprecat" in name.split(".")[-1].lower():
                    return True
        if isinstance(node, ast.Call):
            name = dotted(node.func) or ""
            if name.split(".")[-1] == "deprecated_call":
                return True
            if name.split(".")[-1] in ("warns", "assertWarns", "assertWarnsRegex"):
                args = [*node.args, *(k.value for k in node.keywords)]
                if any(dotted(a) in _DEPRECATIONS for a in args[:1]):
                    return True
    return False
