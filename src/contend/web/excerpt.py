"""The code at a dispute's location, with its diff context, read through git.

The path comes from the ledger, i.e. from a critic that read an untrusted change: it is
only ever handed to git as a pathspec after `--` or as `<rev>:<path>` (git resolves both
inside the repository), never opened on the file system. A relative path with `..`, an
absolute path, or a run from another repository gives no excerpt, with the reason shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from contend.errors import ContendError
from contend.gitio.git import run_git

CONTEXT = 3
_HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_MAX_LINES = 80


@dataclass(frozen=True, slots=True)
class Line:
    kind: str  # "add" | "del" | "ctx" | "hunk"
    old: int | None
    new: int | None
    text: str
    hit: bool = False  # inside the dispute's lines


@dataclass(frozen=True, slots=True)
class Excerpt:
    source: str  # "diff" | "file" | "none"
    lines: list[Line] = field(default_factory=list)
    why: str = ""  # why there is no excerpt


def _safe(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return bool(path) and not path.startswith("/") and ".." not in parts and "\0" not in path


def excerpt(repo: Path, artifact: dict[str, Any], path: str, start: int, end: int) -> Excerpt:
    """The diff hunks of `path` that touch lines start..end (± CONTEXT) of the new side,
    else those lines of the file at the reviewed revision."""
    if not _safe(path):
        return Excerpt("none", why=f"path {path!r} is not a repository path")
    recorded = str(artifact.get("repo", ""))
    if recorded and Path(recorded).resolve() != repo.resolve():
        return Excerpt("none", why=f"this run reviewed another repository ({recorded})")
    base = artifact.get("base")
    head = artifact.get("head")
    if not isinstance(base, str) or not base:
        return Excerpt("none", why="the run records no base revision")
    start = max(start, 1)
    end = max(end, start)
    sides = [base, head] if isinstance(head, str) and head else [base]
    try:
        diff = run_git(
            repo, ["diff", "--no-color", "--no-ext-diff", f"-U{CONTEXT}", *sides, "--", path]
        )
    except ContendError as exc:
        return Excerpt("none", why=f"git could not show the change: {exc}")
    lines = _hunks_touching(diff, start - CONTEXT, end + CONTEXT, start, end)
    if lines:
        return Excerpt("diff", lines[:_MAX_LINES])
    rev = head if isinstance(head, str) and head else "HEAD"
    try:
        text = run_git(repo, ["show", f"{rev}:{path}"])
    except ContendError as exc:
        return Excerpt("none", why=f"git could not show {path} at {rev[:12]}: {exc}")
    all_lines = text.decode("utf-8", "replace").splitlines()
    lo, hi = max(1, start - CONTEXT), min(len(all_lines), end + CONTEXT)
    shown = [Line("ctx", None, n, all_lines[n - 1], start <= n <= end) for n in range(lo, hi + 1)]
    if not shown:
        return Excerpt("none", why=f"{path} has no line {start} at {rev[:12]}")
    return Excerpt("file", shown[:_MAX_LINES])


def _hunks_touching(diff: bytes, lo: int, hi: int, start: int, end: int) -> list[Line]:
    out: list[Line] = []
    hunk: list[Line] = []
    touches = False
    old = new = 0
    for raw in diff.split(b"\n"):
        m = _HUNK.match(raw)
        if m:
            if touches:
                out += hunk
            new = int(m.group(1))
            length = int(m.group(2)) if m.group(2) is not None else 1
            old_m = re.match(rb"^@@ -(\d+)", raw)
            old = int(old_m.group(1)) if old_m else 0
            hunk = [Line("hunk", None, None, raw.decode("utf-8", "replace"))]
            touches = new <= hi and new + max(length, 1) - 1 >= lo
            continue
        # Before the first hunk: the diff's header lines; inside: "\ No newline" markers.
        if not hunk or raw.startswith(b"\\"):
            continue
        text = raw[1:].decode("utf-8", "replace")
        if raw.startswith(b"+"):
            hunk.append(Line("add", None, new, text, start <= new <= end))
            new += 1
        elif raw.startswith(b"-"):
            hunk.append(Line("del", old, None, text))
            old += 1
        elif raw.startswith(b" "):
            hunk.append(Line("ctx", old, new, text, start <= new <= end))
            old += 1
            new += 1
    if touches:
        out += hunk
    return out
