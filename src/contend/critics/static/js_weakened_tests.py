"""The `test-weakening` topic for JavaScript / TypeScript / TSX test code (Jest, Vitest, Mocha,
node:test, ava, Playwright).

Compares the old and the new version of each test (found by `js_tests_model`), and reasons
about what is checked before and after, not about which lines disappeared:

    js-assertion-weakened      major  an assertion became one of lower rank (toBe -> toContain,
                                      toEqual -> toBeTruthy, x -> not.toBeNull, an asymmetric
                                      matcher such as expect.any() slipped into the expectation)
    js-assertion-removed       major  a test that still exists lost an assertion, reported on
                                      the removed assertion's place
    js-expected-error-widened  major  toThrow(SpecificError) -> toThrow() / toThrow(Error)
    js-tolerance-widened       major  toBeCloseTo(x, 5) -> toBeCloseTo(x, 1)
    js-test-deleted            major  a test is gone and what it asserted is asserted nowhere in
                                      the change's test files any more (minor when the change
                                      also deletes code: the behaviour may have gone with it)
    js-test-only               major  `.only` / `fit` / `fdescribe` added: the rest of the file
                                      silently stops running
    js-test-skipped            minor  `.skip` / `.todo` / `xit` / `xdescribe` / an unconditional
                                      `this.skip()` added to an existing test with no issue
                                      reference (#123, ABC-123 in a comment, an /issues/ URL)

Not weakening: renamed variables, formatting, quote style, added assertions, moves within one
rank (toEqual -> toStrictEqual, toBe -> toEqual); a test renamed or moved (in the file, or
verbatim to another file of the same change); a test whose title arrived in another test
file of the change (a type-test `*.test-d.ts` included) with every check kept at least as
strictly, locals renamed or not; a test renamed in place and rewritten (compared check by
check); tests merged into one that keeps their assertions; an assertion moved into another
test; per-environment `if`/`else` branches whose assertions became one assertion at least as
strong; checks on a value the new test pins exactly (`expect(stderr).toBe('')` implies every
`not.toContain` on `stderr`); an error's message check replaced by a check of its code or
class; a test that now expects its call to fail and no longer holds the result it checked; a
test put behind a condition (`test.runIf(cond)`, `skipIf(cond)`, `ctx.skip(cond)`); a test
(or a check) deleted with its subject (`js_test_pool`: the code it called, a module it
imported, a property the code built, or what its title names is gone); an assertion handed
to an asserting helper (`js_assert_helpers`); the count of a render-count harness whose
states the new test asserts one by one; an expected failure replaced by an exact check of
the fixed result. A title concatenated from literals is the literal it spells.

Which files are tests: `js_tests_model` (content, names, and the runner config read by
`js_runner_config`); how two versions compare: `js_test_versions`, `js_test_pairing`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

from tree_sitter import Node

from contend.critics.static.base import Confidence, FileChange, Finding, Skipped, Topic
from contend.critics.static.base import Language as FileLanguage
from contend.critics.static.catalogue import RuleInfo
from contend.critics.static.js_assertions import assertions
from contend.critics.static.js_runner_config import NO_LAYOUT, TestLayout, layout_of
from contend.critics.static.js_test_pool import (
    Pool,
    deleted_modules,
    helper_functions,
    removed_keys,
    removed_names,
    removed_vocabulary,
    removes_code,
    renamed_declarations,
)
from contend.critics.static.js_test_versions import Hit, Sides, compare_files
from contend.critics.static.js_tests_model import TestCall, is_test_code, test_calls
from contend.critics.static.treesitter import (
    JS_LANGUAGES,
    SourceLines,
    js_language,
    old_side_language,
    parse_checked,
)
from contend.protocol.model import Severity

TOPIC = Topic.TEST_WEAKENING
_JS: frozenset[FileLanguage] = frozenset(JS_LANGUAGES)
_WAYS_OUT_TEST = (
    "restore the check, or show in the same change where it is now checked at least as strictly",
    "or waive it in code with a reason: `// contend: allow test-weakening -- <reason>`",
)


def _rule(rule: str, severity: Severity, confidence: Confidence, why: str) -> RuleInfo:
    return RuleInfo(rule, TOPIC, severity, confidence, _JS, why, _WAYS_OUT_TEST)


RULES = (
    _rule(
        "js-assertion-weakened",
        Severity.MAJOR,
        Confidence.HIGH,
        "the new assertion passes for values the old one rejected",
    ),
    _rule(
        "js-assertion-removed",
        Severity.MAJOR,
        Confidence.HIGH,
        "a surviving test no longer checks something it checked, and no other test does",
    ),
    _rule(
        "js-expected-error-widened",
        Severity.MAJOR,
        Confidence.HIGH,
        "the test no longer checks which error is thrown, so a different failure passes it",
    ),
    _rule(
        "js-tolerance-widened",
        Severity.MAJOR,
        Confidence.HIGH,
        "the numeric check accepts a larger error than before",
    ),
    _rule(
        "js-test-deleted",
        Severity.MAJOR,
        Confidence.HIGH,
        "what the deleted test asserted is asserted nowhere in the change any more",
    ),
    _rule(
        "js-test-only",
        Severity.MAJOR,
        Confidence.HIGH,
        "a focused test silently stops every other test of the file from running",
    ),
    _rule(
        "js-test-skipped",
        Severity.MINOR,
        Confidence.MEDIUM,
        "a skipped test checks nothing; without an issue reference nobody will turn it back on",
    ),
)
_CONFIDENCE = {info.rule: info.confidence for info in RULES}

# --- the critic -------------------------------------------------------------------------------


def _sides(change: FileChange, layout: TestLayout) -> Sides | Skipped | None:
    """Both parsed sides of a test file; None for a file that is not test code."""
    new_language = js_language(change.language)
    old_language = old_side_language(change)
    if new_language is None and old_language is None:
        return None
    roots: list[Node | None] = []
    for text, language, side in (
        (change.old_text, old_language, "old side"),
        (change.new_text, new_language, ""),
    ):
        if text is None or language is None:
            roots.append(None)
            continue
        root = parse_checked(text, language, path=change.path, topic=TOPIC, side=side)
        if isinstance(root, Skipped):
            # Half a comparison would report every test of the other side; but a file that
            # is not test code at all is no skip of this topic.
            return root if _named_test(change, layout) else None
        roots.append(root)
    old_root, new_root = roots
    if not is_test_code(change, old_root, new_root, layout=layout):
        if change.status == "deleted":
            # The diff reader passed it on for its content to decide; it held no tests.
            return Skipped(change.path, "deleted: nothing on the new side to check")
        return None
    return Sides(
        change,
        old_root,
        new_root,
        test_calls(old_root) if old_root is not None else {},
        test_calls(new_root) if new_root is not None else {},
        SourceLines(change.old_text or ""),
        SourceLines(change.new_text or ""),
    )


def _named_test(change: FileChange, layout: TestLayout) -> bool:
    return is_test_code(change, None, None, layout=layout)


def _fill_pool(all_sides: list[Sides]) -> Pool:
    pool = Pool()
    # A helper many tests run is read once: its checks count once per test that runs it.
    helper_keys: dict[int, list[str]] = {}

    def keys(test: TestCall) -> list[str]:
        found = [a.key for a in assertions(test.body)]
        for helper in test.helpers:
            if helper.id not in helper_keys:
                helper_keys[helper.id] = [a.key for a in assertions(helper)]
            found += helper_keys[helper.id]
        return found

    for sides in all_sides:
        for test in sides.old_tests.values():
            if test.kind == "test" and not test.disabled:
                pool.old_counts.update(keys(test))
        for key, test in sides.new_tests.items():
            if test.kind != "test" or test.disabled:
                continue
            pool.new_counts.update(keys(test))
            if key not in sides.old_tests:
                pool.arrived_helpers.extend(test.helpers)
            if key not in sides.old_tests and test.body is not None:
                pool.arrived[test.body_text()] += 1
                pool.arrived_tests.append(test)
    return pool


def _findings(sides: Sides, hits: Iterable[Hit]) -> Iterator[Finding]:
    change = sides.change
    for hit in sorted(hits, key=lambda item: (item.start_line, item.rule)):
        evidence = (
            sides.new_lines.lines(hit.start_line, hit.end_line)
            if change.new_text is not None
            else ""
        )
        yield Finding(
            topic=TOPIC,
            rule=hit.rule,
            severity=hit.severity,
            path=change.path,
            start_line=hit.start_line,
            end_line=hit.end_line,
            claim=hit.claim,
            evidence=evidence,
            old_evidence=hit.old_evidence,
            ways_out=_WAYS_OUT_TEST,
            confidence=_CONFIDENCE[hit.rule],
            symbol=hit.symbol,
        )


def check_changes(
    changes: Sequence[FileChange], layout: TestLayout = NO_LAYOUT
) -> list[Finding | Skipped]:
    """Every test file of the change compared with its old version; `layout`: the files the
    project's test runner config names as tests."""
    results: list[Finding | Skipped] = []
    all_sides: list[Sides] = []
    for change in changes:
        sides = _sides(change, layout)
        if isinstance(sides, Skipped):
            results.append(sides)
        elif sides is not None:
            all_sides.append(sides)
    pool = _fill_pool(all_sides)
    if any(sides.old_tests for sides in all_sides):
        tests = {s.change.path for s in all_sides}
        pool.removed_names = removed_names(changes, tests)
        removed = removed_vocabulary(changes, tests)
        pool.removed_words, pool.removed_phrases = removed.words, removed.phrases
        pool.code_removed = removes_code(changes, tests)
        pool.removed_keys = removed_keys(changes, tests)
        pool.deleted_modules = deleted_modules(changes, tests)
        pool.helpers = helper_functions(changes)
        pool.renames = renamed_declarations(changes, tests)
    for sides in all_sides:
        results.extend(_findings(sides, compare_files(sides, pool)))
    return results


def check_file(change: FileChange) -> Iterator[Finding | Skipped]:
    """One file on its own (no other file of the change to have received its tests)."""
    yield from check_changes([change])


class JsWeakenedTests:
    topic = TOPIC
    # "other" too: an extensionless `#!/usr/bin/env node` script (`bin/mocha`) is code a
    # deleted test may have exercised (`js_test_pool.is_js_code`); the runner hands each
    # critic only the files of its languages. Such a file is never read as a test file.
    languages: frozenset[FileLanguage] = _JS | {"other"}

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        return check_changes(changes)

    def check_in_project(
        self, changes: Sequence[FileChange], project_files: Mapping[str, str]
    ) -> Iterable[Finding | Skipped]:
        """`check`, with the project's root config files (its test runner's config says
        which files are tests)."""
        return check_changes(changes, layout_of(project_files))


CRITIC = JsWeakenedTests()
