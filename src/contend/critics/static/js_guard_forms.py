"""What a JS/TS validation guard is, and whether a new version of a function still makes it:
`if (cond) throw ...` on the function's input, compared across the change by the
`js-validation-guard-removed` rule of `js_boundary_typing`.

A guard is kept when the new function still throws the same error on the same test, even if
the test reads its operands another way: the same property from another object
(`stdioStreams[0].direction` -> `fileDescriptor.direction`), or a renamed field or variable
(`!it.async` -> `!it.schemaEnv.$async` after `async` was folded into `schemaEnv`) — the
condition's shape (operators, literals, the functions it calls) and the thrown error are the
same, only the names of the values differ. Pure functions over tree-sitter nodes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from tree_sitter import Node

from contend.critics.static.treesitter import (
    CLASS_TYPES,
    FUNCTION_TYPES,
    callee_name,
    squash,
    text_of,
    unwrap,
    walk_within,
)

# A call that validates in a helper: the guard moved, it did not vanish.
_VALIDATING_CALL = re.compile(
    r"(?:^|\.)(?:assert|validate|ensure|check|require|invariant|parse|expect)\w*$", re.I
)


@dataclass(frozen=True, slots=True)
class Guard:
    condition: str  # squashed
    subject: str | None  # the value a nullish check is about, squashed
    node: Node
    # The alternatives `a || b || c` of the condition, each squashed without its parentheses:
    # a guard whose alternatives include all of another's rejects everything that one did.
    disjuncts: frozenset[str]

    def rejects_all_of(self, other: Guard) -> bool:
        return other.disjuncts <= self.disjuncts


_NULLISH = re.compile(
    r"^!\(?(?P<a>[\w.$]+)\)?$|^\(?(?P<b>[\w.$]+)(?:===?|!==?)(?:null|undefined)\)?$"
    r"|^typeof(?P<c>[\w.$]+)===?[\"']undefined[\"']$"
)


def _parameters(fn: Node) -> set[str]:
    names: set[str] = set()
    params = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
    if params is None:
        return names
    for node in [params, *walk_within(params)]:
        if node.type in ("identifier", "shorthand_property_identifier_pattern"):
            names.add(text_of(node))
    return names


# A `throw` under these does not reject the branch's input: a catch or finally rethrows
# what the guarded work raised (cleanup on the way out), a nested function throws later.
_NOT_THE_BRANCH_S_THROW = frozenset({"catch_clause", "finally_clause", *CLASS_TYPES})


def _throws(branch: Node) -> bool:
    """Whether the branch itself throws: a `throw` of its own statements (or of a nested
    `if` of them), not a rethrow inside a nested `catch`/`finally` or a nested function."""
    if branch.type == "throw_statement":
        return True
    stack = list(branch.children)
    while stack:
        node = stack.pop()
        if node.type == "throw_statement":
            return True
        if node.type not in _NOT_THE_BRANCH_S_THROW and node.type not in FUNCTION_TYPES:
            stack.extend(node.children)
    return False


def guards(fn: Node, *, on_parameters: bool = True) -> list[Guard]:
    """`if (cond) throw ...` statements of a function whose condition names a parameter
    (`on_parameters=False`: every one, whatever its condition reads)."""
    params = _parameters(fn)
    found: list[Guard] = []
    for node in walk_within(fn):
        if node.type != "if_statement":
            continue
        condition = node.child_by_field_name("condition")
        consequence = node.child_by_field_name("consequence")
        if condition is None or consequence is None or not _throws(consequence):
            continue
        names = {text_of(item) for item in [condition, *walk_within(condition)]}
        if on_parameters and not names & params:
            continue
        text = squash(text_of(unwrap(condition)))
        match = _NULLISH.match(text.replace("(", "", 1) if text.startswith("((") else text)
        subject = next((g for g in match.groups() if g), None) if match else None
        found.append(Guard(text, subject, node, frozenset(_disjuncts(condition))))
    return found


def _disjuncts(condition: Node) -> Iterator[str]:
    node = unwrap(condition)
    operator = node.child_by_field_name("operator") if node.type == "binary_expression" else None
    if operator is not None and operator.type == "||":
        for side in ("left", "right"):
            part = node.child_by_field_name(side)
            if part is not None:
                yield from _disjuncts(part)
        return
    yield squash(text_of(node))


# A member chain ending in a property: `stdioStreams[0].direction`, `fd.direction`.
_MEMBER_CHAIN = re.compile(r"[\w$]+(?:\[[^\[\]]*\]|\.[\w$]+|\?\.[\w$]+)*\??\.(?=[\w$]+)")


def _operand_free(condition: str) -> str:
    """A squashed condition with every member chain reduced to its last property: the same
    test of the same property, whatever object it is read from."""
    return _MEMBER_CHAIN.sub("•.", condition)


def _thrown(guard: Node) -> str:
    consequence = guard.child_by_field_name("consequence")
    if consequence is None:
        return ""
    throws = [consequence] if consequence.type == "throw_statement" else []
    throws += [node for node in walk_within(consequence) if node.type == "throw_statement"]
    return squash(text_of(throws[0])) if throws else ""


def kept_reading_elsewhere(guard: Guard, fn: Node) -> bool:
    """Whether the new function still throws the same error on the same test of the same
    property, now read from another object (`stdioStreams[0].direction` ->
    `fileDescriptor.direction`): the guard is kept, its operand found another way."""
    reduced, thrown = _operand_free(guard.condition), _thrown(guard.node)
    return bool(thrown) and any(
        _operand_free(new.condition) == reduced and _thrown(new.node) == thrown
        for new in guards(fn, on_parameters=False)
    )


def validating_calls(fn: Node) -> int:
    return sum(
        1
        for node in walk_within(fn)
        if node.type == "call_expression" and _VALIDATING_CALL.search(callee_name(node))
    )


# Values a condition reads: each is one operand, whatever it is called. `undefined`, `NaN`
# and `Infinity` parse as identifiers but are constants: a test against one is part of the
# condition's shape.
_OPERANDS = frozenset({"identifier", "member_expression", "subscript_expression", "this"})
_CONSTANT_NAMES = frozenset({"undefined", "NaN", "Infinity"})


def shape(node: Node) -> str:
    """A condition with every value it reads replaced by `•`: its operators, literals and the
    functions it calls (`isString(•)`, `•.has(•)`) stay. Two conditions of one shape make the
    same test of (possibly) renamed values."""
    if node.type in _OPERANDS and text_of(node) not in _CONSTANT_NAMES:
        return "•"
    if node.type == "call_expression":
        callee = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if callee is not None and callee.type == "member_expression":
            prop = callee.child_by_field_name("property")
            name = f"•.{text_of(prop) if prop is not None else ''}"
        else:
            name = squash(text_of(callee)) if callee is not None else ""
        return name + (shape(arguments) if arguments is not None else "()")
    if node.child_count == 0:
        return text_of(node)
    return " ".join(shape(child) for child in node.children)


def _condition(guard: Guard) -> Node | None:
    condition = guard.node.child_by_field_name("condition")
    return unwrap(condition) if condition is not None else None


def rename_candidates(old_fn: Node, fn: Node) -> list[Guard]:
    """The guards of the new function that copy no old guard's condition: the only ones an
    old guard may have become under a rename (an exact copy is another guard's heir)."""
    old_conditions = {guard.condition for guard in guards(old_fn, on_parameters=False)}
    return [
        guard for guard in guards(fn, on_parameters=False) if guard.condition not in old_conditions
    ]


def kept_under_rename(guard: Guard, candidates: list[Guard]) -> bool:
    """Whether one of `candidates` (see `rename_candidates`) is this guard with its values
    renamed: a condition of the same shape, at least one value read under a new name, and the
    same error thrown. The heir is used up, so two old guards cannot both live on in one."""
    old_condition, thrown = _condition(guard), _thrown(guard.node)
    if old_condition is None or not thrown:
        return False
    wanted = shape(old_condition)
    for heir in _same_throw(candidates, thrown):
        new_condition = _condition(heir)
        if new_condition is not None and shape(new_condition) == wanted:
            candidates.remove(heir)
            return True
    return False


def _same_throw(candidates: Sequence[Guard], thrown: str) -> list[Guard]:
    return [heir for heir in candidates if _thrown(heir.node) == thrown]
