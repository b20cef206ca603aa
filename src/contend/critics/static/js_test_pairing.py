"""Which old check became which new one: pairing the assertions (and tests) of two versions
of JS/TS test code, with the equivalences a rewrite keeps.

A rewrite renames locals (`const result = useThing()` -> `const things = useThing()`), moves
a test into another file or renames it in place, and replaces a brittle error-message check
by a stable identity (`error.code`, `error.name`, the error's class). This module decides
which old assertion corresponds to which new one under those rewrites; `js_weakened_tests`
then judges each pair (weaker or not) and each old assertion left without one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher

from tree_sitter import Node

from contend.critics.static.js_assertions import Assertion, assertions, normalise
from contend.critics.static.js_tests_model import TestCall
from contend.critics.static.treesitter import text_of, walk

# Above this many candidate pairs, fuzzy scoring would cost seconds: pair by position.
_FUZZY_LIMIT = 2500
PAIR_THRESHOLD = 0.4
RENAME_THRESHOLD = 0.8


def split_base(subject: str) -> tuple[str, str]:
    """`callArgs[0].x` -> ("callArgs", "[0].x")."""
    for index, char in enumerate(subject):
        if char in ".[(":
            return subject[:index], subject[index:]
    return subject, ""


def aliases(body: Node | None) -> dict[str, str]:
    """Local names of a test body and the (normalised) expressions they hold (a caught
    error has no expression: two catch parameters are the same value only by name)."""
    found: dict[str, str] = {}
    if body is None:
        return found
    for node in walk(body):
        if node.type != "variable_declarator":
            continue
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if name is not None and value is not None and name.type == "identifier":
            found[text_of(name)] = normalise(text_of(value))
    return found


def same_value(
    old_subject: str, new_subject: str, old_aliases: dict[str, str], new_aliases: dict[str, str]
) -> bool:
    """Two subjects name the same value: the same text, or the same member of two locals
    (renamed) that hold the same expression (`new Set(xs.map(f))` and `new Set(xs.map(g))`
    are two values)."""
    if old_subject == new_subject:
        return bool(old_subject)
    old_base, old_rest = split_base(old_subject)
    new_base, new_rest = split_base(new_subject)
    if old_rest != new_rest:
        return False
    old_value, new_value = old_aliases.get(old_base), new_aliases.get(new_base)
    return old_value is not None and old_value == new_value


def similarity(
    old: Assertion,
    new: Assertion,
    new_aliases: dict[str, str] | None = None,
    old_aliases: dict[str, str] | None = None,
) -> float:
    """Textual similarity, plus a bonus when both check the same value: the same subject
    (or a renamed local holding the same call), one's subject moved into the other's
    arguments (`expect(x).toBe(1)` -> `expect([1, 2]).toContain(x)`), or the new subject
    derived from the old one (`expect(fn).toHaveBeenCalledWith(a)` -> `const args =
    fn.mock.calls[0].arguments; assert.deepEqual(args, [a])`)."""
    score = SequenceMatcher(None, old.text, new.text, autojunk=False).ratio()
    new_aliases = new_aliases or {}
    related = bool(old.subject) and (
        same_value(old.subject, new.subject, old_aliases or {}, new_aliases)
        or old.subject in new.args
        or new.subject in old.args
    )
    if not related and len(old.subject) >= 3:
        base, rest = split_base(new.subject)
        derived = new_aliases.get(base, base) + rest
        related = derived.startswith((f"{old.subject}.", f"{old.subject}["))
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


def pair_assertions(
    old: list[Assertion],
    new: list[Assertion],
    new_aliases: dict[str, str] | None = None,
    old_aliases: dict[str, str] | None = None,
) -> tuple[list[tuple[Assertion, Assertion]], list[Assertion]]:
    """(pairs of an old assertion and the new one it became, old assertions with no heir).

    Identical assertions (modulo formatting) cancel first; the rest pair greedily by
    textual similarity, with a bonus when they check the same value."""
    remaining: dict[str, list[Assertion]] = {}
    for assertion in new:
        remaining.setdefault(assertion.key, []).append(assertion)
    unmatched_old: list[Assertion] = []
    for assertion in old:
        twins = remaining.get(assertion.key)
        if twins:
            twins.pop(0)
        else:
            unmatched_old.append(assertion)
    remaining_new = [a for twins in remaining.values() for a in twins]
    remaining_new.sort(key=lambda a: a.node.start_byte)
    index_pairs = greedy_pairs(
        len(unmatched_old),
        len(remaining_new),
        lambda i, j: similarity(unmatched_old[i], remaining_new[j], new_aliases, old_aliases),
        PAIR_THRESHOLD,
    )
    paired_old = {i for i, _j in index_pairs}
    pairs = [(unmatched_old[i], remaining_new[j]) for i, j in index_pairs]
    orphans = [a for i, a in enumerate(unmatched_old) if i not in paired_old]
    return pairs, orphans


# What identifies an error more stably than its message: its code, its name, its class.
_IDENTITY_MEMBERS = (".code", ".errno", ".name", ".constructor.name", ".constructor")
_INSTANCE_MATCHERS = frozenset(
    {"toBeInstanceOf", "instanceOf", "assert.instanceOf", "assert(instanceof)"}
)


def identifies_error(
    old: Assertion, new: Assertion, old_aliases: dict[str, str], new_aliases: dict[str, str]
) -> bool:
    """`error.message` checked -> the same error's code, name or class checked exactly: the
    same failure is pinned, by an identity that does not change with the wording."""
    if not old.subject.endswith(".message") or old.negated or new.negated:
        return False
    error = old.subject.removesuffix(".message")
    if new.matcher in _INSTANCE_MATCHERS:
        candidate = new.subject
    elif new.rank == 3:
        member = next((m for m in _IDENTITY_MEMBERS if new.subject.endswith(m)), None)
        if member is None:
            return False
        candidate = new.subject.removesuffix(member)
    else:
        return False
    return same_value(error, candidate, old_aliases, new_aliases)


def renamed(text: str, renames: Mapping[str, str]) -> str:
    """`text` with every identifier the change renamed in the code under its new name."""
    if not renames:
        return text
    return _IDENTIFIER.sub(lambda match: renames.get(match.group(0), match.group(0)), text)


_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")


@dataclass(frozen=True, slots=True)
class Scope:
    """What two versions of a test call their values: the locals of each (`aliases`) and
    the names the change renamed in the code (`SERVER_RESPONSE_TIME_NODE` ->
    `NODE_SERVER_RESPONSE_TIME`)."""

    old_aliases: dict[str, str]
    new_aliases: dict[str, str]
    renames: Mapping[str, str]


def at_least_as_strict(old: Assertion, new: Assertion, scope: Scope) -> bool:
    """The same check of the same value, naming at least what the old one named: the same
    kind and subject (a renamed local holding the same expression is the same value), the
    old expected values a prefix of the new ones (a renamed constant is the same constant),
    rank kept (`assert.throws(fn)` -> `assert.throws(fn, /message/)`)."""
    old_kind, old_subject, old_expected = old.check
    new_kind, new_subject, new_expected = new.check
    old_aliases = {name: renamed(value, scope.renames) for name, value in scope.old_aliases.items()}
    return (
        bool(old_subject)
        and old_kind == new_kind
        and same_value(
            renamed(old_subject, scope.renames), new_subject, old_aliases, scope.new_aliases
        )
        and new_expected[: len(old_expected)]
        == tuple(renamed(value, scope.renames) for value in old_expected)
        and old.rank is not None
        and new.rank is not None
        and new.rank >= old.rank
    )


def checks_kept_stricter(old: TestCall, new: TestCall, renames: Mapping[str, str]) -> bool:
    """Every assertion of the old test has one in the new test at least as strict."""
    old_checks, new_checks = assertions(old.body), assertions(new.body)
    scope = Scope(aliases(old.body), aliases(new.body), renames)
    return bool(old_checks) and all(
        any(at_least_as_strict(before, after, scope) for after in new_checks)
        for before in old_checks
    )


_TITLE_WORD = re.compile(r"[a-z0-9]+")


def fold_title(title: str) -> str:
    return " ".join(_TITLE_WORD.findall(title.lower()))


def titles_related(old: TestCall, new: TestCall) -> bool:
    """The new title keeps two or more of the old title's words and at least two thirds of
    them (`trust proxy number` -> `trust proxy number ignores forwarded headers`), so a
    sibling written in its place (`parses numbers` -> `parses strings`) is not its heir."""
    old_words = set(_TITLE_WORD.findall(old.key[-1].lower()))
    new_words = set(_TITLE_WORD.findall(new.key[-1].lower()))
    shared = len(old_words & new_words)
    return shared >= 2 and 3 * shared >= 2 * len(old_words)
