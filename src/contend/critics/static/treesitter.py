"""Tree-sitter access for the JavaScript / TypeScript topics: grammars, parsing, node helpers.

Owns loading the offline grammar wheels (`tree-sitter-javascript`, `tree-sitter-typescript`)
for the languages "javascript", "typescript" and "tsx", and the rule that a file with syntax
errors is never analysed: tree-sitter recovers from errors and would hand back a tree with
ERROR nodes, on which a critic could report nonsense or miss everything. Such a file becomes
a `Skipped` with reason "syntax error at line N". No newer grammar that reads TypeScript 5
ships as an offline wheel; `ts_compat` mends what the bundled one lacks (measured by
`bench/js_parse_rate.py`). Also the shared helpers of the JS/TS topics: node walks, the
enclosing function's name, and `SourceLines` for evidence that stays linear on minified code.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Collection, Iterator, Sequence
from functools import cache, lru_cache
from typing import Literal

import tree_sitter_javascript
import tree_sitter_typescript
from tree_sitter import Language, Node, Parser, Query, QueryCursor

from contend.critics.static.base import FileChange, Skipped, Topic, language_of
from contend.critics.static.base import Language as FileLanguage
from contend.critics.static.ts_compat import rewrite_for_grammar

JsLanguage = Literal["javascript", "typescript", "tsx"]
JS_LANGUAGES: frozenset[JsLanguage] = frozenset({"javascript", "typescript", "tsx"})

_GRAMMARS: dict[JsLanguage, Callable[[], object]] = {
    "javascript": tree_sitter_javascript.language,
    "typescript": tree_sitter_typescript.language_typescript,
    "tsx": tree_sitter_typescript.language_tsx,
}

FUNCTION_TYPES = frozenset(
    {
        "function_declaration",
        "function_expression",
        "arrow_function",
        "method_definition",
        "generator_function",
        "generator_function_declaration",
    }
)


@cache
def grammar(language: JsLanguage) -> Language:
    return Language(_GRAMMARS[language]())


def parse_raw(text: str, language: JsLanguage) -> Node:
    """The root node the grammar gives, with no compatibility rewrite."""
    return Parser(grammar(language)).parse(text.encode("utf-8")).root_node


@lru_cache(maxsize=64)
def parse(text: str, language: JsLanguage) -> Node:
    """The root node of `text`; may contain ERROR nodes (see `syntax_error_line`).

    A text the grammar rejects is parsed once more after `ts_compat.rewrite_for_grammar`,
    which blanks out the few TypeScript 4.7-5.x forms the grammar predates (and mends a few
    grammar gaps) without moving a byte; a text the grammar reads is never rewritten.
    Cached so the JS/TS topics share one parse per text (a tree is never mutated)."""
    root = parse_raw(text, language)
    if root.has_error:
        rewritten = rewrite_for_grammar(text)
        if rewritten != text:
            # Clean, or its first error is a real one (the grammar's gaps are mended).
            return parse_raw(rewritten, language)
    return root


def syntax_error_line(root: Node) -> int | None:
    """1-based line of the first ERROR or MISSING node, or None for a clean tree."""
    if not root.has_error:
        return None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            return node.start_point.row + 1
        # Reversed so the leftmost erroneous child is popped first.
        stack.extend(reversed([child for child in node.children if child.has_error]))
    # has_error with no ERROR/MISSING descendant does not happen in tree-sitter; be explicit.
    return root.start_point.row + 1


def parse_checked(
    text: str, language: JsLanguage, *, path: str, topic: Topic, side: str = ""
) -> Node | Skipped:
    """The root node, or a `Skipped` naming the first syntax error line of the file."""
    root = parse(text, language)
    line = syntax_error_line(root)
    if line is None:
        return root
    suffix = f" ({side})" if side else ""
    return Skipped(path=path, reason=f"syntax error at line {line}{suffix}", topic=topic)


def js_language(language: FileLanguage) -> JsLanguage | None:
    """The grammar for a file language, or None for a language these critics do not read."""
    if language == "javascript" or language == "typescript" or language == "tsx":
        return language
    return None


def old_side_language(change: FileChange) -> JsLanguage | None:
    """A rename can change the extension (`.js` -> `.ts`): parse each side by its own path."""
    if change.old_path is None:
        return js_language(change.language)
    return js_language(language_of(change.old_path))


def text_of(node: Node) -> str:
    raw = node.text
    return raw.decode("utf-8", errors="replace") if raw is not None else ""


def lines_of(node: Node) -> tuple[int, int]:
    """1-based inclusive (start_line, end_line)."""
    return node.start_point.row + 1, node.end_point.row + 1


def walk(node: Node) -> Iterator[Node]:
    """Every descendant of `node` (not `node` itself), in source order."""
    stack = list(reversed(node.children))
    while stack:
        child = stack.pop()
        yield child
        stack.extend(reversed(child.children))


@cache
def _query(language: JsLanguage, pattern: str) -> Query:
    return Query(grammar(language), pattern)


def captures(root: Node, language: JsLanguage, pattern: str) -> dict[str, list[Node]]:
    """Nodes captured by a tree-sitter query, by capture name. The query runs in C: much
    cheaper than walking a large file node by node in Python."""
    return QueryCursor(_query(language, pattern)).captures(root)


def spans_any(node: Node, ordered_lines: Sequence[int]) -> bool:
    """Whether the node's line span holds one of `ordered_lines` (sorted, 1-based)."""
    start, end = node.start_point.row + 1, node.end_point.row + 1
    index = bisect_left(ordered_lines, start)
    return index < len(ordered_lines) and ordered_lines[index] <= end


def walk_touching(node: Node, lines: Collection[int]) -> Iterator[Node]:
    """Like `walk`, but only nodes whose line span holds one of `lines` (1-based).

    A rule that reports only on changed lines needs no other node, and pruning the rest
    keeps a small change in a large file cheap."""
    ordered = sorted(lines)
    stack = [child for child in reversed(node.children) if spans_any(child, ordered)]
    while stack:
        child = stack.pop()
        yield child
        stack.extend(grand for grand in reversed(child.children) if spans_any(grand, ordered))


def walk_within(node: Node) -> Iterator[Node]:
    """Like `walk`, but does not descend into nested functions or classes."""
    stack = list(reversed(node.children))
    while stack:
        child = stack.pop()
        yield child
        if child.type not in FUNCTION_TYPES and child.type not in ("class_declaration", "class"):
            stack.extend(reversed(child.children))


def named_children(node: Node) -> list[Node]:
    """Named children without comments."""
    return [child for child in node.named_children if child.type != "comment"]


def unwrap(node: Node) -> Node:
    """Strip parentheses and TypeScript-only wrappers (`x as T`, `x satisfies T`, `x!`)."""
    while node.type in (
        "parenthesized_expression",
        "as_expression",
        "satisfies_expression",
        "non_null_expression",
    ):
        inner = named_children(node)
        if not inner:
            break
        node = inner[0]
    return node


def is_default_value(node: Node) -> bool:
    """A value made up on the spot: a literal, null/undefined, or an array/object built only
    of such values. `{ ok: false, error: e }` is not one: it carries something computed."""
    node = unwrap(node)
    kind = node.type
    if kind in ("null", "undefined", "true", "false", "number", "string"):
        return True
    if kind == "identifier":
        return text_of(node) in ("undefined", "NaN", "Infinity")
    if kind == "template_string":
        return not any(child.type == "template_substitution" for child in node.children)
    if kind == "unary_expression":
        operand = named_children(node)
        return text_of(node).startswith(("-", "+", "void", "!")) and all(
            is_default_value(item) for item in operand
        )
    if kind == "array":
        return all(is_default_value(item) for item in named_children(node))
    if kind == "object":
        for item in named_children(node):
            if item.type != "pair":
                return False  # spread, shorthand `{ error }`, method: carries a value
            value = item.child_by_field_name("value")
            if value is None or not is_default_value(value):
                return False
        return True
    if kind == "new_expression":
        # `new Map()`, `new Set()`: an empty collection, as made-up as `[]`.
        ctor = node.child_by_field_name("constructor")
        args = node.child_by_field_name("arguments")
        return (
            ctor is not None
            and text_of(ctor) in ("Map", "Set", "WeakMap", "Array", "Object")
            and (args is None or not named_children(args))
        )
    return False


def callee_name(call: Node) -> str:
    """`foo` for `foo(...)`, `a.b.c` for `a.b.c(...)`; "" when the callee is not a name."""
    function = misparsed_await(call) or call.child_by_field_name("function")
    if function is None or function.type not in ("identifier", "member_expression"):
        return ""
    return "".join(text_of(function).split())


def misparsed_await(call: Node) -> Node | None:
    """The callee of `await f<T>(x)`, which the TypeScript grammar reads as a call of
    `await f` with type arguments: the callee inside the await, or None for any other call."""
    function = call.child_by_field_name("function")
    if function is None or function.type != "await_expression":
        return None
    inner = named_children(function)
    return inner[0] if inner else None


def enclosing(node: Node, types: frozenset[str]) -> Node | None:
    parent = node.parent
    while parent is not None:
        if parent.type in types:
            return parent
        parent = parent.parent
    return None


# --- names: the function or class a node sits in ------------------------------------------

CLASS_TYPES = frozenset({"class_declaration", "class", "abstract_class_declaration"})


def squash(text: str) -> str:
    return "".join(text.split())


def function_name(fn: Node) -> str | None:
    """A function's own name, the name it is bound to, or for a callback `<callee>(...)`."""
    name = fn.child_by_field_name("name")
    if name is not None:
        return text_of(name)
    parent = fn.parent
    if parent is None:
        return None
    if parent.type == "arguments" and parent.parent is not None:
        call = parent.parent
        callee = call.child_by_field_name("function") or call.child_by_field_name("constructor")
        # Named by its callee, not by position: adding a callback elsewhere renames nothing.
        return f"{squash(text_of(callee))[:60]}(...)" if callee is not None else None
    if parent.type == "return_statement":
        return "(returned)"
    field = {
        "variable_declarator": "name",
        "pair": "key",
        "assignment_expression": "left",
        "public_field_definition": "name",
        "field_definition": "property",
    }.get(parent.type)
    target = parent.child_by_field_name(field) if field else None
    return squash(text_of(target)) if target is not None else None


def qualname_of(node: Node) -> str:
    """`Class.method` / `outer.inner` of the named functions around `node`, "" at top level."""
    names: list[str] = []
    parent = node.parent
    while parent is not None:
        if parent.type in FUNCTION_TYPES:
            name = function_name(parent)
            if name is not None:
                names.append(name)
        elif parent.type in CLASS_TYPES:
            name_node = parent.child_by_field_name("name")
            if name_node is not None:
                names.append(text_of(name_node))
        parent = parent.parent
    return ".".join(reversed(names))


_FUNCTIONS = "[{}] @fn".format(" ".join(f"({kind})" for kind in sorted(FUNCTION_TYPES)))


def functions(root: Node, language: JsLanguage) -> dict[str, Node]:
    """Functions and methods by qualified name (`Class.method`, `outer.inner`,
    `load.fetch(...).catch(...)`); a repeated name gets `#2`, `#3` in source order."""
    found: dict[str, Node] = {}
    qualnames: dict[int, str] = {}
    nodes = captures(root, language, _FUNCTIONS).get("fn", [])
    for fn in sorted(nodes, key=lambda node: node.start_byte):  # outer before inner
        classes: list[str] = []
        parent = fn.parent
        while parent is not None and parent.type not in FUNCTION_TYPES:
            class_name = parent.child_by_field_name("name") if parent.type in CLASS_TYPES else None
            if class_name is not None:
                classes.append(text_of(class_name))
            parent = parent.parent
        outer = qualnames.get(parent.id, "?") if parent is not None else ""
        name = function_name(fn)
        base = ".".join(part for part in (outer, *reversed(classes), name or "?") if part)
        qualname, count = base, 1
        while qualname in found:
            count += 1
            qualname = f"{base}#{count}"
        qualnames[fn.id] = qualname
        if name is not None:
            found[qualname] = fn
    return found


# --- evidence: the lines of a finding, without copying a whole minified file per finding ---

# One finding's evidence: whole lines when they are short, else a window of the node itself.
_EVIDENCE_LINE_CHARS = 400
_EVIDENCE_CONTEXT = 120


class SourceLines:
    """Line access to one text in O(span), where `FileChange.new_lines` splits the whole text
    on each call: a thousand findings on one minified file must not cost a thousand splits."""

    def __init__(self, text: str) -> None:
        self._text = text
        starts = [0]
        find = text.find
        index = find("\n")
        while index != -1:
            starts.append(index + 1)
            index = find("\n", index + 1)
        self._starts = starts
        self._data: bytes | None = None

    def lines(self, start_line: int, end_line: int) -> str:
        """1-based inclusive lines, numbered like git (split on "\n" only)."""
        first = max(start_line - 1, 0)
        if first >= len(self._starts):
            return ""
        begin = self._starts[first]
        end = self._starts[end_line] - 1 if end_line < len(self._starts) else len(self._text)
        return self._text[begin:end]

    def evidence(self, start_line: int, end_line: int, node: Node | None = None) -> str:
        """The lines of a finding; when they are long (minified code), a window of the node's
        own text with a little context, its place and size noted."""
        whole = self.lines(start_line, end_line)
        if node is None or len(whole) <= _EVIDENCE_LINE_CHARS * (end_line - start_line + 1):
            return whole
        if self._data is None:
            self._data = self._text.encode("utf-8")
        # tree-sitter counts bytes; slicing the encoded text keeps each window O(its size).
        lo = max(node.start_byte - _EVIDENCE_CONTEXT, 0)
        hi = min(node.end_byte + _EVIDENCE_CONTEXT, len(self._data))
        window = self._data[lo:hi].decode("utf-8", errors="replace")
        return (
            f"{window} … [a window around line {node.start_point.row + 1}, byte "
            f"{node.start_point.column + 1:,}, of a {len(whole):,}-character span]"
        )
