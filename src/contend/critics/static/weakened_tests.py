"""The `test-weakening` topic for Python test files: what the change took out of its tests.

Diff-aware: only test files (`base.is_test_path`) and only what the change introduced. Each
function of the old and the new version is paired — by qualified name, then (for tests) by
bare name (a test moved into or out of a class, or to another changed file), identical body
(a rename), a similar body, or the same checks with its locals renamed — and the pair is
compared assertion by assertion with the model of `weakened_tests_rules` (equivalent
spellings match: `assertEqual(a, True)` / `assertTrue(a)`, unittest / plain `assert`,
reformatting, messages, `eq = self.assertEqual` aliases, a local renamed consistently, an
exception expected by `try/except` + fail, `pytest.raises(match=)` or `assertRaisesRegex`).
Functions the diff did not touch are not compared at all (big test files stay fast).

Before a check is called removed, or an unpaired old test deleted, `weakened_tests_coverage`
asks whether what it checked is still checked: as a case of a parametrized test or a loop
(merged, split, converted), through a local inlined or extracted, by a test moved to another
changed file or kept as a duplicate, or ported from a function the change removed. A test of
a function or class the change removed is not reported when it goes too.

Rules (rule id: what it catches — severity; the catalogue is weakened_tests_catalogue.py):
    assertion-removed           an assertion of a test that still exists is gone — major
    assertions-reduced-to-zero  a test that asserted now asserts nothing — major
    assertion-weakened          a check replaced by a weaker one (== -> in / truthy / not None,
                                mock called_with -> called, message match dropped) — major
    tolerance-widened           almostEqual places / delta, approx rel / abs, isclose — major
    expected-exception-widened  raises(ValueError) -> raises(Exception) / a wider tuple, and
                                warns(DeprecationWarning) -> warns(Warning) — major
    assertion-swallowed         an assertion put under except AssertionError / a broad except
                                that does not re-raise, or suppress(...) — major
    unit-under-test-mocked      a new patch of a function the test itself calls, when the test
                                is named after it, it lives in the module under test, or the
                                test asserts on what that call returns — minor
    test-deleted                a test function gone and its checks made nowhere else (a
                                deleted test file: each of its tests, at line 1) — major
    test-class-deleted          a test class gone with its tests — major
    parametrize-cases-removed   a @pytest.mark.parametrize list has fewer cases — major
    skip-without-issue          skip / skipif / xfail / skipTest / pytest.skip added with no
                                issue reference (#123, GH-123, ABC-123, an /issues/ or /pull/
                                URL); in a brand-new test only a blanket skip counts — minor

A skip conditioned on the platform, the Python version or an optional feature
(skipif(sys.platform == ...), skipUnless(HAVE_X), `if not hasattr(os, "fork"): skipTest`,
skipTest under `except ImportError`) states portability and is not reported; the condition
is judged, not matched by its text, so `skipif(sys.version_info >= (3,))` or `... or True`
(always true) and a condition on CI variables are skips like any other.

A blocking rule weakens a check that guarded correctness; patching the unit under test is a
reading of intent (minor, medium confidence), and a skip without a reference hides a test
but says so (minor). Locations are on the new side: the weakened assertion's lines, or the
whole new test when something was removed from it; for a deleted test, the new-side line
where it used to be, with its code as the old evidence.
"""

from __future__ import annotations

import ast
import difflib
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from contend.critics.static import pyast
from contend.critics.static import weakened_tests_catalogue as wc
from contend.critics.static import weakened_tests_compare as cmp
from contend.critics.static import weakened_tests_coverage as cov
from contend.critics.static import weakened_tests_elsewhere as elsewhere
from contend.critics.static import weakened_tests_markers as mk
from contend.critics.static import weakened_tests_moot as moot
from contend.critics.static import weakened_tests_rules as r
from contend.critics.static.base import (
    Confidence,
    FileChange,
    Finding,
    Language,
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
RULES = wc.RULES
_INFO = {info.rule: info for info in RULES}

MAX_CHARS = 2_000_000
_SIMILAR = 0.5


@dataclass(slots=True)
class _Side:
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
                    if not _is_test(qualname):
                        self._by_name.setdefault(qualname.split(".")[-1], []).append(fn)
            candidates = self._by_name.get(name, [])
            self._helpers[name] = any(r.has_checks(fn.node.body) for fn in candidates)
        return self._helpers[name]


@dataclass(slots=True)
class _File:
    change: FileChange
    old: _Side | None
    new: _Side | None
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
class _Ref:
    file: _File
    qualname: str

    @property
    def old(self) -> pyast.Function:
        assert self.file.old is not None  # an old ref is only made from an old side
        return self.file.old.functions[self.qualname]

    @property
    def new(self) -> pyast.Function:
        assert self.file.new is not None  # a new ref is only made from a new side
        return self.file.new.functions[self.qualname]


class WeakenedTestsCritic:
    topic: Topic = Topic.TEST_WEAKENING
    languages: frozenset[Language] = frozenset({"python"})

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        files: list[_File] = []
        for change in changes:
            if change.language != "python" or not _is_test_change(change):
                continue
            loaded = _load(change)
            if isinstance(loaded, Skipped):
                yield loaded
            else:
                files.append(loaded)
        context = _Context([c for c in changes if c.language == "python"], files)
        pairs, deleted, added = _pair(files)
        context.rewritten = bool(added) or any(_gained_checks(o, n) for o, n in pairs)
        for old_ref, new_ref in pairs:
            yield from _compare(old_ref, new_ref, context)
        for new_ref in added:
            yield from _compare(None, new_ref, context)
        yield from _deletions(deleted, context)
        for file in files:
            yield from _scope_skips(file)


CRITIC = WeakenedTestsCritic()


def _is_test_change(change: FileChange) -> bool:
    return is_test_path(change.path) or (
        change.old_path is not None and is_test_path(change.old_path)
    )


def _is_test(qualname: str) -> bool:
    """A test_* function at module level or in a class (also a class built inside a factory
    function); not a function nested in another function."""
    parts = qualname.split(".")
    return parts[-1].startswith("test") and (len(parts) == 1 or parts[-2] != "<locals>")


# --------------------------------------------------------------------------- loading


def _load(change: FileChange) -> _File | Skipped:
    sides: list[_Side | None] = []
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
    return _File(change, sides[0], sides[1])


def _skip(change: FileChange, reason: str) -> Skipped:
    return Skipped(change.path, reason, Topic.TEST_WEAKENING)


def _side(text: str) -> _Side | str:
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
    return _Side(text, tree, pyast.functions(tree))


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


# --------------------------------------------------------------------------- pairing


def _pair(files: list[_File]) -> tuple[list[tuple[_Ref, _Ref]], list[_Ref], list[_Ref]]:
    """(old/new pairs, old tests without a partner, new tests without a partner)."""
    pairs: list[tuple[_Ref, _Ref]] = []
    old_left: list[_Ref] = []
    new_left: list[_Ref] = []
    for file in files:
        old_fns = file.old.functions if file.old else {}
        new_fns = file.new.functions if file.new else {}
        pairs.extend((_Ref(file, q), _Ref(file, q)) for q in old_fns if q in new_fns)
        old_left.extend(_Ref(file, q) for q in old_fns if q not in new_fns and _is_test(q))
        new_left.extend(_Ref(file, q) for q in new_fns if q not in old_fns and _is_test(q))
    bodies: dict[tuple[int, str, str], tuple[str, ...]] = {}

    def body(ref: _Ref, side: str) -> tuple[str, ...]:
        key = (id(ref.file), side, ref.qualname)
        if key not in bodies:
            bodies[key] = _body(ref.new if side == "new" else ref.old)
        return bodies[key]

    def similarity(o: _Ref, n: _Ref) -> float:
        return _similarity(body(o, "old"), body(n, "new"))

    checks: dict[tuple[int, str, str], Counter[str]] = {}

    def alpha(ref: _Ref, side: str) -> Counter[str]:
        key = (id(ref.file), side, ref.qualname)
        if key not in checks:
            fn, owner = (ref.new, ref.file.new) if side == "new" else (ref.old, ref.file.old)
            assert owner is not None  # refs of a side come from that side
            checks[key] = Counter(r.alpha_keys(fn.node, owner.is_helper))
        return checks[key]

    def same_checks(o: _Ref, n: _Ref) -> float:
        """A renamed and rewritten test that makes the old test's checks, its locals renamed
        (only checks that name a call or an attribute: `x == 1` alone says too little)."""
        before = alpha(o, "old")
        if not any("Call(" in k or "Attribute(" in k for k in before):
            return 0.0
        return float(not before - alpha(n, "new"))

    stages: list[Callable[[_Ref, _Ref], float]] = [
        lambda o, n: float(o.file is n.file and _bare(o) == _bare(n)),
        lambda o, n: float(o.file is n.file and body(o, "old") == body(n, "new")),
        lambda o, n: float(_bare(o) == _bare(n) and similarity(o, n) >= _SIMILAR),
        lambda o, n: float(body(o, "old") == body(n, "new")),
        lambda o, n: similarity(o, n) if o.file is n.file else 0.0,
        lambda o, n: same_checks(o, n) if o.file is n.file else 0.0,
        same_checks,
        lambda o, n: float(o.file is n.file and _renamed(_bare(o), _bare(n))),
    ]
    for score in stages:
        for old_ref in list(old_left):
            scored = [(score(old_ref, n), -i) for i, n in enumerate(new_left)]
            best, first = max(scored, default=(0.0, 0))  # ties: the earliest new test
            if best >= _SIMILAR:
                pairs.append((old_ref, new_left.pop(-first)))
                old_left.remove(old_ref)
    return pairs, old_left, new_left


def _renamed(old: str, new: str) -> bool:
    """`test_x` -> `test_x_raises_key_error`, `test_dump_returns_a_result` ->
    `test_dump_returns_a_dict`: most of the old name kept as the start of the new one."""
    shared = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
    if shared is None:
        shared = min(len(old), len(new))
    return shared >= max(10, int(0.6 * len(old)))


def _bare(ref: _Ref) -> str:
    return ref.qualname.split(".")[-1]


def _body(fn: pyast.Function) -> tuple[str, ...]:
    """The statements of a function without its docstring, in canonical form."""
    body = fn.node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return tuple(r.canon(statement) for statement in body)


def _similarity(old_body: tuple[str, ...], new_body: tuple[str, ...]) -> float:
    if not old_body or not new_body:
        return 0.0
    matcher = difflib.SequenceMatcher(a=old_body, b=new_body, autojunk=False)
    if matcher.real_quick_ratio() < _SIMILAR or matcher.quick_ratio() < _SIMILAR:
        return 0.0
    return matcher.ratio()


# --------------------------------------------------------------------------- comparing


def _compare(old_ref: _Ref | None, new_ref: _Ref, context: _Context) -> Iterator[Finding]:
    new_fn = new_ref.new
    new_side = new_ref.file.new
    assert new_side is not None  # new refs come from new sides
    name = new_ref.qualname
    if old_ref is not None and old_ref.qualname != name:
        name = f"{name} (was {old_ref.qualname})"
    report = _Reporter(
        new_ref.file,
        name,
        (new_fn.start_line, new_fn.end_line),
        pyast.symbol_of(new_ref.qualname),
    )
    old_fn = old_ref.old if old_ref else None
    old_side = old_ref.file.old if old_ref else None
    if old_ref is not None and _same(old_ref, new_ref) and _untouched(new_ref.file, old_ref):
        return
    if old_fn is not None and old_side is not None:
        yield from _compare_checks(report, (old_fn, old_side), (new_fn, new_side), context)
        yield from _fewer_cases(report, old_fn, old_side, new_fn, context.rewritten)
    yield from _new_skips(report, old_fn, new_fn)
    yield from _new_swallows(report, old_fn, old_side, new_fn, new_side)
    if _is_test(new_ref.qualname):
        yield from _new_unit_mocks(report, old_fn, new_ref)


def _same(old_ref: _Ref, new_ref: _Ref) -> bool:
    return old_ref.file is new_ref.file and old_ref.qualname == new_ref.qualname


def _untouched(file: _File, ref: _Ref) -> bool:
    """The diff neither added nor removed a line of this function (fast path for big files)."""
    change, old, new = file.change, ref.old, ref.new
    if change.touches(new.start_line, new.end_line):
        return False
    return not any(line in change.removed_lines for line in range(old.start_line, old.end_line + 1))


@dataclass(frozen=True, slots=True)
class _Reporter:
    """Builds findings for one new-side function of one file."""

    file: _File
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
        return _INFO[rule].finding(
            path=self.file.change.path,
            lines=(start, end),
            claim=f"{self.name}: {claim}",
            evidence=self.file.change.new_lines(start, end),
            old_evidence=old_evidence,
            symbol=self.symbol,
            severity=Severity.MINOR if lower else None,
            confidence=Confidence.MEDIUM if lower else None,
        )


def _old_text(old_side: _Side, node: ast.AST) -> str:
    start, end = pyast.span(node)
    return "\n".join(old_side.text.splitlines()[start - 1 : end])


def _compare_checks(
    report: _Reporter,
    old: tuple[pyast.Function, _Side],
    new: tuple[pyast.Function, _Side],
    context: _Context,
) -> Iterator[Finding]:
    (old_fn, old_side), (new_fn, new_side) = old, new
    old_checks = r.checks_in(old_fn.node.body, old_side.is_helper)
    new_checks = r.checks_in(new_fn.node.body, new_side.is_helper)
    mooted: set[int] = set()
    if any(c.counts for c in old_checks) and not any(c.counts for c in new_checks):
        mooted = _moot(old_fn, new_fn, old_checks, new_checks, context)
    old_count = sum(c.counts for c in old_checks if id(c) not in mooted)
    if old_count and not any(c.counts for c in new_checks):
        listed = "; ".join(dict.fromkeys(r.short(c.node, 80) for c in old_checks if c.counts))
        yield report.at(
            RULE_TO_ZERO,
            None,
            f"had {old_count} assertion(s) ({listed}) and now asserts nothing",
            _old_text(old_side, old_fn.node),
        )
        return
    unmatched_new: dict[str, list[r.Check]] = {}
    for check in new_checks:
        unmatched_new.setdefault(check.key, []).append(check)
    leftover_old = []
    for check in old_checks:
        same = unmatched_new.get(check.key)
        if same:
            same.pop(0)
        else:
            leftover_old.append(check)
    leftover_new = [c for group in unmatched_new.values() for c in group]
    if leftover_old and leftover_new:
        leftover_old, leftover_new = _match_renamed(
            (old_fn, old_side, old_checks, leftover_old),
            (new_fn, new_side, new_checks, leftover_new),
        )
    if leftover_old and leftover_new:
        leftover_old, leftover_new = _match_by_keys(
            cov.reaching_keys(old_fn.node, old_side.is_helper),
            cov.reaching_keys(new_fn.node, new_side.is_helper),
            (old_checks, leftover_old),
            (new_checks, leftover_new),
        )
    if leftover_old:
        mooted = mooted or _moot(old_fn, new_fn, old_checks, new_checks, context)
        leftover_old = [c for c in leftover_old if id(c) not in mooted]
    if leftover_old:
        # Still checked in another shape: as a case of a parametrized version, through a
        # local inlined or extracted, ported from a removed helper.
        needs = old_side.requirements(old_fn)
        coverage = cov.Coverage(removed=context.removed | context.behaviour.deprecated)
        coverage.add(new_side.profile(new_fn))
        index = {id(check): i for i, check in enumerate(old_checks)}
        # A check the new version still makes as written was matched one for one above:
        # a leftover copy of it is a repeated check that was dropped, not a moved one.
        plain = {check.key for check in new_checks}
        leftover_old = [
            c for c in leftover_old if c.key in plain or not _covered(coverage, needs, index[id(c)])
        ]
    if leftover_old:
        # Moved to another test: the change added the same check to a test of its test files.
        repeated = {id(c) for c in leftover_old if c.key in {n.key for n in new_checks}}
        moved = context.moved_elsewhere(old_fn, old_side, old_checks, repeated)
        leftover_old = [c for c in leftover_old if id(c) not in moved]
    deprecated = context.behaviour.deprecated if leftover_old else frozenset()
    # New checks left unmatched: the test was rewritten, not only trimmed.
    rewritten = any(c.counts for c in leftover_new)
    for gone in leftover_old:
        candidates = [(cmp.affinity(gone, check), -i) for i, check in enumerate(leftover_new)]
        best, first = max(candidates, default=(0, 0))  # ties: the earliest new check
        old_text = _old_text(old_side, gone.node)
        on_the_way_out = cov.mentions(gone.node, deprecated)
        if best == 0:
            if gone.counts:
                kind = "test" if _is_test(new_fn.qualname) else "function"
                claim = f"the assertion `{r.short(gone.node)}` was removed; the {kind} still exists"
                if rewritten and on_the_way_out is None:
                    claim += (
                        " (it gained other checks, which may replace this one in a way the "
                        "critic could not match)"
                    )
                yield report.at(
                    RULE_REMOVED,
                    None,
                    claim,
                    old_text,
                    deprecated=on_the_way_out,
                    rewritten=rewritten,
                )
            continue
        replacement = leftover_new.pop(-first)
        weaker = cmp.weakening(gone, replacement)
        if weaker is not None:
            rule, what = weaker
            claim = f"`{r.short(gone.node)}` became `{r.short(replacement.node)}` ({what})"
            yield report.at(rule, replacement.node, claim, old_text, deprecated=on_the_way_out)


def _moot(
    old_fn: pyast.Function,
    new_fn: pyast.Function,
    old_checks: list[r.Check],
    new_checks: list[r.Check],
    context: _Context,
) -> set[int]:
    """Ids of old checks the change made moot (see weakened_tests_moot)."""
    dropped = moot.dropped_results(old_fn.node, new_fn.node)
    found = {
        id(c)
        for c in old_checks
        if moot.gone_with_the_api(c, context.behaviour) or cov.mentions(c.node, dropped)
    }
    rejected = moot.now_rejected(old_fn.node, new_fn.node, old_checks, new_checks)
    if rejected is not None:
        found.update(
            id(c) for c in old_checks if c.family == "value" and pyast.span(c.node)[0] >= rejected
        )
    raised = moot.raises_added(old_fn.node, new_fn.node)
    fails = [c for c in old_checks if c.op == "fail" and id(c) not in found]
    found.update(id(c) for c in fails[:raised])
    return found


def _covered(coverage: cov.Coverage, needs: list[cov.Requirement | None], index: int) -> bool:
    need = needs[index]
    return need is None or coverage.covers(need)


_Checks = tuple[pyast.Function, _Side, list[r.Check], list[r.Check]]


def _match_by_keys(
    old_keys: list[str],
    new_keys: list[str],
    old: tuple[list[r.Check], list[r.Check]],
    new: tuple[list[r.Check], list[r.Check]],
) -> tuple[list[r.Check], list[r.Check]]:
    """Leftover checks that match by other keys (aligned with all checks of their side)."""
    keys = {id(c): k for c, k in zip(old[0], old_keys, strict=True)}
    keys.update((id(c), k) for c, k in zip(new[0], new_keys, strict=True))
    pool: dict[str, list[r.Check]] = {}
    for check in new[1]:
        pool.setdefault(keys[id(check)], []).append(check)
    still_old = []
    for check in old[1]:
        same = pool.get(keys[id(check)])
        if same:
            same.pop(0)
        else:
            still_old.append(check)
    return still_old, [c for group in pool.values() for c in group]


def _match_renamed(old: _Checks, new: _Checks) -> tuple[list[r.Check], list[r.Check]]:
    """Leftover checks that match once local variables are renamed consistently (a renamed
    local is not a changed assertion)."""
    keys: dict[int, str] = {}
    for fn, side, checks, _ in (old, new):
        alpha = r.alpha_keys(fn.node, side.is_helper)
        keys.update((id(check), key) for check, key in zip(checks, alpha, strict=True))
    pool: dict[str, list[r.Check]] = {}
    for check in new[3]:
        pool.setdefault(keys[id(check)], []).append(check)
    still_old = []
    for check in old[3]:
        same = pool.get(keys[id(check)])
        if same:
            same.pop(0)
        else:
            still_old.append(check)
    return still_old, [c for group in pool.values() for c in group]


def _fewer_cases(
    report: _Reporter,
    old_fn: pyast.Function,
    old_side: _Side,
    new_fn: pyast.Function,
    rewritten: bool,
) -> Iterator[Finding]:
    """A parametrize list that lost cases (changing a case keeps the count: not reported).
    Minor when the change also adds tests or checks: the cases may have moved there."""
    after = cmp.parametrized_cases(new_fn.node)
    for names, (old_decorator, old_cases) in cmp.parametrized_cases(old_fn.node).items():
        if names not in after:
            continue
        decorator, new_cases = after[names]
        if len(new_cases) >= len(old_cases):
            continue
        gone = Counter(old_cases) - Counter(new_cases)
        shown = [c for c in _case_texts(old_decorator) if r.canon(c) in gone]
        claim = f"parametrize lost {len(old_cases) - len(new_cases)} case(s): " + ", ".join(
            r.short(c, 60) for c in shown
        )
        if rewritten:
            claim += " (the change adds tests or checks that may now cover them)"
        yield report.at(
            RULE_CASES, decorator, claim, _old_text(old_side, old_decorator), rewritten=rewritten
        )


def _case_texts(decorator: ast.expr) -> list[ast.expr]:
    assert isinstance(decorator, ast.Call)  # parametrized_cases only returns calls
    values = decorator.args[1]
    return list(values.elts) if isinstance(values, ast.List | ast.Tuple) else []


def _skip_keys(fn: pyast.Function | None) -> Counter[str]:
    return Counter(_skip_key(m) for m in _skips_of(fn)) if fn else Counter()


def _skip_key(marker: ast.AST) -> str:
    """A skip marker by what it skips and when, not by its reason's wording: a reason
    reworded (or requoted by a sweep) leaves the same skip, not a new one. String conditions
    (`skipif("sys.platform == 'win32'")`) are conditions, not reasons, and stay."""
    call = marker.value if isinstance(marker, ast.Expr) else marker
    if not isinstance(call, ast.Call):
        return r.canon(marker)
    condition_first = (r.dotted(call.func) or "").split(".")[-1] in ("skipif", "xfail")
    args = [
        a
        for i, a in enumerate(call.args)
        if not (isinstance(a, ast.Constant) and isinstance(a.value, str))
        or (i == 0 and condition_first)
    ]
    keywords = [k for k in call.keywords if k.arg not in ("reason", "msg")]
    return r.canon(ast.Call(func=call.func, args=args, keywords=keywords))


def _skips_of(fn: pyast.Function, *, unconditional_only: bool = False) -> list[ast.AST]:
    """Skip markers of a function: its decorators and the skips in its body (only those
    that are statements of the body itself, when `unconditional_only`)."""
    markers: list[ast.AST] = [m for d in fn.node.decorator_list for m in mk.skip_markers(d)]
    body = mk.body_skips(fn.node.body)
    if unconditional_only:
        top = {id(s) for s in fn.node.body} | {
            id(s.value) for s in fn.node.body if isinstance(s, ast.Expr)
        }
        body = [skip for skip in body if id(skip) in top]
    return markers + body


def _new_skips(
    report: _Reporter, old_fn: pyast.Function | None, new_fn: pyast.Function
) -> Iterator[Finding]:
    """Skips the change added. In a brand-new test only a blanket skip counts: a skip under a
    runtime condition there is a guard the test was written with, not a test switched off."""
    before = _skip_keys(old_fn)
    for marker in _skips_of(new_fn, unconditional_only=old_fn is None):
        if old_fn is None and mk.is_conditional(marker):
            continue
        key = _skip_key(marker)
        if before[key]:
            before[key] -= 1
            continue
        finding = _skip_finding(report, marker, "")
        if finding is not None:
            yield finding


def _skip_finding(report: _Reporter, marker: ast.AST, scope: str) -> Finding | None:
    start, end = pyast.span(marker)
    if mk.has_issue_reference(report.file.change.new_lines(start, end)):
        return None
    kind = mk.skip_kind(marker)
    claim = f"{scope}{kind} added without an issue reference in its reason: `{r.short(marker)}`"
    return report.at(RULE_SKIP, marker, claim, None)


def _new_swallows(
    report: _Reporter,
    old_fn: pyast.Function | None,
    old_side: _Side | None,
    new_fn: pyast.Function,
    new_side: _Side,
) -> Iterator[Finding]:
    before: Counter[str] = Counter()
    old_plain: dict[str, r.Check] = {}
    if old_fn is not None and old_side is not None:
        swallowed = r.swallowed_checks(old_fn.node.body, old_side.is_helper)
        before.update(f"{label}|{check.key}" for _, label, check in swallowed)
        old_plain = {c.key: c for c in r.checks_in(old_fn.node.body, old_side.is_helper)}
    blocks: dict[int, tuple[ast.AST, str, list[r.Check]]] = {}
    for block, label, check in r.swallowed_checks(new_fn.node.body, new_side.is_helper):
        key = f"{label}|{check.key}"
        if before[key]:
            before[key] -= 1
            continue
        blocks.setdefault(id(block), (block, label, []))[2].append(check)
    for block, label, checks in blocks.values():
        asserted = ", ".join(f"`{r.short(c.node, 80)}`" for c in checks)
        claim = f"{asserted} now sits under {label}, which swallows the failure"
        olds = [old_plain[c.key] for c in checks if c.key in old_plain]
        old_evidence = None
        if olds and old_side is not None:
            old_evidence = "\n".join(_old_text(old_side, c.node) for c in olds)
        yield report.at(RULE_SWALLOWED, block, claim, old_evidence)


def _new_unit_mocks(
    report: _Reporter, old_fn: pyast.Function | None, new_ref: _Ref
) -> Iterator[Finding]:
    before = {p.target for p in mk.patches(old_fn.node)} if old_fn else set()
    called = mk.called_names(new_ref.new.node)
    module = _module_under_test(new_ref.file.change.path)
    tree = new_ref.file.new.tree if new_ref.file.new else None
    imported, modules = _imports(tree) if tree is not None else ({}, {})
    for patch in mk.patches(new_ref.new.node):
        if patch.target in before or patch.name not in called:
            continue
        source = imported.get(patch.name)
        patched = _real_module(patch, modules)
        if source is not None and patched is not None and source != patched:
            continue  # patches `os.scandir`, calls the `scandir` of another module
        named = len(patch.name) >= 3 and _norm(patch.name) in _norm(new_ref.qualname)
        in_module = module is not None and patch.module.split(".")[-1] == module
        side = new_ref.file.new
        asserted = (
            not named
            and not in_module
            and side is not None
            and mk.result_is_asserted(new_ref.new.node, patch.name, side.is_helper)
        )
        if named or in_module or asserted:
            why = (
                "the test is named after it"
                if named
                else f"it lives in `{module}`"
                if in_module
                else "the test asserts on what it returns"
            )
            claim = (
                f"patches `{patch.target}` and then calls `{patch.name}` itself, so it tests "
                f"the mock instead of the unit ({why})"
            )
            yield report.at(RULE_MOCKED_UNIT, patch.node, claim, None)


def _imports(tree: ast.Module) -> tuple[dict[str, str], dict[str, str]]:
    """(names imported `from m import name` -> last part of m, module aliases bound by
    `import a.b as c` / `import os` -> last part of the module)."""
    names: dict[str, str] = {}
    modules: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module:
            for alias in stmt.names:
                names[alias.asname or alias.name] = stmt.module.split(".")[-1]
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                bound = alias.asname or alias.name.split(".")[0]
                modules[bound] = alias.name.split(".")[-1] if alias.asname else bound
    return names, modules


def _real_module(patch: mk.Patch, modules: dict[str, str]) -> str | None:
    """The last part of the module a patch replaces a function in, when it is known: a
    string target names it; `patch.object(m, ...)` only when `m` is an imported module."""
    if not patch.module:
        return None
    if isinstance(patch.node, ast.Call) and patch.node.args:
        first = patch.node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return patch.module.split(".")[-1]
    return modules.get(patch.module.split(".")[0]) if "." not in patch.module else None


def _norm(name: str) -> str:
    return name.lower().replace("_", "")


def _module_under_test(path: str) -> str | None:
    stem = PurePosixPath(path.replace("\\", "/")).stem
    if stem.startswith("test_"):
        return stem[len("test_") :] or None
    if stem.endswith("_test"):
        return stem[: -len("_test")] or None
    return None


# --------------------------------------------------------------------------- deletions


@dataclass(slots=True)
class _Context:
    """What the whole change set tells about one test: the functions and classes the change
    removed (from every changed Python file, tests or not), and everything the new side of
    the changed test files checks — computed only when a deletion asks."""

    changes: Sequence[FileChange]
    files: list[_File]
    _removed: frozenset[str] | None = None
    _coverage: cov.Coverage | None = None
    _behaviour: cov.Removed | None = None
    _added: frozenset[str] | None = None
    # The change also adds tests or checks: a deletion may be a rewrite whose equivalence
    # the critic could not establish.
    rewritten: bool = False

    @property
    def removed(self) -> frozenset[str]:
        if self._removed is None:
            trees = [(_tree(c.old_text), _tree(c.new_text)) for c in self.changes]
            self._removed = cov.removed_names(trees)
        return self._removed

    @property
    def behaviour(self) -> cov.Removed:
        """What the change removed from the code under test (its non-test files)."""
        if self._behaviour is None:
            sources = [
                (c.old_path or c.path, c.old_text, c.new_text)
                for c in self.changes
                if not _is_test_change(c)
            ]
            self._behaviour = cov.removed_behaviour(sources, _tree)
        return self._behaviour

    @property
    def coverage(self) -> cov.Coverage:
        if self._coverage is None:
            found = cov.Coverage(removed=self.removed)
            for file in self.files:
                if file.new is None:
                    continue
                for qualname, fn in file.new.functions.items():
                    if _is_test(qualname):
                        found.add(file.new.profile(fn))
            self._coverage = found
        return self._coverage

    @property
    def added_checks(self) -> frozenset[str]:
        """The keys of every check the change added to a test of its test files (see
        weakened_tests_elsewhere): where an assertion gone from one test may have moved."""
        if self._added is None:
            versions: list[tuple[elsewhere.Version, elsewhere.Version | None]] = []
            for file in self.files:
                new, old = file.new, file.old
                if new is None:
                    continue
                for qualname, fn in new.functions.items():
                    before = old.functions.get(qualname) if old is not None else None
                    if not _is_test(qualname):
                        continue
                    if before is not None and _untouched(file, _Ref(file, qualname)):
                        continue
                    versions.append(
                        (
                            (fn.node, new.constants, new.is_helper),
                            (before.node, old.constants, old.is_helper)
                            if before is not None and old is not None
                            else None,
                        )
                    )
            self._added = elsewhere.added(versions)
        return self._added

    def moved_elsewhere(
        self, fn: pyast.Function, side: _Side, checks: list[r.Check], keep: set[int]
    ) -> set[int]:
        """Ids of the `checks` of an old test (`fn` of `side`, in the order of `checks_in`)
        the change added to some test of its test files, leaving out those in `keep`."""
        wanted = self.added_checks
        known = [k for _, k in elsewhere.check_keys(fn.node, side.is_helper)]
        return {
            id(check)
            for check, keys in zip(checks, known, strict=True)
            if id(check) not in keep and keys & wanted
        }

    def still_checked(self, ref: _Ref) -> bool:
        """Is what this deleted test checked still checked: it tested a unit the change
        removed, or every check it made (under each of its cases) is made by a test of
        the new side — merged into a parametrized test, moved, renamed or duplicated?"""
        old = ref.file.old
        assert old is not None  # deleted refs come from old sides
        fn = ref.old.node
        if cov.tests_removed_behaviour(fn, self.behaviour, old.tree):
            return True
        if self.coverage.covers_test(old.demand(ref.old)):
            return True
        # Its checks were split over, or moved to, other tests the change added or extended.
        checks = r.checks_in(fn.body, old.is_helper)
        counting = {id(c) for c in checks if c.counts}
        return bool(counting) and counting <= self.moved_elsewhere(ref.old, old, checks, set())


def _tree(text: str | None) -> ast.Module | None:
    if text is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return pyast.parse(text)
    # contend: allow silent-fallback -- a file that does not parse defines nothing we can see
    except (SyntaxError, ValueError):
        return None


def _deletions(deleted: list[_Ref], context: _Context) -> Iterator[Finding]:
    by_class: dict[tuple[int, str], list[_Ref]] = {}
    for ref in deleted:
        if context.still_checked(ref):
            continue
        owner = ref.qualname.rpartition(".")[0]
        gone = ref.file.new is not None and owner and owner not in ref.file.new.classes
        if gone:
            by_class.setdefault((id(ref.file), owner), []).append(ref)
        else:
            yield _deleted_test(ref, context)
    for (_, owner), refs in by_class.items():
        uses = [cov.deprecated_use(ref.old.node, context.behaviour) for ref in refs]
        deprecated = uses[0] if None not in uses else None
        yield _deleted_class(owner, refs, context.rewritten, deprecated)


def _gained_checks(old_ref: _Ref, new_ref: _Ref) -> bool:
    if _same(old_ref, new_ref) and _untouched(new_ref.file, old_ref):
        return False
    return _assert_count(new_ref.new.node) > _assert_count(old_ref.old.node)


def _assert_count(fn: pyast.FunctionNode) -> int:
    """A cheap count of assertion-like statements and calls."""
    count = 0
    for node in r.walk(fn.body):
        if isinstance(node, ast.Assert):
            count += 1
        elif isinstance(node, ast.Call):
            name = (r.dotted(node.func) or "").split(".")[-1]
            count += name.startswith("assert") or name in ("raises", "warns")
    return count


def _deleted_test(ref: _Ref, context: _Context) -> Finding:
    fn = ref.old
    deprecated = cov.deprecated_use(fn.node, context.behaviour)
    code = ref.file.change.old_lines(fn.start_line, fn.end_line)
    if ref.file.new is None:
        line = 1
        claim = (
            f"{ref.qualname}: the test was deleted with its file; there is no new side, so "
            "the location is line 1"
        )
    else:
        line = ref.file.new_line_of(fn.start_line)
        claim = (
            f"{ref.qualname}: the test was deleted, and no test of the change checks what it "
            "checked (no renamed, moved, merged or parametrized version found)"
        )
    what = f"deleted test `{ref.qualname}` (old lines {fn.start_line}-{fn.end_line})"
    if deprecated is not None:
        claim += f" (the change deprecates `{deprecated}`)"
    elif context.rewritten:
        claim += (
            "; the change adds tests or checks elsewhere that may replace it, with checks "
            "the critic could not match to its"
        )
    minor = deprecated is not None or context.rewritten
    return _deletion(ref.file, RULE_TEST_DELETED, line, claim, what, code, ref.qualname, minor)


def _deleted_class(
    owner: str, refs: list[_Ref], rewritten: bool, deprecated: str | None = None
) -> Finding:
    file = refs[0].file
    assert file.old is not None  # deleted refs come from old sides
    start = min(ref.old.start_line for ref in refs)
    node = next(
        (
            c
            for c in ast.walk(file.old.tree)
            if isinstance(c, ast.ClassDef)
            and c.lineno <= start <= (c.end_lineno or start)
            and c.name == owner.split(".")[-1]
        ),
        None,
    )
    first, last = pyast.span(node) if node else (start, max(ref.old.end_line for ref in refs))
    names = ", ".join(_bare(ref) for ref in refs)
    claim = f"{owner}: the test class was deleted with {len(refs)} test(s): {names}"
    code = file.change.old_lines(first, last)
    what = f"deleted test class `{owner}` (old lines {first}-{last})"
    line = file.new_line_of(first)
    if deprecated is not None:
        claim += f" (the change deprecates `{deprecated}`, which each of them uses)"
    elif rewritten:
        claim += "; the change adds tests or checks elsewhere that may replace them"
    minor = deprecated is not None or rewritten
    return _deletion(file, RULE_CLASS_DELETED, line, claim, what, code, owner, minor)


def _deletion(
    file: _File,
    rule: str,
    line: int,
    claim: str,
    what: str,
    code: str,
    symbol: str,
    deprecated: bool = False,
) -> Finding:
    """The deleted code is shown once, as deleted: evidence and old side are the same text,
    which the report prints once under "Deleted by the change" (`what` names it in the
    claim's place only when the code is empty)."""
    return _INFO[rule].finding(
        path=file.change.path,
        lines=(line, line),
        claim=claim,
        evidence=code or what,
        old_evidence=code or None,
        symbol=pyast.symbol_of(symbol),
        severity=Severity.MINOR if deprecated else None,
        confidence=Confidence.MEDIUM if deprecated else None,
    )


# --------------------------------------------------------------------------- scope skips


def _scope_markers(tree: ast.Module) -> list[tuple[str, ast.expr]]:
    """(scope, marker) of skips that cover many tests: a module or class `pytestmark`, and
    class decorators."""
    found: list[tuple[str, ast.expr]] = []

    def visit(body: list[ast.stmt], scope: str) -> None:
        for statement in body:
            if isinstance(statement, ast.Assign | ast.AnnAssign):
                targets = (
                    statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                )
                if statement.value is not None and any(
                    isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets
                ):
                    found.extend((scope, m) for m in mk.skip_markers(statement.value))
            elif isinstance(statement, ast.ClassDef):
                name = f"class {statement.name}"
                for decorator in statement.decorator_list:
                    found.extend((name, m) for m in mk.skip_markers(decorator))
                visit(statement.body, name)

    visit(tree.body, "module")
    return found


def _scope_skips(file: _File) -> Iterator[Finding]:
    if file.new is None:
        return
    before = Counter(r.canon(m) for _, m in _scope_markers(file.old.tree)) if file.old else None
    for scope, marker in _scope_markers(file.new.tree):
        key = r.canon(marker)
        if before is not None and before[key]:
            before[key] -= 1
            continue
        report = _Reporter(file, scope, pyast.span(marker))
        finding = _skip_finding(report, marker, "every test in it skipped: ")
        if finding is not None:
            yield finding
