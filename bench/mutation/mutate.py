"""Mutants of one Python module: what each changes, where, and the module's text with it.

Pure: source text in, mutants out; nothing here imports or runs the module. A mutant is a
single small edit spliced into the original text (everything else — comments, layout, line
numbers — stays byte-identical), so a traceback of a mutant run points at the real line.

Each mutant has a stable key: file, enclosing scope (qualified name), operator, the
original and the mutated code (as `ast.unparse` prints them), and an occurrence index
among identical edits in that scope. Line numbers are shown but are not part of the key,
so the committed list of equivalent mutants survives edits elsewhere in the file.

Operators (see OPERATORS): comparison, boolean and arithmetic swaps, `not` removal, unary
minus removal, constant flips (booleans, numbers ±1, strings), default-argument flips,
`return X` → `return None`, removal of a simple statement, negation of a condition, and
removal of an `if`/`else` branch.

Not mutated, by design: docstrings, annotations, imports, decorators (flags such as
`slots=True` configure, they do not decide), f-strings, the arguments of a `raise` (an
error message mutated is still an error), and `if TYPE_CHECKING:` blocks.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

OPERATORS = (
    "compare",  # < ↔ <=, > ↔ >=, == ↔ !=, is ↔ is not, in ↔ not in
    "boolean",  # and ↔ or
    "not",  # not x → x
    "arith",  # + ↔ -, * ↔ /, // → *, % → //, | ↔ &, augmented assignments likewise
    "unary",  # -x → x
    "constant",  # True ↔ False, n → n±1, "s" → "XXsXX"
    "default",  # a default argument value flipped like a constant
    "return",  # return X → return None
    "statement",  # a simple statement removed (replaced by pass)
    "negate",  # if/while/ternary/comprehension condition c → not c
    "branch",  # the body of an if (or its else) removed
)

_COMPARE_SWAP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
_ARITH_SWAP: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.BitOr: ast.BitAnd,
    ast.BitAnd: ast.BitOr,
    ast.BitXor: ast.BitOr,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
}


@dataclass(frozen=True, slots=True)
class Mutant:
    path: str  # as given (repo-relative in reports)
    scope: str  # qualified name of the enclosing function or class, or "<module>"
    operator: str
    original: str
    mutated: str
    occurrence: int
    line: int  # first line of the edited code
    # Lines whose coverage decides which tests can see this mutant: the enclosing simple
    # statement, or the header of the enclosing compound statement.
    select_lines: tuple[int, int]
    # Evaluated when the module is imported (module or class level, default values,
    # decorators): coverage attributes such lines to no test, so selection falls back to
    # `fallback_lines` (the function whose default it is) or to the whole file.
    import_time: bool
    fallback_lines: tuple[int, int] | None
    span: tuple[int, int]  # character offsets of the replaced text in the source
    replacement: str

    @property
    def key(self) -> str:
        tail = f" #{self.occurrence}" if self.occurrence else ""
        return (
            f"{self.path}::{self.scope}::{self.operator}::{self.original} => {self.mutated}{tail}"
        )

    def apply(self, source: str) -> str:
        start, end = self.span
        return source[:start] + self.replacement + source[end:]


class _Offsets:
    """Converts the AST's (line, UTF-8 byte column) positions into character offsets."""

    def __init__(self, source: str) -> None:
        self.lines = source.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def at(self, line: int, byte_col: int) -> int:
        text = self.lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8")
        return self.starts[line - 1] + len(text)

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (
            self.at(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            self.at(node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
        )


@dataclass(slots=True)
class _Context:
    scope: str
    import_time: bool
    function_lines: tuple[int, int] | None
    stmt: ast.stmt | None = None


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _flips(value: object) -> list[object]:
    """The constant values a constant is flipped to."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1] if value > 0 else [value + 1]
    if isinstance(value, float):
        return [value + 1.0]
    if isinstance(value, str):
        return [f"XX{value}XX"]
    if isinstance(value, bytes):
        return [b"XX" + value + b"XX"]
    return []


def _select_lines(stmt: ast.stmt) -> tuple[int, int]:
    """The header lines of a compound statement, or all lines of a simple one."""
    header_end: int | None = None
    if isinstance(stmt, ast.If | ast.While):
        header_end = stmt.test.end_lineno
    elif isinstance(stmt, ast.For | ast.AsyncFor):
        header_end = stmt.iter.end_lineno
    elif isinstance(stmt, ast.With | ast.AsyncWith):
        header_end = stmt.items[-1].context_expr.end_lineno
    elif isinstance(stmt, ast.Try | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        header_end = stmt.lineno
    end = header_end if header_end is not None else stmt.end_lineno
    return (stmt.lineno, end if end is not None else stmt.lineno)


class _Generator:
    def __init__(self, path: str, source: str) -> None:
        self.path = path
        self.source = source
        self.offsets = _Offsets(source)
        self.tree = ast.parse(source)
        self.found: list[Mutant] = []
        self.seen: dict[tuple[str, str, str, str], int] = {}

    # -- emitting -------------------------------------------------------------------------

    def emit(
        self,
        ctx: _Context,
        node: ast.AST,
        operator: str,
        original: str,
        mutated: str,
        replacement: str,
        span: tuple[int, int] | None = None,
    ) -> None:
        span = span if span is not None else self.offsets.span(node)
        # Not parsed here: re-parsing and dumping the whole module per mutant was 95% of
        # the time of making them. bytecode.py compiles every mutant (a SyntaxError there is
        # a bug of this module) and sets apart those that change nothing the interpreter
        # sees — the same bytecode as the unmutated module — as equivalent, counted.
        ident = (ctx.scope, operator, _one_line(original), _one_line(mutated))
        occurrence = self.seen.get(ident, 0)
        self.seen[ident] = occurrence + 1
        stmt = ctx.stmt
        line = getattr(node, "lineno", stmt.lineno if stmt is not None else 1)
        self.found.append(
            Mutant(
                path=self.path,
                scope=ctx.scope,
                operator=operator,
                original=ident[2],
                mutated=ident[3],
                occurrence=occurrence,
                line=line,
                select_lines=_select_lines(stmt) if stmt is not None else (line, line),
                import_time=ctx.import_time,
                fallback_lines=ctx.function_lines,
                span=span,
                replacement=replacement,
            )
        )

    def replace_expr(
        self, ctx: _Context, node: ast.expr, new: ast.expr, operator: str, display: str = ""
    ) -> None:
        text = ast.unparse(new)
        self.emit(ctx, node, operator, ast.unparse(node), display or text, f"({text})")

    # -- walking --------------------------------------------------------------------------

    def run(self) -> list[Mutant]:
        ctx = _Context(scope="<module>", import_time=True, function_lines=None)
        self.body(self.tree.body, ctx, allow_docstring=True)
        return self.found

    def body(self, stmts: list[ast.stmt], ctx: _Context, *, allow_docstring: bool) -> None:
        for i, stmt in enumerate(stmts):
            if i == 0 and allow_docstring and _is_docstring(stmt):
                continue
            self.stmt(stmt, ctx)

    def stmt(self, stmt: ast.stmt, outer: _Context) -> None:
        ctx = _Context(outer.scope, outer.import_time, outer.function_lines, stmt)
        if isinstance(stmt, ast.Import | ast.ImportFrom | ast.Global | ast.Nonlocal | ast.Pass):
            return
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            self.function(stmt, ctx)
            return
        if isinstance(stmt, ast.ClassDef):
            for base in stmt.bases:
                self.expr(base, ctx)
            scope = stmt.name if outer.scope == "<module>" else f"{outer.scope}.{stmt.name}"
            inner = _Context(scope, outer.import_time, outer.function_lines)
            self.body(stmt.body, inner, allow_docstring=True)
            return
        if isinstance(stmt, ast.If):
            if _is_type_checking(stmt.test):
                return
            self.condition(stmt.test, ctx)
            self.drop_block(stmt, stmt.body, ctx, "if " + ast.unparse(stmt.test))
            if stmt.orelse and not (len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], ast.If)):
                self.drop_block(stmt, stmt.orelse, ctx, "else of if " + ast.unparse(stmt.test))
            self.body(stmt.body, outer, allow_docstring=False)
            self.body(stmt.orelse, outer, allow_docstring=False)
            return
        if isinstance(stmt, ast.While):
            self.condition(stmt.test, ctx)
            self.body(stmt.body, outer, allow_docstring=False)
            self.body(stmt.orelse, outer, allow_docstring=False)
            return
        if isinstance(stmt, ast.For | ast.AsyncFor):
            self.expr(stmt.iter, ctx)
            self.body(stmt.body, outer, allow_docstring=False)
            self.body(stmt.orelse, outer, allow_docstring=False)
            return
        if isinstance(stmt, ast.With | ast.AsyncWith):
            for item in stmt.items:
                self.expr(item.context_expr, ctx)
            self.body(stmt.body, outer, allow_docstring=False)
            return
        if isinstance(stmt, ast.Try):
            self.body(stmt.body, outer, allow_docstring=False)
            for handler in stmt.handlers:
                self.body(handler.body, outer, allow_docstring=False)
            self.body(stmt.orelse, outer, allow_docstring=False)
            self.body(stmt.finalbody, outer, allow_docstring=False)
            return
        if isinstance(stmt, ast.Return):
            self.return_(stmt, ctx)
            return
        if isinstance(stmt, ast.Raise):
            self.remove(stmt, ctx)  # its message is not mutated: an error stays an error
            return
        if isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign):
            self.assignment(stmt, ctx)
            return
        if isinstance(stmt, ast.Expr):
            if not (isinstance(stmt.value, ast.Constant) and stmt.value.value is Ellipsis):
                self.remove(stmt, ctx)
                self.expr(stmt.value, ctx)
            return
        if isinstance(stmt, ast.Delete | ast.Break | ast.Continue):
            self.remove(stmt, ctx)
            return
        if isinstance(stmt, ast.Assert):
            return  # an assertion in library code is a type-narrowing aid, not behaviour
        raise AssertionError(
            f"{self.path}:{stmt.lineno}: statement {type(stmt).__name__} unhandled"
        )

    def function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, ctx: _Context) -> None:
        scope = fn.name if ctx.scope == "<module>" else f"{ctx.scope}.{fn.name}"
        body_lines = (fn.body[0].lineno, fn.body[-1].end_lineno or fn.body[-1].lineno)
        # Defaults are evaluated at definition time, in the enclosing scope; the tests that
        # can tell a flipped default are those that call the function.
        defaults_ctx = _Context(scope, ctx.import_time, body_lines, ctx.stmt)
        args = fn.args
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self.constant_flips(default, defaults_ctx, "default")
        inner = _Context(scope, False, body_lines)
        self.body(fn.body, inner, allow_docstring=True)

    def assignment(self, stmt: ast.Assign | ast.AugAssign | ast.AnnAssign, ctx: _Context) -> None:
        if isinstance(stmt, ast.Assign):
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets):
                return
            # Removing `name = …` mostly turns into a NameError; removing a write to an
            # attribute or an item is the interesting edit (state not updated).
            if not all(isinstance(t, ast.Name) for t in stmt.targets):
                self.remove(stmt, ctx)
            for target in stmt.targets:
                self.store_target(target, ctx)
            self.expr(stmt.value, ctx)
        elif isinstance(stmt, ast.AugAssign):
            self.remove(stmt, ctx)
            swap = _ARITH_SWAP.get(type(stmt.op))
            if swap is not None:
                new = copy.copy(stmt)
                new.op = swap()
                text = ast.unparse(new)
                self.emit(ctx, stmt, "arith", ast.unparse(stmt), text, text)
            self.store_target(stmt.target, ctx)
            self.expr(stmt.value, ctx)
        else:
            if stmt.value is None:
                return
            if not isinstance(stmt.target, ast.Name):
                self.remove(stmt, ctx)
            self.expr(stmt.value, ctx)

    def store_target(self, target: ast.expr, ctx: _Context) -> None:
        """Indices in a store target (`d[k] = …`) are expressions worth mutating."""
        if isinstance(target, ast.Subscript):
            self.expr(target.slice, ctx)
            self.expr(target.value, ctx)
        elif isinstance(target, ast.Attribute):
            self.expr(target.value, ctx)
        elif isinstance(target, ast.Tuple | ast.List):
            for elt in target.elts:
                self.store_target(elt, ctx)

    def return_(self, stmt: ast.Return, ctx: _Context) -> None:
        value = stmt.value
        if value is None:
            return
        trivial = isinstance(value, ast.Constant) and (
            value.value is None or isinstance(value.value, bool)
        )
        if not trivial:
            self.emit(ctx, stmt, "return", ast.unparse(stmt), "return None", "return None")
        self.expr(value, ctx)

    def remove(self, stmt: ast.stmt, ctx: _Context) -> None:
        self.emit(ctx, stmt, "statement", ast.unparse(stmt), "pass", "pass")

    def drop_block(self, owner: ast.stmt, block: list[ast.stmt], ctx: _Context, what: str) -> None:
        if all(isinstance(s, ast.Pass) for s in block):
            return
        start = self.offsets.span(block[0])[0]
        end = self.offsets.span(block[-1])[1]
        self.emit(ctx, owner, "branch", what, "pass", "pass", span=(start, end))

    def condition(self, test: ast.expr, ctx: _Context) -> None:
        start, end = self.offsets.span(test)
        original = self.source[start:end]
        self.emit(
            ctx,
            test,
            "negate",
            ast.unparse(test),
            f"not ({ast.unparse(test)})",
            f"(not ({original}))",
        )
        self.expr(test, ctx)

    def constant_flips(self, node: ast.expr, ctx: _Context, operator: str) -> None:
        if isinstance(node, ast.Constant):
            for value in _flips(node.value):
                self.replace_expr(ctx, node, ast.Constant(value), operator)
        elif (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant)
        ):
            for value in _flips(node.operand.value):
                new = ast.UnaryOp(ast.USub(), ast.Constant(value))
                self.replace_expr(ctx, node, new, operator)

    def expr(self, node: ast.expr, ctx: _Context) -> None:
        if isinstance(node, ast.JoinedStr):
            return
        if isinstance(node, ast.Constant):
            self.constant_flips(node, ctx, "constant")
            return
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                swap = _COMPARE_SWAP.get(type(op))
                if swap is not None:
                    new = copy.copy(node)
                    new.ops = [*node.ops[:i], swap(), *node.ops[i + 1 :]]
                    self.replace_expr(ctx, node, new, "compare")
        elif isinstance(node, ast.BoolOp):
            flipped = ast.Or() if isinstance(node.op, ast.And) else ast.And()
            self.replace_expr(ctx, node, ast.BoolOp(flipped, node.values), "boolean")
        elif isinstance(node, ast.BinOp):
            swap_op = _ARITH_SWAP.get(type(node.op))
            if swap_op is not None:
                self.replace_expr(ctx, node, ast.BinOp(node.left, swap_op(), node.right), "arith")
        elif isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                self.replace_expr(ctx, node, node.operand, "not")
            elif isinstance(node.op, ast.USub):
                if isinstance(node.operand, ast.Constant):
                    self.constant_flips(node, ctx, "constant")
                    return
                self.replace_expr(ctx, node, node.operand, "unary")
        elif isinstance(node, ast.IfExp):
            self.condition(node.test, ctx)
            self.expr(node.body, ctx)
            self.expr(node.orelse, ctx)
            return
        elif isinstance(node, ast.Lambda):
            inner = _Context(ctx.scope, False, ctx.function_lines, ctx.stmt)
            self.expr(node.body, inner)
            return
        elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            for gen in node.generators:
                self.expr(gen.iter, ctx)
                for cond in gen.ifs:
                    self.condition(cond, ctx)
            if isinstance(node, ast.DictComp):
                self.expr(node.key, ctx)
                self.expr(node.value, ctx)
            else:
                self.expr(node.elt, ctx)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child, ctx)
            elif isinstance(child, ast.keyword):
                self.expr(child.value, ctx)


def mutants_of(path: str, source: str) -> list[Mutant]:
    """Every mutant of `source`, in source order; `path` is carried into keys."""
    return _Generator(path, source).run()
