"""Shared types of the deterministic critics. Pure data; no git, no filesystem.

A topic critic reads the old and new text of each changed file (`FileChange`) and returns
`Finding`s located on the new side. It reports only what the change introduced: lines in
`FileChange.added_lines`, or code whose old version differs (for diff-aware rules such as a
weakened test, the old lines go in `Finding.old_evidence`).

Severity mapping (documented for users in docs/static-critics.md):
    critical  the change can silently lose or corrupt data or leak a secret
              (hard-coded credential, eval of input, TLS verification disabled)
    major     the change hides failures or weakens a check that guarded correctness
              (swallowed exception, weakened assertion, removed validation, race)
    minor     a smell that deserves a look but rarely breaks on its own
              (type: ignore on a changed line, a mutable default, a skip with no reason)
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, Protocol

from contend.protocol.model import Severity


class Topic(StrEnum):
    SILENT_FALLBACK = "silent-fallback"
    TEST_WEAKENING = "test-weakening"
    BOUNDARY_TYPING = "boundary-typing"
    CONCURRENCY = "concurrency"
    SECURITY = "security"
    SECRETS = "secrets"


class Confidence(StrEnum):
    """How often, on real history, a finding of a rule is right when a person reads it."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"

    @property
    def rank(self) -> int:
        """Higher is surer; the third key of the ranking, after contention and severity."""
        return _CONFIDENCE_RANK[self]


_CONFIDENCE_RANK = {Confidence.HIGH: 3, Confidence.MEDIUM: 2, Confidence.LOW: 1}


ChangeStatus = Literal["added", "modified", "deleted", "renamed"]
Language = Literal["python", "javascript", "typescript", "tsx", "other"]


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


WAYS_OUT = (
    "fix it so the failure is raised, reported or tested rather than hidden",
    "or waive it in code with a reason: `# contend: allow <topic> -- <reason>`",
)


_WAIVER_COMMENT = re.compile(r"\s*(?:#|//)\s*contend:\s*allow\b.*$")


@dataclass(frozen=True, slots=True)
class Finding:
    topic: Topic
    rule: str
    severity: Severity
    path: str
    start_line: int
    end_line: int
    claim: str
    evidence: str
    old_evidence: str | None = None
    ways_out: tuple[str, ...] = WAYS_OUT
    waived: bool = False
    waiver_reason: str | None = None
    # The rule's confidence (from its catalogue entry) and the enclosing function or class
    # ("Class.method"), so the report can rank ties and name where a finding sits.
    confidence: Confidence = Confidence.MEDIUM
    symbol: str | None = None

    def fingerprint(self) -> str:
        """Stable across edits that shift lines or add a waiver: topic, rule, path and the
        whitespace-normalised evidence (the old lines for diff-aware rules, which the
        author's later edits cannot change), waiver comments left out. Used to match a
        finding from one review to the next."""
        source = self.old_evidence if self.old_evidence else self.evidence
        kept = [_WAIVER_COMMENT.sub("", line) for line in source.split("\n")]
        norm = " ".join(" ".join(kept).split())
        raw = f"{self.topic}\0{self.rule}\0{self.path}\0{norm}"
        return hashlib.sha256(raw.encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file a critic could not read; reported, never silently ignored."""

    path: str
    reason: str
    topic: Topic | None = None


@dataclass(slots=True)
class StaticResult:
    findings: list[Finding] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


class TopicCritic(Protocol):
    """One deterministic critic on one topic. `check` sees the whole change set at once so
    a topic that shells out (bandit) can do it once, on the changed files only."""

    topic: Topic
    languages: frozenset[Language]

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]: ...


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
