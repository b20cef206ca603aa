"""A JS/TS handler whose "no value" is checked for right after, on a path of its own.

Two shapes leave a falsy value where the result would be, and test for it at once:

- `const x = await p.catch(() => null); if (!x) { throw ... }` — the made-up `null` never
  passes for data: the check sends it down a path that throws or reports;
- `let storage; try { storage = getStorage() } catch { /* not defined during SSR */ } if
  (!storage) return config(set, get, api)` — the handler leaves the variable unset (the try
  did nothing else), and its absence takes a path of its own: the failure is an outcome the
  code handles, not a value that carries on as if the work had succeeded.

`if (x) { use(x) }` is the success path, not such a check; a try that does more than the one
assignment could fail after it, unseen by the check. Asked by `js_silent_fallback`.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from contend.critics.static.js_fallback_context import (
    climb,
    following_siblings,
    is_logging_call,
    preceding_siblings,
)
from contend.critics.static.treesitter import (
    is_default_value,
    named_children,
    text_of,
    unwrap,
    walk,
    walk_within,
)

_DECLARATIONS = frozenset({"lexical_declaration", "variable_declaration"})


def null_checked_after(call: Node, made_up: Node | None) -> bool:
    """`const x = await p.catch(() => null); if (!x) { throw ... }`: the made-up (falsy)
    value is tested for right away, on a path that throws or reports, so it never passes
    for data."""
    if made_up is None or (
        unwrap(made_up).type not in ("null", "undefined", "false")
        and not (unwrap(made_up).type == "identifier" and text_of(made_up) == "undefined")
    ):
        return False
    node = climb(call)
    if node.parent is not None and node.parent.type == "await_expression":
        node = climb(node.parent)
    declarator = node.parent
    if declarator is None or declarator.type != "variable_declarator":
        return False
    name_node = declarator.child_by_field_name("name")
    statement = declarator.parent
    if name_node is None or statement is None or name_node.type != "identifier":
        return False
    return _absence_handled_after(statement, text_of(name_node))


def unset_checked_after(catch_clause: Node) -> bool:
    """`let x; try { x = get() } catch { ... } if (!x) return other()`: the try only assigns a
    variable declared just before without a value, the handler leaves it unset, and the
    code right after tests for its absence on a path that throws or does real work."""
    try_statement = catch_clause.parent
    block = try_statement.child_by_field_name("body") if try_statement is not None else None
    statements = named_children(block) if block is not None else []
    code = [statement for statement in statements if statement.type != "comment"]
    if try_statement is None or len(code) != 1 or code[0].type != "expression_statement":
        return False
    exprs = named_children(code[0])
    assignment = unwrap(exprs[0]) if exprs else None
    left = assignment.child_by_field_name("left") if assignment is not None else None
    if assignment is None or assignment.type != "assignment_expression" or left is None:
        return False
    if left.type != "identifier":
        return False
    name = text_of(left)
    handler = catch_clause.child_by_field_name("body")
    if handler is None or any(
        node.type == "identifier" and text_of(node) == name for node in walk(handler)
    ):
        return False  # the handler gives it a value of its own: a substitute, not absence
    if not any(_declared_unset(sibling, name) for sibling in preceding_siblings(try_statement)):
        return False
    return _absence_handled_after(try_statement, name)


def _declared_unset(statement: Node, name: str) -> bool:
    """`let x` / `let x = null` / `var x = undefined`: declared with no value yet."""
    if statement.type not in _DECLARATIONS:
        return False
    for declarator in named_children(statement):
        declared = declarator.child_by_field_name("name")
        if declared is None or text_of(declared) != name:
            continue
        value = declarator.child_by_field_name("value")
        return (
            value is None
            or unwrap(value).type in ("null", "undefined")
            or (text_of(value) == "undefined")
        )
    return False


def _absence_handled_after(statement: Node, name: str) -> bool:
    """Whether one of the statements right after `statement` is an `if` testing `name` for
    absence (`!x`, `!x.y`, `x == null`, `x === undefined`, one alternative of an `||`) whose
    branch throws or does real work."""
    tests_for_it = re.compile(
        rf"^!{re.escape(name)}(?:\??\.|$)|^{re.escape(name)}[=!]==?(?:null|undefined|false)$"
    )
    for sibling in following_siblings(statement):
        if sibling.type != "if_statement":
            continue
        condition = sibling.child_by_field_name("condition")
        if condition is None:
            continue
        text = "".join(text_of(unwrap(condition)).split())
        parts = re.split(r"\|\|", text)
        if not any(tests_for_it.search(part.strip("()")) for part in parts):
            continue
        consequence = sibling.child_by_field_name("consequence")
        if consequence is not None and _reports(consequence):
            return True
    return False


def _reports(branch: Node) -> bool:
    """A branch that throws, or does real work beyond logging (calls something, or returns a
    value that is not made up)."""
    nodes = [branch, *walk_within(branch)]
    for node in nodes:
        if node.type == "throw_statement":
            return True
        if node.type == "call_expression" and not is_logging_call(node):
            return True
        if node.type == "return_statement":
            values = named_children(node)
            if values and not is_default_value(values[0]):
                return True
    return False
