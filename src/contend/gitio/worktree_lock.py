"""The one lock that serialises every worktree-admin git command of a repository: add,
remove, prune, list, move, unlock, and branch deletion (which reads every worktree's HEAD).

git does not lock its worktree admin directories (<common-dir>/worktrees/<id>): a command
that walks them (`worktree list`, `prune`, `add`, `branch -D`) reads a half-written one
while another process's `worktree add` is creating it and dies with "failed to read
.git/worktrees/<id>/commondir", or loses it to a concurrent `prune`. The harness's slices
and the review engine's threads all run such commands at once in one repository, from
several threads and processes, so all of them take this lock — an OS file lock at
<git-common-dir>/contend-worktrees.lock, released by the kernel even when its holder is
killed. It nests within one thread: a caller holding it may call code that takes it again.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from contend.gitio.git import GitError, git_common_dir, run_git

LOCK_NAME = "contend-worktrees.lock"
# Every holder runs a handful of git commands (a checkout at most), so a long wait means a
# stuck process, reported by name rather than waited on forever.
WAIT_S = 600.0

_held = threading.local()


def lock_path(repo: Path) -> Path:
    """The lock file of `repo`'s repository, the same from the main tree and every worktree."""
    return git_common_dir(repo) / LOCK_NAME


def _held_paths() -> set[str]:
    paths: set[str] | None = getattr(_held, "paths", None)
    if paths is None:
        paths = set()
        _held.paths = paths
    return paths


@contextmanager
def worktree_lock(repo: Path, *, wait_s: float = WAIT_S) -> Iterator[Path]:
    """Hold the worktree lock of `repo`'s repository; GitError after `wait_s` seconds."""
    path = lock_path(repo)
    held = _held_paths()
    key = str(path)
    if key in held:  # this thread holds it already, further up the stack
        yield path
        return
    try:
        # Opened here first: a lock file that cannot be created (a read-only git directory)
        # would otherwise be reported by filelock as a lock held by someone else.
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o644))
    except OSError as exc:
        raise GitError(
            f"cannot create the worktree lock {path}: {exc.strerror or exc}; contend needs "
            "write access to the repository's git directory to manage worktrees"
        ) from exc
    # A new lock object, hence a new file descriptor, per holder: flock then also keeps
    # threads of one process apart, not only processes.
    lock = FileLock(path, thread_local=False)
    try:
        lock.acquire(timeout=wait_s)
    except Timeout as exc:
        raise GitError(
            f"waited {wait_s:g}s for the worktree lock {path}: another process keeps "
            "changing this repository's worktrees; find it with `fuser` or `lsof` on the lock"
        ) from exc
    held.add(key)
    try:
        yield path
    finally:
        held.discard(key)
        lock.release()


def worktree_git(repo: Path, args: Sequence[str]) -> bytes:
    """`git -C repo ARGS` under the worktree lock; GitError on a failure, as run_git."""
    with worktree_lock(repo):
        return run_git(repo, args)
