"""Which static findings may block: a rule blocks only where blocking has been shown right.

A static finding is reported at its rule's severity (`major` or `critical`: the verdict
fails) only when one of two things holds, stated per rule in `POLICY`:

- its evidence is the defect itself: a committed credential in a provider's key format, a
  committed `.only` that stops the rest of a test file from running, a change that lowers
  contend's own review settings (DESIGN §9). No intent needs judging; the finding is the
  fault, so it blocks without a record;
- its record earns it: the rule's blocking findings on the seen real-commit sets
  (`bench/realcommits/labels*/`: main, holdout, holdout2, holdout3 — 676 commits of 43
  projects, every location labelled TRUE / DEBATABLE / FALSE by reading the code) were TRUE
  often enough that the one-sided 95% Wilson lower bound of the TRUE share reaches
  `TARGET` (0.9, the issues' target for blocking precision). The bound, not the share, so
  that three lucky labels earn nothing: the smallest record that earns is 25 TRUE of 25.

Everything else — every rule whose blocking judgement needs intent (was the test moved? is
the fallback deliberate? is this `exec` reachable from input?), and every rule with no
record at all — is reported as `minor`: still listed, still a dispute, but the verdict is
at worst `conditional_pass`. `pass` never means "did not look". Severity only ever goes
down here; which findings are raised is the critics' business.

The records are recomputed from the label files by `bench/block_records.py`, and
`tests/test_static_calibration.py` checks this table against them. Per rule, with the TRUE
blockers that no longer block: docs/static-critics.md ("Calibration").

Which of the two applies is the `static.blocking` setting, passed down by the caller (the
review engine gives `run_static` the value of its settings; critics/ never reads config/):
`"earned"` (the default) applies this policy; `"rule"` applies the previous rule
(`LEGACY_DEMOTED`: a rule blocked three or more times and never TRUE on main, holdout and
holdout2 reports `minor`), for teams that prefer a static critic that fails more often.
Under the policy the broad `except Exception: return 0` is a `swallowing-handler` (blocking
record 0/5/29): it is listed, and the verdict is `conditional_pass` rather than `fail`
(docs/static-critics.md, "Calibration").
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Literal, get_args

from contend.critics.static.base import Finding
from contend.protocol.model import Severity

# Which rule decides whether a static finding may block: `"earned"` (this module's policy)
# or `"rule"` (each rule's own severity after the previous demotion). The settings model
# (config/model.py) names the same values; tests/test_static_calibration.py keeps the two
# in step, so that critics/ does not import config/.
Blocking = Literal["earned", "rule"]
BLOCKING_CHOICES: tuple[Blocking, ...] = get_args(Blocking)
DEFAULT_BLOCKING: Blocking = "earned"

# The share of blocking findings that must be TRUE (issues 8 and 17), and the one-sided 95%
# normal quantile of the lower confidence bound a record must reach.
TARGET = 0.9
_Z = 1.6448536269514722


@dataclasses.dataclass(frozen=True, slots=True)
class Record:
    """A rule's labelled blocking finding locations on the seen sets: TRUE / DEBATABLE /
    FALSE (DEBATABLE is not TRUE: the target counts only TRUE)."""

    true: int = 0
    debatable: int = 0
    false: int = 0

    @property
    def n(self) -> int:
        return self.true + self.debatable + self.false

    def lower_bound(self) -> float:
        """One-sided 95% Wilson score lower bound of the TRUE share; 0 with no labels."""
        if self.n == 0:
            return 0.0
        p = self.true / self.n
        z2 = _Z * _Z
        centre = p + z2 / (2 * self.n)
        spread = _Z * math.sqrt(p * (1 - p) / self.n + z2 / (4 * self.n * self.n))
        return max(0.0, (centre - spread) / (1 + z2 / self.n))

    def earned(self) -> bool:
        return self.lower_bound() >= TARGET

    def text(self) -> str:
        return f"{self.true}/{self.debatable}/{self.false}"


@dataclasses.dataclass(frozen=True, slots=True)
class Policy:
    """A rule's record, whether its evidence is the defect itself, and why it blocks or not."""

    record: Record
    reason: str
    evidence_is_defect: bool = False

    @property
    def blocks(self) -> bool:
        return self.evidence_is_defect or self.record.earned()


_NONE = Record()
_PROVIDER_KEY = (
    "a committed credential in the provider's own key format: the evidence is the leak "
    "(placeholders are not raised); no label needed"
)
_INTENT_TEST = "needs intent: was the test or check moved, merged, or deleted with its subject?"
_INTENT_FALLBACK = "needs intent: is the fallback deliberate, and does the error surface elsewhere?"
_INTENT_BANDIT = "needs context: is the call reachable from untrusted input?"
_FEW = "no TRUE blocker; too few labels to earn blocking in any case"

# rule -> policy. A rule absent from this table has no record and no self-evident evidence:
# its findings are reported as minor.
POLICY: Mapping[str, Policy] = {
    # --- evidence is the defect: blocks without a record -----------------------------------
    **{
        rule: Policy(_NONE, _PROVIDER_KEY, evidence_is_defect=True)
        for rule in (
            "aws-access-key-id",
            "aws-secret-access-key",
            "github-token",
            "slack-token",
            "slack-webhook",
            "stripe-live-key",
            "google-api-key",
            "openai-api-key",
            "anthropic-api-key",
            "private-key",
        )
    },
    "js-test-only": Policy(
        _NONE,
        "a committed `.only` / `fit` / `fdescribe` stops every other test of the file from "
        "running; no runner treats it as intended in committed code",
        evidence_is_defect=True,
    ),
    "review-config-weakened": Policy(
        _NONE,
        "the change lowers contend's own review settings (DESIGN §9): the comparison of the "
        "two configurations is the weakening itself",
        evidence_is_defect=True,
    ),
    # --- records of the seen sets (blocking labels TRUE / DEBATABLE / FALSE) -----------------
    "assertion-removed": Policy(Record(0, 3, 87), _INTENT_TEST),
    "swallowing-handler": Policy(Record(0, 5, 29), _INTENT_FALLBACK),
    "test-deleted": Policy(Record(1, 6, 19), _INTENT_TEST),
    "js-test-deleted": Policy(Record(3, 1, 16), _INTENT_TEST),
    "assertion-weakened": Policy(Record(0, 5, 8), _INTENT_TEST),
    "js-empty-catch": Policy(Record(1, 3, 5), _INTENT_FALLBACK),
    "js-assertion-removed": Policy(Record(0, 3, 4), _INTENT_TEST),
    "assertions-reduced-to-zero": Policy(Record(0, 0, 7), _INTENT_TEST),
    "bandit-B701": Policy(Record(0, 0, 7), _INTENT_BANDIT),
    "js-catch-default": Policy(Record(1, 0, 4), _INTENT_FALLBACK),
    "validation-guard-removed": Policy(
        Record(1, 0, 3), "needs intent: was the guard moved to the boundary or replaced?"
    ),
    "bandit-B102": Policy(Record(0, 0, 4), _INTENT_BANDIT),
    "js-validation-guard-removed": Policy(
        Record(0, 0, 4), "needs intent: was the guard moved, renamed or ported?"
    ),
    "bandit-B301": Policy(Record(0, 0, 3), _INTENT_BANDIT),
    "raise-to-default": Policy(Record(0, 0, 3), _INTENT_FALLBACK),
    "js-assertion-weakened": Policy(Record(0, 2, 0), _FEW),
    "bandit-B103": Policy(Record(0, 0, 1), _FEW),
    "bandit-B310": Policy(Record(0, 0, 1), _FEW),
    "bandit-B704": Policy(Record(0, 0, 1), _FEW),
    "unit-under-test-mocked": Policy(Record(0, 0, 1), _FEW),
    "index-to-default": Policy(Record(0, 0, 1), _FEW),
    "widened-except": Policy(Record(0, 0, 1), _FEW),
    "parametrize-cases-removed": Policy(Record(0, 0, 1), _FEW),
    "test-class-deleted": Policy(Record(0, 1, 0), _FEW),
    "await-dropped": Policy(Record(0, 0, 1), _FEW),
    "unlocked-shared-mutation": Policy(Record(0, 0, 1), _FEW),
    "js-catch-swallow": Policy(Record(0, 1, 0), _FEW),
    "check-then-act-across-await": Policy(Record(0, 0, 1), _FEW),
}


def may_block(rule: str) -> bool:
    """Whether findings of `rule` keep a blocking severity under the policy."""
    policy = POLICY.get(rule)
    return policy is not None and policy.blocks


def earned_severity(finding: Finding) -> Finding:
    """The finding at the severity the policy supports: unchanged when its rule may block
    (or it is minor already), else minor."""
    if finding.severity is Severity.MINOR or may_block(finding.rule):
        return finding
    return dataclasses.replace(finding, severity=Severity.MINOR)


# The previous rule, applied under `blocking="rule"`: rule -> (its blocking record on main,
# holdout and holdout2, the severities it reports as minor). A rule blocked three or more
# times and never TRUE there; bandit's rating was the only evidence of its two tests here.
LEGACY_DEMOTED: Mapping[str, tuple[Record, frozenset[Severity]]] = {
    "assertion-removed": (Record(0, 3, 100), frozenset({Severity.MAJOR})),
    "assertion-weakened": (Record(0, 5, 8), frozenset({Severity.MAJOR})),
    "assertions-reduced-to-zero": (Record(0, 0, 7), frozenset({Severity.MAJOR})),
    "js-assertion-removed": (Record(0, 3, 4), frozenset({Severity.MAJOR})),
    "js-validation-guard-removed": (Record(0, 0, 4), frozenset({Severity.MAJOR})),
    "raise-to-default": (Record(0, 0, 3), frozenset({Severity.MAJOR})),
    "bandit-B701": (Record(0, 0, 7), frozenset({Severity.MAJOR, Severity.CRITICAL})),
    "bandit-B301": (Record(0, 0, 3), frozenset({Severity.MAJOR, Severity.CRITICAL})),
}


def legacy_severity(finding: Finding) -> Finding:
    """The finding at the severity the previous rule gave it."""
    entry = LEGACY_DEMOTED.get(finding.rule)
    if entry is None or finding.severity not in entry[1]:
        return finding
    return dataclasses.replace(finding, severity=Severity.MINOR)


def calibrate(finding: Finding, blocking: Blocking = DEFAULT_BLOCKING) -> Finding:
    """The finding at the severity the chosen rule supports (the runner's one entry):
    `"earned"` the policy, `"rule"` the previous rule."""
    if blocking == "earned":
        return earned_severity(finding)
    if blocking == "rule":
        return legacy_severity(finding)
    # A caller that bypassed the settings' validation: never guess which rule was meant.
    raise ValueError(f"unknown blocking rule {blocking!r}; expected one of {BLOCKING_CHOICES}")
