"""Stale worktrees left by crashed runs under <state_dir>/worktrees/<run>/: removed, but
never silently — uncommitted changes, commits that no ref reaches, and files of a directory
git no longer knows are first stored under refs/contend/rescue/<run>/<name>.

A worktree whose `git worktree add` was killed mid-checkout (git leaves it locked with the
reason "initializing") holds no one's work: its missing files are an unfinished checkout,
not deletions, so it is removed without a rescue, and the message says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from contend.errors import UserError
from contend.gitio.git import (
    GitError,
    find_repo_root,
    git_common_dir,
    repo_root,
    resolve_commit,
    run_git,
)
from contend.gitio.runrefs import rescue_ref
from contend.gitio.snapshot import contend_env, run_git_result, store_ref, worktree_tree
from contend.gitio.worktree_lock import worktree_git, worktree_lock


def cleanup_stale(state_dir: Path, *, keep: set[str], repo: Path | None = None) -> list[str]:
    """Remove worktrees under <state_dir>/worktrees/<run>/ of runs not in `keep`.

    Uncommitted changes, and commits that no ref reaches, are first stored under
    refs/contend/rescue/<run>/<name>; every action is one line of the returned list. The
    repository is `repo`, else the one each worktree belongs to, else the one holding
    `state_dir`. Call it while holding the review lock: a live run's worktrees look stale.
    """
    messages: list[str] = []
    runs = state_dir / "worktrees"
    stale: list[tuple[Path, list[Path]]] = []
    if runs.is_dir():
        for run_dir in sorted(p for p in runs.iterdir() if p.name not in keep and p.is_dir()):
            stale.append((run_dir, sorted(run_dir.iterdir())))
    if repo is not None:
        repos = {repo_root(repo)}
    else:
        repos = {root for _, children in stale for c in children if (root := _pointed_repo(c))}
    if not repos and state_dir.exists() and (holder := find_repo_root(state_dir)) is not None:
        repos = {holder}
    for run_dir, children in stale:
        for child in children:
            root = _owner(child, repos)
            with worktree_lock(root):  # its check and its removal in one hold
                messages.append(_clean_one(root, run_dir.name, child))
        run_dir.rmdir()
    for root in sorted(repos):
        with worktree_lock(root):
            messages.extend(_rescue_missing(root, runs, keep))
            run_git(root, ["worktree", "prune"])
    return messages


def _owner(child: Path, repos: set[Path]) -> Path:
    """The work tree root of the repository a stale worktree belongs to."""
    pointed = _pointed_repo(child)
    if pointed is not None:
        return pointed
    if len(repos) == 1:
        return next(iter(repos))
    raise UserError(
        f"cannot tell which repository the stale worktree {child} belongs to; "
        "run contend review from that repository to clean it up"
    )


def _pointed_repo(child: Path) -> Path | None:
    """The repository a worktree's `.git` file points into, if it still exists."""
    dot_git = child / ".git"
    if not dot_git.is_file():
        return None
    pointer = dot_git.read_text(encoding="utf-8").strip()
    if not pointer.startswith("gitdir: "):
        return None
    # <repo>/.git/worktrees/<id>: the common dir is two levels up.
    common = Path(pointer[len("gitdir: ") :]).parent.parent
    if common.name != ".git" or not common.is_dir():
        return None
    return repo_root(common.parent)


def _rescue_missing(root: Path, runs: Path, keep: set[str]) -> list[str]:
    """Registered worktrees of stale runs whose directory is gone: their HEAD is kept."""
    messages: list[str] = []
    prefix = os.path.realpath(runs) + os.sep
    for path, head in sorted(worktree_heads(root).items()):
        if not path.startswith(prefix) or os.path.exists(path):
            continue
        run, _, name = path[len(prefix) :].partition(os.sep)
        if run in keep:
            continue
        where = f"missing stale worktree {path} (run {run})"
        if worktree_locks(root).get(path) == INTERRUPTED_CHECKOUT:
            # A locked worktree is never pruned; this lock only marks a killed checkout.
            run_git(root, ["worktree", "unlock", path])
            messages.append(f"pruned {where}: its checkout was interrupted")
            continue
        if head is not None and not _on_some_ref(root, head):
            saved = _rescue(root, run, name, head, "commits on no ref")
            messages.append(f"pruned {where}; {saved}")
        else:
            messages.append(f"pruned {where}")
    return messages


# The lock reason git gives a worktree whose `git worktree add` has not finished.
INTERRUPTED_CHECKOUT = "initializing"


def discard_unregistered_checkout(repo: Path, path: Path) -> None:
    """Remove what a `git worktree add` of `path` killed before it registered the worktree
    left: the directory (an unfinished checkout, no one's work) and its admin directory,
    which git keeps locked "initializing" and `git worktree prune` never removes.

    Call it holding the worktree lock, so no `worktree add` of contend's is mid-way.
    """
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    admin_root = git_common_dir(repo) / "worktrees"
    if not admin_root.is_dir():
        return
    # git names the admin directory after the worktree's base name, plus a number on a clash.
    for admin in admin_root.iterdir():
        suffix = admin.name[len(path.name) :]
        if not admin.name.startswith(path.name) or (suffix and not suffix.isdigit()):
            continue
        locked = admin / "locked"
        if (admin / "gitdir").exists() or not locked.is_file():
            continue
        if locked.read_text(encoding="utf-8").strip() == INTERRUPTED_CHECKOUT:
            shutil.rmtree(admin)


def _clean_one(root: Path, run: str, path: Path) -> str:
    where = f"stale worktree {path} (run {run})"
    if not registered(root, path):
        return _clean_unregistered(root, run, path, where)
    if worktree_locks(root).get(os.path.realpath(path)) == INTERRUPTED_CHECKOUT:
        # Twice --force: git refuses to remove a locked worktree otherwise.
        run_git(root, ["worktree", "remove", "--force", "--force", str(path)])
        return (
            f"removed {where}: its checkout was interrupted (a killed `git worktree add`), "
            "so it held nothing to rescue"
        )
    head = resolve_commit(path, "HEAD")
    saved: str | None = None
    dirty = bool(run_git(path, ["--no-optional-locks", "status", "--porcelain", "-z"]))
    if dirty:
        tree = worktree_tree(path)
        commit = (
            run_git(
                path,
                [
                    "commit-tree",
                    "--no-gpg-sign",
                    tree,
                    "-p",
                    head,
                    "-m",
                    f"contend: uncommitted changes rescued from {where}",
                ],
                env=contend_env(),
            )
            .decode("ascii")
            .strip()
        )
        saved = _rescue(root, run, path.name, commit, "uncommitted changes")
    elif not _on_some_ref(root, head):
        saved = _rescue(root, run, path.name, head, "commits on no ref")
    run_git(root, ["worktree", "remove", "--force", str(path)])
    return f"removed {where}" + (f"; {saved}" if saved else "")


def _clean_unregistered(root: Path, run: str, path: Path, where: str) -> str:
    if path.is_dir() and any(path.iterdir()):
        # git no longer knows this directory as a worktree: keep its files as a root commit.
        tree = _directory_tree(root, path)
        commit = (
            run_git(
                root,
                [
                    "commit-tree",
                    "--no-gpg-sign",
                    tree,
                    "-m",
                    f"contend: files rescued from {where}",
                ],
                env=contend_env(),
            )
            .decode("ascii")
            .strip()
        )
        saved = _rescue(root, run, path.name, commit, "files of an unregistered directory")
        shutil.rmtree(path)
        return f"removed {where}; {saved}"
    if path.is_dir():
        path.rmdir()
    else:
        path.unlink()
    return f"removed {where} (empty, not a registered worktree)"


def _directory_tree(root: Path, path: Path) -> str:
    common = git_common_dir(root)
    index = path.parent / f".{path.name}.contend-rescue-index"
    env = {**contend_env(index), "GIT_DIR": str(common), "GIT_WORK_TREE": str(path)}
    try:
        _checked(run_git_result(path, ["add", "-A", "--", "."], env=env), "git add -A", path)
        return _checked(
            run_git_result(path, ["write-tree"], env=env), "git write-tree", path
        ).strip()
    finally:
        index.unlink(missing_ok=True)


def _rescue(root: Path, run: str, name: str, commit: str, what: str) -> str:
    base = rescue_ref(run, name)
    ref, n = base, 1
    while run_git_result(root, ["rev-parse", "-q", "--verify", ref]).returncode == 0:
        n += 1
        ref = f"{base}-{n}"
    store_ref(root, ref, commit, reason=f"contend: rescue {what}")
    return f"{what} saved as {ref} ({commit[:12]})"


def _on_some_ref(root: Path, commit: str) -> bool:
    out = run_git(root, ["for-each-ref", "--count=1", "--contains", commit, "--format=%(refname)"])
    return bool(out.strip())


def registered(repo: Path, path: Path) -> bool:
    return os.path.realpath(path) in worktree_heads(repo)


def worktree_locks(repo: Path) -> dict[str, str]:
    """Every locked registered worktree's real path and its lock reason ("" when none)."""
    listing = worktree_git(repo, ["worktree", "list", "--porcelain", "-z"])
    locks: dict[str, str] = {}
    current: str | None = None
    for record in listing.split(b"\0"):
        text = record.decode("utf-8", errors="surrogateescape")
        if text.startswith("worktree "):
            current = os.path.realpath(text[len("worktree ") :])
        elif current is not None and (text == "locked" or text.startswith("locked ")):
            locks[current] = text[len("locked ") :] if text != "locked" else ""
    return locks


def worktree_heads(repo: Path) -> dict[str, str | None]:
    """Every registered worktree's real path and HEAD commit (None on an unborn branch)."""
    listing = worktree_git(repo, ["worktree", "list", "--porcelain", "-z"])
    heads: dict[str, str | None] = {}
    current: str | None = None
    for record in listing.split(b"\0"):
        text = record.decode("utf-8", errors="surrogateescape")
        if text.startswith("worktree "):
            current = os.path.realpath(text[len("worktree ") :])
            heads[current] = None
        elif text.startswith("HEAD ") and current is not None:
            heads[current] = text[len("HEAD ") :]
    return heads


def _checked(done: subprocess.CompletedProcess[bytes], what: str, where: Path) -> str:
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="backslashreplace").strip()
        raise GitError(f"{what} failed in {where}: {message or '(no message)'}")
    return done.stdout.decode("utf-8")
