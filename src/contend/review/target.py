"""What a review compares: the old side (base) and the new side (a commit, the index or the
working tree), chosen from the command line or by the default-base rule.

Default base: the merge-base of HEAD with the default branch (origin/HEAD's target, else
main, master, trunk) when HEAD is on another branch; on the default branch (or when there is
none): HEAD when there are uncommitted changes, else HEAD~1; a single clean commit is
compared with the empty tree. Nothing here writes to the repository or its index.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from contend.errors import RevisionNotFound, UserError
from contend.gitio.git import EMPTY_TREE, GitError, git_text, repo_root, resolve_commit, run_git

_DEFAULT_BRANCHES = ("main", "master", "trunk")


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


@dataclass(frozen=True, slots=True)
class _DefaultBranch:
    ref: str  # full ref name, e.g. refs/remotes/origin/main
    name: str  # the branch name as a user says it, e.g. main
    shown: str  # how the label names it, e.g. origin/main


def resolve_target(
    path: Path,
    *,
    base: str | None = None,
    head: str | None = None,
    staged: bool = False,
    commit_range: str | None = None,
) -> Target:
    """Resolve the command line's --base/--head/--staged/RANGE into full commit ids."""
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
        base_sha, base_label = _default_base(
            root, branch, head_sha, new_commit, staged=staged, notes=notes
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
    merge_base = _merge_base(root, left_sha, right_sha)
    if merge_base is None:
        raise UserError(f"{left_rev} and {right_rev} share no history: {commit_range} has no base")
    label = f"{right_rev} ({right_sha[:7]}) vs merge-base of {left_rev} ({merge_base[:7]})"
    return merge_base, right_sha, label


def _default_base(
    root: Path,
    branch: str | None,
    head_sha: str,
    new_commit: str | None,
    *,
    staged: bool,
    notes: list[str],
) -> tuple[str, str]:
    tip = new_commit if new_commit is not None else head_sha
    default = _default_branch(root)
    if default is None:
        notes.append(
            "no default branch found (origin/HEAD, main, master, trunk): "
            "reviewing the latest change on its own"
        )
    else:
        merge_base = _merge_base(root, tip, default.ref)
        if merge_base is None:
            notes.append(
                f"{default.shown} shares no history with HEAD: reviewing the latest change"
            )
        elif not _on_default(branch, default, merge_base, tip, new_commit):
            return merge_base, f"{default.shown} (merge-base {merge_base[:7]})"
    if new_commit is None and _has_uncommitted(root, staged=staged):
        return head_sha, f"HEAD ({head_sha[:7]})"
    parent = _first_parent(root, tip)
    if parent is None:
        notes.append("the reviewed commit has no parent: it is compared with the empty tree")
        return _empty_tree(root), "the empty tree"
    return parent, f"{'HEAD' if new_commit is None else 'its parent'}~1 ({parent[:7]})"


def _on_default(
    branch: str | None,
    default: _DefaultBranch,
    merge_base: str,
    tip: str,
    new_commit: str | None,
) -> bool:
    """Whether the new side sits on the default branch's own history, not on a branch off it."""
    if new_commit is None and branch is not None:
        return branch == default.name
    # A detached HEAD or a --head commit that the default branch already contains has no
    # merge-base of its own to review against: the latest change is what is reviewed.
    return merge_base == tip


def _default_branch(root: Path) -> _DefaultBranch | None:
    origin_head = _git_optional(root, ["symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"])
    if origin_head is not None:
        ref = origin_head.strip()
        name = ref.removeprefix("refs/remotes/origin/")
        return _DefaultBranch(ref=ref, name=name, shown=f"origin/{name}")
    for name in _DEFAULT_BRANCHES:
        ref = f"refs/heads/{name}"
        if _git_optional(root, ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"]):
            return _DefaultBranch(ref=ref, name=name, shown=name)
    return None


def _merge_base(root: Path, left: str, right: str) -> str | None:
    out = _git_optional(root, ["merge-base", left, right])
    return out.strip() if out is not None else None


def _first_parent(root: Path, commit: str) -> str | None:
    out = git_text(root, ["rev-list", "--parents", "-n", "1", commit]).split()
    return out[1] if len(out) > 1 else None


def _has_uncommitted(root: Path, *, staged: bool) -> bool:
    if staged:
        listing = run_git(root, ["--no-optional-locks", "diff", "--cached", "--name-only", "-z"])
    else:
        # --no-optional-locks: a plain `git status` may rewrite the user's index.
        listing = run_git(root, ["--no-optional-locks", "status", "--porcelain", "-z"])
    return bool(listing)


def _empty_tree(root: Path) -> str:
    # Asked of git, not hard-coded, so a SHA-256 repository gets its own empty-tree id.
    sha = run_git(root, ["hash-object", "-t", "tree", "--stdin"], stdin=b"").decode("ascii").strip()
    if len(sha) == len(EMPTY_TREE) and sha != EMPTY_TREE:
        raise GitError(f"git computed the empty tree as {sha}, expected {EMPTY_TREE}")
    return sha


def _git_optional(root: Path, args: list[str]) -> str | None:
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
