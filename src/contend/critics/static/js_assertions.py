"""The assertions of a JavaScript / TypeScript test: what each checks, how strictly, and
which of them can run together.

Assertions are `expect(...)` chains (Jest, Vitest, chai's call forms, `expectTypeOf` type
tests) and `assert` calls (node:assert, chai's assert, and the test-context assertions of ava,
tap and node:test: `t.is`, `t.assert.equal`), each with a strength rank: 3 exact, 2 partial
(contains, ordering, a type), 1 existence only, and a framework-independent key
(`expect(a).toBe(b)`, `assert.strictEqual(a, b)` and `assert(a === b)` are one check). Pure
functions over a tree-sitter tree; `js_tests_model` finds the tests that hold them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Node

from contend.critics.static.treesitter import (
    callee_name,
    lines_of,
    misparsed_await,
    named_children,
    text_of,
    walk,
)

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
    def check(self) -> tuple[str, str, tuple[str, ...]]:
        """(kind, subject, expected): what is checked, whatever the framework writes it as."""
        canon = _CANONICAL.get(self.matcher, self.matcher)
        kept = self.args[:1] if canon in _ONE_ARGUMENT else self.args
        prefix = "not." if self.negated else ""
        member = _PROPERTY_PATH.fullmatch(self.args[0]) if len(self.args) == 2 else None
        if self.matcher == "toHaveProperty" and member is not None:
            # `expect(x).toHaveProperty('a.b', v)` is `expect(x.a.b).toEqual(v)`.
            return f"{prefix}eq", f"{self.subject}.{member.group(1)}", (self.args[1],)
        return f"{prefix}{canon}", self.subject, kept

    @property
    def key(self) -> str:
        """What is checked, whatever the framework writes it as: `expect(a).toBe(b)`,
        `assert.strictEqual(a, b)` and `assert(a === b)` are one check."""
        kind, subject, expected = self.check
        return f"{kind}({subject};{','.join(expected)})"

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
# A property path written as a literal (normalised quotes): `"delay"`, `"a.b"`.
_PROPERTY_PATH = re.compile(r'"([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)"')
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
# Chain words of a promise assertion (Jest/Vitest `.resolves`/`.rejects`, chai-as-promised).
_PROMISED = re.compile(r"resolves|rejects|eventually|rejected|fulfilled|become|notify", re.I)


def synchronous(call: Node) -> bool:
    """Whether a call is an assertion known to run and finish where it stands: a Jest /
    Vitest / chai matcher of this module's vocabulary on `expect(x)` (not `.resolves`,
    `.rejects`, chai-as-promised, or a matcher it does not know — Playwright's
    `toBeVisible()` waits), or a node:assert call that is not `assert.rejects`. Awaiting
    it waits for nothing."""
    found = _assertion(call)
    if found is None or found.matcher == "expectTypeOf" or _PROMISED.search(found.matcher):
        return False
    name = callee_name(call)
    if name == "assert" or name.startswith("assert."):
        return True
    return (
        found.rank is not None
        and found.matcher not in ("expect.assertions", "expect.hasAssertions")
        and not any(_PROMISED.fullmatch(word) for word in _chain_words(call))
    )


def _chain_words(call: Node) -> list[str]:
    words: list[str] = []
    node: Node | None = call.child_by_field_name("function")
    while node is not None and node.type == "member_expression":
        prop = node.child_by_field_name("property")
        words.append(text_of(prop) if prop is not None else "")
        node = node.child_by_field_name("object")
    return words


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
