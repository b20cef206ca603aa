"""Python AST helpers shared by the static topics. Pure functions over source text."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from contend.critics.static.base import FileChange, Finding, Skipped, Topic

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
    # The split is cached: a finding per handler must not split a large file once each.
    return "\n".join(_lines(text)[start - 1 : end])


@functools.lru_cache(maxsize=8)
def _lines(text: str) -> tuple[str, ...]:
    return tuple(text.split("\n"))


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


def parse_old_side(old_text: str | None) -> ast.Module | None:
    """The old side's tree, or None when there is none or it does not parse: then there are
    no old functions to compare against, and additive rules see every new line as new —
    they can only see more, never less."""
    if old_text is None:
        return None
    try:
        return parse(old_text)
    # contend: allow silent-fallback -- unparsable old side: nothing to compare
    except (SyntaxError, ValueError):
        return None


FileCheck = Callable[["FileChange", ast.Module, ast.Module | None], Iterable["Finding"]]


def check_python_files(
    topic: Topic, changes: Sequence[FileChange], check_file: FileCheck
) -> Iterator[Finding | Skipped]:
    """Run `check_file(change, new tree, old tree)` over the Python files a change left on
    the new side, findings sorted by line; a new side that does not parse is a Skipped."""
    for change in changes:
        if change.language != "python" or change.new_text is None:
            continue  # a deleted file introduces nothing on the new side
        try:
            new_tree = parse(change.new_text)
        except (SyntaxError, ValueError) as exc:  # ValueError: NUL bytes in the source
            yield Skipped(change.path, f"new side does not parse: {exc}", topic)
            continue
        findings = check_file(change, new_tree, parse_old_side(change.old_text))
        yield from sorted(findings, key=lambda f: (f.start_line, f.rule))
