"""Benign controls from real refactoring (issue 8): changes that move, reshape or restate
checks and handlers without weakening them. A critic that compares lines instead of what
is checked raises on these; contend must not.

- `loop_cases`: consecutive `self.assertEqual(f(a), b)` turned into a loop over literal
  cases with `subTest` (unittest's parametrization);
- `merge_tests`: two or more tests of one class, each asserting `f(a) == b` for the same f,
  merged into one test looping over their cases;
- `move_test`: a test moved to another class of the file and renamed;
- `split_test`: a test of several `self.assertEqual(f(a), b)` lines split in two: its last
  assertions moved to a new sibling test (the check moved to another test of the change);
- `parametrize_test`: a test method whose body is `self.assertEqual(f(a), b)` lines moved
  out of its class as a module-level `@pytest.mark.parametrize` test of the same cases;
- `pytest_raises`: `with self.assertRaises(E):` (Warns, the Regex forms) restated as
  `with pytest.raises(E):` (`pytest.warns`, `match=`);
- `inline_local`: `x = expr` followed by an assertion on `x` written as one assertion on
  `expr`;
- `raises_as_try`: `with self.assertRaises(E): stmt` restated as `try: stmt / except E: pass
  / else: self.fail(...)`;
- `extract_helper`: a function whose body holds a `try` moved whole into a new helper that
  the function calls (code moved between functions, its handler with it);
- `optional_import`: an `import x` turned into an optional-dependency probe (`try: import x
  / except ImportError: x = None`), at module level or in a function;
- `narrow_ignore`: a bare `# type: ignore` narrowed to one error code;
- `lint_ignore`: `# type: ignore[no-untyped-def]` (a lint's code, not a type error) added to
  an unannotated def.

Each returns every site in a file, as the other operators do (splice.Operator).
"""

from __future__ import annotations

import ast
import itertools
import random
import re

from mutations import test_methods
from splice import Edit, FunctionNode, Mutation, Source, functions, is_self_call, within

_LABEL = "benign"


def _mutation(operator: str, *edits: Edit) -> Mutation:
    return Mutation(operator, _LABEL, tuple(edits))


def _case(src: Source, stmt: ast.stmt) -> tuple[str, str, str] | None:
    """(callee text, argument text, expected text) of `self.assertEqual(f(a), b)` on one
    line, with a literal argument and expected value; None otherwise."""
    if not isinstance(stmt, ast.Expr) or stmt.lineno != stmt.end_lineno:
        return None
    call = stmt.value
    if not (
        is_self_call(call, frozenset({"assertEqual"}))
        and isinstance(call, ast.Call)
        and len(call.args) == 2
        and not call.keywords
        and src.owns_lines(stmt)
    ):
        return None
    inner, expected = call.args
    if not (isinstance(inner, ast.Call) and len(inner.args) == 1 and not inner.keywords):
        return None
    if not (_literal(inner.args[0]) and _literal(expected)):
        return None
    if isinstance(inner.args[0], ast.Starred):
        return None
    return src.node_text(inner.func), src.node_text(inner.args[0]), src.node_text(expected)


def _cases(src: Source, body: list[ast.stmt]) -> tuple[str, list[tuple[str, str]]] | None:
    """(callee, [(argument, expected)]) when every statement of `body` is a `_case` of one
    callee; None otherwise."""
    cases = [_case(src, s) for s in body]
    pairs = [(c[1], c[2]) for c in cases if c is not None]
    callees = {c[0] for c in cases if c is not None}
    if not body or len(pairs) != len(body) or len(callees) != 1:
        return None
    return callees.pop(), pairs


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    # contend: allow silent-fallback -- not a literal: the site is not used
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _loop(indent: str, callee: str, cases: list[tuple[str, str]]) -> str:
    listed = ", ".join(f"({arg}, {expected})" for arg, expected in cases)
    return (
        f"{indent}for case_arg, case_expected in [{listed}]:\n"
        f"{indent}    with self.subTest(case_arg=case_arg):\n"
        f"{indent}        self.assertEqual({callee}(case_arg), case_expected)\n"
    )


def loop_cases(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for _cls, func in test_methods(src):
        if "case_arg" in src.node_text(func):
            continue
        body = func.body
        index = 0
        while index < len(body):
            first = _case(src, body[index])
            run = [body[index]] if first else []
            while first and index + len(run) < len(body):
                nxt = _case(src, body[index + len(run)])
                if nxt is None or nxt[0] != first[0]:
                    break
                run.append(body[index + len(run)])
            if first and len(run) >= 2 and src.indent(run[0]) is not None:
                cases = [(c[1], c[2]) for c in (_case(src, s) for s in run) if c is not None]
                start, end = src.line_span(run[0].lineno, run[-1].lineno)
                text = _loop(src.indent(run[0]) or "", first[0], cases)
                out.append(_mutation("loop_cases", Edit(start, end, text)))
                index += len(run)
            else:
                index += 1
    return out


def merge_tests(src: Source, rng: random.Random) -> list[Mutation]:
    """Tests whose whole body is `self.assertEqual(f(a), b)` lines for one f, merged."""
    out = []
    by_class: dict[int, list[tuple[FunctionNode, str, list[tuple[str, str]]]]] = {}
    for cls, func in test_methods(src):
        if func.decorator_list or isinstance(func, ast.AsyncFunctionDef):
            continue
        body = [s for s in func.body if not _is_docstring(s)]
        found = _cases(src, body)
        if found is None:
            continue
        callee, pairs = found
        by_class.setdefault(id(cls), []).append((func, callee, pairs))
    for tests in by_class.values():
        for index, (first, callee, cases) in enumerate(tests):
            partners = [t for t in tests[index + 1 :] if t[1] == callee]
            if not partners or src.indent(first) is None:
                continue
            second, _, more = partners[0]
            indent = src.indent(first) or ""
            head_end = first.body[0].lineno - 1
            head = "".join(src.lines[first.lineno - 1 : head_end])
            body_indent = src.indent(first.body[0]) or indent + "    "
            merged = head + _loop(body_indent, callee, cases + more)
            start, end = src.line_span(_first_line(first), first.end_lineno or first.lineno)
            last = second.end_lineno or second.lineno
            if last < len(src.lines) and not src.lines[last].strip():
                last += 1  # the blank line after the removed test goes with it
            s_start, s_end = src.line_span(_first_line(second), last)
            if s_start < end:
                continue
            out.append(_mutation("merge_tests", Edit(start, end, merged), Edit(s_start, s_end, "")))
    return out


def parametrize_test(src: Source, rng: random.Random) -> list[Mutation]:
    """A test method whose whole body is `self.assertEqual(f(a), b)` lines for one f,
    moved out of its class as a module-level `@pytest.mark.parametrize` test of its cases."""
    out = []
    defined = {s.name for s in src.tree.body if isinstance(s, ast.FunctionDef | ast.ClassDef)}
    for cls, func in test_methods(src):
        if func.decorator_list or isinstance(func, ast.AsyncFunctionDef):
            continue
        if src.indent(cls) != "" or func.name in defined:
            continue
        found = _cases(src, [s for s in func.body if not _is_docstring(s)])
        if found is None or len(found[1]) < 2:
            continue
        callee, cases = found
        if re.search(r"\b(self|cls)\b", callee) or "case_arg" in src.node_text(func):
            continue
        imp = src.import_edit("import pytest")
        last = func.end_lineno or func.lineno
        if last < len(src.lines) and not src.lines[last].strip():
            last += 1
        cut_start, cut_end = src.line_span(_first_line(func), last)
        listed = ", ".join(f"({arg}, {expected})" for arg, expected in cases)
        tail = "" if src.text.endswith("\n") else "\n"
        added = (
            f'{tail}\n\n@pytest.mark.parametrize(("case_arg", "case_expected"), [{listed}])\n'
            f"def {func.name}(case_arg, case_expected):\n"
            f"    assert {callee}(case_arg) == case_expected\n"
        )
        end = len(src.text)
        edits = [Edit(cut_start, cut_end, ""), Edit(end, end, added)]
        if imp is not None:
            if imp.start >= cut_start:
                continue
            edits.insert(0, imp)
        out.append(_mutation("parametrize_test", *edits))
    return out


_PYTEST_CHECKS = {
    "assertRaises": "pytest.raises",
    "assertWarns": "pytest.warns",
    "assertRaisesRegex": "pytest.raises",
    "assertWarnsRegex": "pytest.warns",
}


def pytest_raises(src: Source, rng: random.Random) -> list[Mutation]:
    """`with self.assertRaises(E):` (or Warns, or the Regex forms) restated as
    `with pytest.raises(E):` (`pytest.raises(E, match=r)` for a Regex form)."""
    out = []
    for func in functions(src.tree):
        if not func.name.startswith("test"):
            continue
        for node in within(func):
            if not (isinstance(node, ast.With) and len(node.items) == 1):
                continue
            call = node.items[0].context_expr
            if not (
                is_self_call(call, frozenset(_PYTEST_CHECKS))
                and isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and not call.keywords
                and not any(isinstance(a, ast.Starred) for a in call.args)
            ):
                continue
            method = call.func.attr
            regex = method.endswith("Regex")
            if len(call.args) != (2 if regex else 1):
                continue
            args = src.node_text(call.args[0])
            if regex:
                args += f", match={src.node_text(call.args[1])}"
            start, end = src.node_range(call)
            edits = [Edit(start, end, f"{_PYTEST_CHECKS[method]}({args})")]
            imp = src.import_edit("import pytest")
            if imp is not None:
                if imp.start >= start:
                    continue
                edits.insert(0, imp)
            out.append(_mutation("pytest_raises", *edits))
    return out


def _first_line(func: FunctionNode) -> int:
    return min([d.lineno for d in func.decorator_list] + [func.lineno])


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def move_test(src: Source, rng: random.Random) -> list[Mutation]:
    """A test method cut from its class and appended, renamed, to another test class."""
    out = []
    methods = test_methods(src)
    classes = {id(cls): cls for cls, _ in methods}
    for cls, func in methods:
        if src.indent(func) is None or not src.owns_lines(func.body[-1]):
            continue
        targets = [c for c in classes.values() if c is not cls and src.indent(c) == ""]
        if not targets or src.indent(cls) != "":
            continue
        target = targets[rng.randrange(len(targets))]
        first, last = _first_line(func), func.end_lineno or func.lineno
        text = "".join(src.lines[first - 1 : last])
        new_name = f"{func.name}_moved"
        if new_name in src.text:
            continue
        text = text.replace(f"def {func.name}(", f"def {new_name}(", 1)
        if last < len(src.lines) and not src.lines[last].strip():
            last += 1
        cut_start, cut_end = src.line_span(first, last)
        at = src.line_offset((target.end_lineno or target.lineno) + 1)
        if cut_start <= at < cut_end:
            continue
        out.append(_mutation("move_test", Edit(cut_start, cut_end, ""), Edit(at, at, "\n" + text)))
    return out


def split_test(src: Source, rng: random.Random) -> list[Mutation]:
    """A test whose body is two or more `self.assertEqual(f(a), b)` lines split in two: the
    second half of its assertions moved to a new test right after it."""
    out = []
    for _cls, func in test_methods(src):
        if func.decorator_list or isinstance(func, ast.AsyncFunctionDef):
            continue
        body = [s for s in func.body if not _is_docstring(s)]
        if len(body) < 2 or _cases(src, body) is None or src.indent(func) is None:
            continue
        new_name = f"{func.name}_split"
        if new_name in src.text:
            continue
        keep = len(body) // 2
        moved = "".join(
            src.lines[s.lineno - 1] for s in body[keep:]
        )  # one line each (`_case` holds only one-line statements)
        indent = src.indent(func) or ""
        header = f"{indent}def {new_name}(self):\n"
        cut_start = src.line_offset(body[keep].lineno)
        cut_end = src.line_offset(body[-1].lineno + 1)
        out.append(_mutation("split_test", Edit(cut_start, cut_end, "\n" + header + moved)))
    return out


_INLINE_ASSERTS = frozenset({"assertEqual", "assertTrue", "assertFalse", "assertIsNone"})


def inline_local(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        if not func.name.startswith("test"):
            continue
        for block in _blocks(func):
            for assign, use in itertools.pairwise(block):
                site = _inline_site(src, func, assign, use)
                if site is not None:
                    out.append(_mutation("inline_local", site))
    return out


def _blocks(func: FunctionNode) -> list[list[ast.stmt]]:
    found = [func.body]
    for node in within(func):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                found.append(block)
    return found


def _inline_site(src: Source, func: FunctionNode, assign: ast.stmt, use: ast.stmt) -> Edit | None:
    if not (
        isinstance(assign, ast.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0], ast.Name)
        and assign.lineno == assign.end_lineno
        and src.owns_lines(assign)
        and isinstance(use, ast.Expr)
        and use.lineno == use.end_lineno
        and src.owns_lines(use)
        and is_self_call(use.value, _INLINE_ASSERTS)
        and isinstance(use.value, ast.Call)
        and use.value.args
    ):
        return None
    name = assign.targets[0].id
    first = use.value.args[0]
    if not (isinstance(first, ast.Name) and first.id == name):
        return None
    uses = [n for n in within(func) if isinstance(n, ast.Name) and n.id == name]
    if len(uses) != 2:  # the assignment and the one use: nothing else reads it
        return None
    start, _ = src.line_span(assign.lineno, assign.lineno)
    _, end = src.line_span(use.lineno, use.lineno)
    call_text = src.node_text(use.value)
    arg_start, arg_end = src.node_range(first)
    call_start, _ = src.node_range(use.value)
    value = src.node_text(assign.value)
    inlined = call_text[: arg_start - call_start] + value + call_text[arg_end - call_start :]
    return Edit(start, end, f"{src.indent(use) or ''}{inlined}\n")


def raises_as_try(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        if not func.name.startswith("test"):
            continue
        for node in within(func):
            if not (
                isinstance(node, ast.With)
                and len(node.items) == 1
                and node.items[0].optional_vars is None
                and is_self_call(node.items[0].context_expr, frozenset({"assertRaises"}))
                and len(node.body) == 1
                and src.owns_lines(node)
                and src.indent(node) is not None
            ):
                continue
            call = node.items[0].context_expr
            assert isinstance(call, ast.Call)
            if len(call.args) != 1 or call.keywords:
                continue
            inner = node.body[0]
            if isinstance(inner, ast.Assert) or not src.owns_lines(inner):
                continue
            indent = src.indent(node) or ""
            exc = src.node_text(call.args[0])
            body = "".join(src.stmt_lines(inner))
            text = (
                f"{indent}try:\n{body}{indent}except {exc}:\n{indent}    pass\n"
                f"{indent}else:\n{indent}    self.fail({exc!r} + ' not raised')\n"
            )
            start, end = src.line_span(node.lineno, node.end_lineno or node.lineno)
            out.append(_mutation("raises_as_try", Edit(start, end, text)))
    return out


def extract_helper(src: Source, rng: random.Random) -> list[Mutation]:
    """A module-level function whose body holds a try: its body moved whole into a new
    helper with the same parameters, which the function now returns the result of."""
    out = []
    for func in src.tree.body:
        if not isinstance(func, ast.FunctionDef) or func.decorator_list:
            continue
        if not any(isinstance(s, ast.Try) for s in func.body):
            continue
        if any(isinstance(n, ast.Yield | ast.YieldFrom) for n in within(func)):
            continue  # a generator's body cannot simply move behind a `return`
        body = [s for s in func.body if not _is_docstring(s)]
        if not body or src.indent(body[0]) is None or src.indent(func) != "":
            continue
        helper = f"_{func.name}_impl"
        if helper in src.text:
            continue
        header_end = body[0].lineno - 1
        header = "".join(src.lines[func.lineno - 1 : header_end])
        if "def " not in header or not header.lstrip().startswith("def "):
            continue
        moved_start = body[0].lineno
        last = func.end_lineno or func.lineno
        moved = "".join(src.lines[moved_start - 1 : last])
        indent = src.indent(body[0]) or "    "
        call = f"{indent}return {helper}({_arguments(func.args)})\n"
        new_header = header.replace(f"def {func.name}(", f"def {helper}(", 1)
        start, end = src.line_span(moved_start, last)
        out.append(
            _mutation("extract_helper", Edit(start, end, call + "\n\n" + new_header + moved))
        )
    return out


def _arguments(args: ast.arguments) -> str:
    parts = [a.arg for a in [*args.posonlyargs, *args.args]]
    if args.vararg is not None:
        parts.append(f"*{args.vararg.arg}")
    parts += [f"{a.arg}={a.arg}" for a in args.kwonlyargs]
    if args.kwarg is not None:
        parts.append(f"**{args.kwarg.arg}")
    return ", ".join(parts)


def optional_import(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    candidates: list[ast.stmt] = list(src.tree.body)
    for func in functions(src.tree):
        candidates.extend(func.body)
    for stmt in candidates:
        if not (
            isinstance(stmt, ast.Import)
            and len(stmt.names) == 1
            and stmt.names[0].asname is None
            and "." not in stmt.names[0].name
            and src.owns_lines(stmt)
            and stmt.lineno == stmt.end_lineno
        ):
            continue
        indent = src.indent(stmt) or ""
        name = stmt.names[0].name
        text = (
            f"{indent}try:\n{indent}    import {name}\n"
            f"{indent}except ImportError:\n{indent}    {name} = None\n"
        )
        start, end = src.line_span(stmt.lineno, stmt.lineno)
        out.append(_mutation("optional_import", Edit(start, end, text)))
    return out


_BARE_IGNORE = re.compile(r"#\s*type:\s*ignore(?!\[)")


def narrow_ignore(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for number, line in enumerate(src.lines, 1):
        match = _BARE_IGNORE.search(line)
        if match is None:
            continue
        at = src.line_offset(number) + match.end()
        out.append(_mutation("narrow_ignore", Edit(at, at, "[attr-defined]")))
    return out


def lint_ignore(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        args = func.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        if func.returns is not None or any(a.annotation is not None for a in every):
            continue
        body_line = func.body[0].lineno
        if func.lineno + 1 != body_line:
            continue  # the header spans lines: no single place for the comment
        line = src.lines[func.lineno - 1].rstrip("\n")
        if not line.rstrip().endswith(":") or "#" in line:
            continue
        at = src.line_offset(func.lineno) + len(line.rstrip())
        out.append(_mutation("lint_ignore", Edit(at, at, "  # type: ignore[no-untyped-def]")))
    return out


REFACTORS = {
    "loop_cases": loop_cases,
    "merge_tests": merge_tests,
    "move_test": move_test,
    "split_test": split_test,
    "parametrize_test": parametrize_test,
    "pytest_raises": pytest_raises,
    "inline_local": inline_local,
    "raises_as_try": raises_as_try,
    "extract_helper": extract_helper,
    "optional_import": optional_import,
    "narrow_ignore": narrow_ignore,
    "lint_ignore": lint_ignore,
}
