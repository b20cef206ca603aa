"""The state directory (runs, ledgers, the lock, the index): where it may be, and creating it
whole. Every command that writes state goes through `open_state_dir`.

Rules. Unless the user configured an absolute path themselves (user config, environment,
flag — never the project config, which travels with the repository), the state directory
must lie inside the repository, must not be the repository root or inside `.git`, must not
be a symlink, must hold no tracked file, and an existing one must hold only what contend
creates. Whatever the source, contend never writes its `.gitignore` (`*`, which hides every
file below it from git) into a directory that holds files contend did not create.

A state directory inside the repository is created with that `.gitignore`, so contend's own
files never look like the user's uncommitted work; the review target also excludes the
directory by path (`exclude_paths`), whatever state its `.gitignore` is in.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from contend.config import Settings
from contend.errors import UserError
from contend.gitio.git import git_common_dir, run_git

GITIGNORE = ".gitignore"
MARKER = "# created by contend: runs are local state\n"
_GITIGNORE_TEXT = MARKER + "*\n"
# What contend itself creates in a state directory.
_OURS = frozenset(
    {
        GITIGNORE,
        "runs",
        "active",
        "worktrees",
        "review.lock",
        "review.holder.json",
        "index.sqlite3",
        "index.sqlite3-journal",
        "index.sqlite3-wal",
        "index.sqlite3-shm",
    }
)
# Temporary files contend's own writes leave when killed (probe, holder, atomic writes).
_OURS_PREFIXES = (".contend-probe-", "review.holder.json.")
_USER_KINDS = frozenset({"user", "env", "flags"})


def locate_state_dir(repo_root: Path, settings: Settings) -> Path:
    """The validated state directory of `repo_root`; nothing is written. UserError says why
    a location is refused and how to choose another."""
    path = settings.state_path(repo_root)
    user_absolute = (
        settings.origin.kind_of("state_dir") in _USER_KINDS
        and Path(settings.state_dir).expanduser().is_absolute()
    )
    if (path.exists() or path.is_symlink()) and not path.is_dir():
        raise UserError(
            f"the state directory {path} exists but is not a directory: move it away, or set "
            "state_dir (CONTEND_STATE_DIR) to another place"
        )
    if not user_absolute:
        _check_inside_repository(repo_root, path)
    if _inside(repo_root, path) and path.is_dir() and not _marked(path):
        foreign = sorted(p.name for p in path.iterdir() if not _ours(p.name))
        if foreign:
            shown = ", ".join(foreign[:3]) + (" …" if len(foreign) > 3 else "")
            raise UserError(
                f"the state directory {path} holds files contend did not create ({shown}); "
                "contend would hide them from git with its .gitignore — choose an empty or "
                "new directory for state_dir"
            )
    return path


def open_state_dir(repo_root: Path, settings: Settings) -> Path:
    """The state directory, validated, created whole (with its `.gitignore` when inside the
    repository) and checked writable; one clear UserError when it cannot be."""
    path = locate_state_dir(repo_root, settings)
    try:
        path.mkdir(parents=True, exist_ok=True)
        marker = path / GITIGNORE
        if _inside(repo_root, path) and not marker.exists():
            marker.write_text(_GITIGNORE_TEXT, encoding="utf-8")
        # A real write, not os.access: a read-only mount or a full disk says no here, not
        # halfway through a run.
        handle, probe = tempfile.mkstemp(prefix=".contend-probe-", dir=path)
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        raise UserError(
            f"cannot write the state directory {path}: {exc.strerror or exc}; make it "
            "writable or set state_dir (CONTEND_STATE_DIR) to a writable place"
        ) from exc
    return path


def exclude_paths(repo_root: Path, state_dir: Path) -> list[str]:
    """`state_dir` relative to the repository, as paths a review must never count as the
    user's change ([] when it lies outside the repository)."""
    found: list[str] = []
    for candidate in (state_dir, state_dir.resolve()):
        for root in (repo_root, repo_root.resolve()):
            if candidate.is_relative_to(root) and candidate != root:
                relative = candidate.relative_to(root).as_posix()
                if relative not in found:
                    found.append(relative)
    return found


def _check_inside_repository(repo_root: Path, path: Path) -> None:
    root = repo_root.resolve()
    real = path.resolve()
    how = "set an absolute state_dir in your user config or CONTEND_STATE_DIR to keep it elsewhere"
    if path.is_symlink():
        raise UserError(
            f"the state directory {path} is a symlink (to {os.readlink(path)}): contend does "
            f"not follow a link the repository may carry; {how}"
        )
    if real == root:
        raise UserError(
            f"state_dir {path} is the repository root: contend would hide every untracked "
            "file; use a directory of its own, such as .contend"
        )
    if not real.is_relative_to(root):
        raise UserError(
            f"the state directory {path} resolves outside the repository ({real}); {how}"
        )
    git_dir = git_common_dir(repo_root).resolve()
    if real == git_dir or real.is_relative_to(git_dir):
        raise UserError(f"the state directory {path} is inside git's own directory {git_dir}")
    relative = real.relative_to(root).as_posix()
    tracked = run_git(repo_root, ["ls-files", "-z", "--", f":(top,literal){relative}"])
    if tracked:
        first = tracked.split(b"\0")[0].decode("utf-8", errors="backslashreplace")
        raise UserError(
            f"the state directory {path} holds tracked files (e.g. {first}); contend keeps "
            "its state apart from your files — choose another state_dir"
        )


def _ours(name: str) -> bool:
    if name in _OURS or name.startswith(_OURS_PREFIXES):
        return True
    # write_atomic's temporary: .<name>.<pid>.tmp of one of contend's files
    return (
        name.startswith(".")
        and name.endswith(".tmp")
        and name[1:].split(".")[0] in {n.split(".")[0] for n in _OURS}
    )


def _inside(repo_root: Path, path: Path) -> bool:
    return path.resolve().is_relative_to(repo_root.resolve())


def _marked(path: Path) -> bool:
    """True when the directory carries contend's own `.gitignore`: it is contend's."""
    marker = path / GITIGNORE
    try:
        return marker.read_text(encoding="utf-8").startswith(MARKER)
    # contend: allow silent-fallback -- no readable marker: not known to be contend's
    except (OSError, UnicodeDecodeError):
        return False
