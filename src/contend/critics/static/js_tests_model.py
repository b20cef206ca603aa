"""What a JavaScript / TypeScript test file holds: its tests and suites, and their assertions.

Pure functions over a tree-sitter tree, shared by the JS/TS topics (test-weakening reads the
tests; silent-fallback and boundary-typing need to know test code when they see it).

Tests are `it` / `test` / `specify` calls (with `.skip`, `.only`, `.todo`, `.each`, `x`/`f`
prefixes, vitest's `test.runIf(cond)(...)` / `skipIf`, `test.extend(...)(...)` and names bound
to `test.extend(...)`), keyed by their title nested in the titles of the enclosing `describe` /
`context` / `suite` calls. A test body that calls `this.skip()`, `ctx.skip()` or `t.skip()`
(mocha, vitest, node:test) unconditionally is skipped; with a condition it is conditional.
Assertions are `expect(...)` chains (Jest, Vitest, chai's call forms) and `assert` calls, each
with a strength rank: 3 exact, 2 partial (contains, ordering, a type), 1 existence only.

A file is test code by what it holds, not only by its name: a test or suite call with a
callback, under any path (mocha's `test/*.js` included), except fixtures — files under a
`fixtures/` (or `__fixtures__`, `testdata`, `__snapshots__`) directory are inputs to other
tests, whatever they are named.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from tree_sitter import Node

from contend.critics.static.base import FileChange, is_test_path
from contend.critics.static.js_runner_config import NO_LAYOUT, TestLayout
from contend.critics.static.treesitter import (
    FUNCTION_TYPES,
    JsLanguage,
    callee_name,
    captures,
    js_language,
    lines_of,
    misparsed_await,
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

# Same rank = interchangeable for this critic; `toEqual` -> `toStrictEqual` is no weakening.
_RANKS: dict[str, int] = {
    **dict.fromkeys(
        [
            "toBe",
            "toEqual",
            "toStrictEqual",
            "toBeNull",
            "toBeUndefined",
            "toBeNaN",
            "toHaveLength",
            "toMatchSnapshot",
            "toMatchInlineSnapshot",
            "toThrowErrorMatchingSnapshot",
            "toThrowErrorMatchingInlineSnapshot",
            "toHaveBeenCalledWith",
            "toHaveBeenCalledTimes",
            "toHaveBeenLastCalledWith",
            "toHaveBeenNthCalledWith",
            "toBeCalledWith",
            "toBeCalledTimes",
            "lastCalledWith",
            "nthCalledWith",
            "toHaveReturnedWith",
            "toHaveReturnedTimes",
            "toHaveLastReturnedWith",
            "toHaveNthReturnedWith",
            "toBeCloseTo",
            "toBeTrue",
            "toBeFalse",
            "equal",
            "equals",
            "eql",
            "eqls",
            "lengthOf",
            "expect.assertions",
            "assert.strictEqual",
            "assert.deepStrictEqual",
            "assert.equal",
            "assert.deepEqual",
            "assert.isTrue",
            "assert.isFalse",
            "assert.isNull",
            "assert.isUndefined",
            "assert.sameMembers",
            "assert.sameDeepMembers",
            "assert.lengthOf",
            "assert.deepInclude",
            "assert(===)",
            "toEqualTypeOf",
        ],
        3,
    ),
    **dict.fromkeys(
        [
            "toMatchObject",
            "toContain",
            "toContainEqual",
            "toMatch",
            "toBeInstanceOf",
            "toBeGreaterThan",
            "toBeGreaterThanOrEqual",
            "toBeLessThan",
            "toBeLessThanOrEqual",
            "toHaveBeenCalled",
            "toBeCalled",
            "toHaveReturned",
            "toReturn",
            "toBeOneOf",
            "include",
            "includes",
            "contain",
            "contains",
            "match",
            "members",
            "oneOf",
            "above",
            "below",
            "least",
            "most",
            "instanceOf",
            "expect.hasAssertions",
            "assert.match",
            "assert.include",
            "assert.includes",
            "assert.isAbove",
            "assert.isBelow",
            "assert.isAtLeast",
            "assert.isAtMost",
            "assert.instanceOf",
            "assert.oneOf",
            "assert.typeOf",
            "assert(<>)",
            "assert.like",
            "assert(in)",
            "assert(instanceof)",
            "toMatchTypeOf",
            "toExtend",
            "toMatchObjectType",
        ],
        2,
    ),
    **dict.fromkeys(
        [
            "toBeTruthy",
            "toBeFalsy",
            "toBeDefined",
            "ok",
            "exist",
            "assert",
            "assert.ok",
            "assert.isOk",
            "assert.exists",
            "assert.isDefined",
            "assert.isNotNull",
            "assert.notStrictEqual",
            "assert.notEqual",
            "assert.notDeepStrictEqual",
            "assert.notDeepEqual",
            "assert.doesNotThrow",
            "assert.doesNotReject",
            "assert.isNotOk",
            "assert.notOk",
        ],
        1,
    ),
}
# Matchers whose strength depends on whether they name what is expected.
THROW_MATCHERS = frozenset({"toThrow", "toThrowError", "throw", "throws", "Throw"})
_ASSERT_THROWS = frozenset({"assert.throws", "assert.rejects"})
_ASYMMETRIC = ("expect.anything(", "expect.any(", "Containing(", "expect.stringMatching(")
GENERIC_ERRORS = frozenset({"", "Error", "Object", "expect.anything()", "/.*/", '""'})


def normalise(text: str) -> str:
    """Compare code modulo formatting: whitespace, quote style, trailing commas, semicolons."""
    flat = "".join(text.split()).replace("'", '"').replace("`", '"')
    for closer in ")]}":
        flat = flat.replace(f",{closer}", closer)
    return flat.rstrip(";")


@dataclass(frozen=True, slots=True)
class Assertion:
    node: Node
    text: str  # normalised
    subject: str  # normalised first argument of expect()/assert.*(), "" if none
    matcher: str
    negated: bool
    args: tuple[str, ...]  # normalised matcher arguments (for assert.*: all but the subject)

    @property
    def lines(self) -> tuple[int, int]:
        return lines_of(self.node)

    @property
    def rank(self) -> int | None:
        """3 exact, 2 partial, 1 existence only; None for a matcher this critic does not know."""
        base = _RANKS.get(self.matcher)
        if self.matcher in THROW_MATCHERS or self.matcher in _ASSERT_THROWS:
            base = 3 if self.args else 2
        elif self.matcher == "toHaveProperty":
            base = 3 if len(self.args) >= 2 else 2
        if base is None:
            return None
        if self.negated:
            return 1
        if any(marker in arg for arg in self.args for marker in _ASYMMETRIC):
            return min(base, 2)
        return base

    @property
    def key(self) -> str:
        """What is checked, whatever the framework writes it as: `expect(a).toBe(b)`,
        `assert.strictEqual(a, b)` and `assert(a === b)` are one check."""
        canon = _CANONICAL.get(self.matcher, self.matcher)
        kept = self.args[:1] if canon in _ONE_ARGUMENT else self.args
        prefix = "not." if self.negated else ""
        return f"{prefix}{canon}({self.subject};{','.join(kept)})"

    @property
    def expected_error(self) -> str | None:
        """The error an exception assertion names ("" = any error), None for other matchers."""
        if self.negated or (
            self.matcher not in THROW_MATCHERS and self.matcher not in _ASSERT_THROWS
        ):
            return None
        return self.args[0] if self.args else ""


_CANONICAL = {
    # Identity and structural equality are one check here: on the primitives tests compare
    # they agree, and a rewrite from one framework to another swaps them freely.
    **dict.fromkeys(
        ["toBe", "assert.strictEqual", "assert.equal", "equal", "equals", "assert(===)"], "eq"
    ),
    **dict.fromkeys(
        ["toEqual", "toStrictEqual", "assert.deepStrictEqual", "assert.deepEqual", "eql"], "eq"
    ),
    **dict.fromkeys(["toBeTruthy", "assert", "assert.ok", "ok", "assert.isOk"], "ok"),
    **dict.fromkeys(["toThrow", "toThrowError", "assert.throws", "throw", "throws"], "throws"),
    **dict.fromkeys(["toMatch", "assert.match", "match"], "match"),
    **dict.fromkeys(
        ["toContain", "assert.include", "assert.includes", "include", "contain", "assert(in)"],
        "contains",
    ),
    **dict.fromkeys(["toHaveLength", "assert.lengthOf", "lengthOf"], "length"),
    **dict.fromkeys(["toBeInstanceOf", "assert.instanceOf", "instanceOf"], "instance"),
    **dict.fromkeys(["toBeNull", "assert.isNull"], "null"),
    **dict.fromkeys(["toBeUndefined", "assert.isUndefined"], "undefined"),
}
_ONE_ARGUMENT = frozenset({"eq", "match", "contains", "length", "instance", "ok"})

# `assert(<expression>)`: how strong it is depends on the expression.
_ASSERT_EXPRESSION_RANKS = {
    "===": ("assert(===)", 3),
    "==": ("assert(===)", 3),
    ">": ("assert(<>)", 2),
    "<": ("assert(<>)", 2),
    ">=": ("assert(<>)", 2),
    "<=": ("assert(<>)", 2),
    "instanceof": ("assert(instanceof)", 2),
}
# The test-context object of ava, tap and node:test (`t.is`, `t.same`, `t.assert.equal`).
_TEST_CONTEXTS = frozenset({"t", "tt", "t.assert", "context.assert"})
_CONTEXT_ASSERTIONS = {
    "is": "assert.strictEqual",
    "equal": "assert.strictEqual",
    "strictEqual": "assert.strictEqual",
    "deepEqual": "assert.deepStrictEqual",
    "deepStrictEqual": "assert.deepStrictEqual",
    "same": "assert.deepStrictEqual",
    "strictSame": "assert.deepStrictEqual",
    "snapshot": "assert.deepStrictEqual",
    "true": "assert",
    "assert": "assert",
    "ok": "assert",
    "truthy": "assert.ok",
    "false": "assert.isFalse",
    "falsy": "assert.notOk",
    "not": "assert.notStrictEqual",
    "notDeepEqual": "assert.notDeepStrictEqual",
    "regex": "assert.match",
    "match": "assert.match",
    "like": "assert.like",
    "throws": "assert.throws",
    "throwsAsync": "assert.rejects",
    "rejects": "assert.rejects",
    "notThrows": "assert.doesNotThrow",
    "notThrowsAsync": "assert.doesNotReject",
}
_TYPE_PREDICATE = re.compile(r"^is[A-Z]\w*$|^(?:string|number|object|array|function)$")
_CONTAINS_METHODS = frozenset({"includes", "startsWith", "endsWith", "test", "has", "match"})


def _assert_expression(call: Node, expression: Node) -> Assertion | None:
    """`assert(a === b)`, `assert(x.includes(y))`, `assert(n > 0)`: the check the boolean
    expression makes, with its own subject and rank."""
    text = normalise(text_of(call))
    if expression.type == "binary_expression":
        operator = expression.child_by_field_name("operator")
        left = expression.child_by_field_name("left")
        right = expression.child_by_field_name("right")
        shape = _ASSERT_EXPRESSION_RANKS.get(text_of(operator)) if operator else None
        if shape is not None and left is not None and right is not None:
            matcher = shape[0]
            return Assertion(
                call, text, normalise(text_of(left)), matcher, False, (normalise(text_of(right)),)
            )
    if expression.type == "call_expression":
        function = expression.child_by_field_name("function")
        arguments = expression.child_by_field_name("arguments")
        args_nodes = named_children(arguments) if arguments is not None else []
        predicate = callee_name(expression).rsplit(".", 1)[-1]
        if _TYPE_PREDICATE.match(predicate) and len(args_nodes) == 1:
            # `Buffer.isBuffer(x)`, `Array.isArray(x)`, `is.string(x)`: a type check of x.
            subject = normalise(text_of(args_nodes[0]))
            return Assertion(call, text, subject, "assert(instanceof)", False, (predicate,))
        if function is not None and function.type == "member_expression":
            prop = function.child_by_field_name("property")
            receiver = function.child_by_field_name("object")
            arguments = expression.child_by_field_name("arguments")
            if (
                prop is not None
                and receiver is not None
                and text_of(prop) in _CONTAINS_METHODS
                and arguments is not None
            ):
                args = tuple(normalise(text_of(a)) for a in named_children(arguments))
                subject = normalise(text_of(receiver))
                return Assertion(call, text, subject, "assert(in)", False, args)
    return None


@dataclass(frozen=True, slots=True)
class TestCall:
    key: tuple[str, ...]  # enclosing suite titles, then this call's title
    kind: TestKind
    node: Node
    modifiers: frozenset[str]
    body: Node | None  # the callback, None for `test.todo("...")`

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
    if first.type == "string":
        return text_of(first)[1:-1]
    return " ".join(text_of(first).split())


def _callback(call: Node) -> Node | None:
    arguments = call.child_by_field_name("arguments")
    args = named_children(arguments) if arguments is not None else []
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
            found[key] = TestCall(key, kind, child, modifiers, body)
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


def _assertion(call: Node) -> Assertion | None:
    function = misparsed_await(call) or call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if function is None or arguments is None:
        return None
    args = [normalise(text_of(arg)) for arg in named_children(arguments)]
    text = normalise(text_of(call))
    name = callee_name(call)
    receiver, _, method = name.rpartition(".")
    if receiver in _TEST_CONTEXTS and method in _CONTEXT_ASSERTIONS:
        # ava / tap / node:test's context assertions: `t.is(a, b)` is `assert.strictEqual`.
        name = _CONTEXT_ASSERTIONS[method]
    if name in ("assert", "assert.ok"):
        arg_nodes = named_children(arguments)
        shaped = _assert_expression(call, arg_nodes[0]) if arg_nodes else None
        if shaped is not None:
            return shaped
    if name == "assert" or name.startswith("assert."):
        subject = args[0] if args else ""
        return Assertion(call, text, subject, name, False, tuple(args[1:]))
    if name in ("expect.assertions", "expect.hasAssertions"):
        return Assertion(call, text, "", name, False, tuple(args))
    if function.type != "member_expression":
        return None
    names: list[str] = []
    node: Node | None = function
    while node is not None and node.type == "member_expression":
        prop = node.child_by_field_name("property")
        names.append(text_of(prop) if prop is not None else "")
        node = node.child_by_field_name("object")
    if node is None or node.type != "call_expression":
        return None
    if callee_name(node) not in _EXPECT_CALLEES:
        return None
    expect_args = node.child_by_field_name("arguments")
    subject_nodes = named_children(expect_args) if expect_args is not None else []
    subject = normalise(text_of(subject_nodes[0])) if subject_nodes else ""
    names.reverse()
    negated = "not" in names[:-1]
    type_arguments = call.child_by_field_name("type_arguments")
    if type_arguments is not None:
        # A type test's expectation is its type argument: `toEqualTypeOf<Array<Item>>()`.
        args.insert(0, normalise(text_of(type_arguments)))
    return Assertion(call, text, subject, names[-1], negated, tuple(args))


# `expectTypeOf(x)` (vitest, expect-type): a type test's subject, checked at compile time.
_EXPECT_CALLEES = frozenset({"expect", "expect.soft", "chai.expect", "expectTypeOf"})


def assertions(body: Node | None) -> list[Assertion]:
    """The assertions of a test body, outermost calls only, in source order."""
    if body is None:
        return []
    found: list[Assertion] = []
    for node in walk(body):
        if node.type != "call_expression":
            continue
        parent = node.parent
        if parent is not None and parent.type == "member_expression":
            continue  # `expect(x)` inside `expect(x).toBe(1)`: the chain is read from the top
        assertion = _assertion(node)
        if assertion is not None:
            found.append(assertion)
    return found


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


# --- control flow: which assertions of a test can run together ------------------------------

_BRANCHING = frozenset({"if_statement", "ternary_expression", "switch_statement"})
# Matchers that pin a value completely: any other check on the same value is implied by it
# (or contradicted by it, and then the test fails on its own).
PINNING = frozenset(
    {
        "toBe",
        "toEqual",
        "toStrictEqual",
        "toMatchSnapshot",
        "toMatchInlineSnapshot",
        "equal",
        "equals",
        "eql",
        "assert.strictEqual",
        "assert.deepStrictEqual",
        "assert.equal",
        "assert.deepEqual",
    }
)


def branches(assertion: Assertion, body: Node) -> dict[int, int]:
    """For each branching statement around the assertion (inside the test body), which of
    its branches holds it: {branching node id: child index}."""
    found: dict[int, int] = {}
    child = assertion.node
    parent = child.parent
    while parent is not None and parent.id != body.id:
        if parent.type in _BRANCHING or parent.type == "switch_body":
            index = next((i for i, item in enumerate(parent.children) if item.id == child.id), -1)
            found[parent.id] = index
        child, parent = parent, parent.parent
    return found


def exclusive(a: dict[int, int], b: dict[int, int]) -> bool:
    """Two assertions in different branches of one `if`/`else`, `?:` or `switch`."""
    return any(node in b and b[node] != index for node, index in a.items())
