"""Reading contend's report.json into the runner's findings, tolerant of older and newer shapes.

Known shapes: `contend.report/v1` with one `location` per dispute; a grouped dispute may
also carry a `locations` list (its first entry is `location`), either on the dispute or in
a top-level map keyed by dispute id. Unknown keys are ignored, missing optional ones get
defaults; a report without `verdict` or `disputes` is an error (ReportShapeError), since
nothing could then be measured.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rc_labels import Loc

BLOCKING = frozenset({"critical", "major"})


class ReportShapeError(ValueError):
    """report.json lacks what the benchmark measures (verdict, disputes)."""


@dataclass(slots=True)
class Finding:
    id: str
    rule: str
    topic: str
    severity: str
    status: str
    locs: list[Loc]
    claim: str
    evidence: str
    # Filled by matching against labels.
    label: str = ""
    matches: list[dict[str, Any]] = field(default_factory=list)

    @property
    def blocking(self) -> bool:
        return self.severity in BLOCKING


def _loc(obj: object) -> Loc | None:
    if not isinstance(obj, dict) or not isinstance(obj.get("path"), str):
        return None
    start = obj.get("start_line", obj.get("line", 0))
    end = obj.get("end_line", start)
    start = start if isinstance(start, int) else 0
    end = end if isinstance(end, int) else start
    return Loc(obj["path"], start, end)


def _locations(d: dict[str, Any], extra: object) -> list[Loc]:
    """Every place of the dispute, as many as it lists: two findings of a group at the same
    lines (two tests deleted at one spot) stay two places, so the group rule applies."""
    for listed in (d.get("locations"), extra):
        if isinstance(listed, list):
            places = [loc for loc in map(_loc, listed) if loc is not None]
            if places:
                first = _loc(d.get("location"))
                return places if first is None or first in places else [first, *places]
    first = _loc(d.get("location"))
    return [first] if first is not None else []


def findings_of(report: dict[str, Any]) -> list[Finding]:
    """The unresolved disputes of a report (what the user is asked to act on)."""
    if "verdict" not in report or not isinstance(report.get("disputes"), list):
        raise ReportShapeError("report.json has no verdict or no disputes list")
    top = report.get("locations")
    top_map = top if isinstance(top, dict) else {}
    out = []
    for d in report["disputes"]:
        if not isinstance(d, dict):
            continue
        did = str(d.get("id", ""))
        extra = top_map.get(did)
        locs = _locations(d, extra)
        out.append(
            Finding(
                id=did,
                rule=str(d.get("rule") or d.get("topic") or "?"),
                topic=str(d.get("topic", "")),
                severity=str(d.get("severity", "")),
                status=str(d.get("status", "")),
                locs=locs or [Loc("", 0, 0)],
                claim=str(d.get("claim", "")),
                evidence=str(d.get("evidence", "")),
            )
        )
    return out
