"""What a review compares: the old side (base) and the new side (a commit, the index or the
working tree), chosen from the command line or by the default-base rule.

The default base is `gitio.base.default_base` (shared with the configuration loader, which
reads the project config at that base). Nothing here writes to the repository or its index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from contend.errors import RevisionNotFound, UserError
from contend.gitio.base import default_base, merge_base
from contend.gitio.git import EMPTY_TREE, git_text, repo_root, resolve_commit

__all__ = ["EMPTY_TREE", "Target", "resolve_target"]


@dataclass(frozen=True, slots=True)
class Target:
    """Both sides of a review; `head` None means the working tree (or the index if staged)."""

    repo_root: Path
    base: str
    head: str | None
    staged: bool
    branch: str | None
    head_sha: str
    label: str
    notes: tuple[str, ...]
    continuation_key: str


def resolve_target(
    path: Path,
    *,
    base: str | None = None,
    head: str | None = None,
    staged: bool = False,
    commit_range: str | None = None,
    exclude: Sequence[str] = (),
) -> Target:
    """Resolve the command line's --base/--head/--staged/RANGE into full commit ids.

    `exclude`: repository-relative paths (contend's state directory) whose changes never
    count as the user's uncommitted work."""
    root = repo_root(path)
    if commit_range is not None and (base is not None or head is not None or staged):
        raise UserError("a commit range already names both sides: drop --base/--head/--staged")
    if staged and head is not None:
        raise UserError("choose one new side: --staged (the index) or --head REV, not both")
    head_sha = _head_commit(root)
    branch = git_text(root, ["branch", "--show-current"]).strip() or None
    notes: list[str] = []
    if branch is None:
        notes.append(
            f"HEAD is detached at {head_sha[:12]}: the review continues by commit, not by "
            "branch — a later run continues it only while HEAD stays at this commit"
        )
    key = branch if branch is not None else f"detached@{head_sha[:12]}"

    if commit_range is not None:
        base_sha, head_commit, label = _range(root, commit_range)
        return Target(root, base_sha, head_commit, False, branch, head_sha, label, (*notes,), key)

    new_commit = resolve_commit(root, head) if head is not None else None
    new_label = _new_side_label(head, new_commit, staged)
    if base is not None:
        base_sha = resolve_commit(root, base)
        base_label = f"{base} ({base_sha[:7]})"
    else:
        base_sha, base_label = default_base(
            root, branch, head_sha, new_commit, staged=staged, notes=notes, exclude=exclude
        )
    return Target(
        repo_root=root,
        base=base_sha,
        head=new_commit,
        staged=staged,
        branch=branch,
        head_sha=head_sha,
        label=f"{new_label} vs {base_label}",
        notes=tuple(notes),
        continuation_key=key,
    )


def _head_commit(root: Path) -> str:
    try:
        return resolve_commit(root, "HEAD")
    except RevisionNotFound as exc:
        raise UserError(
            f"the repository at {root} has no commits yet: commit a first version, "
            "then run contend review to review changes against it"
        ) from exc


def _new_side_label(head: str | None, new_commit: str | None, staged: bool) -> str:
    if new_commit is not None:
        return f"{head} ({new_commit[:7]})"
    return "staged changes" if staged else "working tree"


def _range(root: Path, commit_range: str) -> tuple[str, str, str]:
    symmetric = "..." in commit_range
    left, sep, right = commit_range.partition("..." if symmetric else "..")
    if not sep:
        raise UserError(f"not a commit range: {commit_range!r} (expected A..B or A...B)")
    # As in git, an empty side of a range means HEAD.
    left_rev, right_rev = left or "HEAD", right or "HEAD"
    left_sha = resolve_commit(root, left_rev)
    right_sha = resolve_commit(root, right_rev)
    if not symmetric:
        return left_sha, right_sha, f"{right_rev} ({right_sha[:7]}) vs {left_rev} ({left_sha[:7]})"
    merge_base_sha = merge_base(root, left_sha, right_sha)
    if merge_base_sha is None:
        raise UserError(f"{left_rev} and {right_rev} share no history: {commit_range} has no base")
    label = f"{right_rev} ({right_sha[:7]}) vs merge-base of {left_rev} ({merge_base_sha[:7]})"
    return merge_base_sha, right_sha, label
