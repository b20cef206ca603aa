"""What the Python `silent-fallback` critic reads around one handler: handler counts over every
changed file, old side and new (`ChangeSet`: a handler moved between files or functions adds
no copy; the statements the old sides ran unguarded), the scopes of a module by qualified
name, and predicates on a handler and its function — a fallback the old handler already
had, a handler widened from a narrower one, the work a try body does, a generator, an
exception handed on."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from contend.critics.static import pyast
from contend.critics.static import silent_fallback_ast as sa
from contend.critics.static.base import FileChange

MODULE_SCOPE = "<module>"


@dataclass(frozen=True, slots=True)
class Scope:
    qualname: str
    node: ast.AST  # a function definition, or the module for top-level code


@dataclass(slots=True)
class ChangeSet:
    """Handler counts over every changed file, old side and new, computed once: a handler
    moved from one file or function to another adds no copy."""

    changes: Sequence[FileChange]
    _counts: dict[bool, Counter[str]] = field(default_factory=dict)
    _unguarded: frozenset[str] | None = None

    def handlers(self, *, new: bool) -> Counter[str]:
        if new not in self._counts:
            counts: Counter[str] = Counter()
            for change in self.changes:
                text = change.new_text if new else change.old_text
                if text is None or "except" not in text:
                    continue
                tree = parse_or_none(text)
                if tree is not None:
                    counts.update(
                        sa.handler_key(h)
                        for h in sa.statements(tree)
                        if isinstance(h, ast.ExceptHandler)
                    )
            self._counts[new] = counts
        return self._counts[new]

    def added(self, key: str) -> bool:
        """Do the changed files hold more handlers of this key than before?"""
        return self.handlers(new=True)[key] > self.handlers(new=False)[key]

    def old_keys(self) -> Counter[str]:
        return self.handlers(new=False)

    def unguarded_old(self) -> frozenset[str]:
        """Every simple statement the old sides ran outside any `try`, by its source text
        with whitespace collapsed (cheaper than comparing trees, and as good to say
        "this statement was there")."""
        if self._unguarded is None:
            found: set[str] = set()
            for change in self.changes:
                text = change.old_text
                tree = parse_or_none(text) if text is not None else None
                if tree is not None and text is not None:
                    lines = text.split("\n")
                    found.update(
                        statement_text(lines, stmt)
                        for stmt in work_statements(tree.body, skip_tries=True)
                    )
            self._unguarded = frozenset(found)
        return self._unguarded


def statement_text(lines: list[str], stmt: ast.stmt) -> str:
    start, end = pyast.span(stmt)
    return " ".join(" ".join(lines[start - 1 : end]).split())


def parse_or_none(text: str) -> ast.Module | None:
    try:
        return pyast.parse(text)
    # contend: allow silent-fallback -- the runner reports unparsable files as skipped
    except (SyntaxError, ValueError):
        return None


def kept_fallback(before: ast.ExceptHandler | None, handler: ast.ExceptHandler) -> bool:
    """The old handler in this one's place caught the same errors or more (a bare or broad
    clause, a superset of names) and did not raise either: the change kept, narrowed or
    reworded an existing fallback rather than adding one."""
    if before is None or sa.raises(before):
        return False
    if sa.is_broad(before.type):
        return True
    if sa.is_broad(handler.type):
        return False
    return set(sa.type_names(handler.type)) <= set(sa.type_names(before.type))


def widened_from(
    before: ast.ExceptHandler | None, handler: ast.ExceptHandler
) -> ast.ExceptHandler | None:
    """The old narrow handler in this one's place, when this one catches more: a broad or
    bare clause, or a strict superset of the named classes with a body that did not raise."""
    if before is None or sa.is_broad(before.type):
        return None
    if sa.is_broad(handler.type):
        return before
    old_names, new_names = set(sa.type_names(before.type)), set(sa.type_names(handler.type))
    if old_names < new_names and not sa.raises(before):
        return before
    return None


def work_statements(body: Sequence[ast.stmt], *, skip_tries: bool = False) -> Iterator[ast.stmt]:
    """The simple statements under `body` that do something: not `pass`, `continue`,
    `break`, a docstring or a return of a default, which every function shares (with
    `skip_tries`, none of those a `try` with handlers guards)."""
    stack = list(body)
    while stack:
        stmt = stack.pop()
        if skip_tries and isinstance(stmt, ast.Try | ast.TryStar) and stmt.handlers:
            # the body ran guarded; the handlers' own bodies and what follows (else,
            # finally) did not
            stack.extend([*stmt.orelse, *stmt.finalbody])
            stack.extend(s for h in stmt.handlers for s in h.body)
            continue
        inner = [
            s
            for name in ("body", "orelse", "finalbody")
            for s in getattr(stmt, name, None) or ()
            if isinstance(s, ast.stmt)
        ]
        inner += [s for h in getattr(stmt, "handlers", ()) for s in h.body]
        inner += [s for c in getattr(stmt, "cases", ()) for s in c.body]
        if inner or hasattr(stmt, "body"):
            stack.extend(inner)
            continue
        if sa.is_filler(stmt) or isinstance(stmt, ast.Continue | ast.Break):
            continue
        if isinstance(stmt, ast.Return) and sa.is_default(stmt.value, None):
            continue
        yield stmt


def raised_name(node: ast.Raise) -> str:
    """What a raise statement raises: its exception class, `<reraise>` for a bare one."""
    if node.exc is None:
        return "<reraise>"
    target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return pyast.unparse(target)


def scopes_of(tree: ast.Module | None) -> dict[str, Scope]:
    if tree is None:
        return {}
    scopes = {MODULE_SCOPE: Scope(MODULE_SCOPE, tree)}
    for name, function in pyast.functions(tree).items():
        scopes[name] = Scope(name, function.node)
    return scopes


def short_name(qualname: str) -> str:
    return "module-level code" if qualname == MODULE_SCOPE else qualname


def is_generator(fn: ast.AST) -> bool:
    """A generator's bare `return` ends its iteration early: an empty result, a default."""
    return any(isinstance(n, ast.Yield | ast.YieldFrom) for n in pyast.walk_within(fn))


def hands_on(fn: ast.AST, ret: ast.Return) -> bool:
    """Is `ret` a bare return of a function that returns no value anywhere, in an `except
    ... as e` handler that passes `e` to a call other than a log (`waiters.wake_all(e)`,
    `future.set_exception(e)`)? The failure is delivered, not lost, and there is no result
    a caller could mistake for a real one."""
    for handler in pyast.walk_within(fn):
        if not isinstance(handler, ast.ExceptHandler) or handler.name is None:
            continue
        if not any(n is ret for stmt in handler.body for n in ast.walk(stmt)):
            continue
        return any(
            isinstance(n, ast.Call)
            and pyast.callee_name(n) not in sa.LOG_METHODS
            and any(
                isinstance(a, ast.Name) and a.id == handler.name
                for a in [*n.args, *(k.value for k in n.keywords)]
            )
            for stmt in handler.body
            for n in ast.walk(stmt)
        )
    return False


def collected(fn: ast.AST, ret: ast.Return) -> bool:
    """Is `ret` inside a `with … as collector:` block where an `except … as e` handler hands
    `e` (or what it holds: `for x in e.exceptions`) to a method of that collector? The
    errors are gathered, not lost: the collector's exit raises them (packaging's
    `_ErrorCollector.on_exit`), and the return is only reached when it holds none."""
    for block in pyast.walk_within(fn):
        if not isinstance(block, ast.With | ast.AsyncWith):
            continue
        names = {
            item.optional_vars.id
            for item in block.items
            if isinstance(item.optional_vars, ast.Name)
        }
        inside = [n for stmt in block.body for n in ast.walk(stmt)]
        if not names or not any(n is ret for n in inside):
            continue
        if any(
            isinstance(handler, ast.ExceptHandler)
            and handler.name is not None
            and _hands_to(handler, names)
            for handler in inside
        ):
            return True
    return False


def _hands_to(handler: ast.ExceptHandler, collectors: set[str]) -> bool:
    """The handler passes its exception, or a name bound from it, to `collector.<method>`."""
    carried = {handler.name}
    for node in (n for stmt in handler.body for n in ast.walk(stmt)):
        if isinstance(node, ast.For) and any(
            isinstance(n, ast.Name) and n.id in carried for n in ast.walk(node.iter)
        ):
            carried.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in collectors
        and any(
            isinstance(a, ast.Name) and a.id in carried
            for a in [*node.args, *(k.value for k in node.keywords)]
        )
        for stmt in handler.body
        for node in ast.walk(stmt)
    )
