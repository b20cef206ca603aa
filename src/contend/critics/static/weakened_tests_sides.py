"""The model the Python `test-weakening` critic works on: its rule ids, each changed test
file parsed into its old and new side (`Side`, `File`, loaded or skipped with a reason), a
reference to one function of a side (`Ref`), and the `Reporter` that turns a rule into a
finding located on the new side."""

from __future__ import annotations

import ast
import difflib
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field

from contend.critics.static import pyast
from contend.critics.static import weakened_tests_catalogue as wc
from contend.critics.static import weakened_tests_compare as cmp
from contend.critics.static import weakened_tests_coverage as cov
from contend.critics.static import weakened_tests_rules as r
from contend.critics.static.base import (
    Confidence,
    FileChange,
    Finding,
    Skipped,
    Topic,
    is_test_path,
)
from contend.protocol.model import Severity

RULE_REMOVED = "assertion-removed"
RULE_TO_ZERO = "assertions-reduced-to-zero"
RULE_SWALLOWED = "assertion-swallowed"
RULE_MOCKED_UNIT = "unit-under-test-mocked"
RULE_TEST_DELETED = "test-deleted"
RULE_CLASS_DELETED = "test-class-deleted"
RULE_SKIP = "skip-without-issue"
RULE_CASES = "parametrize-cases-removed"
RULE_WEAKENED = cmp.RULE_WEAKENED
RULE_TOLERANCE = cmp.RULE_TOLERANCE
RULE_EXCEPTION = cmp.RULE_EXCEPTION

INFO = {info.rule: info for info in wc.RULES}
MAX_CHARS = 2_000_000


@dataclass(slots=True)
class Side:
    text: str
    tree: ast.Module
    functions: dict[str, pyast.Function]
    _classes: frozenset[str] | None = None
    _helpers: dict[str, bool] = field(default_factory=dict)
    _by_name: dict[str, list[pyast.Function]] | None = None
    _constants: dict[str, ast.expr] | None = None
    _profiles: dict[int, cov.Profile] = field(default_factory=dict)

    @property
    def constants(self) -> dict[str, ast.expr]:
        if self._constants is None:
            self._constants = cov.module_constants(self.tree)
        return self._constants

    def profile(self, fn: pyast.Function) -> cov.Profile:
        """What a function of this side checks, under each of its cases (cached)."""
        key = id(fn.node)
        if key not in self._profiles:
            self._profiles[key] = cov.profile(fn.node, self.constants, self.is_helper)
        return self._profiles[key]

    def requirements(self, fn: pyast.Function) -> list[cov.Requirement | None]:
        return cov.requirements(fn.node, self.constants, self.is_helper)

    def demand(self, fn: pyast.Function) -> cov.Demand:
        return cov.demand(fn.node, self.constants, self.is_helper)[1]

    @property
    def classes(self) -> frozenset[str]:
        """Qualified class names (computed only when a deleted test asks)."""
        if self._classes is None:
            self._classes = frozenset(_classes(self.tree))
        return self._classes

    def is_helper(self, name: str) -> bool:
        """Is `name` a non-test function of this file that asserts? Decided on demand, once
        per name: big test files have hundreds of functions and a change calls few."""
        if name not in self._helpers:
            if self._by_name is None:
                self._by_name = {}
                for qualname, fn in self.functions.items():
                    if not is_test(qualname):
                        self._by_name.setdefault(qualname.split(".")[-1], []).append(fn)
            candidates = self._by_name.get(name, [])
            self._helpers[name] = any(r.has_checks(fn.node.body) for fn in candidates)
        return self._helpers[name]


@dataclass(slots=True)
class File:
    change: FileChange
    old: Side | None
    new: Side | None
    _opcodes: list[tuple[str, int, int, int, int]] | None = field(default=None)

    def new_line_of(self, old_line: int) -> int:
        """The new-side line where an old line is, or where it used to be."""
        if self.new is None:
            return 1
        new_count = max(len(self.new.text.splitlines()), 1)
        if self._opcodes is None:
            old_lines = self.old.text.splitlines() if self.old else []
            matcher = difflib.SequenceMatcher(
                a=old_lines, b=self.new.text.splitlines(), autojunk=False
            )
            self._opcodes = [(str(op[0]), *op[1:]) for op in matcher.get_opcodes()]
        index = old_line - 1
        for tag, i1, i2, j1, _j2 in self._opcodes:
            if i1 <= index < i2:
                line = j1 + (index - i1) + 1 if tag == "equal" else j1 + 1
                return max(1, min(line, new_count))
        return new_count


@dataclass(frozen=True, slots=True, eq=False)
class Ref:
    file: File
    qualname: str

    @property
    def old(self) -> pyast.Function:
        assert self.file.old is not None  # an old ref is only made from an old side
        return self.file.old.functions[self.qualname]

    @property
    def new(self) -> pyast.Function:
        assert self.file.new is not None  # a new ref is only made from a new side
        return self.file.new.functions[self.qualname]


def is_test_change(change: FileChange) -> bool:
    return is_test_path(change.path) or (
        change.old_path is not None and is_test_path(change.old_path)
    )


def is_test(qualname: str) -> bool:
    """A test_* function at module level or in a class (also a class built inside a factory
    function); not a function nested in another function."""
    parts = qualname.split(".")
    return parts[-1].startswith("test") and (len(parts) == 1 or parts[-2] != "<locals>")


def load(change: FileChange) -> File | Skipped:
    sides: list[Side | None] = []
    for label, text, absent in (
        ("old", change.old_text, change.status == "added"),
        ("new", change.new_text, change.status == "deleted"),
    ):
        if text is None:
            if not absent:
                return _skip(change, f"the {label} text is unavailable (binary or not UTF-8)")
            sides.append(None)
            continue
        if len(text) > MAX_CHARS:
            return _skip(change, f"the {label} text is larger than {MAX_CHARS} characters")
        side = _side(text)
        if isinstance(side, str):
            return _skip(change, f"the {label} text {side}")
        sides.append(side)
    return File(change, sides[0], sides[1])


def _skip(change: FileChange, reason: str) -> Skipped:
    return Skipped(change.path, reason, Topic.TEST_WEAKENING)


def _side(text: str) -> Side | str:
    """The parsed side, or the reason it does not parse."""
    with warnings.catch_warnings():
        # Warnings about the reviewed code (invalid escapes) are not ours to raise.
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            tree = pyast.parse(text)
        except SyntaxError as exc:
            return f"has a syntax error at line {exc.lineno}: {exc.msg}"
        except ValueError as exc:
            return f"cannot be parsed as Python: {exc}"
    return Side(text, tree, pyast.functions(tree))


def _classes(node: ast.AST, prefix: str = "") -> Iterator[str]:
    """Qualified class names, spelled like `pyast.functions` spells its owners. Only
    statement lists are visited: a class cannot hide inside an expression."""
    for field_name in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, field_name, None) or ():
            if isinstance(child, ast.ClassDef):
                yield prefix + child.name
                yield from _classes(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from _classes(child, f"{prefix}{child.name}.<locals>.")
            elif isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
                yield from _classes(child, prefix)


def same_function(old_ref: Ref, new_ref: Ref) -> bool:
    return old_ref.file is new_ref.file and old_ref.qualname == new_ref.qualname


def untouched(file: File, ref: Ref) -> bool:
    """The diff neither added nor removed a line of this function (fast path for big files)."""
    change, old, new = file.change, ref.old, ref.new
    if change.touches(new.start_line, new.end_line):
        return False
    return not any(line in change.removed_lines for line in range(old.start_line, old.end_line + 1))


def bare(ref: Ref) -> str:
    return ref.qualname.split(".")[-1]


@dataclass(frozen=True, slots=True)
class Reporter:
    """Builds findings for one new-side function of one file."""

    file: File
    name: str
    whole: tuple[int, int]  # the new-side lines of the whole function or scope
    symbol: str | None = None  # the function the finding is in ("Class.test_x")

    def at(
        self,
        rule: str,
        node: ast.AST | None,
        claim: str,
        old_evidence: str | None,
        *,
        deprecated: str | None = None,
        rewritten: bool = False,
    ) -> Finding:
        """A finding of `rule`. Minor, medium confidence, about a check of something the
        change deprecates (the behaviour is on its way out, and projects differ on testing
        it meanwhile), or removed from a test the change also gave new checks (a rewrite
        whose equivalence the critic could not establish)."""
        start, end = pyast.span(node) if node else self.whole
        if deprecated is not None:
            claim += f" (the change deprecates `{deprecated}`)"
        lower = deprecated is not None or rewritten
        return INFO[rule].finding(
            path=self.file.change.path,
            lines=(start, end),
            claim=f"{self.name}: {claim}",
            evidence=self.file.change.new_lines(start, end),
            old_evidence=old_evidence,
            symbol=self.symbol,
            severity=Severity.MINOR if lower else None,
            confidence=Confidence.MEDIUM if lower else None,
        )


def old_lines_of(old_side: Side, node: ast.AST) -> str:
    start, end = pyast.span(node)
    return "\n".join(old_side.text.splitlines()[start - 1 : end])


def parse_or_none(text: str | None) -> ast.Module | None:
    if text is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return pyast.parse(text)
    # contend: allow silent-fallback -- a file that does not parse defines nothing we can see
    except (SyntaxError, ValueError):
        return None
