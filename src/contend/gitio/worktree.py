"""The git worktrees a review runs its threads in: created, committed to, reset, diffed,
merged and removed by contend, under <state_dir>/worktrees/<run-id>/<name>.

Nothing is dropped silently: a merge conflict is recorded per thread and that merge aborted;
a stale worktree from a crashed run is saved under refs/contend/rescue/... before removal when
it holds uncommitted changes or commits no ref reaches; `--apply` refuses a working tree that
changed since its snapshot. User hooks never run in contend's worktrees: a hook could rewrite
a fix or block a commit, and the review's own gates are what checks a fix.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from contend.errors import UserError
from contend.gitio.git import GitError, git_text, repo_root, resolve_commit, run_git
from contend.gitio.snapshot import contend_env, store_ref, worktree_tree

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
# -c options for commands that may commit or check out in a contend worktree.
_QUIET = ["-c", f"core.hooksPath={os.devnull}", "-c", "rerere.enabled=false"]
_DIFF = [
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
    "--src-prefix=a/",
    "--dst-prefix=b/",
]


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
        run_git(self.repo, [*_QUIET, "worktree", "add", "--detach", "--quiet", str(path), sha])
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
        """Unified diff from `base` to a commit or a worktree's files, cut at `max_bytes`.

        Binary files appear as git's "Binary files a/x and b/x differ" line. The flag is True
        when the text was cut; the caller must say so wherever the text is shown.
        """
        base_sha = resolve_commit(self.repo, base)
        if isinstance(head_or_path, Path):
            new = worktree_tree(head_or_path)
        else:
            new = resolve_commit(self.repo, head_or_path)
        raw = run_git(self.repo, [*_DIFF, "-M", base_sha, new, "--"])
        return _cut(raw, max_bytes)

    def remove(self, name: str) -> None:
        """Remove worktree `name`; its commits must have been merged or stored by the caller."""
        path = self.path_of(name)
        if _registered(self.repo, path):
            run_git(self.repo, ["worktree", "remove", "--force", str(path)])
        elif path.exists():
            raise GitError(f"{path} is not a worktree of {self.repo}; contend does not delete it")

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


def _merge_one(path: Path, thread: str, sha: str) -> Conflict | None:
    done = _git(
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
    in_progress = _git(path, ["rev-parse", "-q", "--verify", "MERGE_HEAD"]).returncode == 0
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


def cleanup_stale(state_dir: Path, *, keep: set[str], repo: Path | None = None) -> list[str]:
    """Remove worktrees under <state_dir>/worktrees/<run>/ of runs not in `keep`.

    Uncommitted changes, and commits that no ref reaches, are first stored under
    refs/contend/rescue/<run>/<name>; every action is one line of the returned list. The
    repository is `repo`, else the one each worktree belongs to, else the one holding
    `state_dir`. Call it while holding the review lock: a live run's worktrees look stale.
    """
    messages: list[str] = []
    runs = state_dir / "worktrees"
    repos: set[Path] = set()
    if repo is not None:
        repos.add(repo_root(repo))
    if runs.is_dir():
        for run_dir in sorted(p for p in runs.iterdir() if p.name not in keep):
            if not run_dir.is_dir():
                continue
            for child in sorted(run_dir.iterdir()):
                root = _owner(child, repo, state_dir)
                repos.add(root)
                messages.append(_clean_one(root, run_dir.name, child))
            run_dir.rmdir()
    if not repos and _inside_repo(state_dir):
        repos.add(repo_root(state_dir))
    for root in sorted(repos):
        messages.extend(_rescue_missing(root, runs, keep))
        run_git(root, ["worktree", "prune"])
    return messages


def _owner(child: Path, repo: Path | None, state_dir: Path) -> Path:
    """The work tree root of the repository a stale worktree belongs to."""
    if repo is not None:
        return repo_root(repo)
    dot_git = child / ".git"
    if dot_git.is_file():
        pointer = dot_git.read_text(encoding="utf-8").strip()
        if pointer.startswith("gitdir: "):
            # <repo>/.git/worktrees/<id>: the common dir is two levels up.
            common = Path(pointer[len("gitdir: ") :]).parent.parent
            if common.name == ".git" and common.is_dir():
                return repo_root(common.parent)
    if _inside_repo(state_dir):
        return repo_root(state_dir)
    raise UserError(
        f"cannot tell which repository the stale worktree {child} belongs to; "
        "run contend review from that repository to clean it up"
    )


def _inside_repo(path: Path) -> bool:
    return path.exists() and _git(path, ["rev-parse", "--show-toplevel"]).returncode == 0


def _rescue_missing(root: Path, runs: Path, keep: set[str]) -> list[str]:
    """Registered worktrees of stale runs whose directory is gone: their HEAD is kept."""
    messages: list[str] = []
    prefix = os.path.realpath(runs) + os.sep
    for path, head in sorted(_worktree_heads(root).items()):
        if not path.startswith(prefix) or os.path.exists(path):
            continue
        run, _, name = path[len(prefix) :].partition(os.sep)
        if run in keep:
            continue
        where = f"missing stale worktree {path} (run {run})"
        if head is not None and not _on_some_ref(root, head):
            saved = _rescue(root, run, name, head, "commits on no ref")
            messages.append(f"pruned {where}; {saved}")
        else:
            messages.append(f"pruned {where}")
    return messages


def _clean_one(root: Path, run: str, path: Path) -> str:
    where = f"stale worktree {path} (run {run})"
    if not _registered(root, path):
        return _clean_unregistered(root, run, path, where)
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
    common = Path(
        git_text(root, ["rev-parse", "--path-format=absolute", "--git-common-dir"]).strip()
    )
    index = path.parent / f".{path.name}.contend-rescue-index"
    env = {**contend_env(index), "GIT_DIR": str(common), "GIT_WORK_TREE": str(path)}
    try:
        _checked(_git(path, ["add", "-A", "--", "."], env=env), "git add -A", path)
        return _checked(_git(path, ["write-tree"], env=env), "git write-tree", path).strip()
    finally:
        index.unlink(missing_ok=True)


def _rescue(root: Path, run: str, name: str, commit: str, what: str) -> str:
    base = f"refs/contend/rescue/{run}/{name}"
    ref, n = base, 1
    while _git(root, ["rev-parse", "-q", "--verify", ref]).returncode == 0:
        n += 1
        ref = f"{base}-{n}"
    store_ref(root, ref, commit, reason=f"contend: rescue {what}")
    return f"{what} saved as {ref} ({commit[:12]})"


def _on_some_ref(root: Path, commit: str) -> bool:
    out = run_git(root, ["for-each-ref", "--count=1", "--contains", commit, "--format=%(refname)"])
    return bool(out.strip())


def _registered(repo: Path, path: Path) -> bool:
    return os.path.realpath(path) in _worktree_heads(repo)


def _worktree_heads(repo: Path) -> dict[str, str | None]:
    """Every registered worktree's real path and HEAD commit (None on an unborn branch)."""
    listing = run_git(repo, ["worktree", "list", "--porcelain", "-z"])
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


def apply_to_worktree(repo: Path, base_commit: str, merged_commit: str) -> list[str]:
    """Apply the diff base_commit..merged_commit to the user's working tree; the changed paths.

    Refuses (UserError, naming the files) when the working tree no longer matches
    `base_commit`'s tree — the snapshot the review saw. Only files change: the patch is
    applied without --index (and so without --3way, which implies it), leaving the user's
    index as it was; on an unchanged tree the patch applies exactly, so no 3-way is needed.
    """
    root = repo_root(repo)
    base = resolve_commit(root, base_commit)
    merged = resolve_commit(root, merged_commit)
    current = worktree_tree(root)
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
    patch = run_git(root, [*_DIFF, "--binary", "--full-index", base, merged, "--"])
    if not patch:
        return []
    run_git(root, ["apply", "--whitespace=nowarn", "-"], stdin=patch)
    return _names(root, [base, merged])


def _names(root: Path, sides: Sequence[str]) -> list[str]:
    out = run_git(root, [*_DIFF, "--name-only", "-z", "--no-renames", *sides, "--"])
    return [p.decode("utf-8", errors="backslashreplace") for p in out.split(b"\0") if p]


def _git(
    cwd: Path, args: Sequence[str], *, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """A git command whose exit code the caller interprets (run_git raises on any non-zero)."""
    return subprocess.run(
        ["git", "-C", str(cwd), *args],
        capture_output=True,
        env=env if env is not None else contend_env(),
        check=False,
    )


def _checked(done: subprocess.CompletedProcess[bytes], what: str, where: Path) -> str:
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="backslashreplace").strip()
        raise GitError(f"{what} failed in {where}: {message or '(no message)'}")
    return done.stdout.decode("utf-8")
