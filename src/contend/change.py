"""What a reviewed change is made of: its changed files (`FileChange`) and the files that
could not be read (`Skipped`). Pure data; no git, no filesystem.

The diff reader (gitio.diff) produces these and the critics read them, so they live below
both: gitio must not import a critic's module to name a file. critics/static/base.py
re-exports them for the critic modules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from contend.topics import Topic

ChangeStatus = Literal["added", "modified", "deleted", "renamed"]
Language = Literal["python", "javascript", "typescript", "tsx", "other"]

# The files that hold a repository's contend configuration, at its root (config.files reads
# them at the base revision). A change to one is a change to the review itself: it is
# reviewed even when it deletes the file.
CONFIG_FILES = ("contend.toml", "pyproject.toml")


@dataclass(frozen=True, slots=True)
class FileChange:
    """One changed file. Texts are decoded UTF-8, or None when absent on that side.

    `added_lines` are 1-based new-side line numbers that the change added or modified;
    `removed_lines` are 1-based old-side line numbers it removed or modified.
    """

    path: str
    old_path: str | None
    status: ChangeStatus
    old_text: str | None
    new_text: str | None
    added_lines: frozenset[int]
    removed_lines: frozenset[int]
    language: Language = "other"

    def touches(self, start_line: int, end_line: int) -> bool:
        """True when any new-side line in [start_line, end_line] was added or modified."""
        return any(line in self.added_lines for line in range(start_line, end_line + 1))

    def new_lines(self, start_line: int, end_line: int) -> str:
        return _slice(self.new_text, start_line, end_line)

    def old_lines(self, start_line: int, end_line: int) -> str:
        return _slice(self.old_text, start_line, end_line)


def _slice(text: str | None, start_line: int, end_line: int) -> str:
    if text is None:
        return ""
    # Split on "\n" only, as git and the line numbers of a diff do (splitlines() would
    # also break at form feeds and U+2028, and drift from git's numbering).
    lines = text.split("\n")
    return "\n".join(lines[max(start_line - 1, 0) : end_line])


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file a critic could not read; reported, never silently ignored."""

    path: str
    reason: str
    topic: Topic | None = None


_JS_TEST_SUFFIXES = tuple(
    f"{mid}{ext}"
    for mid in (".test", ".spec")
    for ext in (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs")
)


def is_test_path(path: str) -> bool:
    """Test files by the conventions of pytest, unittest, Jest and Vitest."""
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    if name.endswith(".py"):
        return name.startswith("test_") or name.endswith("_test.py") or "tests" in parts[:-1]
    return name.endswith(_JS_TEST_SUFFIXES) or "__tests__" in parts[:-1]


def language_of(path: str) -> Language:
    lower = path.lower()
    if lower.endswith((".py", ".pyi")):
        return "python"
    if lower.endswith((".js", ".jsx", ".mjs", ".cjs")):
        return "javascript"
    if lower.endswith((".ts", ".mts", ".cts")):
        return "typescript"
    if lower.endswith(".tsx"):
        return "tsx"
    return "other"
