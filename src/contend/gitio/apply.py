"""`--apply`: the merged fixes' diff applied to the user's working tree, only if that tree is
still exactly what the review saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from contend.errors import UserError
from contend.gitio.git import DIFF, repo_root, resolve_commit, run_git
from contend.gitio.snapshot import worktree_tree


def apply_to_worktree(
    repo: Path, base_commit: str, merged_commit: str, *, exclude: Sequence[str] = ()
) -> list[str]:
    """Apply the diff base_commit..merged_commit to the user's working tree; the changed paths.

    Refuses (UserError, naming the files) when the working tree no longer matches
    `base_commit`'s tree — the snapshot the review saw. Only files change: the patch is
    applied without --index (and so without --3way, which implies it), leaving the user's
    index as it was; on an unchanged tree the patch applies exactly, so no 3-way is needed.
    `exclude`d paths (contend's state directory) are left out of the comparison, as they
    were left out of the snapshot.
    """
    root = repo_root(repo)
    base = resolve_commit(root, base_commit)
    merged = resolve_commit(root, merged_commit)
    current = worktree_tree(root, exclude=exclude)
    changed = _names(root, [base, current])
    if changed:
        shown = ", ".join(changed[:10]) + (
            f" and {len(changed) - 10} more" if len(changed) > 10 else ""
        )
        raise UserError(
            f"the working tree changed since the review's snapshot ({base[:12]}): {shown}; "
            "nothing was applied — review again, or apply the fixes yourself with "
            f"`git diff {base[:12]} {merged[:12]} | git apply`"
        )
    patch = run_git(root, [*DIFF, "--binary", "--full-index", base, merged, "--"])
    if not patch:
        return []
    run_git(root, ["apply", "--whitespace=nowarn", "-"], stdin=patch)
    return _names(root, [base, merged])


def _names(root: Path, sides: Sequence[str]) -> list[str]:
    out = run_git(root, [*DIFF, "--name-only", "-z", "--no-renames", *sides, "--"])
    return [p.decode("utf-8", errors="backslashreplace") for p in out.split(b"\0") if p]
