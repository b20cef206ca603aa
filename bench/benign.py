"""Benign changes: the controls of the benchmark, changes no critic should object to.

Refactors keep behaviour: a local variable renamed, a docstring or a type annotation added,
an equivalent rewrite (`x = x + 1` to `x += 1`, `else` dropped after a `return`, a weak
`assertTrue(a == b)` made the stronger `assertEqual(a, b)`), two imports swapped.
Look-alikes (`LOOKALIKE`) touch what the critics watch but make it safer or leave it as
strong: a lock added around a mutation, an exception translated and re-raised with its
cause, a test renamed, a test added, and the real refactors of `benign_refactors.py`
(parametrized cases, merged and moved tests, inlined locals, an equivalent raises check,
code moved into a helper, optional-import probes, narrowed and lint-code ignores). Every
mutation here is labelled "benign".
"""

from __future__ import annotations

import ast
import io
import itertools
import keyword
import random
import tokenize

from benign_moves import MOVES
from benign_refactors import REFACTORS
from benign_sweeps import SWEEPS
from mutations import test_methods, work_statements, wrap
from splice import (
    Edit,
    FunctionNode,
    Mutation,
    Operator,
    Source,
    apply_edits,
    dedent,
    functions,
    has_docstring,
    is_self_call,
    statements,
    within,
)

SYNONYMS = {
    "result": "outcome",
    "res": "outcome",
    "value": "item_value",
    "data": "payload",
    "line": "text_line",
    "name": "label",
    "i": "index",
    "n": "count",
    "s": "text",
    "x": "element",
    "key": "lookup_key",
    "path": "file_path",
    "args": "arguments",
    "msg": "message",
}


def _benign(operator: str, *edits: Edit) -> Mutation:
    return Mutation(operator, "benign", tuple(edits))


class _Rename(ast.NodeTransformer):
    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id == self.old:
            node.id = self.new
        return node


def _locals(func: FunctionNode) -> list[str]:
    params = {a.arg for a in ast.walk(func.args) if isinstance(a, ast.arg)}
    declared = {
        name for n in within(func) if isinstance(n, ast.Global | ast.Nonlocal) for name in n.names
    }
    stored = [
        n.id for n in within(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    ]
    return sorted(set(stored) - params - declared)


def rename_local(src: Source, rng: random.Random) -> list[Mutation]:
    """One validated rename per file: validation re-parses the file, so sites are tried in
    random order and the first that round-trips is returned."""
    sites = [(func, old) for func in functions(src.tree) for old in _locals(func)]
    rng.shuffle(sites)
    for func, old in sites[:12]:
        new = SYNONYMS.get(old, f"{old.rstrip('_')}_value")
        if new in src.text or keyword.iskeyword(new):
            continue
        edits = [
            Edit(*src.node_range(n), new)
            for n in ast.walk(func)
            if isinstance(n, ast.Name) and n.id == old
        ]
        mutation = _benign("rename_local", *edits)
        if _same_after_rename(src, func, mutation, old, new):
            return [mutation]
    return []


def _same_after_rename(
    src: Source, func: FunctionNode, mutation: Mutation, old: str, new: str
) -> bool:
    """The renamed text parses to exactly the old tree with the name swapped; this rejects
    sites where ast positions are unreliable (names inside f-strings before Python 3.12)."""
    try:
        renamed_tree = ast.parse(apply_edits(src.text, list(mutation.edits)))
    # contend: allow silent-fallback -- an unusable rename site; the next one is tried
    except (SyntaxError, ValueError):
        # Not a failure of the benchmark: this rename site is unusable and the next is tried.
        return False
    expected = ast.parse(src.text)
    for node in ast.walk(expected):
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.lineno == func.lineno
            and node.name == func.name
        ):
            _Rename(old, new).visit(node)
    return ast.dump(expected) == ast.dump(renamed_tree)


def add_docstring(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        first = func.body[0]
        indent = src.indent(first)
        if has_docstring(func) or first.lineno <= func.lineno or indent is None:
            continue
        words = func.name.strip("_").replace("_", " ") or "this"
        at = src.line_offset(first.lineno)
        text = f'{indent}"""{rng.choice(["Handle", "Compute", "Run", "Check"])} {words}."""\n'
        out.append(_benign("add_docstring", Edit(at, at, text)))
    return out


def annotate_local(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        for _block, stmt in statements(func):
            if not (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Constant)
                and src.indent(stmt) is not None
            ):
                continue
            value = stmt.value.value
            kind = type(value).__name__
            if kind not in ("int", "str", "float", "bool", "bytes"):
                continue
            end = src.node_range(stmt.targets[0])[1]
            out.append(_benign("annotate_local", Edit(end, end, f": {kind}")))
    return out


def annotate_return_none(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        if func.returns is not None or src.indent(func) is None:
            continue
        if any(
            isinstance(n, ast.Yield | ast.YieldFrom)
            or (isinstance(n, ast.Return) and n.value is not None)
            for n in within(func)
        ):
            continue
        at = _header_colon(src, func)
        if at is not None:
            out.append(_benign("annotate_return_none", Edit(at, at, " -> None")))
    return out


def _header_colon(src: Source, func: FunctionNode) -> int | None:
    """Offset just after the `)` closing the parameter list of `func`."""
    start = src.offset(func.lineno, func.col_offset)
    depth = 0
    seen_open = False
    reader = io.StringIO(src.text[start:]).readline
    try:
        for tok in tokenize.generate_tokens(reader):
            if tok.type != tokenize.OP:
                continue
            if tok.string in "([{":
                depth += 1
                seen_open = True
            elif tok.string in ")]}":
                depth -= 1
                if seen_open and depth == 0:
                    # Token columns are relative to `start` on the first line only.
                    line, col = tok.end
                    if line == 1:
                        return start + col
                    return src.line_offset(func.lineno + line - 1) + col
    # contend: allow silent-fallback -- no site in this header; the caller skips it
    except tokenize.TokenError:
        # The header could not be tokenised on its own: no site here, the caller skips it.
        return None
    return None


def augmented_assign(src: Source, rng: random.Random) -> list[Mutation]:
    ops: dict[type[ast.operator], str] = {ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*="}
    out = []
    for func in functions(src.tree):
        for _block, stmt in statements(func):
            if not (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.BinOp)
                and type(stmt.value.op) in ops
                and isinstance(stmt.value.left, ast.Name)
                and stmt.value.left.id == stmt.targets[0].id
            ):
                continue
            target = stmt.targets[0].id
            right = src.node_text(stmt.value.right)
            text = f"{target} {ops[type(stmt.value.op)]} {right}"
            out.append(_benign("augmented_assign", Edit(*src.node_range(stmt), text)))
    return out


def drop_else_after_return(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        for _block, stmt in statements(func):
            if not (isinstance(stmt, ast.If) and stmt.orelse) or not isinstance(
                stmt.body[-1], ast.Return | ast.Raise | ast.Continue
            ):
                continue
            indent = src.indent(stmt)
            else_line = (stmt.body[-1].end_lineno or stmt.lineno) + 1
            if indent is None or src.lines[else_line - 1].rstrip("\r\n") != f"{indent}else:":
                continue
            first = stmt.orelse[0]
            inner = src.indent(first)
            if inner is None or first.lineno != else_line + 1 or not inner.startswith(indent):
                continue
            end_line = stmt.orelse[-1].end_lineno or first.lineno
            text = dedent(src.lines[first.lineno - 1 : end_line], inner[len(indent) :])
            if text is None:
                continue
            start, end = src.line_span(else_line, end_line)
            out.append(_benign("drop_else_after_return", Edit(start, end, text)))
    return out


def reorder_imports(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    body = src.tree.body
    for first, second in itertools.pairwise(body):
        if not (isinstance(first, ast.Import) and isinstance(second, ast.Import)):
            continue
        if second.lineno != first.lineno + 1 or first.end_lineno != first.lineno:
            continue
        if (
            not (src.owns_lines(first) and src.owns_lines(second))
            or second.end_lineno != second.lineno
        ):
            continue
        start, end = src.line_span(first.lineno, second.lineno)
        a, b = src.lines[first.lineno - 1], src.lines[second.lineno - 1]
        out.append(_benign("reorder_imports", Edit(start, end, b + a)))
    return out


def strengthen_assert(src: Source, rng: random.Random) -> list[Mutation]:
    """`self.assertTrue(a == b)` made `self.assertEqual(a, b)`: a test change that is safe."""
    out = []
    for func in functions(src.tree):
        if not func.name.startswith("test"):
            continue
        for node in within(func):
            if not (
                isinstance(node, ast.Call)
                and is_self_call(node, frozenset({"assertTrue"}))
                and len(node.args) == 1
                and isinstance(node.args[0], ast.Compare)
                and len(node.args[0].ops) == 1
                and isinstance(node.args[0].ops[0], ast.Eq)
            ):
                continue
            cmp = node.args[0]
            text = (
                f"self.assertEqual({src.node_text(cmp.left)}, {src.node_text(cmp.comparators[0])})"
            )
            out.append(_benign("strengthen_assert", Edit(*src.node_range(node), text)))
    return out


def add_lock(src: Source, rng: random.Random) -> list[Mutation]:
    """A mutation of `self` state put under `with self._lock:`."""
    out = []
    for func in functions(src.tree):
        if not func.args.args or func.args.args[0].arg != "self":
            continue
        for _block, stmt in statements(func):
            if not isinstance(stmt, ast.Assign | ast.AugAssign) or stmt.lineno != stmt.end_lineno:
                continue
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            on_self = any(
                isinstance(t, ast.Attribute)
                and isinstance(t.value, ast.Name)
                and t.value.id == "self"
                for t in targets
            )
            if on_self and src.owns_lines(stmt):
                out.append(_benign("add_lock", wrap(src, stmt, "with self._lock:", None)))
    return out


def reraise_with_context(src: Source, rng: random.Random) -> list[Mutation]:
    """A call's OSError translated into a RuntimeError that keeps its cause."""
    out = []
    for stmt in work_statements(src, in_tests=False):
        handler = ["except OSError as exc:", '    raise RuntimeError("operation failed") from exc']
        out.append(_benign("reraise_with_context", wrap(src, stmt, "try:", handler)))
    return out


def _def_name_range(src: Source, func: FunctionNode) -> tuple[int, int]:
    start = src.offset(func.lineno, func.col_offset)
    at = src.text.index(f"def {func.name}", start) + len("def ")
    return at, at + len(func.name)


def rename_test(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for cls, func in test_methods(src):
        new = f"{func.name}_{rng.choice(['basic', 'default', 'simple', 'case'])}"
        names = {getattr(s, "name", None) for s in cls.body}
        if new not in names and new not in src.text:
            out.append(_benign("rename_test", Edit(*_def_name_range(src, func), new)))
    return out


def add_test(src: Source, rng: random.Random) -> list[Mutation]:
    """An existing test duplicated under a new name, right after itself."""
    out = []
    for _cls, func in test_methods(src):
        new = f"{func.name}_again"
        if func.decorator_list or new in src.text or not src.owns_lines(func.body[-1]):
            continue
        last = func.end_lineno or func.lineno
        start, end = _def_name_range(src, func)
        copy = src.text[src.line_offset(func.lineno) : start] + new
        copy += src.text[end : src.line_offset(last + 1)]
        at = src.line_offset(last + 1)
        out.append(_benign("add_test", Edit(at, at, "\n" + copy)))
    return out


def narrow_except(src: Source, rng: random.Random) -> list[Mutation]:
    """A broad `except Exception:` / bare `except:` narrowed to named errors, body kept."""
    out = []
    for func in functions(src.tree):
        for node in within(func):
            if not isinstance(node, ast.Try):
                continue
            for handler in node.handlers:
                broad = handler.type is None or (
                    isinstance(handler.type, ast.Name) and handler.type.id == "Exception"
                )
                if not broad or src.indent(handler) is None:
                    continue
                start = src.offset(handler.lineno, handler.col_offset)
                end = (
                    src.node_range(handler.type)[1]
                    if handler.type is not None
                    else start + len("except")
                )
                if src.text[start : start + len("except")] != "except":
                    continue
                names = rng.choice(["(OSError, ValueError)", "(KeyError, TypeError)", "OSError"])
                out.append(_benign("narrow_except", Edit(start, end, f"except {names}")))
    return out


def swap_methods(src: Source, rng: random.Random) -> list[Mutation]:
    """Two adjacent methods of a class exchanged: a move, nothing else."""
    out = []
    for cls in ast.walk(src.tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        for first, second in itertools.pairwise(cls.body):
            if not (
                isinstance(first, ast.FunctionDef | ast.AsyncFunctionDef)
                and isinstance(second, ast.FunctionDef | ast.AsyncFunctionDef)
                and src.indent(first) is not None
                and src.owns_lines(first.body[-1])
                and src.owns_lines(second.body[-1])
            ):
                continue
            a_start, b_start = _first_line(first), _first_line(second)
            a_end, b_end = first.end_lineno or first.lineno, second.end_lineno or second.lineno
            a = "".join(src.lines[a_start - 1 : a_end])
            gap = "".join(src.lines[a_end : b_start - 1])
            b = "".join(src.lines[b_start - 1 : b_end])
            if gap.strip():  # a comment between them belongs to one of them: leave it
                continue
            start, end = src.line_span(a_start, b_end)
            out.append(_benign("swap_methods", Edit(start, end, b + gap + a)))
    return out


def _first_line(func: FunctionNode) -> int:
    return min([d.lineno for d in func.decorator_list] + [func.lineno])


def swap_assert_args(src: Source, rng: random.Random) -> list[Mutation]:
    """`assertEqual(a, b)` made `assertEqual(b, a)`: the same check."""
    out = []
    for func in functions(src.tree):
        if not func.name.startswith("test"):
            continue
        for node in within(func):
            if not (
                isinstance(node, ast.Call)
                and is_self_call(node, frozenset({"assertEqual"}))
                and len(node.args) == 2
                and not node.keywords
                and not any(isinstance(a, ast.Starred) for a in node.args)
            ):
                continue
            first, second = node.args
            if len({first.lineno, first.end_lineno, second.lineno, second.end_lineno}) != 1:
                continue
            start, end = src.node_range(first)[0], src.node_range(second)[1]
            text = f"{src.node_text(second)}, {src.node_text(first)}"
            out.append(_benign("swap_assert_args", Edit(start, end, text)))
    return out


LOOKALIKE = frozenset(
    {"add_lock", "reraise_with_context", "rename_test", "add_test"}
    | {"narrow_except", "swap_methods", "swap_assert_args"}
    | set(REFACTORS)
)

BENIGN: dict[str, Operator] = {
    "rename_local": rename_local,
    "add_docstring": add_docstring,
    "annotate_local": annotate_local,
    "annotate_return_none": annotate_return_none,
    "augmented_assign": augmented_assign,
    "drop_else_after_return": drop_else_after_return,
    "reorder_imports": reorder_imports,
    "strengthen_assert": strengthen_assert,
    "add_lock": add_lock,
    "reraise_with_context": reraise_with_context,
    "rename_test": rename_test,
    "add_test": add_test,
    "narrow_except": narrow_except,
    "swap_methods": swap_methods,
    "swap_assert_args": swap_assert_args,
    **REFACTORS,
}

# The moved-code and sweep controls are scored by the synthetic corpus only: the experiment
# banks (`experiment_banks.py`) are pinned to BENIGN as it was when they were generated.
CORPUS_BENIGN: dict[str, Operator] = {**BENIGN, **MOVES, **SWEEPS}
