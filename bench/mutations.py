"""Defect-injecting operators that rewrite existing code: silent fallbacks, weakened tests,
eroded boundary typing, concurrency hazards.

Each operator takes a parsed `Source` and returns every place in it where it can inject its
defect, as a `Mutation` (a few format-preserving `Edit`s). The corpus builder picks one of
them with a seeded random generator, applies it and checks the result still parses. The
operators that insert new code (security slips, secrets) are in `inject.py`; the registry of
all of them is `operators.py`; the benign controls are in `benign.py`.
"""

from __future__ import annotations

import ast
import random

from splice import (
    Edit,
    FunctionNode,
    Mutation,
    Source,
    dedent,
    functions,
    is_self_call,
    make,
    reindent,
    statements,
    within,
)

NARROW_OK = frozenset({"Exception", "BaseException"})
GUARD_ERRORS = frozenset({"TypeError", "ValueError"})
MUTATING_METHODS = frozenset(
    {"append", "appendleft", "pop", "popleft", "add", "remove", "discard", "clear", "update"}
    | {"extend", "insert", "setdefault", "put", "put_nowait", "notify", "notify_all"}
)
STRONG_ASSERTS = frozenset({"assertEqual"})
ALL_ASSERTS = frozenset(
    {"assertEqual", "assertNotEqual", "assertTrue", "assertFalse", "assertIs", "assertIsNot"}
    | {"assertIsNone", "assertIsNotNone", "assertIn", "assertNotIn", "assertIsInstance"}
    | {"assertAlmostEqual", "assertRegex", "assertCountEqual", "assertGreater", "assertLess"}
    | {"assertSequenceEqual", "assertListEqual", "assertDictEqual", "assertMultiLineEqual"}
)


def wrap(src: Source, stmt: ast.stmt, head: str, handler: list[str] | None) -> Edit:
    """Nest a whole-line statement under `head` (e.g. "try:"), optionally followed by
    handler lines at the statement's own indentation (each relative, indented by four)."""
    indent = src.indent(stmt) or ""
    start, end = src.line_span(stmt.lineno, stmt.end_lineno or stmt.lineno)
    body = reindent(src.stmt_lines(stmt), "    ")
    text = f"{indent}{head}\n{body}"
    for line in handler or []:
        text += f"{indent}{line}\n"
    return Edit(start, end, text)


def work_statements(src: Source, *, in_tests: bool) -> list[ast.stmt]:
    """Single-line statements that do real work (a call, an assignment from a call) and own
    their line, inside functions, outside any existing try."""
    found: list[ast.stmt] = []
    for func in functions(src.tree):
        if func.name.startswith("test") != in_tests:
            continue
        for _block, stmt in statements(func):
            if stmt.lineno != stmt.end_lineno or not src.owns_lines(stmt):
                continue
            value = stmt.value if isinstance(stmt, ast.Expr | ast.Assign) else None
            if isinstance(value, ast.Call) and not _is_assert_call(value):
                found.append(stmt)
    return found


def _is_assert_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and is_self_call(node, ALL_ASSERTS)


# -- silent-fallback ---------------------------------------------------------------------------


def _raises(src: Source) -> list[ast.Raise]:
    return [
        stmt
        for func in functions(src.tree)
        for _block, stmt in statements(func)
        if isinstance(stmt, ast.Raise) and stmt.exc is not None and src.owns_lines(stmt)
    ]


def raise_to_return_none(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for stmt in _raises(src):
        start, end = src.node_range(stmt)
        out.append(make("raise_to_return_none", "silent-fallback", Edit(start, end, "return None")))
    return out


def raise_to_return_default(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for stmt in _raises(src):
        start, end = src.node_range(stmt)
        default = rng.choice(["[]", "{}", '""', "False", "0", "-1"])
        edit = Edit(start, end, f"return {default}")
        out.append(make("raise_to_return_default", "silent-fallback", edit))
    return out


def try_except_return_none(src: Source, rng: random.Random) -> list[Mutation]:
    return [
        make(
            "try_except_return_none",
            "silent-fallback",
            wrap(src, stmt, "try:", ["except Exception:", "    return None"]),
        )
        for stmt in work_statements(src, in_tests=False)
    ]


def try_except_pass(src: Source, rng: random.Random) -> list[Mutation]:
    return [
        make(
            "try_except_pass",
            "silent-fallback",
            wrap(src, stmt, "try:", ["except Exception:", "    pass"]),
        )
        for stmt in work_statements(src, in_tests=False)
    ]


def _narrow_handlers(src: Source) -> list[ast.ExceptHandler]:
    found = []
    for func in functions(src.tree):
        for node in within(func):
            if not isinstance(node, ast.Try):
                continue
            for handler in node.handlers:
                named = isinstance(handler.type, ast.Name | ast.Attribute | ast.Tuple)
                if (
                    named
                    and not (isinstance(handler.type, ast.Name) and handler.type.id in NARROW_OK)
                    and src.indent(handler) is not None
                    and src.owns_lines(handler.body[-1])
                ):
                    found.append(handler)
    return found


def widen_except_pass(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for handler in _narrow_handlers(src):
        indent = src.indent(handler) or ""
        start = src.offset(handler.lineno, handler.col_offset)
        end = src.line_span(handler.lineno, handler.end_lineno or handler.lineno)[1]
        text = f"except Exception:\n{indent}    pass\n"
        out.append(make("widen_except_pass", "silent-fallback", Edit(start, end, text)))
    return out


def widen_bare_except_return(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for handler in _narrow_handlers(src):
        indent = src.indent(handler) or ""
        start = src.offset(handler.lineno, handler.col_offset)
        end = src.line_span(handler.lineno, handler.end_lineno or handler.lineno)[1]
        text = f"except:\n{indent}    return None\n"
        out.append(make("widen_bare_except_return", "silent-fallback", Edit(start, end, text)))
    return out


def suppress_exception(src: Source, rng: random.Random) -> list[Mutation]:
    imp = src.import_edit("import contextlib")
    return [
        make(
            "suppress_exception",
            "silent-fallback",
            imp,
            wrap(src, stmt, "with contextlib.suppress(Exception):", None),
        )
        for stmt in work_statements(src, in_tests=False)
        if imp is None or src.line_offset(stmt.lineno) > imp.start
    ]


def try_except_log_return(src: Source, rng: random.Random) -> list[Mutation]:
    """The 'log and carry on' fallback: the failure is logged at debug level and a default
    returned, so the caller never learns."""
    imp = src.import_edit("import logging")
    handler = [
        "except Exception as exc:",
        '    logging.getLogger(__name__).debug("ignored: %s", exc)',
        "    return None",
    ]
    return [
        make("try_except_log_return", "silent-fallback", imp, wrap(src, stmt, "try:", handler))
        for stmt in work_statements(src, in_tests=False)
        if imp is None or src.line_offset(stmt.lineno) > imp.start
    ]


def narrow_handler_default(src: Source, rng: random.Random) -> list[Mutation]:
    """A new handler, narrow this time, that turns the failure into an empty value."""
    out = []
    for stmt in work_statements(src, in_tests=False):
        errors = rng.choice(["KeyError", "(KeyError, ValueError)", "OSError", "LookupError"])
        default = rng.choice(["{}", "[]", '""', "None"])
        handler = [f"except {errors}:", f"    return {default}"]
        out.append(
            make("narrow_handler_default", "silent-fallback", wrap(src, stmt, "try:", handler))
        )
    return out


def subscript_to_get(src: Source, rng: random.Random) -> list[Mutation]:
    """`x = mapping[key]` (raises KeyError) made `x = mapping.get(key)` (None flows on)."""
    out = []
    for func in functions(src.tree):
        for _block, stmt in statements(func):
            if not (
                isinstance(stmt, ast.Assign)
                and isinstance(stmt.value, ast.Subscript)
                and not isinstance(stmt.value.slice, ast.Slice | ast.Constant)
                and isinstance(stmt.value.value, ast.Name | ast.Attribute)
            ):
                continue
            value = stmt.value
            text = f"{src.node_text(value.value)}.get({src.node_text(value.slice)})"
            out.append(
                make("subscript_to_get", "silent-fallback", Edit(*src.node_range(value), text))
            )
    return out


# -- test-weakening ----------------------------------------------------------------------------


def _test_calls(src: Source, names: frozenset[str]) -> list[tuple[ast.stmt, ast.Call]]:
    """`self.<assert>(...)` calls that are whole statements of a test_* method."""
    found: list[tuple[ast.stmt, ast.Call]] = []
    for func in functions(src.tree):
        if not func.name.startswith("test"):
            continue
        for _block, stmt in statements(func):
            if (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Call)
                and is_self_call(stmt.value, names)
                and src.owns_lines(stmt)
            ):
                found.append((stmt, stmt.value))
    return found


def _two_args(call: ast.Call) -> tuple[ast.expr, ast.expr] | None:
    if len(call.args) != 2 or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    return call.args[0], call.args[1]


def assert_equal_to_true(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for _stmt, call in _test_calls(src, STRONG_ASSERTS):
        args = _two_args(call)
        if args:
            start, end = src.node_range(call)
            text = f"self.assertTrue({src.node_text(args[0])})"
            out.append(make("assert_equal_to_true", "test-weakening", Edit(start, end, text)))
    return out


def assert_equal_to_not_none(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for _stmt, call in _test_calls(src, STRONG_ASSERTS):
        args = _two_args(call)
        if args:
            start, end = src.node_range(call)
            text = f"self.assertIsNotNone({src.node_text(args[0])})"
            out.append(make("assert_equal_to_not_none", "test-weakening", Edit(start, end, text)))
    return out


def assert_equal_to_in(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for _stmt, call in _test_calls(src, STRONG_ASSERTS):
        args = _two_args(call)
        if args:
            start, end = src.node_range(call)
            a, b = (src.node_text(arg) for arg in args)
            text = f"self.assertIn({a}, [{b}, None])"
            out.append(make("assert_equal_to_in", "test-weakening", Edit(start, end, text)))
    return out


def _removable(block: list[ast.stmt], stmt: ast.stmt) -> bool:
    return len(block) > 1


def remove_assertion(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        if not func.name.startswith("test"):
            continue
        for block, stmt in statements(func):
            is_assert = isinstance(stmt, ast.Assert) or (
                isinstance(stmt, ast.Expr) and _is_assert_call(stmt.value)
            )
            if is_assert and _removable(block, stmt) and src.owns_lines(stmt):
                start, end = src.line_span(stmt.lineno, stmt.end_lineno or stmt.lineno)
                out.append(make("remove_assertion", "test-weakening", Edit(start, end, "")))
    return out


def widen_assert_raises(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        if not func.name.startswith("test"):
            continue
        for node in within(func):
            if not (is_self_call(node, frozenset({"assertRaises"})) and isinstance(node, ast.Call)):
                continue
            if not node.args or not isinstance(node.args[0], ast.Name | ast.Attribute):
                continue
            target = node.args[0]
            if isinstance(target, ast.Name) and target.id in NARROW_OK:
                continue
            start, end = src.node_range(target)
            out.append(make("widen_assert_raises", "test-weakening", Edit(start, end, "Exception")))
    return out


def test_methods(src: Source) -> list[tuple[ast.ClassDef, FunctionNode]]:
    found = []
    for cls in ast.walk(src.tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        for stmt in cls.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name.startswith(
                "test"
            ):
                found.append((cls, stmt))
    return found


def _def_start(func: FunctionNode) -> int:
    return min([d.lineno for d in func.decorator_list] + [func.lineno])


def add_skip(src: Source, rng: random.Random) -> list[Mutation]:
    if not src.has_import("import unittest"):
        return []
    out = []
    for _cls, func in test_methods(src):
        if func.decorator_list or src.indent(func) is None:
            continue
        at = src.line_offset(func.lineno)
        reason = rng.choice(["flaky", "fails on CI", "temporarily disabled", "broken"])
        text = f'{src.indent(func)}@unittest.skip("{reason}")\n'
        out.append(make("add_skip", "test-weakening", Edit(at, at, text)))
    return out


def mock_unit(src: Source, rng: random.Random) -> list[Mutation]:
    """The unit under test replaced by a mock: the first `module.func(...)` a test calls
    (module imported by the test file) is patched for the whole test."""
    modules = {
        alias.asname or alias.name
        for stmt in src.tree.body
        if isinstance(stmt, ast.Import)
        for alias in stmt.names
        if "." not in alias.name and alias.name not in ("unittest", "sys", "os")
    }
    imp = src.import_edit("import unittest.mock")
    out = []
    for _cls, func in test_methods(src):
        indent = src.indent(func)
        if func.decorator_list or len(func.args.args) != 1 or indent is None:
            continue
        calls = sorted(
            (
                n
                for n in within(func)
                if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and isinstance(n.func.value, ast.Name)
                and n.func.value.id in modules
            ),
            key=lambda n: (n.lineno, n.col_offset),
        )
        if not calls or not isinstance(calls[0].func, ast.Attribute):
            continue
        target = calls[0].func
        module = target.value.id if isinstance(target.value, ast.Name) else ""
        at = src.line_offset(func.lineno)
        if imp is not None and at <= imp.start:
            continue
        deco = Edit(at, at, f'{indent}@unittest.mock.patch.object({module}, "{target.attr}")\n')
        self_end = src.node_range(func.args.args[0])[1]
        param = Edit(self_end, self_end, f", mock_{target.attr.lstrip('_')}")
        out.append(make("mock_unit", "test-weakening", imp, deco, param))
    return out


def wrap_assert_in_try(src: Source, rng: random.Random) -> list[Mutation]:
    return [
        make(
            "wrap_assert_in_try",
            "test-weakening",
            wrap(src, stmt, "try:", ["except AssertionError:", "    pass"]),
        )
        for stmt, _call in _test_calls(src, ALL_ASSERTS)
    ]


def delete_test(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for cls, func in test_methods(src):
        if len(cls.body) < 2 or src.indent(func) is None or not src.owns_lines(func.body[-1]):
            continue
        first, last = _def_start(func), func.end_lineno or func.lineno
        # Take one following blank line too, so the class keeps its usual spacing.
        if last < len(src.lines) and not src.lines[last].strip():
            last += 1
        start, end = src.line_span(first, last)
        out.append(make("delete_test", "test-weakening", Edit(start, end, "")))
    return out


def _number(node: ast.expr) -> float | None:
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def lower_places(src: Source, rng: random.Random) -> list[Mutation]:
    """The tolerance of assertAlmostEqual widened: `places` lowered to 1 (the default is 7),
    or `delta` raised to 1.0. A site whose tolerance is already that loose is skipped, so
    the change is always a real loosening."""
    out = []
    for _stmt, call in _test_calls(src, frozenset({"assertAlmostEqual"})):
        keywords = {k.arg: k.value for k in call.keywords if k.arg in ("places", "delta")}
        if "delta" in keywords:
            value, loose = keywords["delta"], "1.0"
            current = _number(value)
            if current is None or current >= 1.0:
                continue
            edit = Edit(*src.node_range(value), loose)
        elif "places" in keywords or len(call.args) == 3:
            value = keywords.get("places") or call.args[2]
            current = _number(value)
            if current is None or current <= 1:
                continue
            edit = Edit(*src.node_range(value), "1")
        elif len(call.args) == 2 and not call.keywords:
            end = src.node_range(call.args[1])[1]
            edit = Edit(end, end, ", places=1")  # from the default of 7
        else:
            continue
        out.append(make("lower_places", "test-weakening", edit))
    return out


def assert_eq_to_truthy(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        if not func.name.startswith("test"):
            continue
        for _block, stmt in statements(func):
            test = stmt.test if isinstance(stmt, ast.Assert) else None
            if (
                isinstance(test, ast.Compare)
                and len(test.ops) == 1
                and isinstance(test.ops[0], ast.Eq)
            ):
                start, end = src.node_range(test)
                edit = Edit(start, end, src.node_text(test.left))
                out.append(make("assert_eq_to_truthy", "test-weakening", edit))
    return out


def unwrap_assert_raises(src: Source, rng: random.Random) -> list[Mutation]:
    """`with self.assertRaises(X): body` made plain `body`: the expected failure is no longer
    checked (and if it still happens, the test errors instead of passing for the right reason)."""
    out = []
    for func in functions(src.tree):
        if not func.name.startswith("test"):
            continue
        for _block, stmt in statements(func):
            if not (
                isinstance(stmt, ast.With)
                and len(stmt.items) == 1
                and stmt.items[0].optional_vars is None
                and is_self_call(stmt.items[0].context_expr, frozenset({"assertRaises"}))
                and stmt.body[0].lineno > stmt.lineno
            ):
                continue
            outer, inner = src.indent(stmt), src.indent(stmt.body[0])
            if outer is None or inner is None or not inner.startswith(outer):
                continue
            text = dedent(src.lines[stmt.body[0].lineno - 1 : stmt.end_lineno], inner[len(outer) :])
            if text is not None and src.owns_lines(stmt.body[-1]):
                start, end = src.line_span(stmt.lineno, stmt.end_lineno or stmt.lineno)
                out.append(make("unwrap_assert_raises", "test-weakening", Edit(start, end, text)))
    return out


def equal_to_greater_equal(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for _stmt, call in _test_calls(src, STRONG_ASSERTS):
        args = _two_args(call)
        # Against a bool or None, >= is no weaker than ==; those sites are skipped.
        if args and any(
            isinstance(a, ast.Constant) and (a.value is None or isinstance(a.value, bool))
            for a in args
        ):
            continue
        if args and isinstance(call.func, ast.Attribute):
            start = src.node_range(call.func)[1] - len("assertEqual")
            end = src.node_range(call.func)[1]
            edit = Edit(start, end, "assertGreaterEqual")
            out.append(make("equal_to_greater_equal", "test-weakening", edit))
    return out


# -- boundary-typing ---------------------------------------------------------------------------


def remove_guard(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        for block, stmt in statements(func):
            if not (isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1):
                continue
            raise_ = stmt.body[0]
            if not (isinstance(raise_, ast.Raise) and isinstance(raise_.exc, ast.Call)):
                continue
            exc = raise_.exc.func
            if not (isinstance(exc, ast.Name) and exc.id in GUARD_ERRORS):
                continue
            if _removable(block, stmt) and src.owns_lines(stmt):
                start, end = src.line_span(stmt.lineno, stmt.end_lineno or stmt.lineno)
                out.append(make("remove_guard", "boundary-typing", Edit(start, end, "")))
    return out


def isinstance_to_true(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        for node in within(func):
            if not isinstance(node, ast.If | ast.IfExp | ast.Assert):
                continue
            for sub in ast.walk(node.test):
                if (
                    isinstance(sub, ast.Call)
                    and isinstance(sub.func, ast.Name)
                    and sub.func.id == "isinstance"
                ):
                    start, end = src.node_range(sub)
                    edit = Edit(start, end, "True")
                    out.append(make("isinstance_to_true", "boundary-typing", edit))
    return out


def _plain_assignments(src: Source) -> list[ast.Assign]:
    found = []
    for func in functions(src.tree):
        for _block, stmt in statements(func):
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and stmt.lineno == stmt.end_lineno
                and src.owns_lines(stmt)
                and len(src.lines[stmt.lineno - 1]) < 80
            ):
                found.append(stmt)
    return found


def add_type_ignore(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for stmt in _plain_assignments(src):
        if isinstance(stmt.value, ast.Constant):
            continue
        end = src.node_range(stmt)[1]
        edit = Edit(end, end, "  # type: ignore")
        out.append(make("add_type_ignore", "boundary-typing", edit))
    return out


def cast_any(src: Source, rng: random.Random) -> list[Mutation]:
    imp = src.import_edit("from typing import Any, cast")
    out = []
    for stmt in _plain_assignments(src):
        if isinstance(stmt.value, ast.Constant):
            continue
        start, end = src.node_range(stmt.value)
        if imp is not None and start <= imp.start:
            continue
        edit = Edit(start, end, f"cast(Any, {src.node_text(stmt.value)})")
        out.append(make("cast_any", "boundary-typing", imp, edit))
    return out


def param_to_any(src: Source, rng: random.Random) -> list[Mutation]:
    """An annotated parameter widened to Any, the 'make the type checker quiet' move."""
    imp = src.import_edit("from typing import Any")
    out = []
    for func in functions(src.tree):
        for arg in func.args.args + func.args.kwonlyargs:
            ann = arg.annotation
            if ann is None or (isinstance(ann, ast.Name) and ann.id == "Any"):
                continue
            start, end = src.node_range(ann)
            if imp is not None and start <= imp.start:
                continue
            out.append(make("param_to_any", "boundary-typing", imp, Edit(start, end, "Any")))
    return out


# -- concurrency -------------------------------------------------------------------------------


def _lock_withs(src: Source) -> list[ast.With | ast.AsyncWith]:
    found = []
    for func in functions(src.tree):
        for _block, stmt in statements(func):
            if not isinstance(stmt, ast.With | ast.AsyncWith) or len(stmt.items) != 1:
                continue
            item = stmt.items[0]
            text = src.node_text(item.context_expr).lower()
            if item.optional_vars is not None or not ("lock" in text or "mutex" in text):
                continue
            mutates = any(
                isinstance(n, ast.Assign | ast.AugAssign | ast.Delete)
                or (
                    isinstance(n, ast.Call)
                    and isinstance(n.func, ast.Attribute)
                    and n.func.attr in MUTATING_METHODS
                )
                for s in stmt.body
                for n in ast.walk(s)
            )
            if mutates and src.indent(stmt) is not None and src.owns_lines(stmt.body[-1]):
                found.append(stmt)
    return found


def remove_lock(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for stmt in _lock_withs(src):
        outer = src.indent(stmt) or ""
        inner = src.indent(stmt.body[0])
        if inner is None or not inner.startswith(outer) or stmt.body[0].lineno == stmt.lineno:
            continue
        body_lines = src.lines[stmt.body[0].lineno - 1 : stmt.end_lineno]
        text = dedent(body_lines, inner[len(outer) :])
        if text is None:
            continue
        start, end = src.line_span(stmt.lineno, stmt.end_lineno or stmt.lineno)
        out.append(make("remove_lock", "concurrency", Edit(start, end, text)))
    return out


def drop_await(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        if not isinstance(func, ast.AsyncFunctionDef):
            continue
        for node in within(func):
            if isinstance(node, ast.Await) and isinstance(node.value, ast.Call):
                start, end = src.node_range(node)
                edit = Edit(start, end, src.node_text(node.value))
                out.append(make("drop_await", "concurrency", edit))
    return out


def _self_attrs(node: ast.AST, ctx: type[ast.expr_context]) -> set[str]:
    return {
        n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Name)
        and n.value.id == "self"
        and isinstance(n.ctx, ctx)
    }


def await_between_read_write(src: Source, rng: random.Random) -> list[Mutation]:
    """In a method, a statement writes self.x after an earlier statement of the same block
    read it; an `await asyncio.sleep(0)` goes between them (the method becomes async if it
    was not), opening a check-then-act window across a suspension point."""
    imp = src.import_edit("import asyncio")
    out = []
    for func in functions(src.tree):
        if not func.args.args or func.args.args[0].arg != "self":
            continue
        for block, stmt in statements(func):
            written = _self_attrs(stmt, ast.Store)
            if isinstance(stmt, ast.AugAssign):
                written |= _self_attrs(stmt.target, ast.Load)
            idx = block.index(stmt)
            read_before = set().union(*(_self_attrs(s, ast.Load) for s in block[:idx]))
            if not (written & read_before) or not src.owns_lines(stmt):
                continue
            at = src.line_offset(stmt.lineno)
            if imp is not None and at <= imp.start:
                continue
            sleep = Edit(at, at, f"{src.indent(stmt)}await asyncio.sleep(0)\n")
            make_async = None
            if isinstance(func, ast.FunctionDef):
                if func.decorator_list or any(
                    isinstance(n, ast.Yield | ast.YieldFrom) for n in within(func)
                ):
                    continue
                def_at = src.offset(func.lineno, func.col_offset)
                make_async = Edit(def_at, def_at, "async ")
            out.append(make("await_between_read_write", "concurrency", imp, make_async, sleep))
    return out


def await_to_task(src: Source, rng: random.Random) -> list[Mutation]:
    """`await f(x)` as a statement made `asyncio.ensure_future(f(x))`: fire and forget, the
    caller goes on before the work is done and its errors are never seen."""
    imp = src.import_edit("import asyncio")
    out = []
    for func in functions(src.tree):
        if not isinstance(func, ast.AsyncFunctionDef):
            continue
        for _block, stmt in statements(func):
            if not (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Await)
                and isinstance(stmt.value.value, ast.Call)
            ):
                continue
            start, end = src.node_range(stmt.value)
            if imp is not None and start <= imp.start:
                continue
            text = f"asyncio.ensure_future({src.node_text(stmt.value.value)})"
            out.append(make("await_to_task", "concurrency", imp, Edit(start, end, text)))
    return out


def mutable_default(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        for default in func.args.defaults + [d for d in func.args.kw_defaults if d is not None]:
            if isinstance(default, ast.Constant) and default.value is None:
                start, end = src.node_range(default)
                edit = Edit(start, end, rng.choice(["[]", "{}"]))
                out.append(make("mutable_default", "concurrency", edit))
    return out
