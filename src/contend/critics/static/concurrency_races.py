"""Check-then-act races across an `await`, for the Python `concurrency` critic: a function is
walked path by path, tracking reads of shared attributes that an `await` separated from a
later write of the same attribute with no lock held (`races` lists them as `Race`s; the
critic reports those the change added)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from contend.critics.static import concurrency_locks as cl
from contend.critics.static import pyast


def _children(node: ast.AST) -> Iterator[ast.AST]:
    """Child nodes in evaluation-ish (field) order, not entering nested scopes."""
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, cl.NESTED):
            yield child


@dataclass(frozen=True, slots=True)
class _Read:
    line: int
    locks: frozenset[int]
    suspended_at: int | None = None


@dataclass(frozen=True, slots=True)
class Race:
    key: str
    read: int
    suspend: int
    write: int


_State = dict[str, _Read]


def _merge(*states: _State | None) -> _State | None:
    """States of paths that meet again; a suspended read on any path stays suspended."""
    live = [s for s in states if s is not None]
    if not live:
        return None
    merged: _State = {}
    for state in live:
        for key, read in state.items():
            if key not in merged or (merged[key].suspended_at is None and read.suspended_at):
                merged[key] = read
    return merged


@dataclass(slots=True)
class _RaceFinder:
    """Walks a function path by path, tracking reads of shared attributes that an `await`
    separated from a later write of the same attribute. A write in between settles the read
    (the state was claimed before suspending); `return`/`raise` end a path."""

    shared: frozenset[str]
    locks: cl.Locks
    races: dict[str, Race] = field(default_factory=dict)

    def key(self, node: ast.expr) -> str | None:
        root = node
        while isinstance(root, ast.Attribute | ast.Subscript):
            root = root.value
        if isinstance(root, ast.Name) and root.id in self.shared and root is not node:
            return pyast.unparse(node)
        return None

    def block(
        self, stmts: list[ast.stmt], state: _State | None, held: frozenset[int]
    ) -> _State | None:
        for stmt in stmts:
            if state is None:
                return None
            state = self.stmt(stmt, state, held)
        return state

    def stmt(self, node: ast.stmt, state: _State, held: frozenset[int]) -> _State | None:
        if isinstance(node, ast.If):
            self.expr(node.test, state, held)
            return _merge(
                self.block(node.body, dict(state), held), self.block(node.orelse, dict(state), held)
            )
        if isinstance(node, ast.While | ast.For | ast.AsyncFor):
            self.expr(node.test if isinstance(node, ast.While) else node.iter, state, held)
            if isinstance(node, ast.AsyncFor):
                self.suspend(state, node.lineno)
            after = _merge(state, self.block(node.body, dict(state), held))
            return self.block(node.orelse, after, held) if after is not None else None
        if isinstance(node, ast.With | ast.AsyncWith):
            inner = held
            for item in node.items:
                self.expr(item.context_expr, state, held)
                if isinstance(node, ast.AsyncWith) and cl.is_lock(
                    item.context_expr, self.locks.new
                ):
                    # only an asyncio lock holds off other tasks; a threading lock does not
                    inner = inner | {id(node)}
            if isinstance(node, ast.AsyncWith):
                self.suspend(state, node.lineno)
            return self.block(node.body, state, inner)
        if isinstance(node, ast.Try | ast.TryStar):
            body = self.block(node.body, dict(state), held)
            entry = _merge(state, body)
            handlers = [self.block(h.body, dict(entry or {}), held) for h in node.handlers]
            orelse = self.block(node.orelse, body, held) if body is not None else None
            after = _merge(orelse, *handlers)
            return self.block(node.finalbody, after, held) if after is not None else None
        if isinstance(node, ast.Match):
            self.expr(node.subject, state, held)
            cases = [self.block(c.body, dict(state), held) for c in node.cases]
            return _merge(state, *cases)
        if isinstance(node, ast.Return | ast.Raise):
            for child in _children(node):
                self.expr(child, state, held)
            return None
        if isinstance(node, ast.Break | ast.Continue):
            return None
        if isinstance(node, cl.NESTED):
            return state
        if isinstance(node, ast.Assign | ast.AnnAssign):
            if node.value is not None:
                self.expr(node.value, state, held)
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                self.expr(target, state, held)
            return state
        if isinstance(node, ast.AugAssign):
            key = self.key(node.target)
            if key is not None:
                self.read(state, key, node.lineno, held)
            self.expr(node.value, state, held)
            self.expr(node.target, state, held)
            return state
        for child in _children(node):
            self.expr(child, state, held)
        return state

    def expr(self, node: ast.AST, state: _State, held: frozenset[int]) -> None:
        """Reads, suspensions and writes of an expression in evaluation order; an explicit
        stack rather than recursion, so an expression of any depth is fine."""
        stack: list[ast.AST | tuple[str, str, int]] = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, tuple):
                action, key, line = item
                if action == "suspend":
                    self.suspend(state, line)
                else:
                    self.write(state, key, line, held)
                continue
            children = list(_children(item))
            if isinstance(item, ast.Await):
                stack.append(("suspend", "", item.lineno))
                if self.key(item.value) is not None:
                    # `await self._fut` then `self._fut = None` is cleanup of what was
                    # awaited, not a decision taken on a value read before the suspension
                    children = list(_children(item.value))
                else:
                    children = [item.value]
            elif isinstance(item, ast.Attribute | ast.Subscript):
                found = self.key(item)
                if found is not None and isinstance(item.ctx, ast.Store | ast.Del):
                    stack.append(("write", found, item.lineno))
                elif found is not None:
                    self.read(state, found, item.lineno, held)
            stack.extend(reversed(children))

    def read(self, state: _State, key: str, line: int, held: frozenset[int]) -> None:
        if key not in state:
            state[key] = _Read(line, held)

    def suspend(self, state: _State, line: int) -> None:
        for key, read in state.items():
            if read.suspended_at is None:
                state[key] = _Read(read.line, read.locks, line)

    def write(self, state: _State, key: str, line: int, held: frozenset[int]) -> None:
        read = state.pop(key, None)
        if read is None or read.suspended_at is None or read.locks & held:
            return
        self.races.setdefault(key, Race(key, read.line, read.suspended_at, line))


def races(fn: pyast.FunctionNode, locks: cl.Locks) -> list[Race]:
    finder = _RaceFinder(cl.shared_names(fn), locks)
    finder.block(fn.body, {}, frozenset())
    return list(finder.races.values())
