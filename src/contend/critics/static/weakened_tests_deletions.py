"""What the whole change set tells the `test-weakening` critic about one test (`Context`: the
units the change removed or deprecates, what its test files still check, checks it added
elsewhere), and the findings for tests and test classes deleted with nothing left checking
what they checked."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from contend.critics.static import pyast
from contend.critics.static import weakened_tests_coverage as cov
from contend.critics.static import weakened_tests_elsewhere as elsewhere
from contend.critics.static import weakened_tests_moot as moot
from contend.critics.static import weakened_tests_removed as rm
from contend.critics.static import weakened_tests_rules as r
from contend.critics.static import weakened_tests_tables as tables
from contend.critics.static.base import (
    Confidence,
    FileChange,
    Finding,
)
from contend.critics.static.weakened_tests_sides import (
    INFO,
    RULE_CLASS_DELETED,
    RULE_TEST_DELETED,
    File,
    Ref,
    Side,
    bare,
    is_test,
    is_test_change,
    parse_or_none,
    untouched,
)
from contend.protocol.model import Severity


@dataclass(slots=True)
class Context:
    """What the whole change set tells about one test: the functions and classes the change
    removed (from every changed Python file, tests or not), and everything the new side of
    the changed test files checks — computed only when a deletion asks."""

    changes: Sequence[FileChange]
    files: list[File]
    _removed: frozenset[str] | None = None
    _coverage: cov.Coverage | None = None
    _behaviour: rm.Removed | None = None
    _added: frozenset[str] | None = None
    _new_names: list[tuple[str, frozenset[str]]] | None = None
    _tables: list[tables.Table] | None = None
    # The change also adds tests or checks: a deletion may be a rewrite whose equivalence
    # the critic could not establish.
    rewritten: bool = False

    @property
    def removed(self) -> frozenset[str]:
        if self._removed is None:
            trees = [(parse_or_none(c.old_text), parse_or_none(c.new_text)) for c in self.changes]
            self._removed = cov.removed_names(trees)
        return self._removed

    @property
    def behaviour(self) -> rm.Removed:
        """What the change removed from the code under test (its non-test files)."""
        if self._behaviour is None:
            sources = [
                (c.old_path or c.path, c.old_text, c.new_text)
                for c in self.changes
                if not is_test_change(c)
            ]
            self._behaviour = rm.removed_behaviour(sources, parse_or_none)
        return self._behaviour

    @property
    def coverage(self) -> cov.Coverage:
        if self._coverage is None:
            found = cov.Coverage(removed=self.removed)
            for file in self.files:
                if file.new is None:
                    continue
                for qualname, fn in file.new.functions.items():
                    if is_test(qualname):
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
                    if not is_test(qualname):
                        continue
                    if before is not None and untouched(file, Ref(file, qualname)):
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

    @property
    def added_test_names(self) -> list[tuple[str, frozenset[str]]]:
        """(path, the words of its name) of every test the change added (a qualified name its
        file did not have) that checks something: where a deleted test may live on."""
        if self._new_names is None:
            found: list[tuple[str, frozenset[str]]] = []
            for file in self.files:
                if file.new is None:
                    continue
                before = file.old.functions if file.old is not None else {}
                for qualname, fn in file.new.functions.items():
                    if not is_test(qualname) or qualname in before:
                        continue
                    if any(c.counts for c in r.checks_in(fn.node.body, file.new.is_helper)):
                        found.append((file.change.path, _name_words(qualname)))
            self._new_names = found
        return self._new_names

    @property
    def tables(self) -> list[tables.Table]:
        """The parametrized tests of the new side of the changed test files, as tables."""
        if self._tables is None:
            found: list[tables.Table] = []
            for file in self.files:
                if file.new is None:
                    continue
                for qualname, fn in file.new.functions.items():
                    if is_test(qualname):
                        table = tables.table_of(fn.node, file.new.constants, file.new.is_helper)
                        if table is not None:
                            found.append(table)
            self._tables = found
        return self._tables

    def moved_to_another_file(self, ref: Ref) -> bool:
        """The change added a test to ANOTHER of its test files whose name's words are those
        of the deleted test's name or a part of them (`test_lua` for `test_lua_hook`,
        `test_lua_additional_dependencies` for `test_local_lua_additional_dependencies`), or
        the other way round: the test moved there and was rewritten for its new home. Within
        one file the coverage model decides (a merge that lost a case is still a loss)."""
        old = _name_words(ref.qualname)
        here = ref.file.change.path
        return bool(old) and any(
            path != here and new and (new <= old or old <= new)
            for path, new in self.added_test_names
        )

    def renamed_for_a_new_outcome(self, ref: Ref) -> bool:
        """The change added to the same file a test named as the deleted one with one word
        replaced (`test_abort_x` -> `test_warn_x`) that makes the calls the old test expected
        to raise inside a new expectation of a warning or a log record, and every other
        check of the old test — a check of the caught exception only when the new
        expectation names a message: the change turned the rejection into a report, and the
        test was renamed for it (pytest-mock's `mocker` used as a context manager)."""
        old, new = ref.file.old, ref.file.new
        assert old is not None  # deleted refs come from old sides
        if new is None:
            return False
        fn = ref.old.node
        checks = [c for c in r.checks_in(fn.body, old.is_helper) if c.counts]
        if not any(c.family == "raises" for c in checks):
            return False
        words = _name_words(ref.qualname)
        for qualname, candidate in new.functions.items():
            other = _name_words(qualname)
            if qualname in old.functions or not is_test(qualname):
                continue
            if len(words ^ other) != 2 or len(words & other) < 2:
                continue  # not the same name with one word replaced
            made = r.checks_in(candidate.node.body, new.is_helper)
            reported = moot.now_reported(fn, candidate.node, checks, made)
            keys = {c.key for c in made}
            named = any(moot.names_a_message(c) for c in made)
            if reported and all(
                id(c) in reported or c.key in keys or (named and "EXC" in c.key) for c in checks
            ):
                return True
        return False

    def moved_elsewhere(
        self, fn: pyast.Function, side: Side, checks: list[r.Check], keep: set[int]
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

    def still_checked(self, ref: Ref) -> bool:
        """Is what this deleted test checked still checked: it tested a unit the change
        removed, or every check it made (under each of its cases) is made by a test of
        the new side — merged into a parametrized test (or folded into a table of cases of
        the same kind, `weakened_tests_tables`), moved, renamed or duplicated — or
        the change added a test under its name or a part of it to another test file (moved
        and rewritten)?"""
        old = ref.file.old
        assert old is not None  # deleted refs come from old sides
        fn = ref.old.node
        if rm.tests_removed_behaviour(fn, self.behaviour, old.tree):
            return True
        if self.coverage.covers_test(old.demand(ref.old)):
            return True
        if self.tables and tables.folded_into(fn, old.constants, old.is_helper, self.tables):
            return True
        if self.moved_to_another_file(ref) or self.renamed_for_a_new_outcome(ref):
            return True
        # Its checks were split over, or moved to, other tests the change added or extended.
        checks = r.checks_in(fn.body, old.is_helper)
        counting = {id(c) for c in checks if c.counts}
        return bool(counting) and counting <= self.moved_elsewhere(ref.old, old, checks, set())


def _name_words(qualname: str) -> frozenset[str]:
    """The words of a test's own name, but `test`: `test_lua_hook` -> {lua, hook}."""
    name = qualname.split(".")[-1]
    return frozenset(w for w in name.lower().split("_") if w and w != "test")


def deletions(deleted: list[Ref], context: Context) -> Iterator[Finding]:
    by_class: dict[tuple[int, str], list[Ref]] = {}
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
        uses = [rm.deprecated_use(ref.old.node, context.behaviour) for ref in refs]
        deprecated = uses[0] if None not in uses else None
        yield _deleted_class(owner, refs, context.rewritten, deprecated)


def _deleted_test(ref: Ref, context: Context) -> Finding:
    fn = ref.old
    deprecated = rm.deprecated_use(fn.node, context.behaviour)
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
    owner: str, refs: list[Ref], rewritten: bool, deprecated: str | None = None
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
    names = ", ".join(bare(ref) for ref in refs)
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
    file: File,
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
    return INFO[rule].finding(
        path=file.change.path,
        lines=(line, line),
        claim=claim,
        evidence=code or what,
        old_evidence=code or None,
        symbol=pyast.symbol_of(symbol),
        severity=Severity.MINOR if deprecated else None,
        confidence=Confidence.MEDIUM if deprecated else None,
    )
