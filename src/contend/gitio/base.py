"""The default base of a review: the old side `contend review` compares with when no
`--base` is given. Read-only: nothing here writes to the repository or its index.

Default base: the merge-base of HEAD with the default branch (origin/HEAD's target, else
main, master, trunk) when HEAD is on another branch; on the default branch (or when there is
none): HEAD when there are uncommitted changes, else HEAD~1; a single clean commit is
compared with the empty tree. A commit whose parent a shallow clone did not fetch is not a
root commit: the review is refused with the reason, never shown as "every file added".

Both the review target and the configuration loader use this module: the project config
that governs a review is read at this base (DESIGN §9), so both must agree on it.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from contend.errors import RevisionNotFound, UserError
from contend.gitio.git import EMPTY_TREE, GitError, git_path, git_text, resolve_commit, run_git

_DEFAULT_BRANCHES = ("main", "master", "trunk")


@dataclass(frozen=True, slots=True)
class DefaultBranch:
    ref: str  # full ref name, e.g. refs/remotes/origin/main
    name: str  # the branch name as a user says it, e.g. main
    shown: str  # how the label names it, e.g. origin/main


def default_base(
    root: Path,
    branch: str | None,
    head_sha: str,
    new_commit: str | None,
    *,
    staged: bool,
    notes: list[str],
    exclude: Sequence[str] = (),
) -> tuple[str, str]:
    """(base id, label) of the review of `new_commit` (None: the working tree or index).

    `exclude` are repository-relative paths whose changes do not count as uncommitted
    (contend's own state directory)."""
    tip = new_commit if new_commit is not None else head_sha
    default = default_branch(root)
    if default is None:
        notes.append(
            "no default branch found (origin/HEAD, main, master, trunk): "
            "reviewing the latest change on its own"
        )
    else:
        base = merge_base(root, tip, default.ref)
        if base is None:
            notes.append(
                f"{default.shown} shares no history with HEAD: reviewing the latest change"
            )
        elif not _on_default(branch, default, base, tip, new_commit):
            return base, f"{default.shown} (merge-base {base[:7]})"
    if new_commit is None and has_uncommitted(root, staged=staged, exclude=exclude):
        return head_sha, f"HEAD ({head_sha[:7]})"
    parent = first_parent(root, tip)
    if parent is None:
        notes.append("the reviewed commit has no parent: it is compared with the empty tree")
        return empty_tree(root), "the empty tree"
    return parent, f"{'HEAD' if new_commit is None else 'its parent'}~1 ({parent[:7]})"


def trusted_base(root: Path, base: str | None, *, exclude: Sequence[str] = ()) -> str | None:
    """The base a plain `contend review` (working tree, `base` if configured) compares with;
    None when the repository has no commit yet (there is no trusted side at all)."""
    try:
        head_sha = resolve_commit(root, "HEAD")
    # contend: allow silent-fallback -- an unborn HEAD has no base: None says so
    except RevisionNotFound:
        return None
    if base is not None:
        return resolve_commit(root, base)
    branch = git_text(root, ["branch", "--show-current"]).strip() or None
    found, _ = default_base(root, branch, head_sha, None, staged=False, notes=[], exclude=exclude)
    return found


def _on_default(
    branch: str | None,
    default: DefaultBranch,
    base: str,
    tip: str,
    new_commit: str | None,
) -> bool:
    """Whether the new side sits on the default branch's own history, not on a branch off it."""
    if new_commit is None and branch is not None:
        return branch == default.name
    # A detached HEAD or a --head commit that the default branch already contains has no
    # merge-base of its own to review against: the latest change is what is reviewed.
    return base == tip


def default_branch(root: Path) -> DefaultBranch | None:
    origin_head = git_optional(root, ["symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"])
    if origin_head is not None:
        ref = origin_head.strip()
        name = ref.removeprefix("refs/remotes/origin/")
        return DefaultBranch(ref=ref, name=name, shown=f"origin/{name}")
    for name in _DEFAULT_BRANCHES:
        ref = f"refs/heads/{name}"
        if git_optional(root, ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"]):
            return DefaultBranch(ref=ref, name=name, shown=name)
    return None


def merge_base(root: Path, left: str, right: str) -> str | None:
    out = git_optional(root, ["merge-base", left, right])
    return out.strip() if out is not None else None


def first_parent(root: Path, commit: str) -> str | None:
    """The first parent of `commit`; None for a root commit. A commit at the boundary of a
    shallow clone looks parentless but is not: that is refused with the way out."""
    out = git_text(root, ["rev-list", "--parents", "-n", "1", commit]).split()
    if len(out) > 1:
        return out[1]
    if commit in shallow_commits(root):
        raise UserError(
            f"the reviewed commit {commit[:12]} is at the boundary of a shallow clone: its "
            "parent was not fetched, so its change cannot be told from the whole tree; "
            "fetch history (`git fetch --deepen=1`, or --unshallow) or pass --base REV"
        )
    return None


def shallow_commits(root: Path) -> frozenset[str]:
    """The commits whose parents a shallow clone cut off (empty for a full clone)."""
    path = git_path(root, "shallow")
    try:
        text = path.read_text(encoding="ascii")
    # contend: allow silent-fallback -- no shallow file: a full clone, nothing was cut
    except FileNotFoundError:
        return frozenset()
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


def has_uncommitted(root: Path, *, staged: bool, exclude: Sequence[str] = ()) -> bool:
    pathspec = exclude_pathspec(exclude)
    if staged:
        listing = run_git(
            root, ["--no-optional-locks", "diff", "--cached", "--name-only", "-z", *pathspec]
        )
    else:
        # --no-optional-locks: a plain `git status` may rewrite the user's index.
        listing = run_git(root, ["--no-optional-locks", "status", "--porcelain", "-z", *pathspec])
    return bool(listing)


def exclude_pathspec(exclude: Sequence[str]) -> list[str]:
    """`-- . :(exclude)PATH…` for the given repository-relative paths ([] when none)."""
    if not exclude:
        return []
    return ["--", ".", *(f":(top,literal,exclude){path}" for path in exclude)]


def empty_tree(root: Path) -> str:
    # Asked of git, not hard-coded, so a SHA-256 repository gets its own empty-tree id.
    sha = run_git(root, ["hash-object", "-t", "tree", "--stdin"], stdin=b"").decode("ascii").strip()
    if len(sha) == len(EMPTY_TREE) and sha != EMPTY_TREE:
        raise GitError(f"git computed the empty tree as {sha}, expected {EMPTY_TREE}")
    return sha


def git_optional(root: Path, args: list[str]) -> str | None:
    """stdout of a git query whose exit code 1 means "no such thing"; other failures raise."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(name, None)
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, env=env, check=False
    )
    if done.returncode == 1:
        return None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="backslashreplace").strip()
        raise GitError(f"git {' '.join(args)} failed in {root}: {message or '(no message)'}")
    return done.stdout.decode("utf-8")
