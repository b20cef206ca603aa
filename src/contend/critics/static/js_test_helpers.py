"""The functions of a test file a test runs its checks in: shared specs and spec factories.

Suites share checks between cases: `it("compiles", spec(new Ajv()))` takes its callback from a
factory `function spec(ajv) { return () => { ...asserts... } }`, `it("adds", checksAddition)`
names a function, and `it("compiles", () => { setUp(); spec(ajv) })` hands its checks to a
helper of the file. The checks such a test makes are those of the functions it runs. A name
is resolved the way JavaScript resolves it: in the scopes around the call, innermost first, so
two `describe` blocks may each define their own `spec`.

`moved_into_helper`: a test restructured into a describe whose cases run one spec factory
(per instance, per option) keeps its checks when every statement of its old body now stands
in the helper, but for the declarations of what the helper now receives as an argument
(`const ajv = new Ajv()` became the factory's `ajv` parameter, passed by each case).
Pure functions over tree-sitter nodes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from tree_sitter import Node

from contend.critics.static.js_assertions import normalise
from contend.critics.static.treesitter import FUNCTION_TYPES, named_children, text_of, walk

_SCOPES = frozenset({"statement_block", "program", "class_body"})
_DECLARATIONS = frozenset({"lexical_declaration", "variable_declaration"})


def _declared(statement: Node, name: str) -> Node | None:
    """The function `statement` declares under `name`: `function name() {}` or `const name =
    () => {}` (through an `export`)."""
    if statement.type == "export_statement":
        inner = statement.child_by_field_name("declaration")
        return _declared(inner, name) if inner is not None else None
    if statement.type == "function_declaration":
        declared = statement.child_by_field_name("name")
        return statement if declared is not None and text_of(declared) == name else None
    if statement.type in _DECLARATIONS:
        for declarator in named_children(statement):
            declared = declarator.child_by_field_name("name")
            value = declarator.child_by_field_name("value")
            if (
                declared is not None
                and value is not None
                and text_of(declared) == name
                and value.type in FUNCTION_TYPES
            ):
                return value
    return None


# A function declaration's name: `function spec(`, `const spec = (`, `let spec = async x =>`,
# `const spec: Spec = <T>(`. Only a prefilter: the tree decides what a name refers to.
_DECLARED_NAME = re.compile(
    r"\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)\s*\("
    r"|\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=;]{1,80})?=\s*(?:async\b\s*)?"
    r"(?:function\b|\(|<|[\w$]+\s*=>)"
)


class FileFunctions:
    """The functions a test file declares, for resolving the names its tests call: each
    block's declarations are read once, and a body whose text calls none of the file's
    declared names is not walked at all (most test bodies call none)."""

    def __init__(self, root: Node) -> None:
        self._scopes: dict[int, dict[str, Node]] = {}
        names = sorted({a or b for a, b in _DECLARED_NAME.findall(text_of(root))})
        self._calls = (
            re.compile(r"(?<![\w$.])(?:" + "|".join(map(re.escape, names)) + r")\s*\(")
            if names
            else None
        )

    def may_call_local(self, body: Node) -> bool:
        return self._calls is not None and bool(self._calls.search(text_of(body)))

    def local_function(self, name: str, at: Node) -> Node | None:
        """The function of the file that `name` refers to where `at` stands: declared in a
        block around it, innermost first; None when the file defines none (an import, a
        global)."""
        scope = at.parent
        while scope is not None:
            if scope.type in _SCOPES:
                found = self._declarations_of(scope).get(name)
                if found is not None:
                    return found
            scope = scope.parent
        return None

    def _declarations_of(self, scope: Node) -> dict[str, Node]:
        known = self._scopes.get(scope.id)
        if known is None:
            known = {}
            for statement in named_children(scope):
                for name in _names(statement):
                    found = _declared(statement, name)
                    if found is not None and name not in known:
                        known[name] = found
            self._scopes[scope.id] = known
        return known


def _names(statement: Node) -> list[str]:
    """The names a statement may declare a function under."""
    if statement.type == "export_statement":
        inner = statement.child_by_field_name("declaration")
        return _names(inner) if inner is not None else []
    if statement.type == "function_declaration":
        name = statement.child_by_field_name("name")
        return [text_of(name)] if name is not None else []
    if statement.type in _DECLARATIONS:
        return [
            text_of(name)
            for declarator in named_children(statement)
            if (name := declarator.child_by_field_name("name")) is not None
        ]
    return []


def _within(node: Node, outer: Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def _callee_identifier(call: Node) -> str | None:
    callee = call.child_by_field_name("function")
    return text_of(callee) if callee is not None and callee.type == "identifier" else None


def helpers_of(
    call: Node, arguments: Sequence[Node], body: Node | None, index: FileFunctions
) -> tuple[Node, ...]:
    """The functions of the file a test call runs its checks in: the factory that made its
    callback (`spec(new Ajv())`) or the function it names (`checksAddition`), and the
    functions its callback calls by name (`spec(ajv)`), other than those it defines itself."""
    found: list[Node] = []
    if body is None:
        for argument in arguments[1:]:
            if argument.type == "identifier":
                target = index.local_function(text_of(argument), call)
            elif argument.type == "call_expression" and (factory := _callee_identifier(argument)):
                target = index.local_function(factory, call)
            else:
                target = None
            if target is not None:
                found.append(target)
                break
    elif index.may_call_local(body):
        for node in walk(body):
            name = _callee_identifier(node) if node.type == "call_expression" else None
            if name is None:
                continue
            target = index.local_function(name, node)
            if target is not None and not _within(target, body) and not _within(call, target):
                found.append(target)
    unique = {node.id: node for node in found}
    return tuple(unique.values())


_STATEMENTS = _DECLARATIONS | {"function_declaration", "class_declaration"}


def _statements(node: Node) -> Iterator[Node]:
    for item in walk(node):
        if item.type.endswith("_statement") or item.type in _STATEMENTS:
            yield item


def _parameter_names(fn: Node) -> set[str]:
    parameters = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
    if parameters is None:
        return set()
    return {
        text_of(node)
        for node in walk(parameters)
        if node.type in ("identifier", "shorthand_property_identifier_pattern")
    }


def _declares_only(statement: Node, names: set[str]) -> bool:
    if statement.type not in _DECLARATIONS:
        return False
    declared = {
        text_of(target)
        for declarator in named_children(statement)
        if (target := declarator.child_by_field_name("name")) is not None
    }
    return bool(declared) and declared <= names


def moved_into_helper(old_body: Node | None, helpers: Sequence[Node]) -> bool:
    """Whether every statement of a deleted test's body stands in one of `helpers` (modulo
    formatting), but for declarations of the values that helper now takes as parameters."""
    block = old_body.child_by_field_name("body") if old_body is not None else None
    if block is None or block.type != "statement_block":
        return False
    old = named_children(block)
    for helper in helpers:
        received = _parameter_names(helper)
        wanted = [s for s in old if s.type != "comment" and not _declares_only(s, received)]
        if not wanted:
            continue
        standing = {normalise(text_of(statement)) for statement in _statements(helper)}
        if all(normalise(text_of(statement)) in standing for statement in wanted):
            return True
    return False
