"""Benign controls of the real refactors behind issue 17's fourth pass (JS/TS synthetic corpus).

Each one keeps every check of the original, the way the labelled real commits of holdout6
did; contend must report nothing:

- `test_to_spec_factory`: `it("t", () => { const ajv = new Ajv(); REST })` ->
  `describe("cases: " + "t", () => { it("works", spec(new Ajv())); function spec(ajv) {
  return () => { REST } } })`
  (ajv's issue specs turned into a describe whose cases run one spec factory per instance).

The other families of the pass (a guard whose operand was renamed across files, a parser
swapped for a drop-in replacement, `any` inside a new type declaration, a value a catch leaves
unset checked right after) need several files or a shape the mirrors rarely hold; their unit
tests in `tests/test_static_js_fourth_pass.py` stand in for them.
"""

from __future__ import annotations

from tree_sitter import Node

from contend.critics.static.js_tests_model import test_calls
from contend.critics.static.treesitter import named_children, text_of, walk
from js_operators import Edit, Source


def _replace_all(src: Source, spans: list[tuple[int, int, str]]) -> Edit:
    """Several byte ranges replaced at once; the touched lines are those of the inserts."""
    data = src.data
    pieces: list[bytes] = []
    lines: set[int] = set()
    cursor = 0
    for start, end, insert in sorted(spans):
        pieces.append(data[cursor:start])
        first = b"".join(pieces).count(b"\n") + 1
        lines.update(range(first, first + insert.count("\n") + 1))
        pieces.append(insert.encode("utf-8"))
        cursor = end
    pieces.append(data[cursor:])
    return Edit(b"".join(pieces).decode("utf-8"), frozenset(lines))


def _single_const(statement: Node) -> tuple[str, str] | None:
    """`const name = value` (one declarator, a plain name): (name, value text)."""
    if statement.type != "lexical_declaration" or not text_of(statement).startswith("const "):
        return None
    declarators = named_children(statement)
    if len(declarators) != 1:
        return None
    name = declarators[0].child_by_field_name("name")
    value = declarators[0].child_by_field_name("value")
    if name is None or value is None or name.type != "identifier" or "\n" in text_of(value):
        return None
    return text_of(name), text_of(value)


def bn_test_to_spec_factory(src: Source) -> list[Edit]:
    """`it("t", () => { const ajv = new Ajv(); REST })` -> `describe("cases: " + "t", () => {
    it("works", spec(new Ajv())); function spec(ajv) { return () => { REST } } })`: the test
    became a describe whose case runs a spec factory, its first local the factory's argument."""
    edits = []
    for test in test_calls(src.root).values():
        body = test.body
        statement = test.node.parent
        function = test.node.child_by_field_name("function")
        arguments = test.node.child_by_field_name("arguments")
        if test.kind != "test" or body is None or statement is None or function is None:
            continue
        if statement.type != "expression_statement" or body.type != "arrow_function":
            continue
        if function.type != "identifier" or arguments is None:
            continue
        if any(child.type == "async" for child in body.children):
            continue  # `return async () => …` would do, but keep the control plain
        block = body.child_by_field_name("body")
        parameters = body.child_by_field_name("parameters") or body.child_by_field_name("parameter")
        if block is None or block.type != "statement_block":
            continue
        if parameters is not None and named_children(parameters):
            continue  # a `done` callback or a test context: the factory would need them
        if any(n.type == "this" for n in walk(block)):
            continue  # mocha's `this` is the test's context, not the factory's
        if "spec" in {text_of(n) for n in walk(src.root) if n.type == "identifier"}:
            continue
        statements = [s for s in named_children(block) if s.type != "comment"]
        first = _single_const(statements[0]) if len(statements) >= 2 else None
        title = named_children(arguments)[0] if named_children(arguments) else None
        if first is None or title is None:
            continue
        name, value = first
        line_start = src.data.rfind(b"\n", 0, statement.start_byte) + 1
        pad = src.data[line_start : statement.start_byte].decode("utf-8")
        if pad.strip():
            continue
        rest_start = statements[1].start_byte
        rest_pad = src.data[src.data.rfind(b"\n", 0, rest_start) + 1 : rest_start].decode()
        if rest_pad.strip():
            continue
        rest = src.data[rest_start : block.end_byte - 1].decode("utf-8").rstrip()
        insert = (
            f'describe("cases: " + {text_of(title)}, () => {{\n'
            f'{pad}  {text_of(function)}("works", spec({value}))\n\n'
            f"{pad}  function spec({name}) {{\n"
            f"{pad}    return () => {{\n{rest_pad}{rest}\n{pad}    }}\n"
            f"{pad}  }}\n"
            f"{pad}}})"
        )
        edits.append(_replace_all(src, [(test.node.start_byte, test.node.end_byte, insert)]))
    return edits


# Run after every other operator, control and defect, so the items of those are drawn as
# before.
BENIGN_FOURTH = {
    "test_to_spec_factory": (bn_test_to_spec_factory, True),
}
