"""Whether a JS/TS `catch` the change wrote keeps a fallback the old version already made.

`js_silent_fallback` drops a handler the old version had in the same function with the same
outcome. A restructuring changes the outcome's spelling without changing the decision: an
optional dependency's probe `try { fast = require('x'); exports = {fast} } catch { exports =
{plain} }` rewritten as "defaults first, then `try { override } catch {}`" still falls back
to the plain implementation when `x` cannot be loaded — the old handler substituted it, the
new one leaves it in place. The same work is the same calls, a method's receiver aside: a
parser swapped for a drop-in replacement (`JSON.parse(value)` -> `Bourne.parse(value)`) whose
failure the old handler already dropped is not a new fallback. Pure questions over two
tree-sitter trees.
"""

from __future__ import annotations

from collections.abc import Sequence

from tree_sitter import Node

from contend.critics.static.treesitter import (
    callee_name,
    named_children,
    qualname_of,
    squash,
    text_of,
    unwrap,
    walk,
    walk_within,
)

_LOG_RECEIVERS = frozenset({"console", "logger", "log", "logging", "Sentry"})
_DECLARATIONS = frozenset({"lexical_declaration", "variable_declaration"})


def _guarded_calls(catch_clause: Node) -> frozenset[str]:
    """The calls the `try` block of a catch clause makes itself (not in nested functions)."""
    try_statement = catch_clause.parent
    block = try_statement.child_by_field_name("body") if try_statement is not None else None
    if block is None:
        return frozenset()
    return frozenset(
        _call_form(node) for node in walk_within(block) if node.type == "call_expression"
    )


def _call_form(call: Node) -> str:
    """A call as the work it does: a method call without its receiver (`JSON.parse(value)`
    and `Bourne.parse(value)` parse the same value, a drop-in replacement of the parser), any
    other call as written."""
    callee = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if callee is None or arguments is None or callee.type != "member_expression":
        return squash(text_of(call))
    prop = callee.child_by_field_name("property")
    return f"•.{text_of(prop) if prop is not None else ''}{squash(text_of(arguments))}"


def _substitutes(catch_clause: Node) -> bool:
    """Whether a handler carries on with another value: it only assigns, declares, returns
    or logs (no throw, no exit, no other call), and never hands on the error it caught
    (`return error` reports the failure) — the fallback is its decision."""
    body = catch_clause.child_by_field_name("body")
    if body is None:
        return False
    parameter = catch_clause.child_by_field_name("parameter")
    error = text_of(parameter) if parameter is not None else None
    for node in walk(body):
        if node.type == "throw_statement":
            return False
        if error is not None and node.type == "identifier" and text_of(node) == error:
            return False
    for statement in named_children(body):
        if statement.type in _DECLARATIONS or statement.type == "return_statement":
            continue
        exprs = named_children(statement) if statement.type == "expression_statement" else []
        if not exprs:
            return False
        expr = unwrap(exprs[0])
        if expr.type == "assignment_expression":
            continue
        if expr.type == "call_expression" and callee_name(expr).split(".")[0] in _LOG_RECEIVERS:
            continue
        return False
    return True


def kept_from_old(
    new_catch: Node | None, old_catches: Sequence[Node], new_catches: Sequence[Node]
) -> bool:
    """Whether a `catch` clause replaces one the old version had in the same function, that
    caught a failure of the same work (every call the new `try` makes was made by the old
    one's `try`) and carried on with a substitute value: the new handler keeps that decision,
    whatever it now spells out. An old handler still standing in the new version was not
    replaced (a new catch beside or inside it adds a fallback). False for anything but a
    catch clause."""
    if new_catch is None or new_catch.type != "catch_clause":
        return False
    guarded = _guarded_calls(new_catch)
    if not guarded:
        return False
    scope = qualname_of(new_catch)
    standing = {squash(text_of(node)) for node in new_catches if qualname_of(node) == scope}
    return any(
        qualname_of(old) == scope
        and squash(text_of(old)) not in standing
        and guarded <= _guarded_calls(old)
        and _substitutes(old)
        for old in old_catches
    )
