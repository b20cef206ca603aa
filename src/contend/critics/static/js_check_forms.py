"""Forms a removed JS/TS check survives in, read from the old and the new test together.

`js_test_versions` asks these before it calls an assertion removed: the count of a
render-count harness whose states the new test now asserts one by one; an expected failure
replaced by an exact check of what the same operation now returns (the failure was the bug
the change fixes); a checked result the new test no longer holds because it now expects the
call to fail. Pure functions over tree-sitter nodes and `Assertion`s.
"""

from __future__ import annotations

import re
from collections import Counter

from tree_sitter import Node

from contend.critics.static.js_assertions import PINNING, Assertion, assertions
from contend.critics.static.js_test_pairing import aliases, split_base
from contend.critics.static.js_tests_model import TestCall
from contend.critics.static.treesitter import text_of, walk


def _flat(node: Node) -> str:
    return " ".join(text_of(node).split())


_COUNTER_STEP = re.compile(r"^(?:\+\+(?P<a>[\w$]+)|(?P<b>[\w$]+)\+\+|(?P<c>[\w$]+)\+=1)$")


def harness_count_replaced(
    orphan: Assertion,
    old_body: Node,
    new_body: Node | None,
    new_assertions: list[Assertion],
) -> bool:
    """`expect(renderCount).toBe(3)` of a render-count harness: the old test counted renders
    in a local (`renderCount += 1`) and chose which assertions ran by that count (`switch
    (renderCount)`, `if (renderCount === 1)`); the count only proved those branch
    assertions all ran. Replaced when the new test no longer has the counter and asserts
    every state itself: unconditionally, at least once per asserting branch."""
    counter = orphan.subject
    if new_body is None or not re.fullmatch(r"[\w$]+", counter):
        return False
    if any(node.type == "identifier" and text_of(node) == counter for node in walk(new_body)):
        return False
    stepped = any(
        node.type in ("update_expression", "augmented_assignment_expression")
        and (match := _COUNTER_STEP.match(_flat(node).replace(" ", "")))
        and counter in match.groupdict().values()
        for node in walk(old_body)
    )
    if not stepped:
        return False
    states = 0  # branches of the harness that assert something: the states it checked
    for node in walk(old_body):
        if node.type not in ("switch_statement", "if_statement"):
            continue
        test_part = node.child_by_field_name("value") or node.child_by_field_name("condition")
        if test_part is None or not any(
            item.type == "identifier" and text_of(item) == counter for item in walk(test_part)
        ):
            continue
        if node.type == "switch_statement":
            cases = [c for c in walk(node) if c.type == "switch_case"]
        else:
            cases = [c for c in (node.child_by_field_name("consequence"),) if c is not None]
        states += sum(1 for case in cases if assertions(case))
    unconditional = [a for a in new_assertions if not _conditional(a.node, new_body)]
    return states > 0 and len(unconditional) >= states


def _conditional(node: Node, body: Node) -> bool:
    """Whether an assertion sits in a branch or a nested callback of the test body."""
    parent = node.parent
    while parent is not None and parent != body:
        if parent.type in ("if_statement", "switch_statement", "ternary_expression"):
            return True
        if parent.type in ("arrow_function", "function_expression", "function") and (
            parent.parent is not None and parent.parent.type == "arguments"
        ):
            return True
        parent = parent.parent
    return False


def _settled(subject: str) -> str:
    """`() => f(x)`, `await f(x)` and `f(x)`: the one operation a check is about."""
    return subject.removeprefix("()=>").removeprefix("await")


def now_expects_success(
    orphan: Assertion, old_keys: Counter[str], new_assertions: list[Assertion]
) -> bool:
    """The old test expected an operation to fail (`await t.rejects(body.text(), …)`); the
    new one pins what the same operation returns (`t.strictEqual(await body.text(), 'Hello
    World')`): the contract changed on purpose (the failure was the bug the change fixes),
    and the new check is exact, so nothing about the operation is left unchecked."""
    if orphan.expected_error is None or not orphan.subject:
        return False
    operation = _settled(orphan.subject)
    return any(
        new.matcher in PINNING
        and not new.negated
        and new.expected_error is None
        and _settled(new.subject) == operation
        and old_keys[new.key] == 0
        for new in new_assertions
    )


def now_expects_failure(
    orphan: Assertion, old_body: Node, test: TestCall, new_assertions: list[Assertion]
) -> bool:
    """The old test checked a local result (`const headers = await call()`); the new one no
    longer holds that local and expects the call to fail (`await t.throwsAsync(request)`)."""
    base, _rest = split_base(orphan.subject)
    if not base or base not in aliases(old_body) or test.body is None:
        return False
    if any(
        node.type in ("identifier", "shorthand_property_identifier") and text_of(node) == base
        for node in walk(test.body)
    ):
        return False
    old_expects_error = any(a.expected_error is not None for a in assertions(old_body))
    return not old_expects_error and any(a.expected_error is not None for a in new_assertions)
