"""The git worktrees a review runs its threads in: created, committed to, reset, diffed,
merged and removed by contend, under <state_dir>/worktrees/<run-id>/<name>.

Nothing is dropped silently: a merge conflict is recorded per thread and that merge aborted.
Stale worktrees of crashed runs are handled in `stale`, `--apply` in `apply`; both are
re-exported here. Every worktree-admin git command runs under the repository's worktree
lock (`worktree_lock`): concurrent reviews and `contend run` slices share one repository.
User hooks never run in contend's worktrees: a hook could rewrite a fix or block a commit,
and the review's own gates are what checks a fix.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from contend.errors import RevisionNotFound, UserError
from contend.gitio.apply import apply_to_worktree
from contend.gitio.git import DIFF, GitError, repo_root, resolve_commit, run_git
from contend.gitio.snapshot import contend_env, run_git_result, store_ref, worktree_tree
from contend.gitio.stale import cleanup_stale, registered
from contend.gitio.worktree_lock import worktree_git, worktree_lock

__all__ = [
    "Conflict",
    "MergeResult",
    "WorktreeManager",
    "apply_to_worktree",
    "cleanup_stale",
]

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
# -c options for commands that may commit or check out in a contend worktree.
_QUIET = ["-c", f"core.hooksPath={os.devnull}", "-c", "rerere.enabled=false"]


@dataclass(frozen=True, slots=True)
class Conflict:
    """One thread's fixes that could not be merged with the others."""

    thread: str
    files: list[str]
    message: str

    def to_dict(self) -> dict[str, object]:
        return {"thread": self.thread, "files": list(self.files), "message": self.message}


@dataclass(frozen=True, slots=True)
class MergeResult:
    """The merge of every thread's fix head; `merged_commit` is `base` when nothing merged."""

    merged_commit: str
    conflicts: list[Conflict] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    path: Path | None = None


class WorktreeManager:
    """The worktrees of one run, all under `root` (e.g. <state_dir>/worktrees/<run-id>)."""

    def __init__(self, repo: Path, root: Path) -> None:
        self.repo = repo_root(repo)
        self.root = root

    def path_of(self, name: str) -> Path:
        if not _NAME.fullmatch(name):
            raise ValueError(f"worktree name {name!r} must match {_NAME.pattern}")
        return self.root / name

    def create(self, name: str, commit: str) -> Path:
        """A detached worktree `name` checked out at `commit`; an existing path is an error."""
        path = self.path_of(name)
        sha = resolve_commit(self.repo, commit)
        if path.exists() or path.is_symlink():
            raise UserError(
                f"worktree path {path} already exists; contend never overwrites one — "
                "a crashed run may have left it: run cleanup of stale worktrees first"
            )
        self.root.mkdir(parents=True, exist_ok=True)
        worktree_git(self.repo, [*_QUIET, "worktree", "add", "--detach", "--quiet", str(path), sha])
        return path

    def commit_all(self, path: Path, message: str) -> str | None:
        """Commit everything changed in the worktree at `path`; None when nothing changed."""
        env = contend_env()
        run_git(path, ["add", "-A", "--", "."], env=env)
        if not run_git(path, ["diff", "--cached", "--name-only", "-z"], env=env):
            return None
        run_git(
            path,
            [*_QUIET, "commit", "--quiet", "--no-verify", "--no-gpg-sign", "-m", message],
            env=env,
        )
        return self.head(path)

    def head(self, path: Path) -> str:
        return resolve_commit(path, "HEAD")

    def reset(self, path: Path, commit: str) -> None:
        """Put the worktree back at `commit` exactly: tracked and untracked changes are gone."""
        sha = resolve_commit(self.repo, commit)
        run_git(path, [*_QUIET, "reset", "--quiet", "--hard", sha], env=contend_env())
        # Ignored files (build caches a gate made) are kept: they are not part of any diff.
        run_git(path, ["clean", "-ffd", "--quiet"])

    def diff_text(self, base: str, head_or_path: str | Path, *, max_bytes: int) -> tuple[str, bool]:
        """Unified diff from `base` (a commit or a tree, e.g. the empty tree) to a commit or
        a worktree's files, cut at `max_bytes`.

        Binary files appear as git's "Binary files a/x and b/x differ" line. The flag is True
        when the text was cut; the caller must say so wherever the text is shown.
        """
        base_sha = _resolve_tree(self.repo, base)
        if isinstance(head_or_path, Path):
            new = worktree_tree(head_or_path)
        else:
            new = resolve_commit(self.repo, head_or_path)
        raw = run_git(self.repo, [*DIFF, "-M", base_sha, new, "--"])
        return _cut(raw, max_bytes)

    def remove(self, name: str) -> None:
        """Remove worktree `name`; its commits must have been merged or stored by the caller."""
        path = self.path_of(name)
        # One hold for the check and the removal: no other process changes the list between.
        with worktree_lock(self.repo):
            if registered(self.repo, path):
                run_git(self.repo, ["worktree", "remove", "--force", str(path)])
            elif path.exists():
                raise GitError(
                    f"{path} is not a worktree of {self.repo}; contend does not delete it"
                )

    def remove_all(self) -> None:
        if not self.root.exists():
            return
        for child in sorted(self.root.iterdir()):
            self.remove(child.name)
        self.root.rmdir()

    def merge(
        self,
        base: str,
        heads: Mapping[str, str],
        *,
        name: str = "merge",
        ref: str | None = None,
    ) -> MergeResult:
        """Merge each thread's head into a worktree `name` started at `base`, in given order.

        A conflicting thread is recorded (thread, files, git's message) and its merge aborted;
        the other threads still merge. The merged commit is stored under `ref` when given.
        """
        path = self.create(name, base)
        conflicts: list[Conflict] = []
        merged: list[str] = []
        for thread, head in heads.items():
            sha = resolve_commit(self.repo, head)
            conflict = _merge_one(path, thread, sha)
            if conflict is None:
                merged.append(thread)
            else:
                conflicts.append(conflict)
        result = self.head(path)
        if ref is not None:
            store_ref(self.repo, ref, result, reason="contend: merged fixes")
        return MergeResult(merged_commit=result, conflicts=conflicts, merged=merged, path=path)

    def cleanup_stale(self, state_dir: Path, *, keep: set[str]) -> list[str]:
        return cleanup_stale(state_dir, keep=keep, repo=self.repo)


def _resolve_tree(repo: Path, rev: str) -> str:
    """The tree `rev` names: a commit's tree, or a tree itself (the empty tree as a base)."""
    # A leading dash would be read by git as an option, not a revision.
    done = (
        run_git_result(repo, ["rev-parse", "--verify", "--quiet", f"{rev}^{{tree}}"])
        if rev[:1] not in ("", "-")
        else None
    )
    if done is None or done.returncode != 0:
        raise RevisionNotFound(f"revision not found: {rev!r} names no commit or tree in {repo}")
    return done.stdout.decode("ascii").strip()


def _merge_one(path: Path, thread: str, sha: str) -> Conflict | None:
    done = run_git_result(
        path,
        [
            *_QUIET,
            "merge",
            "--no-ff",
            "--no-edit",
            "--no-gpg-sign",
            "--no-verify",
            "-m",
            f"contend: merge fixes of thread {thread}",
            sha,
        ],
        env=contend_env(),
    )
    if done.returncode == 0:
        return None
    unmerged = run_git(path, ["diff", "--name-only", "--diff-filter=U", "-z"])
    files = sorted(p.decode("utf-8", errors="backslashreplace") for p in unmerged.split(b"\0") if p)
    in_progress = (
        run_git_result(path, ["rev-parse", "-q", "--verify", "MERGE_HEAD"]).returncode == 0
    )
    message = _conflict_lines(done.stdout + done.stderr)
    if in_progress:
        run_git(path, ["merge", "--abort"])
    if not files:
        raise GitError(f"merging thread {thread} ({sha[:12]}) failed: {message}")
    return Conflict(thread=thread, files=files, message=message)


def _conflict_lines(output: bytes) -> str:
    lines = output.decode("utf-8", errors="backslashreplace").splitlines()
    picked = [line for line in lines if line.startswith(("CONFLICT", "error", "fatal"))]
    return "\n".join(picked or lines).strip() or "(git gave no message)"


def _cut(raw: bytes, max_bytes: int) -> tuple[str, bool]:
    if len(raw) <= max_bytes:
        return raw.decode("utf-8", errors="backslashreplace"), False
    # Cut at a line end so no hunk line is half-shown.
    end = raw.rfind(b"\n", 0, max_bytes)
    kept = raw[: end + 1] if end >= 0 else b""
    return kept.decode("utf-8", errors="backslashreplace"), True
