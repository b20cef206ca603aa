"""Assertion helpers: a check handed to a function that makes it.

Test suites wrap a recurring check in a helper — `await untilUpdated(() =>
page.textContent(sel), expected)` polls and then asserts `expect(actual).toMatch(expected)`.
A rewrite that replaces `expect(await page.textContent(sel)).toMatch(expected)` by such a
call keeps the check: the removed assertion's subject (as a value, or as a function that
returns it) and its expected value reappear together as arguments of one new call of the
same test. When the helper is defined in the change's own files it is read: a helper that
asserts nothing, or that returns before asserting unless the caller passes an argument the
call leaves at its default (`if (isBuild && !runInBuild) return`), does not keep the check.
A helper the change does not show is taken at its call: the critic cannot read it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tree_sitter import Node

from contend.critics.static.js_assertions import Assertion, normalise
from contend.critics.static.treesitter import (
    FUNCTION_TYPES,
    callee_name,
    named_children,
    text_of,
    unwrap,
    walk,
)

# The receivers of assertion calls: `expect(…)`, `assert.equal`, ava/tap's `t.is`, chai.
_ASSERTING = frozenset({"expect", "assert", "t", "should", "chai", "expectTypeOf"})


def _value_text(node: Node) -> str:
    """A value as an argument carries it: the expression, or what a function returns."""
    node = unwrap(node)
    if node.type in FUNCTION_TYPES:
        body = node.child_by_field_name("body")
        if body is None:
            return ""
        if body.type == "statement_block":
            statements = named_children(body)
            if len(statements) != 1 or statements[0].type != "return_statement":
                return ""
            values = named_children(statements[0])
            return _value_text(values[0]) if values else ""
        return _value_text(body)
    if node.type == "await_expression":
        inner = named_children(node)
        return _value_text(inner[0]) if inner else ""
    return normalise(text_of(node))


def _unawaited(subject: str) -> str:
    return subject.removeprefix("await")


def _is_assertion_call(call: Node) -> bool:
    """`expect(x).toBe(y)`, `assert.equal(…)`, `t.is(…)`; not a helper named `expectVia`."""
    return re.split(r"[.(]", callee_name(call), maxsplit=1)[0] in _ASSERTING


def _calls(body: Node) -> list[Node]:
    return [node for node in walk(body) if node.type == "call_expression"]


def handed_to_helper(
    orphan: Assertion, old_body: Node, new_body: Node | None, helpers: Mapping[str, Node]
) -> bool:
    """Whether a new call of the test (absent from the old one) takes the removed
    assertion's subject and its expected value, and its helper (if the change shows it)
    asserts them."""
    if new_body is None or not orphan.subject or not orphan.args:
        return False
    subject, expected = _unawaited(orphan.subject), orphan.args[0]
    old_calls = {normalise(text_of(call)) for call in _calls(old_body)}
    for call in _calls(new_body):
        if _is_assertion_call(call) or normalise(text_of(call)) in old_calls:
            continue
        arguments = call.child_by_field_name("arguments")
        args = named_children(arguments) if arguments is not None else []
        values = [_value_text(arg) for arg in args]
        if subject not in {_unawaited(value) for value in values} or expected not in values:
            continue
        helper = helpers.get(callee_name(call).rsplit(".", 1)[-1])
        if helper is None or _asserts_when_called(helper, len(args)):
            return True
    return False


def _asserts_when_called(helper: Node, given: int) -> bool:
    """Whether the helper makes an assertion, and does not return before it when the caller
    leaves a defaulted parameter the early return depends on at its default."""
    body = helper.child_by_field_name("body")
    if body is None or not any(
        node.type == "call_expression" and _is_assertion_call(node) for node in walk(body)
    ):
        return False
    defaulted = _defaulted_beyond(helper, given)
    if not defaulted or body.type != "statement_block":
        return True
    for statement in named_children(body):
        if statement.type != "if_statement":
            continue
        condition = statement.child_by_field_name("condition")
        consequence = statement.child_by_field_name("consequence")
        if condition is None or consequence is None:
            continue
        names = {text_of(node) for node in walk(condition) if node.type == "identifier"}
        returns = consequence.type == "return_statement" or any(
            node.type == "return_statement" for node in walk(consequence)
        )
        if returns and names & defaulted:
            return False
    return True


def _defaulted_beyond(helper: Node, given: int) -> set[str]:
    """Names of the helper's parameters that have a default and that a call with `given`
    arguments leaves at it."""
    parameters = helper.child_by_field_name("parameters")
    if parameters is None:
        return set()
    names: set[str] = set()
    for index, parameter in enumerate(named_children(parameters)):
        if index < given:
            continue
        if parameter.type == "assignment_pattern":
            left = parameter.child_by_field_name("left")
            if left is not None:
                names.add(text_of(left))
        elif parameter.type in ("required_parameter", "optional_parameter"):
            pattern = parameter.child_by_field_name("pattern")
            if pattern is not None and parameter.child_by_field_name("value") is not None:
                names.add(text_of(pattern))
    return names
