"""Python AST helpers shared by the static topics. Pure functions over source text.

Depth-safe: valid Python can hold an expression thousands of nodes deep (`x+x+...`), which
`ast.dump`, `ast.unparse` and every recursive walk turn into a RecursionError. The critics
use `dump` (iterative), `unparse` (shallow text, deep parts elided) and `walk_within`
instead, and `parse` turns a tree too deep for the parser itself into a ValueError that the
runner reports as a skipped file.
"""

from __future__ import annotations

import ast
import functools
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar, cast

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
    """Parse or raise SyntaxError / ValueError; the runner turns either into a `skipped`
    entry (a ValueError also for NUL bytes, and for code nested too deeply for the parser).

    Cached so every topic shares one parse per text: callers must not mutate the tree."""
    try:
        return ast.parse(text)
    except (RecursionError, MemoryError) as exc:
        raise ValueError(f"too deeply nested for the Python parser ({type(exc).__name__})") from exc


class _Token(str):
    """Literal output text on the serialiser's stack, told apart from string values."""

    __slots__ = ()


_CLOSE = _Token(")")
_COMMA = _Token(",")
_CLOSE_LIST = _Token("]")

# ast.dump's layout fields that say nothing about meaning.
_NO_FIELDS: frozenset[str] = frozenset()


def serialise(
    node: object,
    leaf: Callable[[ast.AST], str | None] | None = None,
    skip_fields: frozenset[str] = _NO_FIELDS,
) -> str:
    """A canonical text of an AST (fields, no positions), built without recursion so any
    depth is fine. `leaf(node)` may return the text of a node outright (its children are
    then not visited); `skip_fields` are left out. Equal trees give equal texts."""
    out: list[str] = []
    stack: list[object] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, _Token):
            out.append(item)
        elif isinstance(item, ast.AST):
            text = leaf(item) if leaf is not None else None
            if text is not None:
                out.append(text)
                continue
            out.append(type(item).__name__ + "(")
            stack.append(_CLOSE)
            fields = [f for f in item._fields if f not in skip_fields]
            for index in range(len(fields) - 1, -1, -1):
                stack.append(getattr(item, fields[index], None))
                if index:
                    stack.append(_COMMA)
        elif isinstance(item, list):
            out.append("[")
            stack.append(_CLOSE_LIST)
            for index in range(len(item) - 1, -1, -1):
                stack.append(item[index])
                if index:
                    stack.append(_COMMA)
        else:
            out.append(repr(item))
    return "".join(out)


def dump(node: object) -> str:
    """Like `ast.dump(node)` for comparing trees, at any depth."""
    return serialise(node)


def dump_list(nodes: Sequence[ast.AST]) -> str:
    return "\n".join(dump(n) for n in nodes)


# Beyond this many nested nodes `unparse` elides the rest: ast.unparse recurses several
# frames per level, and a claim has no use for a thousand-term expression anyway.
UNPARSE_DEPTH = 80
ELIDED = "\u2026"  # "…", a Name that cannot collide with a real identifier


def depth_exceeds(node: ast.AST, limit: int) -> bool:
    """Is the tree under `node` more than `limit` levels deep? Stops as soon as it is."""
    stack: list[tuple[ast.AST, int]] = [(node, 0)]
    while stack:
        current, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(current))
    return False


def unparse(node: ast.AST) -> str:
    """`ast.unparse`, with whatever lies deeper than UNPARSE_DEPTH shown as `…`: the same
    text for the same tree, whatever the caller's own stack depth."""
    if not depth_exceeds(node, UNPARSE_DEPTH):
        return ast.unparse(node)
    return ast.unparse(_truncated(node, UNPARSE_DEPTH))


def _truncated(node: ast.AST, limit: int) -> ast.AST:
    """A copy of `node` whose expressions below `limit` levels are replaced by `…`."""
    copied = _shallow_copy(node)
    stack: list[tuple[ast.AST, int]] = [(copied, 0)]
    while stack:
        current, depth = stack.pop()
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, ast.AST):
                replacement = _cut(value, depth + 1, limit)
                setattr(current, name, replacement)
                if replacement is not value:
                    stack.append((replacement, depth + 1))
            elif isinstance(value, list):
                items = [_cut(v, depth + 1, limit) if isinstance(v, ast.AST) else v for v in value]
                setattr(current, name, items)
                stack.extend((v, depth + 1) for v in items if isinstance(v, ast.AST))
    return copied


def _cut(node: ast.AST, depth: int, limit: int) -> ast.AST:
    if depth >= limit and isinstance(node, ast.expr):
        return ast.Name(id=ELIDED, ctx=ast.Load())
    return _shallow_copy(node)


def _shallow_copy(node: ast.AST) -> ast.AST:
    copied = type(node)()
    for name in node._fields:
        setattr(copied, name, getattr(node, name, None))
    for name in node._attributes:
        if hasattr(node, name):
            setattr(copied, name, getattr(node, name))
    return copied


def span(node: ast.AST) -> tuple[int, int]:
    start = int(getattr(node, "lineno", 1))
    end = getattr(node, "end_lineno", None)
    return start, int(end) if end is not None else start


_FUNCTIONS: weakref.WeakKeyDictionary[ast.Module, dict[str, Function]] = weakref.WeakKeyDictionary()


def functions(tree: ast.Module) -> dict[str, Function]:
    """Every function and method by qualified name (Class.method, outer.<locals>.inner).
    Computed once per tree (every topic asks): callers must not change the dict."""
    known = _FUNCTIONS.get(tree)
    if known is None:
        known = _FUNCTIONS[tree] = _find_functions(tree)
    return known


def _find_functions(tree: ast.Module) -> dict[str, Function]:
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


@dataclass(frozen=True, slots=True)
class _Symbol:
    start: int
    end: int
    name: str


# Keyed weakly by the tree: a cache that held trees would keep every parsed module alive
# (and the garbage collector walking them) long after the parse cache let them go.
_SYMBOLS: weakref.WeakKeyDictionary[ast.Module, tuple[_Symbol, ...]] = weakref.WeakKeyDictionary()


def _symbols(tree: ast.Module) -> tuple[_Symbol, ...]:
    """Every function and class of a tree with its lines, outermost first."""
    known = _SYMBOLS.get(tree)
    if known is None:
        known = _SYMBOLS[tree] = _find_symbols(tree)
    return known


def _find_symbols(tree: ast.Module) -> tuple[_Symbol, ...]:
    found: list[_Symbol] = []
    stack: list[tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, prefix = stack.pop()
        for child in _statement_children(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                start = min([d.lineno for d in child.decorator_list] + [child.lineno])
                found.append(_Symbol(start, span(child)[1], name))
                stack.append((child, f"{name}."))
            else:
                stack.append((child, prefix))
    found.sort(key=lambda s: (s.start, -s.end))
    return tuple(found)


def defined_names(tree: ast.Module) -> frozenset[str]:
    """The bare names of every function and class a module defines, at any depth."""
    return frozenset(symbol.name.rsplit(".", 1)[-1] for symbol in _symbols(tree))


def symbol_at(tree: ast.Module | None, line: int) -> str | None:
    """The innermost function or class holding `line` ("Class.method", "outer.inner"),
    or None at module level."""
    if tree is None:
        return None
    best: str | None = None
    for symbol in _symbols(tree):
        if symbol.start > line:
            break
        if symbol.end >= line:
            best = symbol.name  # later starts that still hold the line are nested deeper
    return best


def symbol_of(qualname: str) -> str:
    """A qualified name as the report shows it: `outer.<locals>.inner` -> `outer.inner`."""
    return qualname.replace(".<locals>", "")


def _statement_children(node: ast.AST) -> Iterator[ast.AST]:
    """Child statements (and except/case clauses, which hold statements) of a node: a def can
    only appear there, and skipping expressions makes `functions` several times faster."""
    for _, value in ast.iter_fields(node):
        if isinstance(value, list):
            for item in value:
                if isinstance(item, ast.stmt | ast.excepthandler | ast.match_case):
                    yield item


def statements(tree: ast.AST) -> Iterator[ast.stmt]:
    """Every statement under `tree`, iteratively (no recursion limit); expressions are not
    visited, so it is cheap where only statements matter (a `with` is a statement)."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        for _, value in ast.iter_fields(node):
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.stmt | ast.excepthandler | ast.match_case):
                        stack.append(item)
                        if isinstance(item, ast.stmt):
                            yield item


def callee_name(call: ast.Call) -> str:
    """The called name: `f` for `f(...)`, `m` for `obj.m(...)`, "" for anything else."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def dotted(node: ast.AST | None) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        names.append(node.id)
        return ".".join(reversed(names))
    return None


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
    """A structural copy of an AST: its fields and locations only, built without recursion.

    Not `copy.deepcopy`: tools that annotate trees (bandit sets `_bandit_parent`) also
    annotate the singletons every parse shares (`ast.Load()`, operators), so a deep copy
    can walk into whatever module was annotated last and exhaust the recursion limit.
    """
    if not isinstance(node, ast.AST):
        return node
    root = _shallow_copy(node)
    stack: list[ast.AST] = [root]
    while stack:
        current = stack.pop()
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, ast.AST):
                copied = _shallow_copy(value)
                setattr(current, name, copied)
                stack.append(copied)
            elif isinstance(value, list):
                items = [_shallow_copy(v) if isinstance(v, ast.AST) else v for v in value]
                setattr(current, name, items)
                stack.extend(v for v in items if isinstance(v, ast.AST))
    return cast(T, root)  # the same class as `node`, which is a T


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
