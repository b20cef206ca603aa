"""Shared types of the deterministic critics. Pure data; no git, no filesystem.

`Topic` (contend.topics) and the changed-file types `FileChange`, `Skipped`, `language_of`,
`is_test_path` (contend.change) live below the critics, since the diff reader and the
configuration name them too; they are re-exported here for the critic modules.

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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, runtime_checkable

from contend.change import ChangeStatus as ChangeStatus
from contend.change import FileChange as FileChange
from contend.change import Language as Language
from contend.change import Skipped as Skipped
from contend.change import is_test_path as is_test_path
from contend.change import language_of as language_of
from contend.protocol.model import Severity
from contend.topics import Topic as Topic


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


@runtime_checkable
class ProjectAwareCritic(Protocol):
    """A critic that also reads the project's root config files (name -> text, at the
    review's base revision): the JS/TS critics learn from the test runner's config which
    files are tests. The runner calls `check_in_project` when it has those files."""

    def check_in_project(
        self, changes: Sequence[FileChange], project_files: Mapping[str, str]
    ) -> Iterable[Finding | Skipped]: ...


@runtime_checkable
class DeletionAwareCritic(Protocol):
    """A critic that also reads the old text of the deleted source files the review does not
    check (`run_static(moved_from=...)`): the test-weakening critic learns from a deleted
    module what the change removed, so a test deleted with the module it tested is not a
    weakened test. The runner hands such files to `check` with the changes when
    `reads_deleted_sources` is true."""

    reads_deleted_sources: bool
