"""The `test-weakening` topic for JavaScript / TypeScript / TSX test files (Jest, Vitest, Mocha).

Reads which tests exist and what they assert, then compares the old and the new version of
each test.

Tests are `it` / `test` / `specify` calls (with `.skip`, `.only`, `.todo`, `.each`, `x`/`f`
prefixes), keyed by their title nested in the titles of the enclosing `describe` /
`context` / `suite` calls, so the old and the new version of one test can be compared.
Assertions are `expect(...)` chains (Jest, Vitest, chai's call forms) and `assert` calls, each
with a strength rank: 3 exact, 2 partial (contains, ordering, a type), 1 existence only.

Rules (test files only: *.test.*, *.spec.*, __tests__/, *.cy.*):

    js-assertion-weakened      major  an assertion became one of lower rank (toBe -> toContain,
                                      toEqual -> toBeTruthy, x -> not.toBeNull, an asymmetric
                                      matcher such as expect.any() slipped into the expectation)
    js-assertion-removed       major  a test that still exists lost an assertion
    js-expected-error-widened  major  toThrow(SpecificError) -> toThrow() / toThrow(Error)
    js-tolerance-widened       major  toBeCloseTo(x, 5) -> toBeCloseTo(x, 1)
    js-test-deleted            major  a test is gone (a renamed test or describe is matched by
                                      its own title or body and compared instead)
    js-test-only               major  `.only` / `fit` / `fdescribe` added: the rest of the file
                                      silently stops running
    js-test-skipped            minor  `.skip` / `.todo` / `xit` / `xdescribe` added to an existing
                                      test with no issue reference (#123, ABC-123 in a comment,
                                      an /issues/ URL); with one it is not reported

Not weakening: renamed variables, formatting, quote style, added assertions, and moves
within one rank (toEqual -> toStrictEqual, toBe -> toEqual).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from tree_sitter import Node

from contend.critics.static.base import FileChange, Finding, Skipped, Topic, is_test_path
from contend.critics.static.base import Language as FileLanguage
from contend.critics.static.treesitter import (
    FUNCTION_TYPES,
    callee_name,
    js_language,
    lines_of,
    named_children,
    old_side_language,
    parse_checked,
    text_of,
    walk,
)
from contend.protocol.model import Severity

TestKind = Literal["test", "suite"]

_TEST_BASES = {"it": "", "test": "", "specify": "", "xit": "skip", "xtest": "skip"}
_TEST_BASES |= {"fit": "only", "ftest": "only"}
_SUITE_BASES = {"describe": "", "context": "", "suite": "", "xdescribe": "skip"}
_SUITE_BASES |= {"xcontext": "skip", "fdescribe": "only", "fcontext": "only"}
_MODIFIERS = frozenset({"skip", "only", "todo", "concurrent", "each", "failing", "sequential"})
DISABLING = frozenset({"skip", "todo"})

# Same rank = interchangeable for this critic; `toEqual` -> `toStrictEqual` is no weakening.
_RANKS: dict[str, int] = {
    **dict.fromkeys(
        [
            "toBe",
            "toEqual",
            "toStrictEqual",
            "toBeNull",
            "toBeUndefined",
            "toBeNaN",
            "toHaveLength",
            "toMatchSnapshot",
            "toMatchInlineSnapshot",
            "toThrowErrorMatchingSnapshot",
            "toThrowErrorMatchingInlineSnapshot",
            "toHaveBeenCalledWith",
            "toHaveBeenCalledTimes",
            "toHaveBeenLastCalledWith",
            "toHaveBeenNthCalledWith",
            "toBeCalledWith",
            "toBeCalledTimes",
            "lastCalledWith",
            "nthCalledWith",
            "toHaveReturnedWith",
            "toHaveReturnedTimes",
            "toHaveLastReturnedWith",
            "toHaveNthReturnedWith",
            "toBeCloseTo",
            "toBeTrue",
            "toBeFalse",
            "equal",
            "equals",
            "eql",
            "eqls",
            "lengthOf",
            "expect.assertions",
            "assert.strictEqual",
            "assert.deepStrictEqual",
            "assert.equal",
            "assert.deepEqual",
            "assert.isTrue",
            "assert.isFalse",
            "assert.isNull",
            "assert.isUndefined",
            "assert.sameMembers",
            "assert.sameDeepMembers",
            "assert.lengthOf",
            "assert.deepInclude",
        ],
        3,
    ),
    **dict.fromkeys(
        [
            "toMatchObject",
            "toContain",
            "toContainEqual",
            "toMatch",
            "toBeInstanceOf",
            "toBeGreaterThan",
            "toBeGreaterThanOrEqual",
            "toBeLessThan",
            "toBeLessThanOrEqual",
            "toHaveBeenCalled",
            "toBeCalled",
            "toHaveReturned",
            "toReturn",
            "toBeOneOf",
            "include",
            "includes",
            "contain",
            "contains",
            "match",
            "members",
            "oneOf",
            "above",
            "below",
            "least",
            "most",
            "instanceOf",
            "expect.hasAssertions",
            "assert.match",
            "assert.include",
            "assert.includes",
            "assert.isAbove",
            "assert.isBelow",
            "assert.isAtLeast",
            "assert.isAtMost",
            "assert.instanceOf",
            "assert.oneOf",
            "assert.typeOf",
        ],
        2,
    ),
    **dict.fromkeys(
        [
            "toBeTruthy",
            "toBeFalsy",
            "toBeDefined",
            "ok",
            "exist",
            "assert",
            "assert.ok",
            "assert.isOk",
            "assert.exists",
            "assert.isDefined",
            "assert.isNotNull",
            "assert.notStrictEqual",
            "assert.notEqual",
            "assert.notDeepStrictEqual",
            "assert.notDeepEqual",
            "assert.doesNotThrow",
            "assert.doesNotReject",
            "assert.isNotOk",
        ],
        1,
    ),
}
# Matchers whose strength depends on whether they name what is expected.
THROW_MATCHERS = frozenset({"toThrow", "toThrowError", "throw", "throws", "Throw"})
_ASSERT_THROWS = frozenset({"assert.throws", "assert.rejects"})
_ASYMMETRIC = ("expect.anything(", "expect.any(", "Containing(", "expect.stringMatching(")
GENERIC_ERRORS = frozenset({"", "Error", "Object", "expect.anything()", "/.*/", '""'})


def normalise(text: str) -> str:
    """Compare code modulo formatting: whitespace, quote style, trailing commas, semicolons."""
    flat = "".join(text.split()).replace("'", '"').replace("`", '"')
    for closer in ")]}":
        flat = flat.replace(f",{closer}", closer)
    return flat.rstrip(";")


@dataclass(frozen=True, slots=True)
class Assertion:
    node: Node
    text: str  # normalised
    subject: str  # normalised first argument of expect()/assert.*(), "" if none
    matcher: str
    negated: bool
    args: tuple[str, ...]  # normalised matcher arguments (for assert.*: all but the subject)

    @property
    def lines(self) -> tuple[int, int]:
        return lines_of(self.node)

    @property
    def rank(self) -> int | None:
        """3 exact, 2 partial, 1 existence only; None for a matcher this critic does not know."""
        base = _RANKS.get(self.matcher)
        if self.matcher in THROW_MATCHERS or self.matcher in _ASSERT_THROWS:
            base = 3 if self.args else 2
        elif self.matcher == "toHaveProperty":
            base = 3 if len(self.args) >= 2 else 2
        if base is None:
            return None
        if self.negated:
            return 1
        if any(marker in arg for arg in self.args for marker in _ASYMMETRIC):
            return min(base, 2)
        return base

    @property
    def expected_error(self) -> str | None:
        """The error an exception assertion names ("" = any error), None for other matchers."""
        if self.negated or (
            self.matcher not in THROW_MATCHERS and self.matcher not in _ASSERT_THROWS
        ):
            return None
        return self.args[0] if self.args else ""


@dataclass(frozen=True, slots=True)
class TestCall:
    key: tuple[str, ...]  # enclosing suite titles, then this call's title
    kind: TestKind
    node: Node
    modifiers: frozenset[str]
    body: Node | None  # the callback, None for `test.todo("...")`

    @property
    def title(self) -> str:
        return " > ".join(self.key)

    @property
    def lines(self) -> tuple[int, int]:
        return lines_of(self.node)

    @property
    def disabled(self) -> bool:
        return bool(self.modifiers & DISABLING)

    def body_text(self) -> str:
        return normalise(text_of(self.body)) if self.body is not None else ""


def _chain(node: Node) -> list[str] | None:
    """`test.skip` -> ["test", "skip"]; None when the callee is not a plain dotted name."""
    if node.type == "identifier":
        return [text_of(node)]
    if node.type != "member_expression":
        return None
    obj = node.child_by_field_name("object")
    prop = node.child_by_field_name("property")
    head = _chain(obj) if obj is not None else None
    return None if head is None or prop is None else [*head, text_of(prop)]


def _classify_call(call: Node) -> tuple[TestKind, frozenset[str]] | None:
    function = call.child_by_field_name("function")
    if function is None:
        return None
    if function.type == "call_expression":  # test.each(table)("title %s", fn)
        inner = function.child_by_field_name("function")
        function = inner if inner is not None else function
    parts = _chain(function)
    if not parts or not set(parts[1:]) <= _MODIFIERS:
        return None
    base, modifiers = parts[0], set(parts[1:])
    if base in _TEST_BASES:
        kind: TestKind = "test"
        implied = _TEST_BASES[base]
    elif base in _SUITE_BASES:
        kind = "suite"
        implied = _SUITE_BASES[base]
    else:
        return None
    if implied:
        modifiers.add(implied)
    return kind, frozenset(modifiers)


def _title(call: Node) -> str | None:
    arguments = call.child_by_field_name("arguments")
    args = named_children(arguments) if arguments is not None else []
    if not args:
        return None
    first = args[0]
    if first.type == "string":
        return text_of(first)[1:-1]
    return " ".join(text_of(first).split())


def _callback(call: Node) -> Node | None:
    arguments = call.child_by_field_name("arguments")
    args = named_children(arguments) if arguments is not None else []
    functions = [arg for arg in args[1:] if arg.type in FUNCTION_TYPES]
    return functions[0] if functions else None


def test_calls(root: Node) -> dict[tuple[str, ...], TestCall]:
    """Every test and suite of a file by key; a repeated title gets a `#2`, `#3` suffix."""
    found: dict[tuple[str, ...], TestCall] = {}
    seen: Counter[tuple[str, ...]] = Counter()
    stack: list[tuple[Node, tuple[str, ...]]] = [(root, ())]
    while stack:
        node, prefix = stack.pop()
        for child in reversed(node.children):
            shape = _classify_call(child) if child.type == "call_expression" else None
            title = _title(child) if shape is not None else None
            if shape is None or title is None:
                stack.append((child, prefix))
                continue
            key = (*prefix, title)
            seen[key] += 1
            if seen[key] > 1:
                key = (*prefix, f"{title} #{seen[key]}")
            kind, modifiers = shape
            body = _callback(child)
            found[key] = TestCall(key, kind, child, modifiers, body)
            if kind == "suite" and body is not None:
                stack.append((body, key))
    # The stack visits children in reverse; order by position so `#2` means the second one.
    return dict(sorted(found.items(), key=lambda item: item[1].node.start_byte))


def _assertion(call: Node) -> Assertion | None:
    function = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if function is None or arguments is None:
        return None
    args = [normalise(text_of(arg)) for arg in named_children(arguments)]
    text = normalise(text_of(call))
    name = callee_name(call)
    if name == "assert" or name.startswith("assert."):
        subject = args[0] if args else ""
        return Assertion(call, text, subject, name, False, tuple(args[1:]))
    if name in ("expect.assertions", "expect.hasAssertions"):
        return Assertion(call, text, "", name, False, tuple(args))
    if function.type != "member_expression":
        return None
    names: list[str] = []
    node: Node | None = function
    while node is not None and node.type == "member_expression":
        prop = node.child_by_field_name("property")
        names.append(text_of(prop) if prop is not None else "")
        node = node.child_by_field_name("object")
    if node is None or node.type != "call_expression":
        return None
    if callee_name(node) not in ("expect", "expect.soft", "chai.expect"):
        return None
    expect_args = node.child_by_field_name("arguments")
    subject_nodes = named_children(expect_args) if expect_args is not None else []
    subject = normalise(text_of(subject_nodes[0])) if subject_nodes else ""
    names.reverse()
    negated = "not" in names[:-1]
    return Assertion(call, text, subject, names[-1], negated, tuple(args))


def assertions(body: Node | None) -> list[Assertion]:
    """The assertions of a test body, outermost calls only, in source order."""
    if body is None:
        return []
    found: list[Assertion] = []
    for node in walk(body):
        if node.type != "call_expression":
            continue
        parent = node.parent
        if parent is not None and parent.type == "member_expression":
            continue  # `expect(x)` inside `expect(x).toBe(1)`: the chain is read from the top
        assertion = _assertion(node)
        if assertion is not None:
            found.append(assertion)
    return found


# --- comparing the old and the new version of a test file ------------------------------------

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


TOPIC = Topic.TEST_WEAKENING


@dataclass(frozen=True, slots=True)
class _Hit:
    rule: str
    severity: Severity
    start_line: int
    end_line: int
    claim: str
    old_evidence: str | None = None


def _similarity(old: Assertion, new: Assertion) -> float:
    """Textual similarity, plus a bonus when both check the same value: the same subject, or
    one's subject moved into the other's arguments (`expect(x).toBe(1)` -> `expect([1, 2])
    .toContain(x)`)."""
    score = SequenceMatcher(None, old.text, new.text, autojunk=False).ratio()
    related = bool(old.subject) and (
        old.subject == new.subject or old.subject in new.args or new.subject in old.args
    )
    return score + (0.5 if related else 0.0)


def greedy_pairs(
    n_old: int, n_new: int, score: Callable[[int, int], float], threshold: float
) -> list[tuple[int, int]]:
    """Index pairs, best score first, each index used once, scores below threshold unpaired.

    Above `_FUZZY_LIMIT` candidate pairs the scoring would cost seconds; items then pair by
    position, which is what an in-order rewrite (a renamed describe, a rewritten table of
    assertions) gives."""
    if n_old * n_new > _FUZZY_LIMIT:
        return list(zip(range(n_old), range(n_new), strict=False))
    scored = sorted(
        ((score(i, j), i, j) for i in range(n_old) for j in range(n_new)),
        key=lambda item: (-item[0], item[1], item[2]),
    )
    pairs: list[tuple[int, int]] = []
    used_old: set[int] = set()
    used_new: set[int] = set()
    for value, i, j in scored:
        if value < threshold or i in used_old or j in used_new:
            continue
        used_old.add(i)
        used_new.add(j)
        pairs.append((i, j))
    return pairs


_FUZZY_LIMIT = 2500


def _pair_assertions(
    old: list[Assertion], new: list[Assertion]
) -> tuple[list[tuple[Assertion, Assertion]], list[Assertion]]:
    """(pairs of an old assertion and the new one it became, old assertions with no heir).

    Identical assertions (modulo formatting) cancel first; the rest pair greedily by
    textual similarity, with a bonus when they check the same subject."""
    remaining_new = list(new)
    unmatched_old: list[Assertion] = []
    for assertion in old:
        twin = next((cand for cand in remaining_new if cand.text == assertion.text), None)
        if twin is None:
            unmatched_old.append(assertion)
        else:
            remaining_new.remove(twin)
    index_pairs = greedy_pairs(
        len(unmatched_old),
        len(remaining_new),
        lambda i, j: _similarity(unmatched_old[i], remaining_new[j]),
        _PAIR_THRESHOLD,
    )
    paired_old = {i for i, _j in index_pairs}
    pairs = [(unmatched_old[i], remaining_new[j]) for i, j in index_pairs]
    orphans = [a for i, a in enumerate(unmatched_old) if i not in paired_old]
    return pairs, orphans


_PAIR_THRESHOLD = 0.4


def _digits(assertion: Assertion) -> int:
    """toBeCloseTo's precision argument; Jest's default is 2."""
    if len(assertion.args) >= 2 and assertion.args[1].isdigit():
        return int(assertion.args[1])
    return 2


def _compare_assertion(test: TestCall, old: Assertion, new: Assertion, old_src: str) -> _Hit | None:
    start, end = new.lines
    old_text = _source_lines(old_src, *old.lines)
    before = " ".join(text_of(old.node).split())
    after = " ".join(text_of(new.node).split())
    old_error, new_error = old.expected_error, new.expected_error
    if old_error and new_error is not None and new_error != old_error:
        if new_error in GENERIC_ERRORS:
            return _Hit(
                "js-expected-error-widened",
                Severity.MAJOR,
                start,
                end,
                f"in test `{test.title}`, `{before}` became `{after}`: it no longer checks "
                f"which error is thrown ({old_error} -> {new_error or 'any error'})",
                old_text,
            )
        return None
    if old.matcher == "toBeCloseTo" == new.matcher and _digits(new) < _digits(old):
        return _Hit(
            "js-tolerance-widened",
            Severity.MAJOR,
            start,
            end,
            f"in test `{test.title}`, `{before}` became `{after}`: toBeCloseTo now accepts "
            f"a difference of 10^-{_digits(new)} instead of 10^-{_digits(old)}",
            old_text,
        )
    old_rank, new_rank = old.rank, new.rank
    if old_rank is None or new_rank is None or new_rank >= old_rank:
        return None
    return _Hit(
        "js-assertion-weakened",
        Severity.MAJOR,
        start,
        end,
        f"in test `{test.title}`, `{before}` became `{after}` "
        f"({_describe(old)} -> {_describe(new)}): the new assertion also passes for values "
        "the old one rejected",
        old_text,
    )


def _describe(assertion: Assertion) -> str:
    return f"not.{assertion.matcher}" if assertion.negated else assertion.matcher


def _source_lines(text: str, start: int, end: int) -> str:
    return "\n".join(text.splitlines()[start - 1 : end])


def _compare_tests(old: TestCall, new: TestCall, old_src: str, new_src: str) -> list[_Hit]:
    start, end = new.lines
    hits: list[_Hit] = []
    if "only" in new.modifiers and "only" not in old.modifiers:
        hits.append(_only_hit(new))
    if new.disabled and not old.disabled:
        header_lines = _source_lines(new_src, max(start - 1, 1), start)
        if not has_issue_reference(header_lines, new.title):
            how = "marked todo" if "todo" in new.modifiers else "skipped"
            hits.append(
                _Hit(
                    "js-test-skipped",
                    Severity.MINOR,
                    start,
                    start,
                    f"{new.kind} `{new.title}` is now {how} with no issue reference "
                    "(#123, ABC-123 or an /issues/ URL): what it checked is no longer checked",
                    _source_lines(old_src, old.lines[0], old.lines[0]),
                )
            )
        return hits  # a disabled test asserts nothing; the skip is the finding
    if new.kind != "test" or old.body_text() == new.body_text():
        return hits
    pairs, orphans = _pair_assertions(assertions(old.body), assertions(new.body))
    for old_assertion, new_assertion in pairs:
        hit = _compare_assertion(new, old_assertion, new_assertion, old_src)
        if hit is not None:
            hits.append(hit)
    for orphan in orphans:
        gone = " ".join(text_of(orphan.node).split())
        hits.append(
            _Hit(
                "js-assertion-removed",
                Severity.MAJOR,
                start,
                end,
                f"test `{new.title}` still exists but no longer asserts `{gone}`",
                _source_lines(old_src, *orphan.lines),
            )
        )
    return hits


def _only_hit(test: TestCall) -> _Hit:
    start = test.lines[0]
    return _Hit(
        "js-test-only",
        Severity.MAJOR,
        start,
        start,
        f"{test.kind} `{test.title}` is focused (`.only` / `f` prefix): every other test in "
        "the file silently stops running",
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


def _pair_renamed(
    old_tests: dict[tuple[str, ...], TestCall], new_tests: dict[tuple[str, ...], TestCall]
) -> list[tuple[TestCall, TestCall]]:
    """Old tests whose key changed (their own title or a describe's), found by the same own
    title, then the same body, then a similar body."""
    lost = [t for key, t in old_tests.items() if key not in new_tests and t.kind == "test"]
    fresh = [t for key, t in new_tests.items() if key not in old_tests and t.kind == "test"]
    pairs: list[tuple[TestCall, TestCall]] = []
    for same in (_own_title, _body_or_none):
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
        _RENAME_THRESHOLD,
    )
    return pairs + [(lost[i], fresh[j]) for i, j in index_pairs]


_RENAME_THRESHOLD = 0.8


def compare_files(change: FileChange, old_root: Node | None, new_root: Node | None) -> list[_Hit]:
    old_src, new_src = change.old_text or "", change.new_text or ""
    old_tests = test_calls(old_root) if old_root is not None else {}
    new_tests = test_calls(new_root) if new_root is not None else {}
    pairs = [(old_tests[key], new) for key, new in new_tests.items() if key in old_tests]
    renamed = _pair_renamed(old_tests, new_tests)
    pairs.extend(renamed)
    hits: list[_Hit] = []
    for old, new in pairs:
        hits.extend(_compare_tests(old, new, old_src, new_src))
    heirs = {old.key for old, _new in renamed}
    paired_new = {new.key for _old, new in pairs}
    for key, new in new_tests.items():
        header = new.lines[0]
        if key not in paired_new and "only" in new.modifiers and change.touches(header, header):
            hits.append(_only_hit(new))
    deleted = [
        old
        for key, old in old_tests.items()
        if key not in new_tests and key not in heirs and old.kind == "test"
    ]
    to_new = _line_mapper(old_src, change.new_text) if deleted else None
    for old in deleted:
        line = to_new(old.lines[0]) if to_new is not None else 1
        hits.append(
            _Hit(
                "js-test-deleted",
                Severity.MAJOR,
                line,
                line,
                f"test `{old.title}` was deleted: what it checked is no longer checked "
                "(unless it moved to another file)",
                _source_lines(old_src, *old.lines),
            )
        )
    return hits


def is_js_test_file(change: FileChange) -> bool:
    paths = [change.path, *([change.old_path] if change.old_path else [])]
    return any(is_test_path(path) or ".cy." in path.rsplit("/", 1)[-1] for path in paths)


def check_file(change: FileChange) -> Iterator[Finding | Skipped]:
    new_language = js_language(change.language)
    old_language = old_side_language(change)
    if (new_language is None and old_language is None) or not is_js_test_file(change):
        return
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
            yield root
            return  # half a comparison would report every test of the other side
        roots.append(root)
    hits = compare_files(change, roots[0], roots[1])
    for hit in sorted(hits, key=lambda item: (item.start_line, item.rule)):
        evidence = (
            change.new_lines(hit.start_line, hit.end_line) if change.new_text is not None else ""
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
        )


class JsWeakenedTests:
    topic = TOPIC
    languages: frozenset[FileLanguage] = frozenset({"javascript", "typescript", "tsx"})

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        results: list[Finding | Skipped] = []
        for change in changes:
            results.extend(check_file(change))
        return results


CRITIC = JsWeakenedTests()
