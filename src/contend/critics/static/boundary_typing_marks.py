"""The additive boundary-typing rules: what a change adds that switches the type checker off
or validates raw primitives in core code. Minor, taste-level findings by design.

    type-ignore-added             a blanket `# type: ignore` (no error code; or the pyright /
                                  mypy / pyre form) added on a line of library code: not in a
                                  test file, not in an `if __name__ == "__main__":` block, not
                                  on a deliberately wrong call inside a raises block, not on an
                                  import or an optional import's `= None` fallback. A coded
                                  ignore (`[attr-defined]`) is a named, scoped waiver of one
                                  error and is not raised
    cast-to-any-added             `cast(Any, ...)` added (a cast to a type that holds Any,
                                  `cast("Dict[str, Any]", x)`, is not a cast to Any)
    any-annotation-added          a parameter, return or variable that had a precise annotation
                                  now says `Any` where it was precise (Any on code that had no
                                  annotation, kept through a typing sweep `Dict[str, Any]` ->
                                  `dict[str, Any]`, a bare generic written out `dict` ->
                                  `Dict[str, Any]` (boundary_typing_widening), a wrong `-> None`
                                  of a function that returned a value, or moved verbatim, is not
                                  reported)
    primitive-validated-in-core   a raw primitive checked (isinstance str, len > 0, .strip())
                                  in a private function that no public function of its file
                                  calls, outside a boundary module or parse_/validate_ function
                                  (its rule lives in boundary_typing_primitives.py)

Each compares by identity, across every changed file (a line moved to another file adds
nothing): an ignore by its statement's text, an annotation by the function and parameter it
belongs to, a cast or a check by how many the changed files hold before and after.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from contend.critics.static import pyast
from contend.critics.static.base import Confidence, FileChange, Finding, Topic, is_test_path
from contend.critics.static.boundary_typing_primitives import PRIMITIVE_IN_CORE
from contend.critics.static.boundary_typing_widening import (
    is_any,
    last_name,
    mentions_any,
    widens,
)
from contend.critics.static.catalogue import PYTHON, RuleInfo, waiver_way
from contend.protocol.model import Severity

_TOPIC = Topic.BOUNDARY_TYPING
_WAIVE = waiver_way(_TOPIC)

TYPE_IGNORE = RuleInfo(
    "type-ignore-added",
    _TOPIC,
    Severity.MINOR,
    Confidence.MEDIUM,
    PYTHON,
    "the change silences a type error instead of fixing the type, so the checker stops "
    "guarding that line",
    (
        "fix the type (annotate, narrow with isinstance, or correct the call)",
        "or keep the ignore with the narrowest error code and a comment saying why",
        _WAIVE,
    ),
)
CAST_ANY = RuleInfo(
    "cast-to-any-added",
    _TOPIC,
    Severity.MINOR,
    Confidence.MEDIUM,
    PYTHON,
    "`cast(Any, ...)` turns type checking off for everything the value touches",
    ("cast to the precise type, or parse the value into one", _WAIVE),
)
ANY_ANNOTATION = RuleInfo(
    "any-annotation-added",
    _TOPIC,
    Severity.MINOR,
    Confidence.MEDIUM,
    PYTHON,
    "a precise annotation became `Any`, so callers may now pass (or receive) anything "
    "without the type checker noticing",
    ("restore the precise annotation, or a union or protocol of what is accepted", _WAIVE),
)
RULES: tuple[RuleInfo, ...] = (TYPE_IGNORE, CAST_ANY, ANY_ANNOTATION, PRIMITIVE_IN_CORE)

_IGNORE_COMMENT = re.compile(
    r"(?:type|pyright):\s*ignore\b(?:\[(?P<codes>[^\]]*)\])?"
    r"|mypy:\s*ignore-errors|pyre-(?:ignore|fixme)\b(?:\[(?P<pyre>[^\]]*)\])?"
)
_RAISES_BLOCKS = frozenset(
    {"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "assertWarns"}
)


@dataclass(slots=True)
class Changed:
    """Every changed Python file, parsed once, for rules that compare across files."""

    trees: list[tuple[FileChange, ast.Module | None, ast.Module | None]]
    _counts: dict[tuple[str, bool], Counter[str]] = field(default_factory=dict)
    _old_sites: dict[tuple[str, str], ast.expr | None] | None = None
    _absorbers: frozenset[str] | None = None
    _typevars: frozenset[str] | None = None
    _false_none: frozenset[str] | None = None

    def counts(self, what: str, *, new: bool) -> Counter[str]:
        """How many casts (`what` = "cast") there are on one side of all changed files."""
        key = (what, new)
        if key not in self._counts:
            found: Counter[str] = Counter()
            for change, old, now in self.trees:
                tree = now if new else old
                text = change.new_text if new else change.old_text
                if tree is not None and text is not None and "cast" in text:
                    found.update(k for k, _ in _casts(ast.walk(tree)))
            self._counts[key] = found
        return self._counts[key]

    @property
    def old_sites(self) -> dict[tuple[str, str], ast.expr | None]:
        """Every annotation slot of the old sides: (function or scope, parameter) -> its
        annotation, None where it had none."""
        if self._old_sites is None:
            found: dict[tuple[str, str], ast.expr | None] = {}
            for _, old, _new in self.trees:
                if old is not None:
                    found.update(annotation_sites(old))
            self._old_sites = found
        return self._old_sites

    def ignore_counts(self, *, new: bool) -> Counter[str]:
        """How many ignore comments of each exact text the changed files hold, per side."""
        key = ("ignore", new)
        if key not in self._counts:
            found: Counter[str] = Counter()
            for change, old, now in self.trees:
                tree, text = (now, change.new_text) if new else (old, change.old_text)
                if tree is not None and text is not None:
                    found.update(comment for _, _, _, comment in ignore_comments(text, tree))
            self._counts[key] = found
        return self._counts[key]

    @property
    def free_typevars(self) -> frozenset[str]:
        """Names the old sides bind to an unbounded, unconstrained `TypeVar("T")`."""
        if self._typevars is None:
            found: set[str] = set()
            for _, old, _new in self.trees:
                for stmt in old.body if old is not None else ():
                    if (
                        isinstance(stmt, ast.Assign)
                        and isinstance(stmt.value, ast.Call)
                        and pyast.callee_name(stmt.value) == "TypeVar"
                        and len(stmt.value.args) <= 1
                        and not any(k.arg == "bound" for k in stmt.value.keywords)
                    ):
                        found.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
            self._typevars = frozenset(found)
        return self._typevars

    @property
    def false_none_returns(self) -> frozenset[str]:
        """Functions of the old sides annotated `-> None` that returned a value: the
        annotation was wrong, no caller could use the result under it."""
        if self._false_none is None:
            found: set[str] = set()
            for _, old, _new in self.trees:
                for qualname, fn in pyast.functions(old).items() if old is not None else ():
                    returns = fn.node.returns
                    if not (isinstance(returns, ast.Constant) and returns.value is None):
                        continue
                    if any(
                        isinstance(node, ast.Return)
                        and node.value is not None
                        and not (isinstance(node.value, ast.Constant) and node.value.value is None)
                        for node in pyast.walk_within(fn.node)
                    ):
                        found.add(qualname)
            self._false_none = frozenset(found)
        return self._false_none

    @property
    def absorbers(self) -> frozenset[str]:
        """Functions of the new sides that take `**kwargs` and read it key by key: passing
        `**kwargs` on to one of them loses unknown keywords just the same."""
        if self._absorbers is None:
            found: set[str] = set()
            for _, _old, new in self.trees:
                if new is None:
                    continue
                for fn in pyast.functions(new).values():
                    kwarg = fn.node.args.kwarg
                    if kwarg is not None and _read_key_by_key(fn.node, kwarg.arg, frozenset()):
                        found.add(fn.node.name)
            self._absorbers = frozenset(found)
        return self._absorbers

    def old_ignores(self) -> dict[str, list[frozenset[str] | None]]:
        """Ignore comments of the old sides by the text of their line without the comment:
        their codes (None for a bare ignore)."""
        found: dict[str, list[frozenset[str] | None]] = {}
        for change, old, _new in self.trees:
            if old is None or change.old_text is None:
                continue
            for line_text, codes, _, _ in ignore_comments(change.old_text, old):
                found.setdefault(line_text, []).append(codes)
        return found


# --- type: ignore --------------------------------------------------------------------------


def ignore_comments(
    text: str, tree: ast.Module, only: frozenset[int] | None = None
) -> list[tuple[str, frozenset[str] | None, int, str]]:
    """(the line's code without the comment, the codes silenced or None for all, line, the
    comment) of every type-checker silencing comment (on `only` these lines). A regex finds
    the lines; the AST tells a real comment from the same text inside a string."""
    lines = text.split("\n")  # numbered as the AST and git number them, not splitlines()
    candidates = [
        (number, match)
        for number, line in enumerate(lines, 1)
        if (only is None or number in only) and (match := _IGNORE_COMMENT.search(line)) is not None
    ]
    if not candidates:
        return []
    strings = [
        node
        for node in overlapping(tree, frozenset(n for n, _ in candidates))
        if isinstance(node, ast.JoinedStr)
        or (isinstance(node, ast.Constant) and isinstance(node.value, str | bytes))
    ]
    found: list[tuple[str, frozenset[str] | None, int, str]] = []
    for number, match in candidates:
        line = lines[number - 1]
        hash_at = line.rfind("#", 0, match.start())
        if hash_at < 0:
            continue
        where = (number, len(line[:hash_at].encode()))  # AST columns count UTF-8 bytes
        if any(_inside(node, where) for node in strings):
            continue
        listed = match.group("codes") or match.group("pyre")
        codes = None if not listed else frozenset(c.strip() for c in listed.split(",") if c)
        comment = " ".join(line[match.start() :].split())
        found.append((" ".join(line[:hash_at].split()), codes, number, comment))
    return found


def type_ignores(change: FileChange, new_tree: ast.Module, context: Changed) -> Iterator[Finding]:
    assert change.new_text is not None
    if is_test_path(change.path):
        return  # a test reaches into internals or calls wrongly on purpose: not a boundary
    # Only a blanket ignore (no error code) is raised: it silences every error of its line,
    # those of later edits too. A coded ignore names the one error it waives — a scoped,
    # reviewable waiver, as a contend waiver with its reason is; on 70 labelled real
    # commits' coded ignores none was a defect (issue 8).
    added = [
        (line_text, codes, line, comment)
        for line_text, codes, line, comment in ignore_comments(
            change.new_text, new_tree, change.added_lines
        )
        if codes is None
    ]
    if not added:
        return
    before = context.old_ignores()
    blocks = _raises_blocks(new_tree) + _main_blocks(new_tree) + _import_lines(new_tree)
    budget = context.ignore_counts(new=True) - context.ignore_counts(new=False)
    for line_text, codes, line, comment in added:
        if any(start <= line <= end for start, end in blocks):
            continue  # a deliberately wrong call whose TypeError the test expects
        olds = before.get(line_text, [])
        wider = [i for i, o in enumerate(olds) if o is None or (codes is not None and codes <= o)]
        if wider:
            del olds[wider[0]]
            continue  # the line had an ignore at least this wide: kept or narrowed
        if budget[comment] <= 0:
            continue  # as many such comments as before: moved with an edited line
        budget[comment] -= 1
        yield TYPE_IGNORE.finding(
            path=change.path,
            lines=(line, line),
            claim=(
                f"the change silences the type checker with `# {comment}` instead of fixing "
                "the type"
            ),
            evidence=change.new_lines(line, line),
            symbol=pyast.symbol_at(new_tree, line),
        )


def _main_blocks(tree: ast.Module) -> list[tuple[int, int]]:
    """The lines of module-level `if __name__ == "__main__":` blocks: a demo or script entry
    point, not library code a caller's types depend on."""
    return [
        pyast.span(node)
        for node in tree.body
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
        and any(
            isinstance(c, ast.Constant) and c.value == "__main__" for c in node.test.comparators
        )
    ]


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})


def _import_lines(tree: ast.Module) -> list[tuple[int, int]]:
    """Lines where a blanket ignore can only silence an import's own error: an import
    statement (a module or name that does not resolve: missing stubs, an untyped or optional
    dependency), and a fallback in an optional-import probe's `except ImportError:` that
    rebinds a name its `try` imported (`x = None`: the redefinition is the error). Nothing
    else stands on such a line for a later edit to hide behind the ignore."""
    found: list[tuple[int, int]] = []
    for node in pyast.statements(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(pyast.span(node))
        elif isinstance(node, ast.Try):
            imported = {
                (alias.asname or alias.name).split(".")[0]
                for stmt in node.body
                if isinstance(stmt, ast.Import | ast.ImportFrom)
                for alias in stmt.names
            }
            for handler in node.handlers:
                names = {n.id if isinstance(n, ast.Name) else "" for n in _caught(handler)}
                if not imported or not names or not names <= _IMPORT_ERRORS:
                    continue
                found.extend(
                    pyast.span(stmt)
                    for stmt in handler.body
                    if _binds(stmt) and _binds(stmt) <= imported
                )
    return found


def _caught(handler: ast.ExceptHandler) -> list[ast.expr]:
    kind = handler.type
    return [] if kind is None else list(kind.elts) if isinstance(kind, ast.Tuple) else [kind]


def _binds(stmt: ast.stmt) -> set[str]:
    """The names a fallback statement binds: `x = None`, `x: T = None`, `def x(...)`,
    `class x`; empty for anything else."""
    if (
        isinstance(stmt, ast.Assign)
        and isinstance(stmt.value, ast.Constant | ast.Name)
        and all(isinstance(t, ast.Name) for t in stmt.targets)
    ):
        return {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return {stmt.target.id}
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {stmt.name}
    return set()


def _raises_blocks(tree: ast.Module) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    for node in pyast.statements(tree):
        if isinstance(node, ast.With | ast.AsyncWith) and any(
            isinstance(item.context_expr, ast.Call)
            and pyast.callee_name(item.context_expr) in _RAISES_BLOCKS
            for item in node.items
        ):
            found.append(pyast.span(node))
    return found


def _inside(node: ast.AST, where: tuple[int, int]) -> bool:
    start = (int(getattr(node, "lineno", 0)), int(getattr(node, "col_offset", 0)))
    end_line = getattr(node, "end_lineno", None) or start[0]
    end = (int(end_line), int(getattr(node, "end_col_offset", None) or 0))
    return start <= where < end


def hits(sorted_lines: Sequence[int], start: int, end: int) -> bool:
    index = bisect.bisect_left(sorted_lines, start)
    return index < len(sorted_lines) and sorted_lines[index] <= end


def overlapping(tree: ast.AST, lines: frozenset[int]) -> Iterator[ast.AST]:
    """Nodes whose span overlaps one of `lines`, visiting only such subtrees: a small change
    in a large file costs little."""
    ordered = sorted(lines)
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        start = getattr(node, "lineno", None)
        if start is not None:
            if not hits(ordered, start, getattr(node, "end_lineno", None) or start):
                continue
            yield node
        stack.extend(ast.iter_child_nodes(node))


# --- cast(Any, ...) ------------------------------------------------------------------------


def _casts(nodes: Iterable[ast.AST]) -> list[tuple[str, int]]:
    return [
        ("cast(Any, ...)", node.lineno)
        for node in nodes
        if isinstance(node, ast.Call)
        and pyast.callee_name(node) == "cast"
        and node.args
        and is_any(node.args[0])
    ]


def casts_to_any(change: FileChange, new_tree: ast.Module, context: Changed) -> Iterator[Finding]:
    added = change.added_lines
    found = _casts(n for n in overlapping(new_tree, added) if getattr(n, "lineno", 0) in added)
    if not found:
        return
    budget = context.counts("cast", new=True)["cast(Any, ...)"]
    budget -= context.counts("cast", new=False)["cast(Any, ...)"]
    for _, line in sorted(set(found), key=lambda hit: hit[1])[: max(budget, 0)]:
        yield CAST_ANY.finding(
            path=change.path,
            lines=(line, line),
            claim="the change casts a value to `Any`, switching off type checking for it",
            evidence=change.new_lines(line, line),
            symbol=pyast.symbol_at(new_tree, line),
        )


# --- Any annotations -----------------------------------------------------------------------


def annotation_sites(tree: ast.Module) -> dict[tuple[str, str], ast.expr | None]:
    """Every place an annotation can stand, by (owner, slot): a function's parameters and
    return, a variable annotated in a function, a class or the module."""
    found: dict[tuple[str, str], ast.expr | None] = {}
    for qualname, fn in pyast.functions(tree).items():
        args = fn.node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            found[(qualname, arg.arg)] = arg.annotation
        if args.vararg is not None:
            found[(qualname, "*" + args.vararg.arg)] = args.vararg.annotation
        if args.kwarg is not None:
            found[(qualname, "**" + args.kwarg.arg)] = args.kwarg.annotation
        found[(qualname, "return")] = fn.node.returns
        for node in pyast.walk_within(fn.node):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                found[(qualname, node.target.id)] = node.annotation
    stack: list[tuple[list[ast.stmt], str]] = [(tree.body, "<module>")]
    while stack:
        body, owner = stack.pop()
        for stmt in body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                found[(owner, stmt.target.id)] = stmt.annotation
            elif isinstance(stmt, ast.ClassDef):
                prefix = "" if owner == "<module>" else owner + "."
                stack.append((stmt.body, prefix + stmt.name))
    return found


def any_annotations(
    change: FileChange, new_tree: ast.Module, context: Changed
) -> Iterator[Finding]:
    added = change.added_lines
    lines = (change.new_text or "").split("\n")
    if not any("Any" in lines[n - 1] for n in added if n <= len(lines)):
        return  # no added line mentions Any: nothing to compare (the cheap way out)
    candidates = [
        (site, annotation)
        for site, annotation in annotation_sites(new_tree).items()
        if annotation is not None
        and any(line in added for line in range(*_lines(annotation)))
        and mentions_any(annotation)
    ]
    if not candidates:
        return
    before = context.old_sites
    funcs = pyast.functions(new_tree)
    for (owner, slot), annotation in sorted(candidates, key=lambda c: c[1].lineno):
        old = before.get((owner, slot))
        line = annotation.lineno
        symbol = None if owner == "<module>" else pyast.symbol_of(owner)
        if (owner, slot) not in before and slot.startswith("**") and owner in funcs:
            absorbed = _absorbed(owner, slot, funcs[owner].node, before, context.absorbers)
            if absorbed:
                named = ", ".join(f"`{p}`" for p in absorbed)
                yield ANY_ANNOTATION.finding(
                    path=change.path,
                    lines=(line, line),
                    claim=(
                        f"`{pyast.symbol_of(owner)}`: the named parameter(s) {named} became "
                        f"`{slot}: {pyast.unparse(annotation)}`, read key by key: a misspelled "
                        "or unknown keyword is now accepted silently instead of a TypeError"
                    ),
                    evidence=change.new_lines(line, line),
                    symbol=symbol,
                )
            continue
        # New code, code that had no annotation, or an annotation that already said Any
        # (a typing sweep: Dict[str, Any] -> dict[str, Any]) or only free type variables
        # (`Union[_T, Iterable[_T]]` accepts anything already) widens nothing.
        if old is None or mentions_any(old) or _only_free(old, context.free_typevars):
            continue
        # A bare generic written out (`dict` -> `Dict[str, Any]`, `Callable` ->
        # `Callable[..., Any]`) names the same type: its parameters were Any already.
        if not widens(old, annotation):
            continue
        # `-> None` on a function that returned a value was wrong: no caller could use the
        # result under it, so `Any` there unchecks nothing that was checked.
        if slot == "return" and owner in context.false_none_returns:
            continue
        what = "the return type" if slot == "return" else f"`{slot}`"
        yield ANY_ANNOTATION.finding(
            path=change.path,
            lines=(line, line),
            claim=(
                f"`{pyast.symbol_of(owner)}`: {what} was `{pyast.unparse(old)}` and is now "
                f"`{pyast.unparse(annotation)}`, which accepts anything unchecked"
            ),
            evidence=change.new_lines(line, line),
            symbol=symbol,
        )


def _only_free(annotation: ast.expr, typevars: frozenset[str]) -> bool:
    """The annotation accepts anything already: a free type variable, or a union with one
    as a member (`Union[_T, Iterable[_T]]`, `_T | None`). `Iterable[_T]` does not: it
    still demands an iterable."""
    stack = [annotation]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name | ast.Attribute):
            if last_name(node) in typevars:
                return True
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            stack.extend([node.left, node.right])
        elif isinstance(node, ast.Subscript) and last_name(node.value) in (
            "Union",
            "Optional",
        ):
            inner = node.slice
            stack.extend(inner.elts if isinstance(inner, ast.Tuple) else [inner])
    return False


def _absorbed(
    owner: str,
    slot: str,
    fn: pyast.FunctionNode,
    before: Mapping[tuple[str, str], ast.expr | None],
    absorbers: frozenset[str],
) -> list[str]:
    """Named parameters the old version of `owner` had that its new `**kwargs` took over:
    gone from the signature, with `kwargs` read key by key (`kwargs["cls"]`, `.get`,
    `.pop`, `in`) rather than passed on whole (`f(**kwargs)`), where an unknown keyword
    would still fail."""
    had = [p for (o, p), _ in before.items() if o == owner and p != "return"]
    if not had:
        return []
    args = fn.args
    now = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    gone = [p for p in had if not p.startswith("*") and p not in now]
    name = slot.removeprefix("**")
    return gone if gone and _read_key_by_key(fn, name, absorbers) else []


def _read_key_by_key(fn: pyast.FunctionNode, name: str, absorbers: frozenset[str]) -> bool:
    """`name` is only read key by key, or passed on whole to a function that is (one of
    `absorbers`)."""
    allowed: set[int] = set()
    uses: list[ast.Name] = []
    for node in pyast.walk_within(fn):
        if isinstance(node, ast.Name) and node.id == name:
            uses.append(node)
        elif isinstance(node, ast.Call) and pyast.callee_name(node) in absorbers:
            allowed.update(id(k.value) for k in node.keywords if k.arg is None)
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)) or (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.attr in ("get", "pop", "setdefault")
        ):
            allowed.add(id(node.value))
        elif (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.In | ast.NotIn)
        ):
            allowed.update(id(c) for c in node.comparators)
    return bool(uses) and all(id(use) in allowed for use in uses)


def _lines(node: ast.AST) -> tuple[int, int]:
    start, end = pyast.span(node)
    return start, end + 1
