"""Defect operators and real-refactor benign controls for the JS/TS synthetic corpus.

Each operator reads one real file (its text and tree-sitter tree) and returns the candidate
edits it could make: the new text, the new-side lines the edit touched, and whether it is a
pure deletion. `js_quality.py` draws one candidate per (file, operator) and scores the critics
on it. Defects are labelled with the topic a reviewer would file them under; benign controls
are refactors real commits make (renames, moves, merges, stricter or equivalent checks) that
keep every check, handler and type of the original.

Edits splice the UTF-8 bytes at tree-sitter's offsets, so line numbers come from the real text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from tree_sitter import Node

from contend.critics.static.js_assertions import assertions
from contend.critics.static.js_tests_model import TestCall, test_calls
from contend.critics.static.treesitter import (
    FUNCTION_TYPES,
    JsLanguage,
    callee_name,
    named_children,
    text_of,
    walk,
    walk_within,
)


@dataclass(frozen=True, slots=True)
class Edit:
    new_text: str
    lines: frozenset[int]  # new-side lines the edit touched (empty for a pure deletion)
    extra: tuple[tuple[str, str | None, str | None], ...] = ()  # (path, old, new) more files
    deleted: bool = False  # the source file is deleted (its code went to `extra`)


@dataclass(frozen=True, slots=True)
class Source:
    path: str
    text: str
    root: Node
    language: JsLanguage
    is_test: bool

    @property
    def data(self) -> bytes:
        return self.text.encode("utf-8")


Operator = Callable[[Source], list[Edit]]


def splice(src: Source, start: int, end: int, insert: str) -> Edit:
    """Replace bytes [start, end) with `insert`; the touched lines are those of the insert."""
    data = src.data
    before = data[:start].decode("utf-8")
    new = before + insert + data[end:].decode("utf-8")
    first = before.count("\n") + 1
    last = first + max(insert.count("\n"), 0)
    return Edit(new, frozenset(range(first, last + 1)) if insert else frozenset())


def _indent(src: Source, node: Node) -> str:
    line_start = src.data.rfind(b"\n", 0, node.start_byte) + 1
    prefix = src.data[line_start : node.start_byte].decode("utf-8", errors="replace")
    return prefix if not prefix.strip() else ""


def _statements(src: Source, kinds: tuple[str, ...]) -> Iterator[Node]:
    """Statements of these kinds inside a function body, on lines of their own."""
    for node in walk(src.root):
        if node.type not in kinds:
            continue
        parent = node.parent
        if parent is None or parent.type != "statement_block":
            continue
        if _indent(src, node) == "" or "\n" in text_of(node):
            continue
        yield node


def _function_of(node: Node) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type not in FUNCTION_TYPES:
        parent = parent.parent
    return parent


def _is_async(fn: Node | None) -> bool:
    return fn is not None and any(child.type == "async" for child in fn.children)


# --- silent-fallback -------------------------------------------------------------------------


def sf_try_return_default(src: Source) -> list[Edit]:
    """`return f(x);` -> `try { return f(x); } catch { return null; }`."""
    edits = []
    for node in _statements(src, ("return_statement",)):
        values = named_children(node)
        if not values or values[0].type not in ("call_expression", "await_expression"):
            continue
        pad = _indent(src, node)
        body = text_of(node)
        insert = f"try {{\n{pad}  {body}\n{pad}}} catch (err) {{\n{pad}  return null;\n{pad}}}"
        edits.append(splice(src, node.start_byte, node.end_byte, insert))
    return edits


def sf_empty_catch(src: Source) -> list[Edit]:
    """`await save(x);` / `f(x);` -> `try { ... } catch {}`."""
    edits = []
    for node in _statements(src, ("expression_statement",)):
        expr = named_children(node)
        if not expr or expr[0].type not in ("call_expression", "await_expression"):
            continue
        pad = _indent(src, node)
        insert = f"try {{\n{pad}  {text_of(node)}\n{pad}}} catch {{}}"
        edits.append(splice(src, node.start_byte, node.end_byte, insert))
    return edits


def sf_promise_catch_default(src: Source) -> list[Edit]:
    """`await fetchX(a)` -> `await fetchX(a).catch(() => [])`."""
    edits = []
    for node in walk(src.root):
        if node.type != "await_expression" or "\n" in text_of(node):
            continue
        inner = named_children(node)
        if not inner or inner[0].type != "call_expression":
            continue
        call = inner[0]
        edits.append(splice(src, call.end_byte, call.end_byte, ".catch(() => [])"))
    return edits


def sf_throw_to_return(src: Source) -> list[Edit]:
    """`throw new XError(...)` -> `return null` (a failure turned into a result)."""
    edits = []
    for node in _statements(src, ("throw_statement",)):
        fn = _function_of(node)
        if fn is None:
            continue
        edits.append(splice(src, node.start_byte, node.end_byte, "return null;"))
    return edits


def sf_catch_log_only(src: Source) -> list[Edit]:
    """An existing rethrowing catch stops rethrowing: `throw err` -> `console.error(err)`."""
    edits = []
    for node in walk(src.root):
        if node.type != "catch_clause":
            continue
        body = node.child_by_field_name("body")
        statements = named_children(body) if body is not None else []
        if len(statements) != 1 or statements[0].type != "throw_statement":
            continue
        throw = statements[0]
        thrown = named_children(throw)
        if not thrown or "\n" in text_of(throw):
            continue
        edits.append(
            splice(src, throw.start_byte, throw.end_byte, f"console.error({text_of(thrown[0])});")
        )
    return edits


# --- test-weakening --------------------------------------------------------------------------


def _tests(src: Source) -> list[Node]:
    return [t.body for t in test_calls(src.root).values() if t.kind == "test" and t.body]


def tw_remove_assertion(src: Source) -> list[Edit]:
    """Delete one assertion statement from a test that has two or more."""
    edits = []
    for body in _tests(src):
        found = assertions(body)
        if len(found) < 2:
            continue
        for assertion in found:
            statement = assertion.node.parent
            while statement is not None and statement.type not in ("expression_statement",):
                statement = statement.parent
            if statement is None or statement.parent is None:
                continue
            if statement.parent.type != "statement_block" or "\n" in text_of(statement):
                continue
            line_start = src.data.rfind(b"\n", 0, statement.start_byte) + 1
            line_end = src.data.find(b"\n", statement.end_byte)
            if line_end == -1 or src.data[line_start : statement.start_byte].strip():
                continue
            edit = splice(src, line_start, line_end + 1, "")
            edits.append(Edit(edit.new_text, frozenset()))
    return edits


_WEAKER = {
    "toBe": "toBeTruthy()",
    "toEqual": "toBeDefined()",
    "toStrictEqual": "toBeDefined()",
    "toHaveLength": "toBeTruthy()",
}


def tw_weaken_assertion(src: Source) -> list[Edit]:
    """`expect(x).toBe(y)` -> `expect(x).toBeTruthy()`; `assert.strictEqual(a, b)` ->
    `assert.ok(a)`."""
    edits = []
    for body in _tests(src):
        for assertion in assertions(body):
            call = assertion.node
            if assertion.negated:
                continue
            function = call.child_by_field_name("function")
            arguments = call.child_by_field_name("arguments")
            if function is None or arguments is None:
                continue
            if assertion.matcher in _WEAKER and function.type == "member_expression":
                prop = function.child_by_field_name("property")
                if prop is None:
                    continue
                edits.append(
                    splice(src, prop.start_byte, arguments.end_byte, _WEAKER[assertion.matcher])
                )
            elif assertion.matcher in (
                "assert.strictEqual",
                "assert.deepStrictEqual",
                "assert.equal",
            ):
                args = named_children(arguments)
                if len(args) >= 2:
                    edits.append(
                        splice(
                            src, call.start_byte, call.end_byte, f"assert.ok({text_of(args[0])})"
                        )
                    )
    return edits


def tw_delete_test(src: Source) -> list[Edit]:
    """Delete one whole test (`it(...)` / `test(...)` statement)."""
    edits = []
    for test in test_calls(src.root).values():
        if test.kind != "test" or not assertions(test.body):
            continue
        statement = test.node.parent
        if statement is None or statement.type != "expression_statement":
            continue
        line_start = src.data.rfind(b"\n", 0, statement.start_byte) + 1
        line_end = src.data.find(b"\n", statement.end_byte)
        if line_end == -1:
            continue
        edit = splice(src, line_start, line_end + 1, "")
        edits.append(Edit(edit.new_text, frozenset()))
    return edits


def tw_only(src: Source) -> list[Edit]:
    """`it(` -> `it.only(`: every other test of the file stops running."""
    edits = []
    for test in test_calls(src.root).values():
        function = test.node.child_by_field_name("function")
        if test.kind != "test" or function is None or function.type != "identifier":
            continue
        edits.append(splice(src, function.end_byte, function.end_byte, ".only"))
    return edits


def tw_widen_throw(src: Source) -> list[Edit]:
    """`toThrow(SomeError)` -> `toThrow()`."""
    edits = []
    for body in _tests(src):
        for assertion in assertions(body):
            if assertion.matcher not in ("toThrow", "toThrowError") or not assertion.args:
                continue
            arguments = assertion.node.child_by_field_name("arguments")
            if arguments is not None:
                edits.append(splice(src, arguments.start_byte, arguments.end_byte, "()"))
    return edits


# --- boundary-typing -------------------------------------------------------------------------


def bt_as_any(src: Source) -> list[Edit]:
    """An argument `x` of a call -> `(x as any)`."""
    if src.language == "javascript":
        return []
    edits = []
    for node in walk(src.root):
        if node.type != "arguments" or "\n" in text_of(node):
            continue
        args = named_children(node)
        if args and args[0].type in ("identifier", "member_expression"):
            first = args[0]
            edits.append(
                splice(src, first.start_byte, first.end_byte, f"({text_of(first)} as any)")
            )
    return edits


def bt_ts_ignore(src: Source) -> list[Edit]:
    """`// @ts-ignore` inserted above a statement."""
    edits = []
    for node in _statements(src, ("expression_statement", "return_statement")):
        pad = _indent(src, node)
        edit = splice(src, node.start_byte, node.start_byte, f"// @ts-ignore\n{pad}")
        edits.append(Edit(edit.new_text, frozenset({min(edit.lines)})))
    return edits


def bt_param_any(src: Source) -> list[Edit]:
    """A typed parameter `x: Foo` -> `x: any`."""
    if src.language == "javascript":
        return []
    edits = []
    for node in walk(src.root):
        if node.type != "required_parameter":
            continue
        annotation = node.child_by_field_name("type")
        if annotation is None or "any" in text_of(annotation) or "\n" in text_of(annotation):
            continue
        edits.append(splice(src, annotation.start_byte, annotation.end_byte, ": any"))
    return edits


def param_guards(src: Source) -> Iterator[tuple[Node, Node, Node, Node]]:
    """(guard, its function, the function's parameters, the guard's condition) of every
    `if (...) { throw ... }` without an `else` inside a function."""
    for node in walk(src.root):
        if node.type != "if_statement" or node.child_by_field_name("alternative") is not None:
            continue
        consequence = node.child_by_field_name("consequence")
        if consequence is None or not any(
            item.type == "throw_statement" for item in [consequence, *walk_within(consequence)]
        ):
            continue
        fn = _function_of(node)
        params = fn.child_by_field_name("parameters") if fn is not None else None
        condition = node.child_by_field_name("condition")
        if fn is None or params is None or condition is None:
            continue
        yield node, fn, params, condition


def bt_remove_guard(src: Source) -> list[Edit]:
    """An `if (...) { throw ... }` guard on a parameter deleted."""
    edits = []
    for node, _fn, params, condition in param_guards(src):
        names = {text_of(n) for n in walk(params) if n.type == "identifier"}
        if not names & {text_of(n) for n in walk(condition) if n.type == "identifier"}:
            continue
        line_start = src.data.rfind(b"\n", 0, node.start_byte) + 1
        line_end = src.data.find(b"\n", node.end_byte)
        if line_end == -1 or src.data[line_start : node.start_byte].strip():
            continue
        edit = splice(src, line_start, line_end + 1, "")
        edits.append(Edit(edit.new_text, frozenset()))
    return edits


# --- concurrency -----------------------------------------------------------------------------


def cc_drop_await(src: Source) -> list[Edit]:
    """`await f(x);` as a statement -> `f(x);`."""
    edits = []
    for node in _statements(src, ("expression_statement",)):
        expr = named_children(node)
        if not expr or expr[0].type != "await_expression":
            continue
        inner = named_children(expr[0])
        if inner and inner[0].type == "call_expression":
            edits.append(splice(src, expr[0].start_byte, inner[0].start_byte, ""))
    return edits


def cc_read_await_write(src: Source) -> list[Edit]:
    """Into an async method: read `this.x`, await, write `this.x` from what was read."""
    edits = []
    for node in walk(src.root):
        if node.type != "method_definition" or not _is_async(node):
            continue
        body = node.child_by_field_name("body")
        statements = named_children(body) if body is not None else []
        if not statements:
            continue
        first = statements[0]
        pad = _indent(src, first)
        if not pad:
            continue
        insert = (
            f"const pending = this.pendingCount;\n{pad}await Promise.resolve();\n"
            f"{pad}this.pendingCount = pending + 1;\n{pad}"
        )
        edits.append(splice(src, first.start_byte, first.start_byte, insert))
    return edits


# --- benign controls -------------------------------------------------------------------------


def bn_rename_local(src: Source) -> list[Edit]:
    """Rename a `const` local (every use within its function) to a new name."""
    edits = []
    for node in walk(src.root):
        if node.type != "variable_declarator":
            continue
        name = node.child_by_field_name("name")
        fn = _function_of(node)
        if name is None or name.type != "identifier" or fn is None:
            continue
        old = text_of(name)
        if len(old) < 3:
            continue
        fn_text = text_of(fn)
        if not re.search(rf"\b{re.escape(old)}Renamed\b", fn_text):
            renamed = re.sub(rf"(?<![\w$.]){re.escape(old)}\b(?!\s*:)", f"{old}Renamed", fn_text)
            if renamed != fn_text:
                edits.append(splice(src, fn.start_byte, fn.end_byte, renamed))
    return edits


def bn_swap_functions(src: Source) -> list[Edit]:
    """Two adjacent top-level declarations swapped (code moved, nothing changed)."""
    edits = []
    top = [n for n in named_children(src.root) if n.type != "comment"]
    for first, second in itertools.pairwise(top):
        kinds = {"function_declaration", "export_statement", "class_declaration"}
        if first.type not in kinds or second.type not in kinds:
            continue
        between = src.data[first.end_byte : second.start_byte].decode("utf-8")
        swapped = text_of(second) + between + text_of(first)
        edits.append(splice(src, first.start_byte, second.end_byte, swapped))
    return edits


def bn_rename_test(src: Source) -> list[Edit]:
    """A test's title reworded."""
    edits = []
    for test in test_calls(src.root).values():
        arguments = test.node.child_by_field_name("arguments")
        args = named_children(arguments) if arguments is not None else []
        if test.kind != "test" or not args or args[0].type != "string":
            continue
        title = args[0]
        quote = text_of(title)[0]
        new_title = f"{quote}{text_of(title)[1:-1]} (reworded){quote}"
        edits.append(splice(src, title.start_byte, title.end_byte, new_title))
    return edits


def bn_move_test_to_new_file(src: Source) -> list[Edit]:
    """One test moved verbatim into a new test file of the same change."""
    edits = []
    for test in test_calls(src.root).values():
        statement = test.node.parent
        if test.kind != "test" or statement is None or statement.type != "expression_statement":
            continue
        if statement.parent is None or statement.parent.type != "program":
            continue
        line_start = src.data.rfind(b"\n", 0, statement.start_byte) + 1
        line_end = src.data.find(b"\n", statement.end_byte)
        if line_end == -1:
            continue
        removed = splice(src, line_start, line_end + 1, "")
        moved = src.data[line_start : line_end + 1].decode("utf-8")
        imports = "".join(
            text_of(n) + "\n" for n in named_children(src.root) if n.type == "import_statement"
        )
        base, dot, ext = src.path.rpartition(".")
        new_path = f"{base}.moved.{ext}" if dot else f"{src.path}.moved"
        edits.append(Edit(removed.new_text, frozenset(), ((new_path, None, imports + moved),)))
    return edits


def _rename_locals(node: Node) -> str:
    """The text of `node` with every local it declares renamed (`result` -> `resultMoved`),
    identifiers only (titles and other strings keep their words); a name also used as a
    shorthand property (`{ result }`) keeps its name."""
    declared = {
        text_of(name)
        for item in walk(node)
        if item.type == "variable_declarator"
        and (name := item.child_by_field_name("name")) is not None
        and name.type == "identifier"
        and len(text_of(name)) >= 3
    }
    shorthand = {text_of(item) for item in walk(node) if item.type.startswith("shorthand_property")}
    spans = sorted(
        (item.start_byte, item.end_byte)
        for item in walk(node)
        if item.type == "identifier" and text_of(item) in declared - shorthand
    )
    data = text_of(node).encode("utf-8")
    out = bytearray()
    position = node.start_byte
    for start, end in spans:
        out += data[position - node.start_byte : start - node.start_byte]
        out += data[start - node.start_byte : end - node.start_byte] + b"Moved"
        position = end
    out += data[position - node.start_byte :]
    return out.decode("utf-8")


def _test_statements(src: Source) -> Iterator[tuple[TestCall, Node, int, int]]:
    """(test, its statement, first byte of its line, last byte of its line) for tests with
    assertions standing as statements of their own lines."""
    for test in test_calls(src.root).values():
        statement = test.node.parent
        if test.kind != "test" or statement is None or statement.type != "expression_statement":
            continue
        if not assertions(test.body):
            continue
        line_start = src.data.rfind(b"\n", 0, statement.start_byte) + 1
        line_end = src.data.find(b"\n", statement.end_byte)
        if line_end == -1 or src.data[line_start : statement.start_byte].strip():
            continue
        yield test, statement, line_start, line_end


def bn_move_test_to_type_file(src: Source) -> list[Edit]:
    """One test moved into a new type-test file (`x.test-d.ts`) of the same change, out of
    its `describe`, with its locals renamed (tanstack-query's move of type tests)."""
    edits = []
    imports = "".join(
        text_of(n) + "\n" for n in named_children(src.root) if n.type == "import_statement"
    )
    stem = re.sub(r"(\.(test|spec))?\.[cm]?[jt]sx?$", "", src.path)
    ext = "tsx" if src.path.endswith("x") else "ts"
    for _test, statement, line_start, line_end in _test_statements(src):
        removed = splice(src, line_start, line_end + 1, "")
        moved = _rename_locals(statement)
        extra = ((f"{stem}.test-d.{ext}", None, imports + moved + "\n"),)
        edits.append(Edit(removed.new_text, frozenset(), extra))
    return edits


def bn_rename_in_place(src: Source) -> list[Edit]:
    """A test renamed in place (its title extended) and rewritten: locals renamed, `toEqual`
    made `toStrictEqual` — the same checks, in the same place (fastify's renamed tests)."""
    edits = []
    for test, statement, _start, _end in _test_statements(src):
        arguments = test.node.child_by_field_name("arguments")
        args = named_children(arguments) if arguments is not None else []
        if not args or args[0].type != "string":
            continue
        title = text_of(args[0])
        text = _rename_locals(statement).replace(".toEqual(", ".toStrictEqual(")
        renamed_title = f"{title[0]}{title[1:-1]} when configured explicitly{title[0]}"
        if text.count(title) != 1:
            continue
        edits.append(
            splice(
                src, statement.start_byte, statement.end_byte, text.replace(title, renamed_title)
            )
        )
    return edits


_MESSAGE_CHECK = re.compile(
    r"^(?:expect\((?P<a>[\w$.]+)\.message\)\.(?:toBe|toEqual|toStrictEqual)\(.*\)"
    r"|assert\.(?:strictEqual|equal|deepStrictEqual)\((?P<b>[\w$.]+)\.message,.*\))$",
    re.DOTALL,
)


def bn_message_to_code(src: Source) -> list[Edit]:
    """An exact check of an error's message replaced by one of its code (fastify's Node 19
    port test): `expect(err.message).toBe("...")` -> `expect(err.code).toBe("ERR_X")`."""
    edits = []
    for body in _tests(src):
        for assertion in assertions(body):
            match = _MESSAGE_CHECK.match(text_of(assertion.node))
            if match is None:
                continue
            error = match.group("a") or match.group("b")
            if match.group("a"):
                insert = f'expect({error}.code).toBe("ERR_INVALID_ARG")'
            else:
                insert = f'assert.strictEqual({error}.code, "ERR_INVALID_ARG")'
            edits.append(splice(src, assertion.node.start_byte, assertion.node.end_byte, insert))
    return edits


def bn_stricter_matcher(src: Source) -> list[Edit]:
    """`toEqual(x)` -> `toStrictEqual(x)` (stricter, same rank)."""
    edits = []
    for body in _tests(src):
        for assertion in assertions(body):
            function = assertion.node.child_by_field_name("function")
            prop = function.child_by_field_name("property") if function is not None else None
            if assertion.matcher == "toEqual" and prop is not None:
                edits.append(splice(src, prop.start_byte, prop.end_byte, "toStrictEqual"))
    return edits


def bn_add_assertion(src: Source) -> list[Edit]:
    """An assertion duplicated as an extra check (tests only gain)."""
    edits = []
    for body in _tests(src):
        for assertion in assertions(body):
            statement = assertion.node.parent
            if statement is None or statement.type != "expression_statement":
                continue
            if "\n" in text_of(statement):
                continue
            pad = _indent(src, statement)
            if not pad:
                continue
            insert = f"\n{pad}{text_of(statement)}"
            edits.append(splice(src, statement.end_byte, statement.end_byte, insert))
            break
    return edits


def bn_run_if(src: Source) -> list[Edit]:
    """`test(` -> `test.runIf(process.platform !== "win32")(`: put behind a condition."""
    edits = []
    for test in test_calls(src.root).values():
        function = test.node.child_by_field_name("function")
        if test.kind != "test" or function is None or function.type != "identifier":
            continue
        insert = '.runIf(process.platform !== "win32")'
        edits.append(splice(src, function.end_byte, function.end_byte, insert))
    return edits


def bn_rethrow_with_context(src: Source) -> list[Edit]:
    """`return f(x);` -> a try whose catch logs and rethrows with context."""
    edits = []
    for node in _statements(src, ("return_statement",)):
        values = named_children(node)
        if not values or values[0].type not in ("call_expression", "await_expression"):
            continue
        pad = _indent(src, node)
        insert = (
            f"try {{\n{pad}  {text_of(node)}\n{pad}}} catch (err) {{\n"
            f'{pad}  console.error("call failed", err);\n{pad}  throw err;\n{pad}}}'
        )
        edits.append(splice(src, node.start_byte, node.end_byte, insert))
    return edits


def bn_extract_constant(src: Source) -> list[Edit]:
    """`return f(x);` -> `const result = f(x);\\n return result;`."""
    edits = []
    for node in _statements(src, ("return_statement",)):
        values = named_children(node)
        if not values or values[0].type != "call_expression":
            continue
        pad = _indent(src, node)
        insert = f"const extracted = {text_of(values[0])};\n{pad}return extracted;"
        edits.append(splice(src, node.start_byte, node.end_byte, insert))
    return edits


def bn_narrow_error(src: Source) -> list[Edit]:
    """`throw new Error(` -> `throw new TypeError(` (narrower, still a throw)."""
    edits = []
    for node in walk(src.root):
        if node.type != "new_expression":
            continue
        ctor = node.child_by_field_name("constructor")
        parent = node.parent
        thrown = parent is not None and parent.type == "throw_statement"
        if ctor is not None and text_of(ctor) == "Error" and thrown:
            edits.append(splice(src, ctor.start_byte, ctor.end_byte, "TypeError"))
    return edits


def bn_guard_to_helper(src: Source) -> list[Edit]:
    """An `if (...) throw` guard on a parameter moved into an `assert...` helper call."""
    edits = []
    for base in bt_remove_guard(src):
        # Keep the removal, but call a validating helper where the guard was.
        old_lines = src.text.split("\n")
        new_lines = base.new_text.split("\n")
        index = next(
            (i for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=False)) if a != b),
            None,
        )
        if index is None:
            continue
        pad = re.match(r"\s*", old_lines[index]).group(0)  # type: ignore[union-attr]
        new_lines.insert(index, f"{pad}assertValidInput(arguments);")
        edits.append(Edit("\n".join(new_lines), frozenset({index + 1})))
    return edits


def bn_void_call(src: Source) -> list[Edit]:
    """`await f(x);` -> `void f(x);`? No: a deliberate marker on a call already not awaited:
    `f(x);` -> `void f(x);` (the call's value was already discarded)."""
    edits = []
    for node in _statements(src, ("expression_statement",)):
        expr = named_children(node)
        if not expr or expr[0].type != "call_expression":
            continue
        if callee_name(expr[0]).split(".")[0] in ("expect", "assert", "console"):
            continue
        edits.append(splice(src, expr[0].start_byte, expr[0].start_byte, "void "))
    return edits


DEFECTS: dict[str, tuple[str, Operator, bool]] = {
    # name: (topic, operator, needs a test file)
    "try_return_default": ("silent-fallback", sf_try_return_default, False),
    "empty_catch": ("silent-fallback", sf_empty_catch, False),
    "promise_catch_default": ("silent-fallback", sf_promise_catch_default, False),
    "throw_to_return": ("silent-fallback", sf_throw_to_return, False),
    "catch_log_only": ("silent-fallback", sf_catch_log_only, False),
    "remove_assertion": ("test-weakening", tw_remove_assertion, True),
    "weaken_assertion": ("test-weakening", tw_weaken_assertion, True),
    "delete_test": ("test-weakening", tw_delete_test, True),
    "focus_only": ("test-weakening", tw_only, True),
    "widen_throw": ("test-weakening", tw_widen_throw, True),
    "as_any": ("boundary-typing", bt_as_any, False),
    "ts_ignore": ("boundary-typing", bt_ts_ignore, False),
    "param_any": ("boundary-typing", bt_param_any, False),
    "remove_guard": ("boundary-typing", bt_remove_guard, False),
    "drop_await": ("concurrency", cc_drop_await, False),
    "read_await_write": ("concurrency", cc_read_await_write, False),
}

BENIGN: dict[str, tuple[Operator, bool | None]] = {
    # name: (operator, test files only (True), source only (False), either (None))
    "rename_local": (bn_rename_local, None),
    "swap_functions": (bn_swap_functions, False),
    "rename_test": (bn_rename_test, True),
    "move_test_to_new_file": (bn_move_test_to_new_file, True),
    "move_test_to_type_file": (bn_move_test_to_type_file, True),
    "rename_in_place": (bn_rename_in_place, True),
    "message_to_code": (bn_message_to_code, True),
    "stricter_matcher": (bn_stricter_matcher, True),
    "add_assertion": (bn_add_assertion, True),
    "run_if": (bn_run_if, True),
    "rethrow_with_context": (bn_rethrow_with_context, False),
    "extract_constant": (bn_extract_constant, False),
    "narrow_error": (bn_narrow_error, False),
    "guard_to_helper": (bn_guard_to_helper, False),
    "void_call": (bn_void_call, False),
}
