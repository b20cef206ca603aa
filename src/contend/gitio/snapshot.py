"""Freezing what the user has — the working tree or the index — as a commit under a ref,
without touching the user's index or files.

The tree is built in a temporary index (a copy of the real one, next to it so split-index
files still resolve); `git add -A` there picks up untracked, not-ignored files — an ignored
file (a `.env.local` listed in .gitignore) never enters a snapshot. The commit is kept under
the given ref so `git gc` cannot collect it while a review refers to it (see `runrefs` for
when it goes). The temporary index is named `contend-index-<pid>-…`, so one that a killed
process left behind can be proven stale and removed (`remove_stale_temp_indexes`). Also
here: the environment (contend's own identity) every git command that writes objects runs
with.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from contend.errors import RevisionNotFound, UserError
from contend.gitio.base import exclude_pathspec
from contend.gitio.git import GitError, git_path, repo_root, resolve_commit, run_git

TEMP_INDEX_PREFIX = "contend-index-"

# Commits contend makes for itself carry its own identity: the user may have none configured,
# and these commits are contend's work, not the user's.
IDENTITY = {
    "GIT_AUTHOR_NAME": "contend",
    "GIT_AUTHOR_EMAIL": "contend@localhost",
    "GIT_COMMITTER_NAME": "contend",
    "GIT_COMMITTER_EMAIL": "contend@localhost",
}


def contend_env(index_file: Path | None = None) -> dict[str, str]:
    """The environment for git commands that write contend's own objects and commits."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", **IDENTITY}
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(name, None)
    if index_file is not None:
        env["GIT_INDEX_FILE"] = str(index_file)
    return env


def run_git_result(
    cwd: Path, args: Sequence[str], *, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """A git command whose exit code the caller interprets (run_git raises on any non-zero)."""
    return subprocess.run(
        ["git", "-C", str(cwd), *args],
        capture_output=True,
        env=env if env is not None else contend_env(),
        check=False,
    )


def snapshot_worktree(repo: Path, ref: str, *, exclude: Sequence[str] = ()) -> str:
    """A commit of the working tree (untracked, not-ignored files included; `exclude`d
    paths left out), stored under `ref`."""
    root = repo_root(repo)
    tree = worktree_tree(root, exclude=exclude)
    return _commit_and_store(root, tree, ref, "contend: snapshot of the working tree")


def snapshot_index(repo: Path, ref: str) -> str:
    """A commit of the index (what `--staged` reviews), stored under `ref`."""
    root = repo_root(repo)
    return _commit_and_store(root, index_tree(root), ref, "contend: snapshot of the index")


def index_tree(repo: Path) -> str:
    """The tree id of `repo`'s index, the index untouched."""
    root = repo_root(repo)
    with _temp_index(root) as index:
        # write-tree on the real index would store a refreshed cache-tree in it.
        return _write_tree(root, index, what="the index")


def commit_snapshot(repo: Path, tree: str, ref: str, *, what: str) -> str:
    """A commit of `tree` (on top of HEAD, in contend's name), stored under new ref `ref`."""
    return _commit_and_store(repo_root(repo), tree, ref, f"contend: snapshot of {what}")


def worktree_tree(repo: Path, *, exclude: Sequence[str] = ()) -> str:
    """The tree id of `repo`'s working tree as `git add -A` would stage it, index untouched;
    `exclude`d repository-relative paths (contend's state directory) are left out."""
    root = repo_root(repo)
    pathspec = exclude_pathspec(exclude) or ["--", "."]
    with _temp_index(root) as index:
        if exclude:
            # Paths of the state directory that an older index copy may hold go too.
            run_git(
                root,
                ["rm", "-r", "--cached", "--quiet", "--ignore-unmatch", "--", *exclude],
                env=contend_env(index),
            )
        run_git(root, ["add", "-A", *pathspec], env=contend_env(index))
        return _write_tree(root, index, what="the working tree")


def remove_stale_temp_indexes(repo: Path) -> list[str]:
    """Remove temporary indexes that contend processes left in the git directory when they
    were killed; one message per file. Only files named by a process that is gone (on this
    host) are removed: a live process's index, or one of unknown origin, is kept."""
    git_dir = git_path(repo_root(repo), "index").parent
    messages: list[str] = []
    for path in sorted(git_dir.glob(f"{TEMP_INDEX_PREFIX}*")):
        pid_text = path.name[len(TEMP_INDEX_PREFIX) :].split("-", 1)[0]
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        path.unlink(missing_ok=True)
        messages.append(
            f"removed {path.name} from {git_dir}: a temporary index left by contend process "
            f"{pid_text}, which is gone"
        )
    return messages


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    # contend: allow silent-fallback -- no such pid: not alive
    except ProcessLookupError:
        return False
    # contend: allow silent-fallback -- EPERM: the pid exists under another user
    except PermissionError:
        return True
    return True


def store_ref(repo: Path, ref: str, commit: str, *, reason: str) -> None:
    """Point new ref `ref` at `commit`; an existing ref is never overwritten."""
    if not ref.startswith("refs/"):
        raise ValueError(f"not a full ref name: {ref!r} (expected refs/...)")
    existing = _ref_value(repo, ref)
    if existing is not None:
        raise GitError(f"{ref} already exists (at {existing[:12]}); contend does not overwrite it")
    # The empty old value makes git itself refuse if the ref appeared in the meantime.
    run_git(repo, ["update-ref", "-m", reason, ref, commit, ""])


def _ref_value(repo: Path, ref: str) -> str | None:
    try:
        return resolve_commit(repo, ref)
    # contend: allow silent-fallback -- None: the ref does not exist
    except RevisionNotFound:
        return None


def _commit_and_store(root: Path, tree: str, ref: str, message: str) -> str:
    parent = _ref_value(root, "HEAD")
    args = ["commit-tree", "--no-gpg-sign", tree, "-m", message]
    if parent is not None:
        args += ["-p", parent]
    commit = run_git(root, args, env=contend_env()).decode("ascii").strip()
    store_ref(root, ref, commit, reason=message)
    return commit


def _write_tree(root: Path, index: Path, *, what: str) -> str:
    try:
        out = run_git(root, ["write-tree"], env=contend_env(index))
    except GitError as exc:
        if _has_unmerged(root, index):
            raise UserError(
                f"{what} has unresolved merge conflicts: resolve them, then review"
            ) from exc
        raise
    return out.decode("ascii").strip()


def _has_unmerged(root: Path, index: Path) -> bool:
    return bool(run_git(root, ["ls-files", "--unmerged", "-z"], env=contend_env(index)))


@contextmanager
def _temp_index(root: Path) -> Iterator[Path]:
    real = git_path(root, "index")
    handle, name = tempfile.mkstemp(prefix=f"{TEMP_INDEX_PREFIX}{os.getpid()}-", dir=real.parent)
    os.close(handle)
    temp = Path(name)
    try:
        if real.exists():
            shutil.copyfile(real, temp)
        else:
            # git reads an empty file as a corrupt index; a missing one as an empty index.
            temp.unlink()
        yield temp
    finally:
        temp.unlink(missing_ok=True)
        Path(f"{temp}.lock").unlink(missing_ok=True)
