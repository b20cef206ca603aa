"""Benign controls of the real refactors behind issue 17's third pass (JS/TS synthetic corpus).

Each one keeps every check of the original, the way the labelled real commits did; contend
must report nothing:

- `guard_gains_alternative`: an `if (C) throw …` guard on a parameter now also rejects
  another case, `if ((C) || typeof p === "symbol") throw …` (ws's options check made
  mutually exclusive: the old condition kept as the first alternative);
- `to_have_property`: `expect(x.p).toBe(v)` written as `expect(x).toHaveProperty("p", v)`
  (msw's delay test);
- `await_sync_matcher`: `await expect(x).toBe(v);` -> `expect(x).toBe(v);` — the await
  waited for nothing (yup's mixed test).

And two defects written the way the DEBATABLE findings of the real commits were, with a
comment that gives a reason (zod's and pino's commented handlers, pino's commented skip). The
critics report them as `minor` (a documented decision is shown, not blocking); these measure
what not raising documented ones would cost in recall:

- `empty_catch_explained`: `f(x);` -> `try { f(x); } catch { // <a reason> }`;
- `skip_explained`: `it(...)` -> `it.skip(...)` under a comment giving a reason.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from contend.critics.static.js_assertions import assertions
from contend.critics.static.js_tests_model import test_calls
from contend.critics.static.treesitter import named_children, text_of, walk
from js_operators import Edit, Source, param_guards, splice

_SYNC_EQUALITY = frozenset({"toBe", "toEqual", "toStrictEqual"})
_PROPERTY = re.compile(r"^[A-Za-z_$][\w$]*$")


def bn_guard_gains_alternative(src: Source) -> list[Edit]:
    """`if (C) throw …` on a parameter `p` -> `if ((C) || typeof p === "symbol") throw …`."""
    edits = []
    for _guard, _fn, params, condition in param_guards(src):
        names = [n for n in walk(params) if n.type == "identifier"]
        if not names or "\n" in text_of(condition):
            continue
        inner = named_children(condition)
        if condition.type != "parenthesized_expression" or len(inner) != 1:
            continue
        stricter = f'(({text_of(inner[0])}) || typeof {text_of(names[0])} === "symbol")'
        edits.append(splice(src, condition.start_byte, condition.end_byte, stricter))
    return edits


def _test_bodies(src: Source) -> list[Node]:
    return [t.body for t in test_calls(src.root).values() if t.kind == "test" and t.body]


def bn_to_have_property(src: Source) -> list[Edit]:
    """`expect(obj.p).toBe(v)` -> `expect(obj).toHaveProperty("p", v)`."""
    edits = []
    for body in _test_bodies(src):
        for assertion in assertions(body):
            node = assertion.node
            if assertion.matcher not in _SYNC_EQUALITY or assertion.negated:
                continue
            if len(assertion.args) != 1 or "\n" in text_of(node) or ".not." in text_of(node):
                continue
            function = node.child_by_field_name("function")
            expect_call = function.child_by_field_name("object") if function else None
            arguments = expect_call.child_by_field_name("arguments") if expect_call else None
            subjects = named_children(arguments) if arguments is not None else []
            if expect_call is None or len(subjects) != 1 or subjects[0].type != "member_expression":
                continue
            obj = subjects[0].child_by_field_name("object")
            prop = subjects[0].child_by_field_name("property")
            if obj is None or prop is None or not _PROPERTY.match(text_of(prop)):
                continue
            if "?." in text_of(subjects[0]):
                continue
            given = node.child_by_field_name("arguments")
            callee_node = expect_call.child_by_field_name("function")
            if given is None or callee_node is None:
                continue
            expected = named_children(given)[0]
            callee = text_of(callee_node)
            insert = (
                f'{callee}({text_of(obj)}).toHaveProperty("{text_of(prop)}", {text_of(expected)})'
            )
            edits.append(splice(src, node.start_byte, node.end_byte, insert))
    return edits


def bn_await_sync_matcher(src: Source) -> list[Edit]:
    """`await expect(x).toBe(v);` -> `expect(x).toBe(v);` (a synchronous matcher)."""
    edits = []
    for body in _test_bodies(src):
        for node in walk(body):
            if node.type != "await_expression":
                continue
            inner = named_children(node)
            if not inner or inner[0].type != "call_expression":
                continue
            found = assertions(node)
            if len(found) != 1 or found[0].node.id != inner[0].id:
                continue
            text = text_of(inner[0])
            if not text.startswith("expect(") or found[0].matcher not in _SYNC_EQUALITY:
                continue
            if any(word in text for word in (".resolves", ".rejects", "expect.poll")):
                continue
            edits.append(splice(src, node.start_byte, inner[0].start_byte, ""))
    return edits


_REASON = "best effort: a failure here is not worth stopping for"


def sf_empty_catch_explained(src: Source) -> list[Edit]:
    """`f(x);` -> `try { f(x); } catch { // <a reason> }`."""
    edits = []
    for node in walk(src.root):
        if node.type != "expression_statement" or node.parent is None:
            continue
        if node.parent.type != "statement_block":
            continue
        expr = named_children(node)
        if not expr or expr[0].type not in ("call_expression", "await_expression"):
            continue
        line_start = src.data.rfind(b"\n", 0, node.start_byte) + 1
        pad = src.data[line_start : node.start_byte].decode("utf-8")
        if pad.strip():
            continue
        insert = f"try {{\n{pad}  {text_of(node)}\n{pad}}} catch {{\n{pad}  // {_REASON}\n{pad}}}"
        edits.append(splice(src, node.start_byte, node.end_byte, insert))
    return edits


def tw_skip_explained(src: Source) -> list[Edit]:
    """`it(` -> `it.skip(` with a comment above giving a reason (no issue reference)."""
    edits = []
    for test in test_calls(src.root).values():
        function = test.node.child_by_field_name("function")
        statement = test.node.parent
        if test.kind != "test" or function is None or function.type != "identifier":
            continue
        if statement is None or statement.type != "expression_statement":
            continue
        line_start = src.data.rfind(b"\n", 0, statement.start_byte) + 1
        pad = src.data[line_start : statement.start_byte].decode("utf-8")
        if pad.strip():
            continue
        head = f"// skipped: flaky on slow machines until the fixture server is rewritten\n{pad}"
        insert = head + text_of(function) + ".skip"
        edits.append(splice(src, statement.start_byte, function.end_byte, insert))
    return edits


# Run after every other operator and control, so the items of those are drawn as before.
DEFECTS_THIRD = {
    "empty_catch_explained": ("silent-fallback", sf_empty_catch_explained, False),
    "skip_explained": ("test-weakening", tw_skip_explained, True),
}

BENIGN_THIRD = {
    "guard_gains_alternative": (bn_guard_gains_alternative, False),
    "to_have_property": (bn_to_have_property, True),
    "await_sync_matcher": (bn_await_sync_matcher, True),
}
