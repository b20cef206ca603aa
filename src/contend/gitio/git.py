"""Running git: list arguments, never a shell, and every failure turned into a named error.

`run_git` returns raw bytes (file contents and NUL-separated listings are not text);
`git_text` decodes strictly. A path outside a work tree raises NotAGitRepository, a revision
that names no commit raises RevisionNotFound, anything else git refuses raises GitError with
the command and git's own first line of stderr.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from contend.errors import ContendError, NotAGitRepository, RevisionNotFound

# Options that pin the output format regardless of the user's git config.
_BASE_OPTIONS = ("-c", "core.quotepath=off", "-c", "color.ui=never")


# The id of git's empty tree: the base of a repository's first commit.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

# `git diff` with its output pinned, so that a user's diff.noprefix, diff.external,
# textconv or diff.relative cannot change what is parsed or applied.
DIFF = (
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
    "--src-prefix=a/",
    "--dst-prefix=b/",
)


class GitError(ContendError):
    """A git command failed for a reason other than a bad path or revision."""

    def __init__(self, message: str, *, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # A credential prompt would hang a review; a hook's GIT_DIR would point git elsewhere.
    env["GIT_TERMINAL_PROMPT"] = "0"
    for name in ("GIT_DIR", "GIT_WORK_TREE"):
        env.pop(name, None)
    return env


def run_git(
    repo: Path,
    args: Sequence[str],
    *,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
) -> bytes:
    """Run `git -C repo ARGS` and return stdout; raise GitError on a non-zero exit."""
    command = ["git", "-C", str(repo), *_BASE_OPTIONS, *args]
    try:
        done = subprocess.run(
            command,
            input=stdin,
            capture_output=True,
            env=env if env is not None else _env(),
            check=False,
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH") from exc
    if done.returncode != 0:
        first = _first_line(done.stderr)
        raise GitError(
            f"git {' '.join(args)} failed in {repo} (exit {done.returncode}): {first}",
            stderr=first,
        )
    return done.stdout


def git_text(repo: Path, args: Sequence[str]) -> str:
    """Like run_git, decoded as UTF-8; undecodable output is an error, not a guess."""
    out = run_git(repo, args)
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GitError(f"git {' '.join(args)} printed output that is not UTF-8: {exc}") from exc


def _first_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8", errors="backslashreplace").strip()
    return text.splitlines()[0] if text else "(no message)"


def repo_root(path: Path) -> Path:
    """The top of the work tree containing `path`; NotAGitRepository when there is none."""
    if not path.exists():
        raise NotAGitRepository(f"not a git repository: {path} does not exist")
    where = path if path.is_dir() else path.parent
    try:
        top = git_text(where, ["rev-parse", "--show-toplevel"]).strip()
    except GitError as exc:
        # git's own line says why (not a repository, dubious ownership, bare repository).
        raise NotAGitRepository(
            f"not a git repository (or not a work tree): {path} ({exc.stderr})"
        ) from exc
    if not top:
        raise NotAGitRepository(f"not a git work tree (bare repository?): {path}")
    return Path(top)


def find_repo_root(path: Path) -> Path | None:
    """The top of the work tree containing `path`; None when git says it is in no
    repository. Any other refusal (a missing path, dubious ownership, a bare repository)
    is NotAGitRepository with git's reason, as from `repo_root`."""
    try:
        return repo_root(path)
    except NotAGitRepository as exc:
        cause = exc.__cause__
        if isinstance(cause, GitError) and "not a git repository" in cause.stderr:
            return None  # outside every repository: an answer, not a failure
        raise


def git_path(repo: Path, name: str) -> Path:
    """The absolute path git uses for `name` in its directory (`--git-path`: a linked
    worktree's own index, the shared objects)."""
    return Path(git_text(repo, ["rev-parse", "--path-format=absolute", "--git-path", name]).strip())


def git_common_dir(repo: Path) -> Path:
    """The git directory every worktree of `repo`'s repository shares."""
    return Path(git_text(repo, ["rev-parse", "--path-format=absolute", "--git-common-dir"]).strip())


def resolve_commit(repo: Path, rev: str) -> str:
    """The full commit id that `rev` names; RevisionNotFound when it names no commit."""
    if not rev or rev.startswith("-"):
        # A leading dash would be read by git as an option, not a revision.
        raise RevisionNotFound(f"revision not found: {rev!r} is not a revision name")
    command = ["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"]
    try:
        done = subprocess.run(command, capture_output=True, env=_env(), check=False)
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH") from exc
    if done.returncode != 0:
        raise RevisionNotFound(f"revision not found: {rev!r} names no commit in {repo}")
    return done.stdout.decode("ascii").strip()
