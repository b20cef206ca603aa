"""Does a new annotation put `Any` where the old one was precise? The reading behind
`any-annotation-added` and `cast-to-any-added` (issue 8).

The word `Any` appearing in a changed annotation is not a widening. A bare generic's
parameters are implicitly `Any` — mypy reads `dict` as `dict[Any, Any]`, `Callable` as
`Callable[..., Any]`, `TypeEngine` as `TypeEngine[Any]` — so a typing sweep that writes them
out (`dict` → `Dict[str, Any]`, `tuple` → `Tuple[Any, ...]`) names the same type or a
narrower one. The two annotations are therefore walked together: union members are paired
by their head (`Optional[dict]` ≡ `dict | None`), a subscript's arguments position by
position, and a widening is only a place where the new side says `Any` (or `...` for
arguments) and the old side said something precise there. Where the two heads differ
(`Session` → `Dict[str, Any]`) the old type was replaced, and an `Any` in its replacement is
taken as a widening.

Pure functions over `ast` expressions.
"""

from __future__ import annotations

import ast
import re

from contend.critics.static import pyast

# typing's capitalised aliases of builtins and collections name the same generic
_ALIASES = {
    "Dict": "dict",
    "List": "list",
    "Tuple": "tuple",
    "Set": "set",
    "FrozenSet": "frozenset",
    "Type": "type",
    "DefaultDict": "defaultdict",
    "Deque": "deque",
    "Counter": "counter",
    "ChainMap": "chainmap",
}
_UNIONS = frozenset({"Union", "Optional"})


def is_any(node: ast.AST) -> bool:
    """The annotation is `Any` itself (`Any`, `typing.Any`, `"Any"`)."""
    node = unquote(node)
    if isinstance(node, ast.Name):
        return node.id == "Any"
    if isinstance(node, ast.Attribute):
        return node.attr == "Any"
    return False


def mentions_any(node: ast.AST) -> bool:
    """`Any` stands somewhere in the annotation (quoted parts included)."""
    for sub in ast.walk(node):
        if is_any(sub):
            return True
        if (
            isinstance(sub, ast.Constant)
            and isinstance(sub.value, str)
            and re.search(r"\bAny\b", sub.value) is not None
        ):
            return True
    return False


def unquote(node: ast.AST) -> ast.AST:
    """A string annotation (a forward reference) read as the expression it spells."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return ast.parse(node.value.strip(), mode="eval").body
        except SyntaxError:
            return node
    return node


def widens(old: ast.AST, new: ast.AST) -> bool:
    """Whether `new` says `Any` (or `...`) where `old` was precise."""
    old, new = unquote(old), unquote(new)
    if not mentions_any(new) or is_any(old):
        return False
    if is_any(new):
        return True
    olds, news = _members(old), _members(new)
    if len(olds) > 1 or len(news) > 1:
        return any(_member_widens(olds, member) for member in news)
    head = _head(new)
    if isinstance(new, ast.Subscript) and head is not None and head == _head(old):
        if not isinstance(old, ast.Subscript):
            return False  # a bare generic made explicit: its parameters were Any already
        before, after = _arguments(old), _arguments(new)
        if len(before) != len(after):
            return True
        return any(_argument_widens(o, n) for o, n in zip(before, after, strict=True))
    return True


def _member_widens(olds: list[ast.AST], member: ast.AST) -> bool:
    if not mentions_any(member):
        return False
    if is_any(member):
        return not any(is_any(o) for o in olds)
    partners = [o for o in olds if _head(o) is not None and _head(o) == _head(member)]
    return not partners or all(widens(o, member) for o in partners)


def _argument_widens(old: ast.AST, new: ast.AST) -> bool:
    old, new = unquote(old), unquote(new)
    if _is_ellipsis(new):
        return not _is_ellipsis(old)  # `Callable[..., R]`: any arguments now
    if isinstance(old, ast.List) and isinstance(new, ast.List):  # Callable's parameter list
        if len(old.elts) != len(new.elts):
            return any(mentions_any(e) for e in new.elts)
        return any(_argument_widens(o, n) for o, n in zip(old.elts, new.elts, strict=True))
    return widens(old, new)


def _members(node: ast.AST) -> list[ast.AST]:
    """The members of a union (`Union[a, b]`, `Optional[a]`, `a | b`); else the node."""
    node = unquote(node)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*_members(node.left), *_members(node.right)]
    if isinstance(node, ast.Subscript) and last_name(node.value) in _UNIONS:
        inner = _arguments(node)
        found = [m for arg in inner for m in _members(arg)]
        if (pyast.dotted(node.value) or "").endswith("Optional"):
            found.append(ast.Constant(value=None))
        return found
    return [node]


def _arguments(node: ast.Subscript) -> list[ast.AST]:
    inner = node.slice
    return list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]


def _head(node: ast.AST) -> str | None:
    """What a type is of, with typing's aliases folded: `Dict[str, int]` → `dict`, `t.Any` →
    `Any`, `None` → `None`."""
    node = unquote(node)
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    name = last_name(node)
    if not name:
        return None
    return _ALIASES.get(name, name)


def last_name(node: ast.AST) -> str:
    """`c` for `a.b.c`, "" for what is not a name chain."""
    return (pyast.dotted(node) or "").rpartition(".")[2]


def _is_ellipsis(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis
