"""Severity calibrated to evidence: which rules may block, decided by what people found when
they read the rules' blocking findings on real commits.

Every blocking (`major`) finding of the static critics on the seen real-commit sets
(`bench/realcommits/labels*/`: main, holdout, holdout2 — 548 commits of 24 projects) was
read and labelled TRUE, DEBATABLE or FALSE. A rule below blocked at least three times and
was never TRUE: its finding is a smell worth showing, not evidence that the change weakened
a check, so its `major` findings are reported as `minor` (non-blocking: the verdict is at
worst `conditional_pass`). A `critical` finding of the same rule keeps its severity where the
rule has its own stronger evidence for it (a swallowed failure around a write). Rules with a
TRUE blocker keep blocking (`test-deleted`, `js-test-deleted`, `validation-guard-removed`,
`js-catch-default`), as do rules with fewer than three blocking labels — too little to judge.
The figures are per rule in docs/static-critics.md ("Calibration").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from contend.critics.static.base import Finding
from contend.protocol.model import Severity


@dataclasses.dataclass(frozen=True, slots=True)
class Record:
    """Blocking findings of a rule as labelled across the seen sets (all versions)."""

    true: int
    debatable: int
    false: int
    demoted: frozenset[Severity] = frozenset({Severity.MAJOR})


# rule -> its blocking record; findings of a severity in `demoted` are reported as minor.
DEMOTED: Mapping[str, Record] = {
    "assertion-removed": Record(0, 3, 100),
    "assertion-weakened": Record(0, 5, 8),
    "assertions-reduced-to-zero": Record(0, 0, 7),
    "js-assertion-removed": Record(0, 3, 4),
    "js-validation-guard-removed": Record(0, 0, 4),
    "raise-to-default": Record(0, 0, 3),
    # bandit's rating is the only evidence of a bandit test; these were all FALSE.
    "bandit-B701": Record(0, 0, 7, frozenset({Severity.MAJOR, Severity.CRITICAL})),
    "bandit-B301": Record(0, 0, 3, frozenset({Severity.MAJOR, Severity.CRITICAL})),
}


def calibrate(finding: Finding) -> Finding:
    """The finding at the severity its rule's record supports."""
    record = DEMOTED.get(finding.rule)
    if record is None or finding.severity not in record.demoted:
        return finding
    return dataclasses.replace(finding, severity=Severity.MINOR)
