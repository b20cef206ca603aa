"""Format-preserving source edits for the benchmark corpus, and the `Mutation` they form.

A mutation is a few `Edit`s on character offsets of the original text. `ast` locates the
node; only that node's span (or the whole lines a statement occupies) is replaced, so the
rest of the file keeps its exact formatting. `Source` converts ast positions (UTF-8 byte
columns) to character offsets and answers the questions the operators share: does this
statement own its lines, what is its indentation, where can an import go.
"""

from __future__ import annotations

import ast
import itertools
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
Block = list[ast.stmt]
Located = ast.expr | ast.stmt | ast.excepthandler | ast.arg | ast.keyword


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace text[start:end] with `text` (character offsets into the original)."""

    start: int
    end: int
    text: str


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Splice non-overlapping edits into `text`; overlapping edits are a bug in an operator."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for before, after in itertools.pairwise(ordered):
        if after.start < before.end:
            raise ValueError(f"overlapping edits: {before} and {after}")
    out = text
    for edit in reversed(ordered):
        out = out[: edit.start] + edit.text + out[edit.end :]
    return out


class Source:
    """One parsed file: its text, its lines (with endings) and its tree."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.tree = ast.parse(text)
        self.lines = text.splitlines(keepends=True)
        self._line_start: list[int] = []
        offset = 0
        for line in self.lines:
            self._line_start.append(offset)
            offset += len(line)
        self._line_start.append(offset)

    # -- positions -------------------------------------------------------------------------

    def offset(self, lineno: int, byte_col: int) -> int:
        """Character offset of an ast position (1-based line, UTF-8 byte column)."""
        line = self.lines[lineno - 1]
        chars = len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="strict"))
        return self._line_start[lineno - 1] + chars

    def line_offset(self, lineno: int) -> int:
        """Offset of the first character of 1-based line `lineno` (len(text) past the end)."""
        return self._line_start[min(lineno - 1, len(self.lines))]

    def node_range(self, node: Located) -> tuple[int, int]:
        if node.end_lineno is None or node.end_col_offset is None:
            raise ValueError(f"{type(node).__name__} at line {node.lineno} has no end position")
        start = self.offset(node.lineno, node.col_offset)
        end = self.offset(node.end_lineno, node.end_col_offset)
        return start, end

    def node_text(self, node: Located) -> str:
        start, end = self.node_range(node)
        return self.text[start:end]

    # -- statements that own whole lines ---------------------------------------------------

    def indent(self, node: ast.stmt | ast.excepthandler) -> str | None:
        """The statement's indentation when only spaces precede it on its line, else None."""
        prefix = self.lines[node.lineno - 1][: node.col_offset]
        if prefix.strip(" "):
            return None
        return prefix

    def owns_lines(self, node: ast.stmt | ast.excepthandler) -> bool:
        """True when the statement starts its first line and nothing but a newline follows it
        on its last line (no `;` neighbour, no trailing comment that an edit would drop)."""
        if self.indent(node) is None or node.end_lineno is None or node.end_col_offset is None:
            return False
        tail = self.lines[node.end_lineno - 1].encode("utf-8")[node.end_col_offset :]
        return not tail.strip()

    def line_span(self, first: int, last: int) -> tuple[int, int]:
        """Offsets covering whole lines first..last (1-based, inclusive, with the newline)."""
        return self.line_offset(first), self.line_offset(last + 1)

    def stmt_lines(self, node: ast.stmt) -> list[str]:
        """The statement's whole lines with their endings."""
        return self.lines[node.lineno - 1 : node.end_lineno]

    def uses_tabs(self) -> bool:
        return any(line[: len(line) - len(line.lstrip())].count("\t") for line in self.lines)

    # -- imports ---------------------------------------------------------------------------

    def has_import(self, line: str) -> bool:
        return any(
            isinstance(stmt, ast.Import | ast.ImportFrom) and self.node_text(stmt) == line
            for stmt in self.tree.body
        )

    def import_anchor(self) -> int:
        """Offset of the line after the last top-level import (or module docstring) that
        precedes the first definition: where a new import or module constant goes."""
        anchor = 0
        for stmt in self.tree.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                break
            is_docstring = stmt is self.tree.body[0] and _is_docstring(stmt)
            if (isinstance(stmt, ast.Import | ast.ImportFrom) or is_docstring) and (
                self.owns_lines(stmt)
            ):
                anchor = int(stmt.end_lineno or stmt.lineno)
        return self.line_offset(anchor + 1)

    def import_edit(self, line: str) -> Edit | None:
        """An edit adding top-level `line` (e.g. "import subprocess") at `import_anchor`;
        None when the module already has it."""
        if self.has_import(line):
            return None
        at = self.import_anchor()
        return Edit(at, at, f"{line}\n")


def functions(tree: ast.AST) -> Iterator[FunctionNode]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def blocks(func: FunctionNode) -> Iterator[Block]:
    """Every statement list inside `func` (its body, branches, handlers), not descending
    into nested functions or classes, which `functions` yields on their own."""
    stack: list[Block] = [func.body]
    while stack:
        block = stack.pop()
        yield block
        for stmt in block:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            for name in ("body", "orelse", "finalbody"):
                child = getattr(stmt, name, None)
                if isinstance(child, list) and child and isinstance(child[0], ast.stmt):
                    stack.append(child)
            for handler in getattr(stmt, "handlers", []):
                stack.append(handler.body)
            for case in getattr(stmt, "cases", []):
                stack.append(case.body)


def statements(func: FunctionNode) -> Iterator[tuple[Block, ast.stmt]]:
    for block in blocks(func):
        for stmt in block:
            yield block, stmt


def within(func: FunctionNode) -> Iterator[ast.AST]:
    """Nodes of `func`'s own scope (no nested functions, classes or lambdas)."""
    stack: list[ast.AST] = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))


def first_body_stmt(func: FunctionNode) -> ast.stmt | None:
    """The first statement after the docstring, when it starts a line below the `def`."""
    body = func.body
    if body and _is_docstring(body[0]):
        body = body[1:]
    if not body or body[0].lineno <= func.lineno:
        return None
    return body[0]


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def has_docstring(func: FunctionNode) -> bool:
    return bool(func.body) and _is_docstring(func.body[0])


def reindent(lines: list[str], add: str) -> str:
    """Prefix every non-blank line with `add` (used to nest statements one level deeper)."""
    return "".join(add + line if line.strip() else line for line in lines)


def dedent(lines: list[str], remove: str) -> str | None:
    """Remove the prefix `remove` from every non-blank line; None when a line lacks it
    (a continuation or string line that is less indented), so the site is skipped."""
    out: list[str] = []
    for line in lines:
        if not line.strip():
            out.append(line)
        elif line.startswith(remove):
            out.append(line[len(remove) :])
        else:
            return None
    return "".join(out)


def is_self_call(node: ast.AST, names: frozenset[str]) -> bool:
    """`self.<name>(...)` for a name in `names`."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "self"
        and node.func.attr in names
    )


@dataclass(frozen=True, slots=True)
class Mutation:
    operator: str
    label: str  # a topic name, or "benign"
    edits: tuple[Edit, ...]


# An operator returns every place in a file where it can apply, each as one Mutation.
Operator = Callable[[Source, random.Random], list[Mutation]]


def make(operator: str, label: str, *edits: Edit | None) -> Mutation:
    return Mutation(operator, label, tuple(e for e in edits if e is not None))
