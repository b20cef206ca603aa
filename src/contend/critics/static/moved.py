"""Moved, not new; still there, not removed: the pre-existing-pattern test every static rule
about something ADDED or REMOVED passes before it may report.

Real refactoring moves code: a handler re-indented into a `then/catch` chain, a nested
function's body moved into a method, a guard kept under a renamed parameter, a file ported
from `.js` to `.ts`, a `raise` moved into a helper. A rule that compares one function's old
and new versions reads such a move as an addition or a removal. This module decides it the
same way for every rule and both languages, from the whole change:

- Each statement-level construct (Python `ast` statements and `except` handlers; JS/TS
  tree-sitter statements, declarations, `catch`/`finally` clauses, methods) is normalised to
  a key: its token shape with comments, whitespace and type syntax (annotations, `as T`,
  `x!`, type arguments) gone, literals kept, and identifiers (locals, parameters, function
  and test names) abstracted by order of first appearance within the construct — so
  `if (!streams.length) throw new TypeError('…')` and the same guard over `items` share a
  key, while attribute and property names, builtins (`TypeError`, `isinstance`) and literals
  still tell constructs apart.
- The keys are counted over the PARENT versions of every file of the change (the same
  file, a renamed or ported file, any other file it touches) and over the CHILD versions, in
  the finding's language family (Python; JS/TS together). The counts are computed lazily,
  per key a finding asks about, abstracting only the constructs that could match it (same
  token length and first token: `_Shape.candidates`).
- A finding of an ADDED rule is dropped when the parent already held its construct at least
  as often as the child does (it moved; nothing new appeared). A finding of a REMOVED rule
  is dropped when the child holds the removed construct at least as often as the parent did
  (it moved or was renamed; nothing was lost), or holds it inside a function the parent did
  not have (it moved into a new helper — an asserting helper, a `_checked_transition` that
  raises — which the old places now call). Counting, not mere presence, keeps recall: a
  duplicated handler, or one of two identical guards deleted, still changes a count.

A construct smaller than `MIN_TOKENS` tokens (`x = None`, `pass`) is too common to identify
a move, so the enclosing statement is taken instead. Rules whose evidence is a comment or a
type (`type-ignore-added`, `any-annotation-added`, `ts-ignore-added`, …: `LINE_RULES`) are
tested on the finding's own lines, whitespace squashed, counted the same way over every run
of one to three lines of the files: normalisation drops exactly what they report.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from typing import Literal

from tree_sitter import Node

from contend.critics.static import pyast, treesitter
from contend.critics.static.base import FileChange, Finding, language_of

Family = Literal["python", "js"]
Key = tuple[object, ...]

# Rules that report something the change ADDED (a handler, a write, a skip, a mock…),
# located on the new side at the finding's lines.
ADDED_RULES = frozenset(
    {
        "swallowing-handler",
        "suppress-broad",
        "widened-except",
        "index-to-default",
        "unlocked-shared-mutation",
        "check-then-act-across-await",
        "coroutine-not-awaited",
        "mutable-default-argument",
        "skip-without-issue",
        "unit-under-test-mocked",
        "primitive-validated-in-core",
        "js-catch-default",
        "js-empty-catch",
        "js-catch-return-default",
        "js-catch-swallow",
        "js-check-then-act-across-await",
        "js-floating-promise",
        "js-test-only",
        "js-test-skipped",
    }
)

# Rules that report something the change REMOVED (a guard, an assertion, a test, a lock, a
# raise, an await), whose old version is the finding's `old_evidence`.
REMOVED_RULES = frozenset(
    {
        "validation-guard-removed",
        "js-validation-guard-removed",
        "ts-non-null-replaced-check",
        "lock-removed",
        "assertion-removed",
        "js-assertion-removed",
        "test-deleted",
        "test-class-deleted",
        "js-test-deleted",
        "raise-to-default",
        "js-throw-to-default",
        "await-dropped",
        "js-await-dropped",
    }
)

# Rules whose evidence is a comment or a type, which the normalised constructs leave out: for
# these the construct is the finding's lines themselves, whitespace squashed.
LINE_RULES = frozenset(
    {
        "type-ignore-added",
        "any-annotation-added",
        "cast-to-any-added",
        "ts-ignore-added",
        "ts-any-annotation-added",
        "ts-cast-to-any-added",
    }
)

# Rules whose old evidence may be another construct of the function than the one lost.
_QUOTES_NEIGHBOURS = frozenset({"raise-to-default", "js-throw-to-default"})

# A construct of fewer tokens is too common to tell a move from a coincidence.
MIN_TOKENS = 8

_NAME = "\x00"  # prefix of an abstracted identifier in a token stream


def family_of(path: str) -> Family | None:
    language = language_of(path)
    if language == "python":
        return "python"
    if language in treesitter.JS_LANGUAGES:
        return "js"
    return None


@dataclasses.dataclass(frozen=True, slots=True)
class _Construct:
    start_line: int
    end_line: int
    start: int  # index into the file's token stream
    end: int
    owner: str  # the innermost named function around it ("" at top level)


@dataclasses.dataclass(slots=True)
class _Shape:
    """One version of one file: its token stream and its constructs, innermost last.

    A construct's key is computed only when a finding asks about a key it could equal: two
    keys are equal only with the same length and the same first token (a name's first token
    always becomes 0), so constructs are bucketed by that signature once, and only the
    bucket of the key asked about is abstracted — not every construct of every file."""

    tokens: list[str]
    constructs: list[_Construct]
    # Findings often share lines (a grouped rule, a minified line): one search per span.
    _at: dict[tuple[int, int], Key | None] = dataclasses.field(default_factory=dict)
    _buckets: dict[tuple[int, object], list[int]] | None = None
    _keys: dict[int, Key] = dataclasses.field(default_factory=dict)

    def key(self, construct: _Construct) -> Key:
        return _alpha(self.tokens[construct.start : construct.end])

    def key_at(self, index: int) -> Key:
        """The key of `constructs[index]` (computed once)."""
        key = self._keys.get(index)
        if key is None:
            key = self._keys[index] = self.key(self.constructs[index])
        return key

    def candidates(self, key: Key) -> list[int]:
        """Indexes of the constructs whose key may equal `key` (same signature)."""
        if self._buckets is None:
            buckets: dict[tuple[int, object], list[int]] = {}
            for index, construct in enumerate(self.constructs):
                buckets.setdefault(self._signature(construct), []).append(index)
            self._buckets = buckets
        return self._buckets.get((len(key), key[0] if key else None), [])

    def _signature(self, construct: _Construct) -> tuple[int, object]:
        size = construct.end - construct.start
        if size == 0:
            return (0, None)
        first = self.tokens[construct.start]
        return (size, 0 if first.startswith(_NAME) else first)

    def count(self, key: Key) -> int:
        """How many constructs have this key."""
        return sum(1 for index in self.candidates(key) if self.key_at(index) == key)

    def at(self, start_line: int, end_line: int) -> Key | None:
        """The key of the smallest construct (of at least MIN_TOKENS tokens) spanning the
        lines, or None."""
        if (start_line, end_line) not in self._at:
            self._at[(start_line, end_line)] = self._find(start_line, end_line)
        return self._at[(start_line, end_line)]

    def _find(self, start_line: int, end_line: int) -> Key | None:
        best: _Construct | None = None
        for c in self.constructs:
            if c.start_line <= start_line and end_line <= c.end_line:
                if c.end - c.start < MIN_TOKENS:
                    continue
                if best is None or (c.end_line - c.start_line, c.end - c.start) < (
                    best.end_line - best.start_line,
                    best.end - best.start,
                ):
                    best = c
        return None if best is None else self.key(best)


class MovedIndex:
    """The normalised constructs of every file of one change, per side, built lazily."""

    def __init__(self, changes: Sequence[FileChange]) -> None:
        self._changes = list(changes)
        self._by_path = {c.path: c for c in self._changes}
        self._shapes: dict[tuple[str, str], _Shape | None] = {}
        self._counts: dict[tuple[Family, str, Key], int] = {}
        self._in_helpers: dict[tuple[Family, Key], bool] = {}
        self._old_owners: dict[Family, set[str]] = {}
        self._lines: dict[tuple[Family, str], Counter[str]] = {}

    def _shape(self, change: FileChange, side: str) -> _Shape | None:
        cache_key = (change.path, side)
        if cache_key not in self._shapes:
            path = change.path if side == "new" else (change.old_path or change.path)
            text = change.new_text if side == "new" else change.old_text
            self._shapes[cache_key] = None if text is None else _shape_of(text, path)
        return self._shapes[cache_key]

    def _count(self, family: Family, side: str, key: Key) -> int:
        """How many constructs of the side's files of the family have this key."""
        if (family, side, key) not in self._counts:
            total = sum(shape.count(key) for shape in self._shapes_of(family, side))
            self._counts[(family, side, key)] = total
        return self._counts[(family, side, key)]

    def _shapes_of(self, family: Family, side: str) -> Iterator[_Shape]:
        for change in self._changes:
            path = change.path if side == "new" else (change.old_path or change.path)
            if family_of(path) == family:
                shape = self._shape(change, side)
                if shape is not None:
                    yield shape

    def _in_helper(self, family: Family, key: Key) -> bool:
        """Does the child hold this key inside a function the parent did not have (a new
        helper a check or a raise moved into)?"""
        if family not in self._old_owners:
            self._old_owners[family] = {
                c.owner for s in self._shapes_of(family, "old") for c in s.constructs
            }
        old_owners = self._old_owners[family]
        if (family, key) not in self._in_helpers:
            self._in_helpers[(family, key)] = any(
                shape.constructs[i].owner
                and shape.constructs[i].owner not in old_owners
                and shape.key_at(i) == key
                for shape in self._shapes_of(family, "new")
                for i in shape.candidates(key)
            )
        return self._in_helpers[(family, key)]

    def is_moved(self, finding: Finding) -> bool:
        """True when the finding's construct is not new (ADDED rules) or not gone (REMOVED
        rules) across the whole change."""
        family = family_of(finding.path)
        change = self._by_path.get(finding.path)
        if family is None or change is None:
            return False
        if finding.rule in LINE_RULES:
            text = change.new_lines(finding.start_line, finding.end_line)
            line = _squash(text)
            new = self._line_count(family, "new")[line]
            # A span longer than the runs counted is not judged (new == 0): it stands.
            return bool(line) and new > 0 and self._line_count(family, "old")[line] >= new
        if finding.rule in ADDED_RULES:
            shape = self._shape(change, "new")
            key = None if shape is None else shape.at(finding.start_line, finding.end_line)
            if key is None:
                return False
            return self._count(family, "old", key) >= self._count(family, "new", key)
        if finding.rule in REMOVED_RULES:
            key = self._removed_key(change, finding.rule, finding.old_evidence)
            if key is None:
                return False
            old_family = family_of(change.old_path or change.path) or family
            if self._count(old_family, "new", key) >= self._count(old_family, "old", key):
                return True
            return self._in_helper(old_family, key)
        return False

    def _line_count(self, family: Family, side: str) -> Counter[str]:
        """Every run of one to three lines of the side's files, squashed, counted."""
        if (family, side) not in self._lines:
            total: Counter[str] = Counter()
            for change in self._changes:
                path = change.path if side == "new" else (change.old_path or change.path)
                text = change.new_text if side == "new" else change.old_text
                if text is None or family_of(path) != family:
                    continue
                lines = [_squash(line) for line in text.split("\n")]
                for width in (1, 2, 3):
                    total.update(
                        "".join(lines[i : i + width]) for i in range(len(lines) - width + 1)
                    )
            self._lines[(family, side)] = total
        return self._lines[(family, side)]

    def _removed_key(self, change: FileChange, rule: str, old_evidence: str | None) -> Key | None:
        if not old_evidence or change.old_text is None:
            return None
        lines = _find_lines(
            change.old_text, old_evidence, change.removed_lines, strict=rule in _QUOTES_NEIGHBOURS
        )
        if lines is None:
            return None
        shape = self._shape(change, "old")
        return None if shape is None else shape.at(*lines)


_TESTED = ADDED_RULES | REMOVED_RULES | LINE_RULES


def drop_moved(findings: Sequence[Finding], changes: Sequence[FileChange]) -> list[Finding]:
    """The findings whose construct really appeared or disappeared in the change."""
    if not any(f.rule in _TESTED for f in findings):
        return list(findings)
    index = MovedIndex(changes)
    return [f for f in findings if not index.is_moved(f)]


def _squash(text: str) -> str:
    return "".join(text.split())


def _find_lines(
    text: str, evidence: str, removed: Collection[int], *, strict: bool
) -> tuple[int, int] | None:
    """1-based (start, end) of where `evidence`'s lines stand in `text`: the first place that
    meets a line the change removed or modified, else (unless `strict`) the first place —
    lines the diff kept in place around a move (a body moved into a helper right below it)
    are still the construct. `strict`: the rule's evidence may quote a neighbour of what it
    lost (another `raise` of the function), so only a removed place is the construct."""
    wanted = [line.strip() for line in evidence.split("\n")]
    while wanted and not wanted[-1]:
        wanted.pop()
    if not wanted:
        return None
    lines = [line.strip() for line in text.split("\n")]
    first = wanted[0]
    found: tuple[int, int] | None = None
    for i, line in enumerate(lines):
        if line != first or lines[i : i + len(wanted)] != wanted:
            continue
        span = (i + 1, i + len(wanted))
        if any(n in removed for n in range(span[0], span[1] + 1)):
            return span
        found = found or span
    return None if strict else found


def _alpha(tokens: Sequence[str]) -> Key:
    """Identifiers renamed by order of first appearance: `a.x = b` ≡ `c.x = d`."""
    seen: dict[str, int] = {}
    out: list[object] = []
    for token in tokens:
        if token.startswith(_NAME):
            out.append(seen.setdefault(token, len(seen)))
        else:
            out.append(token)
    return tuple(out)


def _shape_of(text: str, path: str) -> _Shape | None:
    """The file's shape, or None when it cannot be read (then nothing counts as moved: the
    finding stands, as it would without this test)."""
    try:
        return _read_shape(text, path)
    except RecursionError:
        return None


def _read_shape(text: str, path: str) -> _Shape | None:
    language = language_of(path)
    if language == "python":
        try:
            tree = pyast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            return None
        return _python_shape(tree)
    js = treesitter.js_language(language)
    if js is None:
        return None
    root = treesitter.parse(text, js)
    if treesitter.syntax_error_line(root) is not None:
        return None
    return _js_shape(root)


# --- Python -----------------------------------------------------------------------------

_BUILTINS = frozenset(dir(builtins))
# Type syntax and bookkeeping: a port that adds annotations or changes a type comment is the
# same code.
_PY_SKIPPED_FIELDS = frozenset({"ctx", "annotation", "returns", "type_comment", "type_params"})
_PY_NAME_FIELDS = {ast.Name: "id", ast.arg: "arg"}


@dataclasses.dataclass(frozen=True, slots=True)
class _PyClass:
    """What the walk needs of one `ast` node class, looked up once per class, not per node."""

    name: str
    fields: tuple[str, ...]  # `_fields` without the skipped ones
    name_fields: frozenset[str]  # fields whose string value is an identifier
    is_function: bool
    is_construct: bool


_PY_CLASSES: dict[type[ast.AST], _PyClass] = {}
_MISSING = object()


def _py_class(cls: type[ast.AST]) -> _PyClass:
    info = _PY_CLASSES.get(cls)
    if info is None:
        names = {_PY_NAME_FIELDS[cls]} if cls in _PY_NAME_FIELDS else set()
        if issubclass(cls, (*_PY_DEFS, ast.ExceptHandler)):
            names.add("name")
        info = _PY_CLASSES[cls] = _PyClass(
            name=cls.__name__,
            fields=tuple(f for f in cls._fields if f not in _PY_SKIPPED_FIELDS),
            name_fields=frozenset(names),
            is_function=issubclass(cls, (ast.FunctionDef, ast.AsyncFunctionDef)),
            is_construct=issubclass(cls, (ast.stmt, ast.excepthandler)),
        )
    return info


def _python_shape(tree: ast.Module) -> _Shape:
    tokens: list[str] = []
    constructs: list[_Construct] = []
    append = tokens.append

    def visit(node: ast.AST, owner: str) -> None:
        start = len(tokens)
        info = _py_class(type(node))
        append(info.name)
        inner = node.name if info.is_function else owner  # type: ignore[attr-defined]
        for field in info.fields:
            # as ast.iter_fields: a field the node does not carry is left out
            value = getattr(node, field, _MISSING)
            if value is _MISSING:
                continue
            if isinstance(value, ast.AST):
                visit(value, inner)
            elif isinstance(value, list):
                append("[")
                for item in value:
                    if isinstance(item, ast.AST):
                        visit(item, inner)
                    else:
                        append(repr(item))
                append("]")
            elif isinstance(value, str) and field in info.name_fields:
                append(value if value in _BUILTINS else _NAME + value)
            else:
                append(repr(value))
        if info.is_construct:
            first, last = pyast.span(node)
            constructs.append(_Construct(first, last, start, len(tokens), owner))

    visit(tree, "")
    return _Shape(tokens, constructs)


_PY_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


# --- JavaScript / TypeScript --------------------------------------------------------------

_JS_CONSTRUCTS = frozenset(
    {
        "lexical_declaration",
        "variable_declaration",
        "function_declaration",
        "generator_function_declaration",
        "class_declaration",
        "method_definition",
        "catch_clause",
        "finally_clause",
        "else_clause",
        "switch_case",
        "public_field_definition",
        "field_definition",
    }
)
# Type syntax is dropped so a `.js` -> `.ts` port of the same code has the same shape.
_JS_DROPPED = frozenset(
    {
        "comment",
        "type_annotation",
        "type_arguments",
        "type_parameters",
        "accessibility_modifier",
        "override_modifier",
        "asserts_annotation",
        "type_predicate_annotation",
        "opting_type_annotation",
        "omitting_type_annotation",
    }
)
_JS_FIRST_CHILD_ONLY = frozenset({"as_expression", "satisfies_expression", "non_null_expression"})
_JS_NAMES = frozenset({"identifier", "shorthand_property_identifier", "this_type"})
_JS_SKIPPED_PUNCTUATION = frozenset({";", ","})
_JS_GLOBALS = frozenset(
    {
        "undefined",
        "NaN",
        "Infinity",
        "Error",
        "TypeError",
        "RangeError",
        "SyntaxError",
        "ReferenceError",
        "AggregateError",
        "Object",
        "Array",
        "Number",
        "String",
        "Boolean",
        "Symbol",
        "BigInt",
        "Promise",
        "JSON",
        "Math",
        "Date",
        "RegExp",
        "Map",
        "Set",
        "WeakMap",
        "WeakSet",
        "Buffer",
        "process",
        "console",
        "require",
        "module",
        "exports",
        "globalThis",
        "window",
        "document",
        "expect",
        "assert",
        "describe",
        "it",
        "test",
    }
)


def _js_shape(root: Node) -> _Shape:
    tokens: list[str] = []
    constructs: list[_Construct] = []

    def visit(node: Node, owner: str) -> None:
        kind = node.type
        if kind in _JS_DROPPED:
            return
        start = len(tokens)
        if kind in _JS_FIRST_CHILD_ONLY:
            named = node.named_children
            if named:
                visit(named[0], owner)
            return
        inner = owner
        if kind in treesitter.FUNCTION_TYPES:
            name = treesitter.function_name(node)
            # A callback (`it(...)`, `.then(...)`) is not a helper of its own.
            inner = name if name and "(" not in name else owner
        if kind == "string" or node.child_count == 0:
            leaf = _js_leaf(node)
            if leaf:
                tokens.append(leaf)
        else:
            parent_optional = kind == "optional_parameter"
            for child in node.children:
                if parent_optional and child.type == "?":
                    continue
                visit(child, inner)
        if (kind in _JS_CONSTRUCTS or kind.endswith("_statement")) and kind != "empty_statement":
            first, last = treesitter.lines_of(node)
            constructs.append(_Construct(first, last, start, len(tokens), owner))

    for child in root.children:
        visit(child, "")
    return _Shape(tokens, constructs)


def _js_leaf(node: Node) -> str:
    kind = node.type
    text = treesitter.text_of(node)
    if kind == "string":
        return "str:" + text[1:-1]
    if kind in _JS_NAMES:
        return text if text in _JS_GLOBALS else _NAME + text
    if kind in _JS_SKIPPED_PUNCTUATION:
        return ""
    if node.is_named:
        return text
    return kind


def iter_rules() -> Iterator[str]:
    """Every rule this test applies to (for the docs and the tests)."""
    yield from sorted(_TESTED)
