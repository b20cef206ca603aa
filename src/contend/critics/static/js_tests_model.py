"""What a JavaScript / TypeScript test file holds: its tests and suites, and whether a file
is test code at all (the assertions inside a test are `js_assertions`'s).

Pure functions over a tree-sitter tree, shared by the JS/TS topics (test-weakening reads the
tests; silent-fallback and boundary-typing need to know test code when they see it).

Tests are `it` / `test` / `specify` calls (with `.skip`, `.only`, `.todo`, `.each`, `x`/`f`
prefixes, vitest's `test.runIf(cond)(...)` / `skipIf`, `test.extend(...)(...)` and names bound
to `test.extend(...)`), keyed by their title nested in the titles of the enclosing `describe` /
`context` / `suite` calls. A test body that calls `this.skip()`, `ctx.skip()` or `t.skip()`
(mocha, vitest, node:test) unconditionally is skipped; with a condition it is conditional.

A file is test code by what it holds, not only by its name: a test or suite call with a
callback, under any path (mocha's `test/*.js` included), or a path the project's runner
config names (`js_runner_config`), except fixtures — files under a `fixtures/` (or
`__fixtures__`, `testdata`, `__snapshots__`) directory are inputs to other tests, whatever
they are named.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from tree_sitter import Node

from contend.critics.static.base import FileChange, is_test_path
from contend.critics.static.js_assertions import Assertion, assertions, normalise
from contend.critics.static.js_runner_config import NO_LAYOUT, TestLayout
from contend.critics.static.js_test_helpers import FileFunctions, helpers_of
from contend.critics.static.treesitter import (
    FUNCTION_TYPES,
    JsLanguage,
    callee_name,
    captures,
    js_language,
    lines_of,
    named_children,
    old_side_language,
    text_of,
    walk,
)

TestKind = Literal["test", "suite"]

_TEST_BASES = {"it": "", "test": "", "specify": "", "xit": "skip", "xtest": "skip"}
_TEST_BASES |= {"fit": "only", "ftest": "only"}
# tap's top-level `skip(...)` / `todo(...)` beside `test(...)`.
_TEST_BASES |= {"skip": "skip", "todo": "todo"}
_SUITE_BASES = {"describe": "", "context": "", "suite": "", "xdescribe": "skip"}
_SUITE_BASES |= {"xcontext": "skip", "fdescribe": "only", "fcontext": "only"}
_MODIFIERS = frozenset(
    {"skip", "only", "todo", "concurrent", "each", "failing", "fails", "sequential"}
    | {"runIf", "skipIf", "extend", "serial", "parallel"}
)
DISABLING = frozenset({"skip", "todo"})


@dataclass(frozen=True, slots=True)
class TestCall:
    key: tuple[str, ...]  # enclosing suite titles, then this call's title
    kind: TestKind
    node: Node
    modifiers: frozenset[str]
    body: Node | None  # the callback, None for `test.todo("...")`
    # Functions of the file the test runs its checks in (`js_test_helpers`): the factory of
    # its callback (`it("t", spec(ajv))`), or the helpers its callback calls by name.
    helpers: tuple[Node, ...] = ()

    @property
    def title(self) -> str:
        return " > ".join(self.key)

    @property
    def lines(self) -> tuple[int, int]:
        return lines_of(self.node)

    @property
    def disabled(self) -> bool:
        return bool(self.modifiers & DISABLING)

    def body_text(self) -> str:
        return normalise(text_of(self.body)) if self.body is not None else ""

    def checks(self) -> list[Assertion]:
        """The assertions the test makes: its callback's and those of the functions of the
        file it runs them in."""
        found = assertions(self.body)
        for helper in self.helpers:
            found += assertions(helper)
        return found


def _chain(node: Node) -> list[str] | None:
    """`test.skip` -> ["test", "skip"]; None when the callee is not a plain dotted name."""
    parts: list[str] = []
    while node.type == "member_expression":
        prop = node.child_by_field_name("property")
        obj = node.child_by_field_name("object")
        if prop is None or obj is None:
            return None
        parts.append(text_of(prop))
        node = obj
    if node.type != "identifier":
        return None
    parts.append(text_of(node))
    return parts[::-1]


# A condition that is constant: `skipIf(true)` skips for good, `runIf(false)` too.
_ALWAYS = frozenset({"true", "!0", "1"})
_NEVER = frozenset({"false", "!1", "0"})


def _classify_call(
    call: Node, bases: dict[str, tuple[TestKind, str]]
) -> tuple[TestKind, frozenset[str]] | None:
    function = call.child_by_field_name("function")
    if function is None:
        return None
    modifiers: set[str] = set()
    if function.type == "call_expression":
        # test.each(table)("title %s", fn), test.runIf(cond)(...), test.extend({...})(...)
        inner = function.child_by_field_name("function")
        arguments = function.child_by_field_name("arguments")
        args = named_children(arguments) if arguments is not None else []
        condition = squash_text(args[0]) if len(args) == 1 else ""
        parts = _chain(inner) if inner is not None else None
        if parts and parts[-1] in ("runIf", "skipIf"):
            skips = (parts[-1] == "skipIf" and condition in _ALWAYS) or (
                parts[-1] == "runIf" and condition in _NEVER
            )
            modifiers.add("skip" if skips else "conditional")
    else:
        parts = _chain(function)
    if not parts or not set(parts[1:]) <= _MODIFIERS:
        return None
    base = parts[0]
    modifiers.update(part for part in parts[1:] if part not in ("runIf", "skipIf", "extend"))
    shape = bases.get(base)
    if shape is None:
        return None
    kind, implied = shape
    if implied:
        modifiers.add(implied)
    return kind, frozenset(modifiers)


def squash_text(node: Node) -> str:
    return "".join(text_of(node).split())


def _title(call: Node) -> str | None:
    arguments = call.child_by_field_name("arguments")
    args = named_children(arguments) if arguments is not None else []
    if not args:
        return None
    first = args[0]
    literal = _literal_text(first)
    if literal is not None:
        return literal
    return " ".join(text_of(first).split())


def _literal_text(node: Node) -> str | None:
    """A string literal's content; a `'…' + '…'` concatenation of literals (a long title
    wrapped by a formatter) and a template without `${…}` read as the one literal they are."""
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        inner = node.named_children[0]
        return _literal_text(inner) if inner is not None else None
    if node.type == "string":
        return text_of(node)[1:-1]
    if node.type == "template_string" and not any(
        child.type == "template_substitution" for child in node.named_children
    ):
        return text_of(node)[1:-1]
    if node.type == "binary_expression":
        operator = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if operator is None or text_of(operator) != "+" or left is None or right is None:
            return None
        head, tail = _literal_text(left), _literal_text(right)
        return head + tail if head is not None and tail is not None else None
    return None


def _arguments(call: Node) -> list[Node]:
    arguments = call.child_by_field_name("arguments")
    return named_children(arguments) if arguments is not None else []


def _callback(call: Node) -> Node | None:
    args = _arguments(call)
    functions = [arg for arg in args[1:] if arg.type in FUNCTION_TYPES]
    return functions[0] if functions else None


_DEFAULT_BASES: dict[str, tuple[TestKind, str]] = {
    **{name: ("test", implied) for name, implied in _TEST_BASES.items()},
    **{name: ("suite", implied) for name, implied in _SUITE_BASES.items()},
}


def _extended_bases(root: Node) -> dict[str, tuple[TestKind, str]]:
    """Test functions of this file: the usual names, plus names bound to
    `test.extend(...)` / `it.extend(...)` (vitest fixtures, playwright's `base.extend`)."""
    bases = dict(_DEFAULT_BASES)
    if ".extend" not in text_of(root):
        return bases
    for node in walk(root):
        if node.type != "variable_declarator":
            continue
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is None or value is None or value.type != "call_expression":
            continue
        callee = callee_name(value)
        head, _, tail = callee.partition(".")
        if tail == "extend" and (head in bases or head in ("base", "baseTest")):
            bases[text_of(name)] = bases.get(head, ("test", ""))
    return bases


def test_calls(root: Node) -> dict[tuple[str, ...], TestCall]:
    """Every test and suite of a file by key; a repeated title gets a `#2`, `#3` suffix."""
    bases = _extended_bases(root)
    index: FileFunctions | None = None  # the file's functions, read on the first test
    found: dict[tuple[str, ...], TestCall] = {}
    seen: Counter[tuple[str, ...]] = Counter()
    stack: list[tuple[Node, tuple[str, ...]]] = [(root, ())]
    while stack:
        node, prefix = stack.pop()
        for child in reversed(node.children):
            shape = _classify_call(child, bases) if child.type == "call_expression" else None
            title = _title(child) if shape is not None else None
            if shape is None or title is None:
                stack.append((child, prefix))
                continue
            key = (*prefix, title)
            seen[key] += 1
            if seen[key] > 1:
                key = (*prefix, f"{title} #{seen[key]}")
            kind, modifiers = shape
            body = _callback(child)
            if kind == "test" and body is not None:
                modifiers = modifiers | _dynamic_skip(body)
            helpers: tuple[Node, ...] = ()
            if kind == "test":
                index = index or FileFunctions(root)
                helpers = helpers_of(child, _arguments(child), body, index)
            found[key] = TestCall(key, kind, child, modifiers, body, helpers)
            if kind == "suite" and body is not None:
                stack.append((body, key))
    # The stack visits children in reverse; order by position so `#2` means the second one.
    return dict(sorted(found.items(), key=lambda item: item[1].node.start_byte))


_SKIP_RECEIVERS = frozenset({"this", "ctx", "context", "t", "test"})


def _dynamic_skip(body: Node) -> frozenset[str]:
    """`skip` when the body's own top-level statements call `this.skip()` / `ctx.skip()` /
    `t.skip()` unconditionally; `conditional` when such a call has a condition (an argument,
    or an enclosing `if`)."""
    block = body.child_by_field_name("body")
    if block is None or ".skip(" not in text_of(block):
        return frozenset()
    found: set[str] = set()
    for node in walk(block):
        if node.type != "call_expression":
            continue
        name = callee_name(node)
        receiver, _, method = name.rpartition(".")
        if method != "skip" or receiver not in _SKIP_RECEIVERS:
            continue
        arguments = node.child_by_field_name("arguments")
        args = named_children(arguments) if arguments is not None else []
        statement = node.parent
        top_level = (
            statement is not None
            and statement.type == "expression_statement"
            and statement.parent is not None
            and statement.parent.id == block.id
        )
        found.add("skip" if top_level and not args else "conditional")
    return frozenset(found)


# --- which files are test code -----------------------------------------------------------

_FIXTURE_DIRS = frozenset(
    {"fixtures", "__fixtures__", "fixture", "test-fixtures", "testdata", "__snapshots__"}
    # An example project's own tests show how to use the library; they are documentation,
    # not the project's test suite.
    | {"examples", "example"}
)


def is_fixture_path(path: str) -> bool:
    """Files under a fixtures (or examples) directory are inputs to other tests or
    documentation, whatever their name."""
    return any(part in _FIXTURE_DIRS for part in path.replace("\\", "/").split("/")[:-1])


_BASE_NAMES = sorted(_DEFAULT_BASES)
_CANDIDATES = "((identifier) @name (#any-of? @name {}))".format(
    " ".join(f'"{name}"' for name in _BASE_NAMES)
)


# Cypress specs, and type tests (tsd's `*.test-d.ts` and `test-d/`, DefinitelyTyped's
# `<package>-tests.ts`): files checked by a test tool, not shipped code.
_TEST_NAME = re.compile(r"\.cy\.[^/]+$|\.test-d\.[^/]+$|-tests\.[cm]?tsx?$|(?:^|/)test-d/")


def holds_tests(root: Node | None, language: JsLanguage) -> bool:
    """Whether a tree declares a test or suite with a callback (any framework's globals or
    imports: mocha, jest, vitest, node:test, ava's `test(...)`, playwright). The candidate
    names are found by a query (in C), so a large source file costs no Python walk."""
    if root is None:
        return False
    for name in captures(root, language, _CANDIDATES).get("name", []):
        call = name.parent
        for _ in range(4):  # test / test.skip / test.each(t) / test.runIf(c)(...)
            if call is None or call.type == "call_expression":
                break
            call = call.parent
        while call is not None and call.type == "call_expression":
            if _classify_call(call, _DEFAULT_BASES) is not None and _callback(call) is not None:
                return True
            outer = call.parent
            call = outer if outer is not None and outer.type == "call_expression" else None
    return False


def is_test_code(
    change: FileChange,
    old_root: Node | None,
    new_root: Node | None,
    old_language: JsLanguage | None = None,
    new_language: JsLanguage | None = None,
    *,
    layout: TestLayout = NO_LAYOUT,
) -> bool:
    """A JS/TS file is test code when its name says so (`*.test.*`, `*.spec.*`, `*.cy.*`,
    `__tests__/`, and the type tests `*.test-d.ts`, `<name>-tests.ts`, `test-d/`), when the
    project's runner config names it (`layout`: vitest `include`, jest `testMatch`, mocha
    `spec`, ava `files`), or when either side declares tests; never under a fixtures
    directory."""
    paths = [change.path, *([change.old_path] if change.old_path else [])]
    if any(is_fixture_path(path) for path in paths):
        return False
    named = any(
        is_test_path(path) or _TEST_NAME.search(path) or layout.matches(path) for path in paths
    )
    if named:
        return True
    new_language = new_language or js_language(change.language)
    old_language = old_language or old_side_language(change) or new_language
    return bool(
        (new_language is not None and holds_tests(new_root, new_language))
        or (old_language is not None and holds_tests(old_root, old_language))
    )
