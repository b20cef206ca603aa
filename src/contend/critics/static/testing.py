"""Test helper: build a `FileChange` from two texts, without git.

Critics' unit tests describe a change as (old_text, new_text); this computes the added and
removed line numbers with difflib the way `git diff -U0` would, so a test needs no repository.
"""

from __future__ import annotations

import difflib

from contend.critics.static.base import ChangeStatus, FileChange, language_of


def changed_lines(old_text: str, new_text: str) -> tuple[frozenset[int], frozenset[int]]:
    """1-based (added new-side lines, removed old-side lines) between two texts."""
    old_lines = old_text.split("\n")
    new_lines = new_text.split("\n")
    added: set[int] = set()
    removed: set[int] = set()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        removed.update(range(i1 + 1, i2 + 1))
        added.update(range(j1 + 1, j2 + 1))
    return frozenset(added), frozenset(removed)


def change_from_texts(
    path: str,
    old_text: str | None,
    new_text: str | None,
    *,
    old_path: str | None = None,
) -> FileChange:
    """A FileChange for `path`; old_text None means an added file, new_text None a deleted one.

    Passing `old_path` (different from `path`) makes it a rename."""
    if old_text is None and new_text is None:
        raise ValueError("change_from_texts needs at least one of old_text / new_text")
    status: ChangeStatus
    if old_text is None:
        status = "added"
    elif new_text is None:
        status = "deleted"
    elif old_path is not None and old_path != path:
        status = "renamed"
    else:
        status = "modified"
    added, removed = changed_lines(old_text or "", new_text or "")
    return FileChange(
        path=path,
        old_path=old_path if status == "renamed" else None,
        status=status,
        old_text=old_text,
        new_text=new_text,
        added_lines=added,
        removed_lines=removed,
        language=language_of(path),
    )
