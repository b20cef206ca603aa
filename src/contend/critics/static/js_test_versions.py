"""Comparing two versions of a JS/TS test file, for the `test-weakening` topic: which old
test became which new one (same key, renamed, moved, renamed in place), what each surviving
test no longer checks or checks less strictly, and which deleted tests took checks with them
that nothing in the change makes any more.

The rules and their wording are `js_weakened_tests`'s; this module produces its `Hit`s. It
reads the whole change through `js_test_pool.Pool` (checks asserted elsewhere, tests that
arrived in other files, code the change removed).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher

from tree_sitter import Node

from contend.critics.static.base import FileChange
from contend.critics.static.js_assert_helpers import handed_to_helper
from contend.critics.static.js_assertions import (
    GENERIC_ERRORS,
    PINNING,
    Assertion,
    assertions,
    branches,
    exclusive,
    normalise,
)
from contend.critics.static.js_check_forms import (
    harness_count_replaced,
    now_expects_failure,
    now_expects_success,
)
from contend.critics.static.js_test_helpers import moved_into_helper
from contend.critics.static.js_test_pairing import (
    RENAME_THRESHOLD,
    aliases,
    checks_kept_stricter,
    fold_title,
    greedy_pairs,
    identifies_error,
    pair_assertions,
    same_value,
    split_base,
    titles_related,
)
from contend.critics.static.js_test_pool import (
    Pool,
    about_removed_code,
    names_from_deleted_modules,
    title_names_removed,
    title_names_removed_key,
    uses_any,
    vocabulary,
)
from contend.critics.static.js_tests_model import TestCall
from contend.critics.static.treesitter import SourceLines, named_children, text_of, walk
from contend.protocol.model import Severity

# A tracker reference: #123, ABC-123 (in a comment only: a title may say "UTF-8"), /issues/ URL.
_ISSUE_REF = re.compile(r"#\d+|https?://\S+/issues/\d+")
_TRACKER_KEY = re.compile(r"\b[A-Z][A-Z0-9]+-\d+\b")
_COMMENT = re.compile(r"//.*$|/\*.*?\*/", re.MULTILINE)


def has_issue_reference(header_lines: str, title: str) -> bool:
    """Whether a skip is tied to a tracked issue, in its title or a comment beside it."""
    comments = " ".join(_COMMENT.findall(header_lines))
    return bool(
        _ISSUE_REF.search(title) or _ISSUE_REF.search(comments) or _TRACKER_KEY.search(comments)
    )


@dataclass(frozen=True, slots=True)
class Hit:
    rule: str
    severity: Severity
    start_line: int
    end_line: int
    claim: str
    symbol: str
    old_evidence: str | None = None


def _digits(assertion: Assertion) -> int:
    """toBeCloseTo's precision argument; Jest's default is 2."""
    if len(assertion.args) >= 2 and assertion.args[1].isdigit():
        return int(assertion.args[1])
    return 2


def _flat(node: Node) -> str:
    return " ".join(text_of(node).split())


def _compare_assertion(
    test: TestCall, old: Assertion, new: Assertion, old_lines: SourceLines
) -> Hit | None:
    start, end = new.lines
    old_text = old_lines.lines(*old.lines)
    before, after = _flat(old.node), _flat(new.node)
    title = test.title
    old_error, new_error = old.expected_error, new.expected_error
    if old_error and new_error is not None and new_error != old_error:
        if new_error in GENERIC_ERRORS:
            return Hit(
                "js-expected-error-widened",
                Severity.MAJOR,
                start,
                end,
                f"in test `{title}`, `{before}` became `{after}`: it no longer checks "
                f"which error is thrown ({old_error} -> {new_error or 'any error'})",
                title,
                old_text,
            )
        return None
    if old.matcher == "toBeCloseTo" == new.matcher and _digits(new) < _digits(old):
        return Hit(
            "js-tolerance-widened",
            Severity.MAJOR,
            start,
            end,
            f"in test `{title}`, `{before}` became `{after}`: toBeCloseTo now accepts "
            f"a difference of 10^-{_digits(new)} instead of 10^-{_digits(old)}",
            title,
            old_text,
        )
    old_rank, new_rank = old.rank, new.rank
    if old_rank is None or new_rank is None or new_rank >= old_rank:
        return None
    return Hit(
        "js-assertion-weakened",
        Severity.MAJOR,
        start,
        end,
        f"in test `{title}`, `{before}` became `{after}` "
        f"({_describe(old)} -> {_describe(new)}): the new assertion also passes for values "
        "the old one rejected",
        title,
        old_text,
    )


def _describe(assertion: Assertion) -> str:
    return f"not.{assertion.matcher}" if assertion.negated else assertion.matcher


def _covered(
    orphan: Assertion,
    test: TestCall,
    old_body: Node,
    pairs: list[tuple[Assertion, Assertion]],
    new_assertions: list[Assertion],
    pool: Pool,
) -> bool:
    """Whether a removed assertion's check survives in another form."""
    if pool.kept(orphan.key):
        return True  # moved to another test (or file) of the change
    member = split_base(orphan.subject)[1].rsplit(".", 1)[-1]
    if "." in orphan.subject and member in pool.removed_keys:
        return True  # the property it checked was taken out of the object the code builds
    old_aliases, new_aliases = aliases(old_body), aliases(test.body)
    old_keys = Counter(a.key for a in assertions(old_body))
    if any(
        identifies_error(orphan, new, old_aliases, new_aliases)
        and sum(a.key == new.key for a in new_assertions) > old_keys[new.key]
        for new in new_assertions
    ):
        return True  # the error's message check became a check of its code or class
    if orphan.matcher in ("expect.assertions", "expect.hasAssertions") and _counts_itself(
        new_assertions, test
    ):
        return True  # node:test's `t.plan(n)`, or an assertion that fails by itself
    if about_removed_code(orphan.node, pool.removed_names):
        return True  # what it checked no longer exists
    subject = orphan.subject
    if subject and any(
        same_value(subject, new.subject, old_aliases, new_aliases)
        and new.matcher in PINNING
        and not new.negated
        for new in new_assertions
    ):
        return True  # the value is now pinned exactly
    if now_expects_failure(orphan, old_body, test, new_assertions):
        return True  # the value is no longer produced: the test checks the error instead
    if now_expects_success(orphan, old_keys, new_assertions):
        return True  # the failure it expected was the bug: the result is now pinned exactly
    if handed_to_helper(orphan, old_body, test.body, pool.helpers):
        return True  # `untilUpdated(() => subject, expected)`: the helper asserts it
    if harness_count_replaced(orphan, old_body, test.body, new_assertions):
        return True  # the count only proved the old harness's branch assertions ran
    own = branches(orphan, old_body)
    if own:
        # Per-environment branches merged: a branch-mate became an assertion at least as
        # strong, and only one branch ever ran.
        for old, new in pairs:
            if (
                exclusive(own, branches(old, old_body))
                and new.rank is not None
                and orphan.rank is not None
                and new.rank >= orphan.rank
            ):
                return True
    return False


def _counts_itself(new_assertions: list[Assertion], test: TestCall) -> bool:
    """`expect.assertions(n)` guards a callback whose assertion might never run; a test that
    plans its assertions (`t.plan(n)`) or asserts the rejection itself needs no count."""
    body = text_of(test.body) if test.body is not None else ""
    return ".plan(" in body or any(
        (
            a.matcher in ("assert.throws", "toThrow", "toThrowError")
            or a.matcher == "assert.rejects"
            or ".rejects." in a.text
        )
        and _awaited(a.node)
        for a in new_assertions
    )


def _awaited(node: Node) -> bool:
    """Whether an assertion's result is awaited or returned (a rejection then fails the
    test); a synchronous `toThrow` / `assert.throws` always runs where it stands."""
    if not text_of(node).startswith(("assert.rejects", "expect(")) or (
        ".rejects" not in text_of(node) and not text_of(node).startswith("assert.rejects")
    ):
        return True
    parent = node.parent
    while parent is not None and parent.type in ("parenthesized_expression", "member_expression"):
        parent = parent.parent
    return parent is not None and parent.type in ("await_expression", "return_statement")


# --- comparing two versions of one test -----------------------------------------------------


@dataclass(slots=True)
class Sides:
    change: FileChange
    old_root: Node | None
    new_root: Node | None
    old_tests: dict[tuple[str, ...], TestCall]
    new_tests: dict[tuple[str, ...], TestCall]
    old_lines: SourceLines
    new_lines: SourceLines
    _to_new: Callable[[int], int] | None = None

    def to_new(self, line: int) -> int:
        if self._to_new is None:
            self._to_new = _line_mapper(self.change.old_text or "", self.change.new_text)
        return self._to_new(line)


def _compare_tests(old: TestCall, new: TestCall, sides: Sides, pool: Pool) -> list[Hit]:
    start, end = new.lines
    hits: list[Hit] = []
    if "only" in new.modifiers and "only" not in old.modifiers:
        hits.append(_only_hit(new))
    if new.disabled and not old.disabled:
        header_lines = sides.new_lines.lines(max(start - 1, 1), start)
        if not has_issue_reference(header_lines, new.title):
            how = "marked todo" if "todo" in new.modifiers else "skipped"
            hits.append(
                Hit(
                    "js-test-skipped",
                    Severity.MINOR,
                    start,
                    start,
                    f"{new.kind} `{new.title}` is now {how} with no issue reference "
                    "(#123, ABC-123 or an /issues/ URL): what it checked is no longer checked",
                    new.title,
                    sides.old_lines.lines(old.lines[0], old.lines[0]),
                )
            )
        return hits  # a disabled test asserts nothing; the skip is the finding
    if new.kind != "test" or old.body is None or old.body_text() == new.body_text():
        return hits
    old_assertions, new_assertions = assertions(old.body), assertions(new.body)
    old_aliases, new_aliases = aliases(old.body), aliases(new.body)
    pairs, orphans = pair_assertions(old_assertions, new_assertions, new_aliases, old_aliases)
    for old_assertion, new_assertion in pairs:
        if identifies_error(old_assertion, new_assertion, old_aliases, new_aliases):
            continue  # the message check became a check of the error's code or class
        hit = _compare_assertion(new, old_assertion, new_assertion, sides.old_lines)
        if hit is not None:
            hits.append(hit)
    for orphan in orphans:
        if _covered(orphan, new, old.body, pairs, new_assertions, pool):
            continue
        gone = _flat(orphan.node)
        # Reported where the assertion was: its old line mapped into the surviving test.
        line = min(max(sides.to_new(orphan.lines[0]), start), end)
        hits.append(
            Hit(
                "js-assertion-removed",
                Severity.MINOR if _commented_out_with_reason(orphan, new) else Severity.MAJOR,
                line,
                line,
                f"test `{new.title}` still exists but no longer asserts `{gone}`, and no "
                "other test of the change does",
                new.title,
                sides.old_lines.lines(*orphan.lines),
            )
        )
    return hits


def _commented_out_with_reason(orphan: Assertion, test: TestCall) -> bool:
    """The assertion is still there, commented out, beside a comment that says why (three
    words or more): a visible, documented decision rather than a silent removal."""
    if test.body is None:
        return False
    comments = [text_of(node) for node in walk(test.body) if node.type == "comment"]
    flat = [normalise(comment.lstrip("/*").rstrip("*/")) for comment in comments]
    if orphan.text not in flat:
        return False
    return any(
        normalise(comment) != orphan.text and len(re.findall(r"[A-Za-z']+", comment)) >= 3
        for comment in (c.lstrip("/*").rstrip("*/") for c in comments)
    )


def _only_hit(test: TestCall) -> Hit:
    start = test.lines[0]
    return Hit(
        "js-test-only",
        Severity.MAJOR,
        start,
        start,
        f"{test.kind} `{test.title}` is focused (`.only` / `f` prefix): every other test in "
        "the file silently stops running",
        test.title,
    )


def _line_mapper(old_src: str, new_src: str | None) -> Callable[[int], int]:
    """Where an old-side line sits in the new text: its copy, or the start of its hunk."""
    if not new_src:
        return lambda _line: 1
    new_count = max(len(new_src.splitlines()), 1)
    matcher = SequenceMatcher(None, old_src.splitlines(), new_src.splitlines(), autojunk=False)
    opcodes = [op for op in matcher.get_opcodes() if op[0] != "insert"]

    def to_new(line: int) -> int:
        for tag, i1, i2, j1, _j2 in opcodes:
            if i1 <= line - 1 < i2:
                offset = line - 1 - i1 if tag == "equal" else 0
                return min(j1 + offset + 1, new_count)
        return new_count

    return to_new


def _own_title(test: TestCall) -> str | None:
    return test.key[-1]


def _body_or_none(test: TestCall) -> str | None:
    return test.body_text() if test.body is not None else None


def _assertion_set(test: TestCall) -> str | None:
    """The sorted assertions of a test: a test moved and renamed keeps them."""
    found = sorted(a.key for a in assertions(test.body))
    return "\n".join(found) if found else None


def _pair_renamed(
    old_tests: dict[tuple[str, ...], TestCall],
    new_tests: dict[tuple[str, ...], TestCall],
    to_new: Callable[[int], int],
    renames: Mapping[str, str],
) -> list[tuple[TestCall, TestCall]]:
    """Old tests whose key changed (their own title or a describe's), found by the same own
    title, then the same body, then the same assertions, then a similar body, then the same
    place: a new test written where the old one stood, under a title that keeps most of its
    words, or whose checks keep each of the old test's at least as strictly (renamed in
    place and rewritten; the pair is then compared check by check)."""
    lost = [t for key, t in old_tests.items() if key not in new_tests and t.kind == "test"]
    fresh = [t for key, t in new_tests.items() if key not in old_tests and t.kind == "test"]
    pairs: list[tuple[TestCall, TestCall]] = []
    for same in (_own_title, _body_or_none, _assertion_set):
        by_value: dict[str, list[TestCall]] = {}
        for test in fresh:
            value = same(test)
            if value is not None:
                by_value.setdefault(value, []).append(test)
        still_lost: list[TestCall] = []
        for test in lost:
            value = same(test)
            candidates = by_value.get(value, []) if value is not None else []
            if candidates:
                heir = candidates.pop(0)
                pairs.append((test, heir))
                fresh.remove(heir)
            else:
                still_lost.append(test)
        lost = still_lost
    index_pairs = greedy_pairs(
        len(lost),
        len(fresh),
        lambda i, j: SequenceMatcher(
            None, lost[i].body_text(), fresh[j].body_text(), autojunk=False
        ).ratio(),
        RENAME_THRESHOLD,
    )
    pairs += [(lost[i], fresh[j]) for i, j in index_pairs]
    paired_lost = {i for i, _j in index_pairs}
    paired_fresh = {j for _i, j in index_pairs}
    fresh = [test for j, test in enumerate(fresh) if j not in paired_fresh]
    for i, gone in enumerate(lost):
        if i in paired_lost:
            continue
        line = to_new(gone.lines[0])
        in_place = next(
            (
                candidate
                for candidate in fresh
                if candidate.lines[0] <= line <= candidate.lines[1]
                and (
                    titles_related(gone, candidate)
                    or checks_kept_stricter(gone, candidate, renames)
                )
            ),
            None,
        )
        if in_place is not None:
            pairs.append((gone, in_place))
            fresh.remove(in_place)
    return pairs


def _empty(test: TestCall) -> bool:
    """A placeholder (`test("x", () => {})`) checked nothing. A test without a callback of
    its own (`test("t", macro, {})`, `it("t", spec(ajv))`) is not compared either: where its
    moved copy went may be a file the critic cannot read as test code (a macro call alone)."""
    block = test.body.child_by_field_name("body") if test.body is not None else None
    return block is None or (block.type == "statement_block" and not named_children(block))


def _deletion_kept(
    old: TestCall,
    pool: Pool,
    suite: tuple[str, ...] = (),
    gone_imports: frozenset[str] = frozenset(),
) -> bool:
    """A deleted test whose body arrived verbatim in another file, whose every assertion is
    still asserted as often somewhere in the change (merged into another test), or whose
    subject the change removed from the code. `suite`: the name of a test file deleted as a
    whole, which names its tests' subject as a `describe` does (`options.detectClash`);
    `gone_imports`: the names the test file imports from modules the change deletes."""
    if old.body is not None and pool.arrived[old.body_text()] > 0:
        pool.arrived[old.body_text()] -= 1
        return True
    if about_removed_code(old.body, pool.removed_names):
        return True
    if uses_any(old.body, gone_imports):
        return True  # it exercised a module the change deletes
    if old.body is not None and vocabulary(text_of(old.body)) & pool.removed_words:
        return True  # it exercised behaviour the change removed from the code
    if title_names_removed((*suite, *old.key), pool.removed_phrases):
        return True  # its title names a message or comment of code the change removed
    if title_names_removed_key((*suite, *old.key), pool.removed_keys):
        return True  # its title names a property the code no longer sets
    if moved_into_helper(old.body, pool.arrived_helpers):
        return True  # its statements now run from a spec factory or helper new tests call
    checks = old.checks()
    return bool(checks) and all(pool.kept(a.key) for a in checks)


def _moved_with_its_checks(old: TestCall, pool: Pool, old_lines: SourceLines) -> bool:
    """A deleted test whose own title arrived as a new test elsewhere in the change (another
    file: a type-test `*.test-d.ts`, a split suite) that checks the same values at least as
    strictly, locals renamed or not. The heir is used up."""
    title = fold_title(old.key[-1])
    old_checks = assertions(old.body)
    old_aliases = aliases(old.body)
    for heir in pool.arrived_tests:
        if heir.body is None or fold_title(heir.key[-1]) != title:
            continue
        new_checks = assertions(heir.body)
        new_aliases = aliases(heir.body)
        pairs, orphans = pair_assertions(old_checks, new_checks, new_aliases, old_aliases)
        if any(not pool.kept(orphan.key) for orphan in orphans):
            continue
        if any(
            not identifies_error(before, after, old_aliases, new_aliases)
            and _compare_assertion(heir, before, after, old_lines) is not None
            for before, after in pairs
        ):
            continue
        pool.arrived_tests.remove(heir)
        return True
    return False


def _file_stem(path: str) -> str:
    """`tests/options.detectClash.test.js` -> `options.detectClash`."""
    name = path.rsplit("/", 1)[-1]
    return re.sub(r"(\.(test|spec))?\.[cm]?[jt]sx?$", "", name)


def compare_files(sides: Sides, pool: Pool) -> list[Hit]:
    old_tests, new_tests = sides.old_tests, sides.new_tests
    pairs = [(old_tests[key], new) for key, new in new_tests.items() if key in old_tests]
    renamed = _pair_renamed(old_tests, new_tests, sides.to_new, pool.renames)
    pairs.extend(renamed)
    hits: list[Hit] = []
    for old, new in pairs:
        hits.extend(_compare_tests(old, new, sides, pool))
    heirs = {old.key for old, _new in renamed}
    paired_new = {new.key for _old, new in pairs}
    for key, new in new_tests.items():
        header = new.lines[0]
        touched = sides.change.touches(header, header)
        if key not in paired_new and "only" in new.modifiers and touched:
            hits.append(_only_hit(new))
    deleted = [
        old
        for key, old in old_tests.items()
        if key not in new_tests and key not in heirs and old.kind == "test"
    ]
    suite = (_file_stem(sides.change.path),) if sides.change.new_text is None else ()
    old_path = sides.change.old_path or sides.change.path
    gone_imports = names_from_deleted_modules(sides.old_root, old_path, pool.deleted_modules)
    for old in deleted:
        if old.disabled or _empty(old) or _deletion_kept(old, pool, suite, gone_imports):
            continue
        if _moved_with_its_checks(old, pool, sides.old_lines):
            continue
        line = sides.to_new(old.lines[0]) if sides.change.new_text else 1
        if pool.code_removed:
            # The change also deletes code: often the behaviour went with its test. Shown,
            # not blocking, until a person confirms the behaviour is really gone.
            severity = Severity.MINOR
            claim = (
                f"test `{old.title}` was deleted and what it asserted is asserted nowhere else "
                "in this change, which also deletes code: confirm the behaviour it checked is "
                "gone too"
            )
        else:
            severity = Severity.MAJOR
            claim = (
                f"test `{old.title}` was deleted: what it asserted is asserted nowhere else "
                "in this change"
            )
        hits.append(
            Hit(
                "js-test-deleted",
                severity,
                line,
                line,
                claim,
                old.title,
                sides.old_lines.lines(*old.lines),
            )
        )
    return hits
