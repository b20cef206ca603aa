"""The slice's git: its branch `contend/run/<id>` and worktree, commits of the implementer's
work, and the main tree's fingerprint that catches writes outside the worktree.

The user's branch and working tree are never written, with one exception made on purpose:
files the implementer wrote outside its worktree are put back (tracked files from the
index, new files removed). The main tree must be clean for a slice to start, so the index
holds exactly what was there before.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from contend.errors import UserError
from contend.gitio.git import DIFF, run_git
from contend.gitio.snapshot import contend_env
from contend.gitio.stale import (
    INTERRUPTED_CHECKOUT,
    discard_unregistered_checkout,
    registered,
    worktree_locks,
)
from contend.gitio.worktree_lock import worktree_git, worktree_lock

BRANCH_PREFIX = "contend/run/"
# Hooks never run in contend's commits: a hook could rewrite or block the implementer's work.
_QUIET = ["-c", f"core.hooksPath={os.devnull}", "-c", "commit.gpgSign=false"]


def check_clean(repo: Path) -> None:
    """A slice starts from HEAD, so uncommitted edits to tracked files would neither be in
    the slice nor safe from a revert: refuse, and say what to do."""
    out = run_git(repo, ["status", "--porcelain", "--untracked-files=no", "-z"])
    if out:
        first = out.split(b"\0")[0].decode("utf-8", "replace")[3:]
        raise UserError(
            f"the main tree has uncommitted changes (e.g. {first}): commit or stash them "
            "before `contend run`; nothing was changed"
        )


def head_commit(repo: Path) -> str:
    return run_git(repo, ["rev-parse", "--verify", "HEAD^{commit}"]).decode().strip()


def create_slice(repo: Path, slice_id: str, base: str, path: Path) -> str:
    """Branch `contend/run/<id>` at `base`, checked out in a new worktree at `path`."""
    branch = BRANCH_PREFIX + slice_id
    if path.exists():
        raise UserError(f"the slice worktree {path} already exists; contend never reuses one")
    path.parent.mkdir(parents=True, exist_ok=True)
    worktree_git(repo, ["worktree", "add", "--quiet", "-b", branch, str(path), base])
    return branch


def remove_worktree(repo: Path, path: Path) -> None:
    """The worktree goes; the branch, with every commit of the slice, stays."""
    worktree_git(repo, ["worktree", "remove", "--force", str(path)])


def commit_all(worktree: Path, message: str) -> str | None:
    """Commit everything changed in the worktree; None when nothing changed."""
    env = contend_env()
    run_git(worktree, ["add", "-A", "--", "."], env=env)
    if not run_git(worktree, ["diff", "--cached", "--name-only", "-z"], env=env):
        return None
    run_git(worktree, [*_QUIET, "commit", "--quiet", "--no-verify", "-m", message], env=env)
    return head_commit(worktree)


def changed_paths(worktree: Path, base: str, head: str) -> list[str]:
    out = run_git(worktree, ["diff", "--name-only", "-z", "--no-renames", base, head])
    return [p.decode("utf-8", "replace") for p in out.split(b"\0") if p]


def diff_text(worktree: Path, base: str, head: str, *, max_bytes: int = 400_000) -> str:
    raw = run_git(worktree, [*DIFF, base, head])
    text = raw[:max_bytes].decode("utf-8", "replace")
    return text + ("\n[diff truncated]" if len(raw) > max_bytes else "")


# --- writes outside the worktree --------------------------------------------------------


def fingerprint(repo: Path) -> dict[str, str]:
    """path → content hash of every tracked and untracked, not ignored file of the main tree
    (contend's state directory, where slice worktrees live, is ignored by its .gitignore)."""
    out = run_git(repo, ["ls-files", "-z", "-c", "-o", "--exclude-standard"])
    found: dict[str, str] = {}
    for raw in out.split(b"\0"):
        if not raw:
            continue
        rel = raw.decode("utf-8", "surrogateescape")
        found[rel] = _hash(repo / rel)
    return found


def _hash(path: Path) -> str:
    if path.is_symlink():
        return "link:" + os.readlink(path)
    if not path.exists():
        return "missing"
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class OutsideWrites:
    paths: list[str]  # every path that differs
    reverted: list[str]
    not_reverted: list[str]  # untracked files changed or removed: no copy to restore from


def outside_writes(repo: Path, before: dict[str, str]) -> OutsideWrites:
    """What changed in the main tree since `before`, put back where the index allows."""
    after = fingerprint(repo)
    changed = sorted(
        p for p in set(before) | set(after) if before.get(p, "missing") != after.get(p, "missing")
    )
    if not changed:
        return OutsideWrites([], [], [])
    tracked = {
        p.decode("utf-8", "surrogateescape")
        for p in run_git(repo, ["ls-files", "-z", "-c"]).split(b"\0")
        if p
    }
    reverted: list[str] = []
    lost: list[str] = []
    restore = [p for p in changed if p in tracked]
    if restore:
        run_git(repo, ["checkout", "--quiet", "--", *restore])
        reverted += restore
    for rel in changed:
        if rel in tracked:
            continue
        if rel not in before:  # a new file: removing it restores the tree
            path = repo / rel
            if path.is_file() or path.is_symlink():
                path.unlink()
            reverted.append(rel)
        else:
            lost.append(rel)
    return OutsideWrites(changed, sorted(reverted), lost)


def reset_to(worktree: Path, commit: str) -> None:
    """Drop every uncommitted change of the worktree: back to `commit` exactly."""
    run_git(worktree, [*_QUIET, "reset", "--quiet", "--hard", commit], env=contend_env())
    run_git(worktree, ["clean", "-ffdq"])


def discard_unfinished(repo: Path, slice_id: str, path: Path) -> None:
    """What a slice cut off by a crash left: its worktree and its branch (contend's own,
    never the user's), so the slice can start again from the base."""
    # `branch -D` reads every worktree's HEAD, so it is held under the lock as well.
    with worktree_lock(repo):
        if (path.exists() or path.is_symlink()) and not registered(repo, path):
            # Killed after `git worktree add` made the directory, before it registered it.
            discard_unregistered_checkout(repo, path)
        elif path.exists():
            # A kill during `git worktree add` leaves it locked "initializing": git removes a
            # locked worktree only when --force is given twice.
            interrupted = worktree_locks(repo).get(os.path.realpath(path)) == INTERRUPTED_CHECKOUT
            force = ["--force", "--force"] if interrupted else ["--force"]
            run_git(repo, ["worktree", "remove", *force, str(path)])
        run_git(repo, ["worktree", "prune"])
        branch = BRANCH_PREFIX + slice_id
        if run_git(repo, ["branch", "--list", branch]).strip():
            run_git(repo, ["branch", "-D", "--quiet", branch])
