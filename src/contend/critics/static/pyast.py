"""Python AST helpers shared by the static topics. Pure functions over source text."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeVar

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Function:
    qualname: str
    node: FunctionNode
    start_line: int
    end_line: int


@functools.lru_cache(maxsize=512)
def parse(text: str) -> ast.Module:
    """Parse or raise SyntaxError; the runner turns that into a `skipped` entry.

    Cached so every topic shares one parse per text: callers must not mutate the tree."""
    return ast.parse(text)


def span(node: ast.AST) -> tuple[int, int]:
    start = int(getattr(node, "lineno", 1))
    end = getattr(node, "end_lineno", None)
    return start, int(end) if end is not None else start


def functions(tree: ast.Module) -> dict[str, Function]:
    """Every function and method by qualified name (Class.method, outer.<locals>.inner)."""
    found: dict[str, Function] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in _statement_children(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                start = min([d.lineno for d in child.decorator_list] + [child.lineno])
                found[name] = Function(name, child, start, span(child)[1])
                visit(child, f"{name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def _statement_children(node: ast.AST) -> Iterator[ast.AST]:
    """Child statements (and except/case clauses, which hold statements) of a node: a def can
    only appear there, and skipping expressions makes `functions` several times faster."""
    for _, value in ast.iter_fields(node):
        if isinstance(value, list):
            for item in value:
                if isinstance(item, ast.stmt | ast.excepthandler | ast.match_case):
                    yield item


def walk_within(node: ast.AST) -> Iterator[ast.AST]:
    """Like ast.walk, but does not descend into nested functions or classes."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        yield child
        if not isinstance(
            child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
        ):
            stack.extend(ast.iter_child_nodes(child))


def segment(text: str, node: ast.AST) -> str:
    start, end = span(node)
    return "\n".join(text.split("\n")[start - 1 : end])


def clone(node: T) -> T:
    """A structural copy of an AST: its fields and locations only.

    Not `copy.deepcopy`: tools that annotate trees (bandit sets `_bandit_parent`) also
    annotate the singletons every parse shares (`ast.Load()`, operators), so a deep copy
    can walk into whatever module was annotated last and exhaust the recursion limit.
    """
    if isinstance(node, ast.AST):
        copied = type(node)()
        for name in node._fields:
            setattr(copied, name, clone(getattr(node, name, None)))
        for name in node._attributes:
            if hasattr(node, name):
                setattr(copied, name, getattr(node, name))
        return copied
    if isinstance(node, list):
        return [clone(item) for item in node]  # type: ignore[return-value]
    return node
