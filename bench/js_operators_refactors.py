"""Benign controls of the real refactors behind issue 17's second pass (JS/TS synthetic corpus).

Each one keeps every check of the original, the way the labelled real commits did; contend
must report nothing:

- `assert_into_helper`: the single-line `expect(S).toBe(E)` / `toEqual(E)` assertions of a
  test handed to an asserting helper appended to the file, `expectVia(() => S, E)` (vite's
  `untilUpdated(() => page.textContent(sel), expected)`);
- `guard_operand_local`: a guard that tests a property read through a chain
  (`options.stdio.length`) now reads it from a local that holds the chain's object
  (`const resolved = options.stdio; if (resolved.length …) throw …`: execa's
  `stdioStreams[0].direction` -> `fileDescriptor.direction`).
"""

from __future__ import annotations

from tree_sitter import Node

from contend.critics.static.js_assertions import assertions
from contend.critics.static.js_tests_model import test_calls
from contend.critics.static.treesitter import text_of, walk
from js_operators import Edit, Source, param_guards, splice

_LOCAL_CHECKS = frozenset({"toBe", "toEqual", "toStrictEqual"})


def bn_assert_into_helper(src: Source) -> list[Edit]:
    """`expect(S).toBe(E);` -> `expectVia(() => S, E);` in one test, with the helper
    `function expectVia(get, expected) { expect(get()).toEqual(expected); }` appended."""
    if "expectVia" in src.text:
        return []
    for test in _test_bodies(src):
        spots = []
        for assertion in assertions(test):
            statement = assertion.node.parent
            if (
                statement is None
                or statement.type != "expression_statement"
                or "\n" in text_of(statement)
                or assertion.matcher not in _LOCAL_CHECKS
                or assertion.negated
                or len(assertion.args) != 1
                or "await" in text_of(statement)
                or not text_of(statement).startswith("expect(")
            ):
                continue
            subject, expected = _subject_and_expected(assertion.node)
            if subject is None or expected is None:
                continue
            spots.append((statement, f"expectVia(() => {subject}, {expected});"))
        if not spots:
            continue
        data = src.data
        out = bytearray()
        last = 0
        for statement, replacement in spots:
            out += data[last : statement.start_byte] + replacement.encode("utf-8")
            last = statement.end_byte
        out += data[last:]
        body = out.decode("utf-8").rstrip("\n")
        helper = "\n\nfunction expectVia(get, expected) {\n  expect(get()).toEqual(expected);\n}\n"
        new_text = body + helper
        lines = {src.text[: statement.start_byte].count("\n") + 1 for statement, _ in spots}
        total = new_text.count("\n")
        lines |= set(range(total - 3, total + 1))
        return [Edit(new_text, frozenset(lines))]
    return []


def _test_bodies(src: Source) -> list[Node]:
    return [t.body for t in test_calls(src.root).values() if t.kind == "test" and t.body]


def _subject_and_expected(node: Node) -> tuple[str | None, str | None]:
    """`expect(S).toBe(E)`: the texts of S and E."""
    call = node
    function = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if function is None or arguments is None or function.type != "member_expression":
        return None, None
    expect_call = function.child_by_field_name("object")
    if expect_call is None or expect_call.type != "call_expression":
        return None, None
    expect_args = expect_call.child_by_field_name("arguments")
    subjects = expect_args.named_children if expect_args is not None else []
    expected = arguments.named_children
    if len(subjects) != 1 or len(expected) != 1:
        return None, None
    return text_of(subjects[0]), text_of(expected[0])


def bn_guard_operand_local(src: Source) -> list[Edit]:
    """`if (opts.stdio.length > 3) throw …` -> `const resolved = opts.stdio;` before it and
    `if (resolved.length > 3) throw …`."""
    edits = []
    for guard, _fn, _params, condition in param_guards(src):
        chain = next(
            (
                node
                for node in walk(condition)
                if node.type == "member_expression"
                and (obj := node.child_by_field_name("object")) is not None
                and obj.type in ("member_expression", "subscript_expression")
                and "(" not in text_of(obj)
                and "\n" not in text_of(obj)
            ),
            None,
        )
        if chain is None or "resolved" in text_of(guard):
            continue
        obj = chain.child_by_field_name("object")
        assert obj is not None
        line_start = src.data.rfind(b"\n", 0, guard.start_byte) + 1
        pad = src.data[line_start : guard.start_byte].decode("utf-8")
        if pad.strip():
            continue
        target = text_of(obj)
        new_condition = text_of(condition).replace(target + ".", "resolved.")
        guard_text = text_of(guard)
        insert = f"const resolved = {target};\n{pad}" + guard_text.replace(
            text_of(condition), new_condition, 1
        )
        edits.append(splice(src, guard.start_byte, guard.end_byte, insert))
    return edits


BENIGN_REFACTORS = {
    "assert_into_helper": (bn_assert_into_helper, True),
    "guard_operand_local": (bn_guard_operand_local, False),
}
