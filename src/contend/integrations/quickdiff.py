"""A look, with git alone, at a working tree's pending change, for the stop hook: how many
lines changed (tracked files vs HEAD, plus untracked, not-ignored files) and a fingerprint
of the change, fast enough that a trivial stop ends in milliseconds without importing the
engine. Counting stops as soon as the threshold is reached; an edit of the review configuration
counts as over any threshold."""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass
from pathlib import Path

from contend.change import CONFIG_FILES

# An untracked file larger than this counts as over any threshold without being read.
_READ_LIMIT = 1 << 20
# A change to the review's own configuration is never trivial: a two-line edit could switch
# review off. (contend.change is a leaf module: importing it does not load the engine.)
_CONFIG_NAMES = frozenset(name.encode() for name in CONFIG_FILES)


class NotARepository(Exception):
    """`git` says the directory is not inside a work tree (or git is missing)."""


@dataclass(frozen=True)
class QuickDiff:
    root: Path
    git_dir: Path  # the common git directory (shared by worktrees)
    changed_lines: int  # capped: at least `enough` when the change is not trivial
    fingerprint: str  # sha256 of the diff vs HEAD and of every untracked file


def _git(cwd: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except OSError as exc:
        raise NotARepository(f"cannot run git: {exc}") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise NotARepository(message[-1] if message else f"git {args[0]} failed")
    return done.stdout


def quick_diff(cwd: Path, enough: int) -> QuickDiff:
    """The pending change of the repository containing `cwd`."""
    top, common = (
        _git(cwd, "rev-parse", "--show-toplevel", "--git-common-dir").decode().split("\n")[:2]
    )
    root = Path(top)
    git_dir = (Path(cwd) / common).resolve()
    digest = hashlib.sha256()
    has_head = (
        subprocess.run(
            ["git", "rev-parse", "--verify", "-q", "HEAD"], cwd=root, capture_output=True
        ).returncode
        == 0
    )
    base = "HEAD" if has_head else "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # empty tree
    diff = _git(root, "diff", base, "--no-color", "--no-ext-diff", "--binary")
    digest.update(diff)
    lines = 0
    for numstat in _git(root, "diff", base, "--numstat", "-z").split(b"\0"):
        fields = numstat.split(b"\t")
        if len(fields) >= 2:
            # binary files show "-": count them as one line each
            lines += sum(int(f) if f.isdigit() else 1 for f in fields[:2])
        if len(fields) >= 3 and fields[2] in _CONFIG_NAMES:
            lines += enough
    for name in sorted(_git(root, "ls-files", "--others", "--exclude-standard", "-z").split(b"\0")):
        if not name:
            continue
        if name in _CONFIG_NAMES:
            lines += enough
        path = root / name.decode("utf-8", "surrogateescape")
        digest.update(b"\0untracked\0" + name + b"\0")
        try:
            size = path.stat().st_size
            data = path.read_bytes() if size <= _READ_LIMIT else b""
        except OSError:
            # vanished or unreadable between ls-files and now: the review decides
            lines += enough
            continue
        digest.update(data if size <= _READ_LIMIT else str(size).encode())
        lines += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        if size > _READ_LIMIT:
            lines += enough
    return QuickDiff(root, git_dir, lines, digest.hexdigest())
