"""Benign controls of moved and renamed code for the Python synthetic corpus (issue 8).

What real commits do that a name- or function-bound critic reads as a removal:

- `rename_guarded_param`: a parameter that an `if …: raise` guard checks is renamed
  throughout its function (the guard is still there, under the new name);
- `raise_into_helper`: an `if …: raise` guard at the top of a module-level function moved,
  with its raise, into a new `_check_<name>(…)` helper the function calls where the guard
  stood (the `_checked_transition` shape);
- `assert_into_helper`: the body of a test method moved whole into a new asserting helper
  method that the test calls (a check moved into an asserting helper).

Each keeps every check of the original; contend must report nothing.
"""

from __future__ import annotations

import ast
import io
import random
import tokenize

from mutations import test_methods
from splice import Edit, FunctionNode, Mutation, Source, functions, within

_LABEL = "benign"


def _guard_names(func: FunctionNode) -> list[tuple[ast.If, list[str]]]:
    """Top-level `if …: raise` guards (no else) of `func` over its plain parameters."""
    args = func.args
    params = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
    out = []
    for stmt in func.body:
        if not isinstance(stmt, ast.If) or stmt.orelse:
            continue
        if not any(isinstance(s, ast.Raise) for s in stmt.body):
            continue
        used = {n.id for n in ast.walk(stmt.test) if isinstance(n, ast.Name)}
        names = [p for p in params if p in used and p not in ("self", "cls")]
        if names:
            out.append((stmt, names))
    return out


def _renamed(text: str, old: str, new: str) -> str | None:
    """`text` with every NAME token `old` renamed; None when `old` also appears in a way a
    token rename would get wrong (a keyword argument at a call, an f-string)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    lines = text.splitlines(keepends=True)
    spots = []
    for i, tok in enumerate(tokens):
        if tok.type == tokenize.NAME and tok.string == old:
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            preceding = tokens[i - 1] if i > 0 else None
            keyword = following is not None and following.string == "="
            if keyword and preceding is not None and preceding.string in ("(", ","):
                return None  # `f(old=…)` names the callee's parameter, not ours
            if preceding is not None and preceding.string == ".":
                continue  # an attribute of another object
            spots.append(tok.start)
        if (
            tok.type == tokenize.STRING
            and old in tok.string
            and tok.string[:2].lower()
            in (
                "f'",
                'f"',
            )
        ):
            return None
    for row, col in sorted(spots, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + new + line[col + len(old) :]
    return "".join(lines)


def rename_guarded_param(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        guards = _guard_names(func)
        if not guards or src.indent(func) is None or func.decorator_list:
            continue
        name = guards[0][1][0]
        new_name = f"{name}_value"
        if new_name in src.text:
            continue
        start, end = src.line_span(func.lineno, func.end_lineno or func.lineno)
        renamed = _renamed(src.text[start:end], name, new_name)
        if renamed is None or renamed == src.text[start:end]:
            continue
        out.append(Mutation("rename_guarded_param", _LABEL, (Edit(start, end, renamed),)))
    return out


def raise_into_helper(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in src.tree.body:
        if not isinstance(func, ast.FunctionDef) or src.indent(func) != "":
            continue
        for guard, names in _guard_names(func)[:1]:
            if not src.owns_lines(guard) or any(
                isinstance(n, ast.Return | ast.Yield | ast.YieldFrom | ast.Await)
                for n in ast.walk(guard)
            ):
                continue
            free = {n.id for n in ast.walk(guard) if isinstance(n, ast.Name)}
            local = {
                t.id
                for n in within(func)
                if isinstance(n, ast.Assign)
                for t in n.targets
                if isinstance(t, ast.Name)
            }
            if free & local:
                continue  # the guard reads a local the helper would not see
            helper = f"_check_{func.name}"
            if helper in src.text:
                continue
            indent = src.indent(guard) or "    "
            guard_lines = "".join(src.stmt_lines(guard))
            body = "".join(
                "    " + line[len(indent) :] if line.startswith(indent) else line
                for line in guard_lines.splitlines(keepends=True)
            )
            args = ", ".join(names)
            call = f"{indent}{helper}({args})\n"
            start, end = src.line_span(guard.lineno, guard.end_lineno or guard.lineno)
            after = src.line_offset((func.end_lineno or func.lineno) + 1)
            definition = f"\n\ndef {helper}({args}):\n{body}"
            out.append(
                Mutation(
                    "raise_into_helper",
                    _LABEL,
                    (Edit(start, end, call), Edit(after, after, definition)),
                )
            )
    return out


def assert_into_helper(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for cls, method in test_methods(src):
        del cls
        if method.decorator_list or isinstance(method, ast.AsyncFunctionDef):
            continue
        args = method.args
        if [a.arg for a in args.args] != ["self"] or args.vararg or args.kwarg:
            continue
        body = [s for s in method.body if not _is_docstring(s)]
        if len(body) < 2 or src.indent(body[0]) is None:
            continue
        if any(isinstance(n, ast.Return | ast.Yield | ast.YieldFrom) for n in within(method)):
            continue
        helper = f"_check_{method.name}"
        if helper in src.text:
            continue
        indent = src.indent(method) or ""
        first = body[0].lineno
        last = method.end_lineno or method.lineno
        moved = src.text[src.line_offset(first) : src.line_offset(last + 1)]
        call = f"{src.indent(body[0])}self.{helper}()\n"
        definition = f"\n{indent}def {helper}(self):\n{moved}"
        start, end = src.line_span(first, last)
        out.append(Mutation("assert_into_helper", _LABEL, (Edit(start, end, call + definition),)))
    return out


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


MOVES = {
    "rename_guarded_param": rename_guarded_param,
    "raise_into_helper": raise_into_helper,
    "assert_into_helper": assert_into_helper,
}
