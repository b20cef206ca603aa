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

This module owns the critic and the per-test comparison order; the parts live in
`weakened_tests_sides` (rule ids, parsed sides, the reporter), `_pairing` (old/new pairs),
`_assertions` (checks removed or weakened, parametrize cases lost), `_introduced` (skips,
swallowed assertions, the unit under test mocked) and `_deletions` (deleted tests and the
change-wide context).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from contend.critics.static import pyast
from contend.critics.static import weakened_tests_catalogue as wc
from contend.critics.static.base import FileChange, Finding, Language, Skipped, Topic
from contend.critics.static.weakened_tests_assertions import compare_checks, fewer_cases
from contend.critics.static.weakened_tests_deletions import Context, deletions
from contend.critics.static.weakened_tests_introduced import (
    new_skips,
    new_swallows,
    new_unit_mocks,
    scope_skips,
)
from contend.critics.static.weakened_tests_pairing import gained_checks, pair
from contend.critics.static.weakened_tests_sides import (
    File,
    Ref,
    Reporter,
    is_test,
    is_test_change,
    load,
    same_function,
    untouched,
)

RULES = wc.RULES


class WeakenedTestsCritic:
    topic: Topic = Topic.TEST_WEAKENING
    languages: frozenset[Language] = frozenset({"python"})
    # A deleted module is not reviewed, but a test deleted with it tested what it removed.
    reads_deleted_sources: bool = True

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        files: list[File] = []
        for change in changes:
            if change.language != "python" or not is_test_change(change):
                continue
            loaded = load(change)
            if isinstance(loaded, Skipped):
                yield loaded
            else:
                files.append(loaded)
        context = Context([c for c in changes if c.language == "python"], files)
        pairs, deleted, added = pair(files)
        context.rewritten = bool(added) or any(gained_checks(o, n) for o, n in pairs)
        for old_ref, new_ref in pairs:
            yield from _compare(old_ref, new_ref, context)
        for new_ref in added:
            yield from _compare(None, new_ref, context)
        yield from deletions(deleted, context)
        for file in files:
            yield from scope_skips(file)


CRITIC = WeakenedTestsCritic()


def _compare(old_ref: Ref | None, new_ref: Ref, context: Context) -> Iterator[Finding]:
    new_fn = new_ref.new
    new_side = new_ref.file.new
    assert new_side is not None  # new refs come from new sides
    name = new_ref.qualname
    if old_ref is not None and old_ref.qualname != name:
        name = f"{name} (was {old_ref.qualname})"
    report = Reporter(
        new_ref.file,
        name,
        (new_fn.start_line, new_fn.end_line),
        pyast.symbol_of(new_ref.qualname),
    )
    old_fn = old_ref.old if old_ref else None
    old_side = old_ref.file.old if old_ref else None
    if old_ref is not None and same_function(old_ref, new_ref) and untouched(new_ref.file, old_ref):
        return
    if old_fn is not None and old_side is not None:
        yield from compare_checks(report, (old_fn, old_side), (new_fn, new_side), context)
        yield from fewer_cases(report, old_fn, old_side, new_fn, context.rewritten, new_side)
    yield from new_skips(report, old_fn, new_fn)
    yield from new_swallows(report, old_fn, old_side, new_fn, new_side)
    if is_test(new_ref.qualname):
        yield from new_unit_mocks(report, old_fn, new_ref)


# --------------------------------------------------------------------------- deletions


# --------------------------------------------------------------------------- scope skips
