"""Where an `any` sits inside a TypeScript type declaration, and what the old declaration of
that type said there.

`ts-any-annotation-added` compares an `any` with the old type of the same name. Inside a
function, the function is the scope; a `type` alias or an `interface` is a scope of its own:
its members are found by their path in it (`DevtoolsType` > `init` > `state`), not by a name
anywhere in the module — a parameter `state` of a new type's method has nothing to do with a
`state: S` parameter of some function beside it. A declaration that did not exist before is
new code, and a member it did not have is a new member: neither widened anything.
Pure functions over tree-sitter nodes.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from contend.critics.static.treesitter import squash, text_of, walk

TYPE_DECLARATIONS = frozenset({"type_alias_declaration", "interface_declaration"})
_MEMBERS = frozenset({"property_signature", "method_signature", "public_field_definition"})
_PARAMETERS = frozenset({"required_parameter", "optional_parameter"})

# (declaration name, member path) -> the old type texts written there.
MemberTypes = dict[tuple[str, tuple[str, ...]], list[str]]


def type_declaration(node: Node) -> Node | None:
    """The `type` alias or `interface` that holds `node`, if any."""
    parent = node.parent
    while parent is not None and parent.type not in ("statement_block", "program"):
        if parent.type in TYPE_DECLARATIONS:
            return parent
        parent = parent.parent
    return None


def _name(declaration: Node) -> str:
    name = declaration.child_by_field_name("name")
    return text_of(name) if name is not None else ""


def member_path(node: Node, declaration: Node) -> tuple[str, ...]:
    """The members and parameters from `declaration` down to `node`: `init`, `state`."""
    path: list[str] = []
    parent = node.parent
    while parent is not None and parent.id != declaration.id:
        if parent.type in _MEMBERS:
            name = parent.child_by_field_name("name")
            path.append(text_of(name) if name is not None else "?")
        elif parent.type in _PARAMETERS:
            pattern = parent.child_by_field_name("pattern")
            path.append(squash(text_of(pattern)) if pattern is not None else "?")
        elif parent.type == "index_signature":
            path.append("[]")
        parent = parent.parent
    return tuple(reversed(path))


def member_types(root: Node) -> MemberTypes:
    """Every annotated member (and member's parameter) of every type declaration of a tree."""
    found: MemberTypes = {}
    for declaration in walk(root):
        if declaration.type not in TYPE_DECLARATIONS:
            continue
        name = _name(declaration)
        for node in walk(declaration):
            if node.type == "type_annotation":
                key = (name, member_path(node, declaration))
                found.setdefault(key, []).append(text_of(node))
    return found


def declared_names(root: Node) -> frozenset[str]:
    return frozenset(_name(node) for node in walk(root) if node.type in TYPE_DECLARATIONS)


def widens_member(
    node: Node, declaration: Node, old: MemberTypes, old_names: frozenset[str]
) -> bool:
    """Whether an `any` inside a type declaration replaced a specific type the old
    declaration of the same name gave the same member: False for a new declaration or a new
    member (new code), and where the old member was already `any` somewhere."""
    name = _name(declaration)
    if name not in old_names:
        return False
    texts = old.get((name, member_path(node, declaration)), [])
    return bool(texts) and not any(re.search(r"\bany\b", text) for text in texts)
