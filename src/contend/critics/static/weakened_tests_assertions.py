"""Compares the checks of one paired old/new test for the `test-weakening` critic: assertions
removed, reduced to zero or replaced by weaker ones (after matching renamed locals, other
keys, checks made moot by the change, covered in another shape or moved to another test),
and parametrize lists that lost cases."""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator

from contend.critics.static import pyast
from contend.critics.static import weakened_tests_compare as cmp
from contend.critics.static import weakened_tests_coverage as cov
from contend.critics.static import weakened_tests_elsewhere as elsewhere
from contend.critics.static import weakened_tests_moot as moot
from contend.critics.static import weakened_tests_removed as rm
from contend.critics.static import weakened_tests_rules as r
from contend.critics.static.base import (
    Finding,
)
from contend.critics.static.weakened_tests_deletions import Context
from contend.critics.static.weakened_tests_sides import (
    RULE_CASES,
    RULE_REMOVED,
    RULE_TO_ZERO,
    Reporter,
    Side,
    is_test,
    old_lines_of,
)


def compare_checks(
    report: Reporter,
    old: tuple[pyast.Function, Side],
    new: tuple[pyast.Function, Side],
    context: Context,
) -> Iterator[Finding]:
    (old_fn, old_side), (new_fn, new_side) = old, new
    old_checks = r.checks_in(old_fn.node.body, old_side.is_helper)
    new_checks = r.checks_in(new_fn.node.body, new_side.is_helper)
    mooted: set[int] = set()
    if any(c.counts for c in old_checks) and not any(c.counts for c in new_checks):
        mooted = _moot(old_fn, new_fn, old_checks, new_checks, context, old_side.is_helper)
    old_count = sum(c.counts for c in old_checks if id(c) not in mooted)
    if old_count and not any(c.counts for c in new_checks):
        listed = "; ".join(dict.fromkeys(r.short(c.node, 80) for c in old_checks if c.counts))
        yield report.at(
            RULE_TO_ZERO,
            None,
            f"had {old_count} assertion(s) ({listed}) and now asserts nothing",
            old_lines_of(old_side, old_fn.node),
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
        mooted = mooted or _moot(
            old_fn, new_fn, old_checks, new_checks, context, old_side.is_helper
        )
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
    if leftover_old:
        # Moved into test source the test writes and runs (pytester): still made.
        inner = elsewhere.inner_test_keys(new_fn.node, new_side.is_helper)
        leftover_old = [c for c in leftover_old if c.key not in inner]
    if leftover_old:
        # Implied by a new equality on the same collection: `x in xs` by `xs == [.., x, ..]`.
        leftover_old = [c for c in leftover_old if not cmp.implied_by_equality(c, new_checks)]
    deprecated = context.behaviour.deprecated if leftover_old else frozenset()
    # New checks left unmatched: the test was rewritten, not only trimmed.
    rewritten = any(c.counts for c in leftover_new)
    # A local inlined into the assertion (or extracted from it) still pairs the two checks.
    inlined_new = [cmp.with_locals_inlined(c, new_fn.node) for c in leftover_new]
    for gone in leftover_old:
        inlined = cmp.with_locals_inlined(gone, old_fn.node)
        candidates = [(cmp.affinity(inlined, check), -i) for i, check in enumerate(inlined_new)]
        best, first = max(candidates, default=(0, 0))  # ties: the earliest new check
        old_text = old_lines_of(old_side, gone.node)
        on_the_way_out = rm.mentions(gone.node, deprecated)
        if best == 0:
            if gone.counts:
                kind = "test" if is_test(new_fn.qualname) else "function"
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
        inlined_new.pop(-first)
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
    context: Context,
    is_helper: r.IsHelper,
) -> set[int]:
    """Ids of old checks the change made moot (see weakened_tests_moot); `is_helper` of the
    old side."""
    dropped = moot.dropped_results(old_fn.node, new_fn.node)
    found = {
        id(c)
        for c in old_checks
        if moot.gone_with_the_api(c, context.behaviour, old_fn.node) or rm.mentions(c.node, dropped)
    }
    fields = context.behaviour.result_fields
    found.update(
        id(c)
        for c in old_checks
        if id(c) not in found and moot.made_of_the_whole_result(c, new_checks, fields, is_helper)
    )
    rejected = moot.now_rejected(old_fn.node, new_fn.node, old_checks, new_checks)
    if rejected is not None:
        found.update(
            id(c) for c in old_checks if c.family == "value" and pyast.span(c.node)[0] >= rejected
        )
    found.update(moot.now_reported(old_fn.node, new_fn.node, old_checks, new_checks))
    branches = moot.old_interpreter_branches(old_fn.node, new_fn.node, new_checks, is_helper)
    found.update(id(c) for c in old_checks if id(c.node) in branches)
    raised = moot.raises_added(old_fn.node, new_fn.node)
    fails = [c for c in old_checks if c.op == "fail" and id(c) not in found]
    found.update(id(c) for c in fails[:raised])
    return found


def _covered(coverage: cov.Coverage, needs: list[cov.Requirement | None], index: int) -> bool:
    need = needs[index]
    return need is None or coverage.covers(need)


_Checks = tuple[pyast.Function, Side, list[r.Check], list[r.Check]]


def _match_by_keys(
    old_keys: list[str],
    new_keys: list[str],
    old: tuple[list[r.Check], list[r.Check]],
    new: tuple[list[r.Check], list[r.Check]],
) -> tuple[list[r.Check], list[r.Check]]:
    """Leftover checks that match by other keys (aligned with all checks of their side)."""
    keys = {id(c): k for c, k in zip(old[0], old_keys, strict=True)}
    keys.update((id(c), k) for c, k in zip(new[0], new_keys, strict=True))
    return _pair_by_key(old[1], new[1], keys)


def _match_renamed(old: _Checks, new: _Checks) -> tuple[list[r.Check], list[r.Check]]:
    """Leftover checks that match once local variables are renamed consistently (a renamed
    local is not a changed assertion)."""
    keys: dict[int, str] = {}
    for fn, side, checks, _ in (old, new):
        alpha = r.alpha_keys(fn.node, side.is_helper)
        keys.update((id(check), key) for check, key in zip(checks, alpha, strict=True))
    return _pair_by_key(old[3], new[3], keys)


def _pair_by_key(
    old: list[r.Check], new: list[r.Check], keys: dict[int, str]
) -> tuple[list[r.Check], list[r.Check]]:
    """Pair old and new checks with equal keys, one to one in order; returns the old and
    the new checks left unpaired."""
    pool: dict[str, list[r.Check]] = {}
    for check in new:
        pool.setdefault(keys[id(check)], []).append(check)
    still_old = []
    for check in old:
        same = pool.get(keys[id(check)])
        if same:
            same.pop(0)
        else:
            still_old.append(check)
    return still_old, [c for group in pool.values() for c in group]


def fewer_cases(
    report: Reporter,
    old_fn: pyast.Function,
    old_side: Side,
    new_fn: pyast.Function,
    rewritten: bool,
    new_side: Side | None = None,
) -> Iterator[Finding]:
    """A parametrize list that lost cases (changing a case keeps the count: not reported).
    Minor when the change also adds tests or checks: the cases may have moved there. Not
    reported when every lost case names a test the change added to the file (the
    `specname` case became `test_hookimpl_specname`): the case got its own test."""
    added = (
        [_squash(q) for q in new_side.functions if q not in old_side.functions]
        if new_side is not None
        else []
    )
    after = cmp.parametrized_cases(new_fn.node)
    for names, (old_decorator, old_cases) in cmp.parametrized_cases(old_fn.node).items():
        if names not in after:
            continue
        decorator, new_cases = after[names]
        if len(new_cases) >= len(old_cases):
            continue
        gone = Counter(old_cases) - Counter(new_cases)
        shown = [c for c in _case_texts(old_decorator) if r.canon(c) in gone]
        if shown and added and all(_named_by(case, added) for case in shown):
            continue
        claim = f"parametrize lost {len(old_cases) - len(new_cases)} case(s): " + ", ".join(
            r.short(c, 60) for c in shown
        )
        if rewritten:
            claim += " (the change adds tests or checks that may now cover them)"
        yield report.at(
            RULE_CASES, decorator, claim, old_lines_of(old_side, old_decorator), rewritten=rewritten
        )


def _squash(name: str) -> str:
    return name.rsplit(".", 1)[-1].lower().replace("_", "")


def _named_by(case: ast.expr, tests: list[str]) -> bool:
    """A word of the case's strings (4+ letters) is part of one of these test names."""
    words = {
        w.lower().replace("_", "")
        for node in ast.walk(case)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        for w in re.findall(r"[A-Za-z][A-Za-z0-9_]{3,}", node.value)
    }
    return any(w in test for w in words for test in tests)


def _case_texts(decorator: ast.expr) -> list[ast.expr]:
    assert isinstance(decorator, ast.Call)  # parametrized_cases only returns calls
    values = decorator.args[1]
    return list(values.elts) if isinstance(values, ast.List | ast.Tuple) else []
