"""The `boundary-typing` topic for Python: the change erodes a type or validation boundary.

This module owns the critic: it parses both sides of each changed Python file and runs
each rule on the functions the change touched. The rules live in their own modules:
boundary_typing_removed.py (validation-guard-removed), boundary_typing_isinstance.py
(isinstance-replaced-by-constant), boundary_typing_guards.py (the guard model both share),
boundary_typing_marks.py and boundary_typing_primitives.py (the additive rules).

Rules:
    validation-guard-removed        major  `if ...: raise TypeError/ValueError`, the
                                           `raise TypeError` that ends a type dispatch (an
                                           `else:` or the fall-through after isinstance
                                           branches), or `assert isinstance` gone from a
                                           function of library code
    isinstance-replaced-by-constant major  an isinstance check turned into a constant, or
                                           dropped from a condition that otherwise survived
    type-ignore-added               minor  see boundary_typing_marks.py: the additive rules,
    cast-to-any-added               minor  taste-level by design
    any-annotation-added            minor
    primitive-validated-in-core     minor

Removal rules compare the old and new version of the same function (by qualified name). A
guard moved into a helper the function calls, into the parameter's type, merged with
another or raising another exception class is not removed. Test files have no input guards:
an `assert isinstance` in a test is a test's check (the test-weakening topic's). A guard
whose `raise` became `return <default>` under the same condition is silent-fallback's
`raise-to-default`, the more specific rule, and is not reported here as well.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence

from contend.critics.static import boundary_typing_marks as marks
from contend.critics.static import boundary_typing_primitives as primitives
from contend.critics.static import pyast
from contend.critics.static.base import FileChange, Finding, Language, Skipped, Topic, is_test_path
from contend.critics.static.boundary_typing_isinstance import (
    ISINSTANCE_CONSTANT,
    isinstance_replaced,
)
from contend.critics.static.boundary_typing_removed import GUARD_REMOVED, guards_removed
from contend.critics.static.catalogue import RuleInfo

RULES: tuple[RuleInfo, ...] = (GUARD_REMOVED, ISINSTANCE_CONSTANT, *marks.RULES)


class BoundaryTypingCritic:
    topic = Topic.BOUNDARY_TYPING
    languages: frozenset[Language] = frozenset({"python"})

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        python = [c for c in changes if c.language == "python"]
        context = marks.Changed([(c, _tree(c.old_text), _tree(c.new_text)) for c in python])

        def check_file(
            change: FileChange, new_tree: ast.Module, old_tree: ast.Module | None
        ) -> Iterator[Finding]:
            return _check_file(change, new_tree, old_tree, context)

        return pyast.check_python_files(self.topic, changes, check_file)


CRITIC = BoundaryTypingCritic()


def _tree(text: str | None) -> ast.Module | None:
    if text is None:
        return None
    return pyast.parse_old_side(text)


def _check_file(
    change: FileChange,
    new_tree: ast.Module,
    old_tree: ast.Module | None,
    context: marks.Changed,
) -> Iterator[Finding]:
    new_funcs = pyast.functions(new_tree)
    old_funcs = pyast.functions(old_tree) if old_tree is not None else {}
    if not is_test_path(change.path):
        for name, new_fn in new_funcs.items():
            old_fn = old_funcs.get(name)
            if old_fn is None or not _touched(change, old_fn, new_fn):
                continue
            replaced = list(isinstance_replaced(change, old_fn, new_fn))
            yield from (finding for finding, _ in replaced)
            covered = {line for _, line in replaced}
            yield from guards_removed(change, old_fn, new_fn, new_funcs, covered)
    yield from marks.type_ignores(change, new_tree, context)
    yield from marks.casts_to_any(change, new_tree, context)
    yield from marks.any_annotations(change, new_tree, context)
    yield from primitives.primitive_checks(change, new_funcs, old_funcs)


def _touched(change: FileChange, old_fn: pyast.Function, new_fn: pyast.Function) -> bool:
    """The change added lines to the new version or removed lines from the old one."""
    removed = range(old_fn.start_line, old_fn.end_line + 1)
    return change.touches(new_fn.start_line, new_fn.end_line) or any(
        line in change.removed_lines for line in removed
    )
