"""What a whole change does to the checks of its JS/TS test files, across files.

`js_weakened_tests` compares each test with its old version; this module holds what that
comparison needs from the rest of the change: how often each check (an assertion, by its
framework-independent key) was asserted before and after, the bodies of tests that arrived
in a file, and the code the change removed — functions no longer defined, member names and
string words no longer mentioned, and whether the change takes code away at all — so a test
that moved, or went together with the behaviour it tested, is not read as a lost check.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from tree_sitter import Node

from contend.critics.static.base import FileChange
from contend.critics.static.treesitter import (
    callee_name,
    functions,
    js_language,
    old_side_language,
    parse,
    walk,
)


@dataclass(slots=True)
class Pool:
    """What the whole change asserts, across its test files: a check that left one test (or
    file) and arrived in another is moved, not lost."""

    old_counts: Counter[str] = field(default_factory=Counter)
    new_counts: Counter[str] = field(default_factory=Counter)
    # Functions the change deleted from non-test code: tests of them go with them.
    removed_names: frozenset[str] = frozenset()
    # Member names and string words the change's code stopped mentioning altogether.
    removed_words: frozenset[str] = frozenset()
    # Whether the change takes non-test code away (a behaviour may have gone).
    code_removed: bool = False
    # Normalised bodies of tests that are new in their file (moved-in candidates).
    arrived: Counter[str] = field(default_factory=Counter)

    def kept(self, text: str) -> bool:
        return self.new_counts[text] >= self.old_counts[text]


def about_removed_code(node: Node | None, removed: frozenset[str]) -> bool:
    """Whether a test (or assertion) calls a function the change deleted from the code."""
    if node is None or not removed:
        return False
    for item in [node, *walk(node)]:
        if item.type != "call_expression":
            continue
        name = callee_name(item).rsplit(".", 1)[-1]
        if name in removed:
            return True
    return False


def removed_names(changes: Sequence[FileChange], tests: set[str]) -> frozenset[str]:
    """Names of module-level functions and class methods in the old code (not tests) of the
    change that no new side defines (a nested helper of the same name is another thing)."""
    old_names: set[str] = set()
    new_names: set[str] = set()
    for change in changes:
        if change.path in tests:
            continue
        for text, language in (
            (change.old_text, old_side_language(change)),
            (change.new_text, js_language(change.language)),
        ):
            if text is None or language is None:
                continue
            root = parse(text, language)
            if root.has_error:
                continue
            names = {
                name.rsplit(".", 1)[-1]
                for name, fn in functions(root, language).items()
                if "(" not in name and (name.count(".") <= 1 or _is_api_member(fn))
            }
            (old_names if text is change.old_text else new_names).update(names)
    return frozenset(name for name in old_names - new_names if name and "#" not in name)


# What a test names of the code: member names (`.storeOptionsAsProperties`) and words inside
# string literals (`'ENOENT'`, `'--debug'`), long enough to be distinctive.
_MEMBER = re.compile(r"\.([A-Za-z_$][\w$]{4,})")
_QUOTED = re.compile(r"""(['"`])([^'"`\n]{1,80})\1""")
_WORD = re.compile(r"[A-Za-z_][\w-]{4,}")


def vocabulary(text: str) -> set[str]:
    found = set(_MEMBER.findall(text))
    for _quote, content in _QUOTED.findall(text):
        found.update(_WORD.findall(content))
    return found


def removed_vocabulary(changes: Sequence[FileChange], tests: set[str]) -> frozenset[str]:
    """Member names and string words that the change's deleted code lines held and that no
    new code of the change mentions any more: the behaviour they named is gone."""
    removed: set[str] = set()
    new_words: set[str] = set()
    for change in changes:
        if change.path in tests or js_language(change.language) is None:
            continue
        if change.old_text is not None and change.removed_lines:
            old_lines = change.old_text.split("\n")
            gone = "\n".join(
                old_lines[n - 1] for n in sorted(change.removed_lines) if n <= len(old_lines)
            )
            removed |= vocabulary(gone)
        if change.new_text is not None:
            new_words.update(re.findall(r"[A-Za-z_$][\w$-]*", change.new_text))
    return frozenset(word for word in removed if word not in new_words)


def removes_code(changes: Sequence[FileChange], tests: set[str]) -> bool:
    """Whether the change takes code away: its non-test JS/TS files lose at least one line of
    code (not blank, not a comment) and lose at least as many lines as they gain."""
    code_lines = removed = added = 0
    for change in changes:
        if change.path in tests or js_language(change.language) is None:
            continue
        removed += len(change.removed_lines)
        added += len(change.added_lines)
        if change.old_text is None:
            continue
        old_lines = change.old_text.split("\n")
        for number in change.removed_lines:
            text = old_lines[number - 1].strip() if number <= len(old_lines) else ""
            if text and not text.startswith(("//", "/*", "*")):
                code_lines += 1
    return code_lines > 0 and removed >= added


def _is_api_member(fn: Node) -> bool:
    """A method, or a function assigned to an object's member (`promise.cancel = ...`):
    part of an object's interface, unlike a helper nested in a function."""
    parent = fn.parent
    if fn.type == "method_definition":
        return True
    return (
        parent is not None
        and parent.type == "assignment_expression"
        and (left := parent.child_by_field_name("left")) is not None
        and left.type == "member_expression"
    )
