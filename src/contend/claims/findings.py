"""What the internal-fact critic found: located evidence regions, findings, attacks.

Plain data shared by the number, quote and entity checks and by the renderers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from contend.claims.evidence import EvidenceLine, RegionText
from contend.claims.words import normalise

Status = Literal["present", "absent", "contradicted"]
ElementKind = Literal["number", "label", "quote", "entity"]
CheckVerdict = Literal["accept", "reject", "escalate"]
_WORD = re.compile(r"[a-z][a-z0-9]*(?:['\u2019][a-z]+)?")


@dataclass(frozen=True, slots=True)
class CitedRegion:
    """One kept local evidence item, located: its id, file and lines."""

    evidence_id: str
    file: str
    region: RegionText

    def locator(self) -> str:
        return f"evidence {self.evidence_id} ({self.file}, {self.region.describe()})"


@dataclass(frozen=True, slots=True)
class Finding:
    kind: ElementKind
    claimed: str
    status: Status
    evidence_id: str | None
    locator: str
    line: EvidenceLine | None = None
    evidence_value: str | None = None
    note: str = ""

    def where(self) -> str:
        if self.line is None:
            return self.locator
        at = f"page {self.line.page} line {self.line.line}"
        if self.line.file_line is not None:
            at += f" (file line {self.line.file_line})"
        if self.line.in_margin:
            at += ", just outside the named region"
        return f"{self.locator}, {at}"


@dataclass(frozen=True, slots=True)
class CheckAttack:
    verdict: Literal["reject", "escalate"]
    message: str
    finding: Finding | None


@dataclass(frozen=True, slots=True)
class InternalFactResult:
    verdict: CheckVerdict
    findings: tuple[Finding, ...]
    attacks: tuple[CheckAttack, ...]
    unchecked: tuple[str, ...] = field(default=())

    @property
    def no_attack_point(self) -> bool:
        return not self.attacks


def region_text(cited: CitedRegion) -> tuple[str, list[int]]:
    offsets: list[int] = []
    parts: list[str] = []
    pos = 0
    for line in cited.region.lines:
        offsets.append(pos)
        parts.append(line.text)
        pos += len(line.text) + 1
    return "\n".join(parts), offsets


def line_of(cited: CitedRegion, needle: str) -> EvidenceLine | None:
    words = _WORD.findall(normalise(needle))
    for line in cited.region.lines:
        plain = " ".join(_WORD.findall(normalise(line.text)))
        if words and " ".join(words[:2]) in plain:
            return line
    return None
