"""What each static rule costs the all-findings target, and what removing it would cost (pure).

Issue 8 asks, where a target cannot be met without losing recall, which rule and why, with
the figures. This module does the arithmetic; `rules.py` reads the runs and prints it.

Definitions, as `rc_metrics.py` has them: a finding is one dispute (a grouped dispute counts
once) with the dispute's label; all-findings precision = TRUE / labelled findings (TRUE +
DEBATABLE + FALSE; UNLABELLED findings are counted and shown but are in no denominator); a
finding is blocking when raised at critical or major.

Removing a set of rules means: their findings are not raised, every other finding is raised
as before (the critics are independent per rule; a grouped dispute holds one rule).

The removal set that reaches a precision target is found exactly, not greedily: the fewest
TRUE findings lost, then the fewest rules removed. Only rules with a TRUE finding can cost
anything, so every subset of those is tried (there are few; more than `MAX_TRUE_RULES` is an
error rather than a silent approximation); rules without a TRUE finding are then removed in
order of most DEBATABLE + FALSE findings first (for a fixed set of TRUE-bearing rules, that
order reaches the target with the fewest rules), until the target is reached.

Synthetic recall without a set of rules: a mutant stays caught when at least one of the
rules that caught it (`caught_by`, written per item by `bench/static_quality.py` and
`bench/js_quality.py`) is not removed; a benign control stays a false alarm likewise.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

LABELS = ("TRUE", "DEBATABLE", "FALSE", "UNLABELLED")
BLOCKING = frozenset({"critical", "major"})
FRESH_SET = "holdout7"
MAX_TRUE_RULES = 20  # 2**20 subsets: still seconds; beyond that the search would be a guess


@dataclass(frozen=True, slots=True)
class RealFinding:
    """One dispute of a real-commit run, with its label."""

    bench_set: str
    lang: str
    rule: str
    severity: str
    label: str
    # Where, and the reason of a TRUE place's label: for the reader, not for the arithmetic.
    where: str = ""
    reason: str = ""

    @property
    def blocking(self) -> bool:
        return self.severity in BLOCKING

    @property
    def fresh(self) -> bool:
        return self.bench_set == FRESH_SET


@dataclass(slots=True)
class Tally:
    n: int = 0
    true: int = 0
    debatable: int = 0
    false: int = 0
    unlabelled: int = 0
    blocking: int = 0
    severities: Counter[str] = field(default_factory=Counter)

    @property
    def labelled(self) -> int:
        return self.true + self.debatable + self.false

    @property
    def noise(self) -> int:
        """Labelled findings that are not TRUE: what removing the rule would take away."""
        return self.debatable + self.false

    def precision(self) -> Fraction | None:
        return Fraction(self.true, self.labelled) if self.labelled else None


def tally(findings: Iterable[RealFinding]) -> Tally:
    t = Tally()
    for f in findings:
        if f.label not in LABELS:
            raise ValueError(f"unknown label {f.label!r} of a {f.rule} finding")
        t.n += 1
        t.true += f.label == "TRUE"
        t.debatable += f.label == "DEBATABLE"
        t.false += f.label == "FALSE"
        t.unlabelled += f.label == "UNLABELLED"
        t.blocking += f.blocking
        t.severities[f.severity] += 1
    return t


def without(findings: Iterable[RealFinding], removed: Collection[str]) -> list[RealFinding]:
    return [f for f in findings if f.rule not in removed]


@dataclass(frozen=True, slots=True)
class RuleRow:
    """One rule of one language: its findings on the tuning and the fresh sets, and what the
    tuning sets' all-findings precision would be without it."""

    rule: str
    tuning: Tally
    fresh: Tally
    precision_without: Fraction | None  # tuning sets, the rule not raised


def rule_rows(findings: Sequence[RealFinding]) -> list[RuleRow]:
    """Per rule (of the findings given: one language), most labelled noise first."""
    tuning = [f for f in findings if not f.fresh]
    rows = []
    for rule in sorted({f.rule for f in findings}):
        rows.append(
            RuleRow(
                rule=rule,
                tuning=tally(f for f in tuning if f.rule == rule),
                fresh=tally(f for f in findings if f.fresh and f.rule == rule),
                precision_without=tally(without(tuning, {rule})).precision(),
            )
        )
    rows.sort(key=lambda r: (-(r.tuning.noise + r.fresh.noise), -r.tuning.n, r.rule))
    return rows


@dataclass(frozen=True, slots=True)
class Removal:
    """A set of rules whose removal reaches the target on the findings searched (or the best
    that can be done, `reached` False), and what it leaves."""

    rules: tuple[str, ...]
    reached: bool
    before: Tally
    after: Tally
    true_lost: int


def _meets(t: Tally, target: Fraction) -> bool:
    p = t.precision()
    return p is not None and p >= target


def _split(findings: Sequence[RealFinding]) -> tuple[dict[str, Tally], list[str], list[str]]:
    """Per-rule tallies; the rules with a TRUE finding; the others, most noise first."""
    per_rule = {
        rule: tally(f for f in findings if f.rule == rule) for rule in {f.rule for f in findings}
    }
    costly = sorted(r for r, t in per_rule.items() if t.true)
    if len(costly) > MAX_TRUE_RULES:
        raise ValueError(
            f"{len(costly)} rules have TRUE findings; an exact search over them is too large"
        )
    free = sorted(
        (r for r, t in per_rule.items() if not t.true), key=lambda r: (-per_rule[r].noise, r)
    )
    return per_rule, costly, free


def _removal(findings: Sequence[RealFinding], rules: Iterable[str], target: Fraction) -> Removal:
    chosen = tuple(sorted(rules))
    before, after = tally(findings), tally(without(findings, set(chosen)))
    return Removal(chosen, _meets(after, target), before, after, before.true - after.true)


def free_removal(findings: Sequence[RealFinding], target: Fraction) -> Removal:
    """Every rule without a TRUE finding (and with labelled noise) removed: the highest
    precision reachable without losing a TRUE finding."""
    per_rule, _costly, free = _split(findings)
    return _removal(findings, (r for r in free if per_rule[r].noise), target)


def smallest_removal(findings: Sequence[RealFinding], target: Fraction) -> Removal:
    """The removal set with the fewest TRUE findings lost, then the fewest rules, that brings
    the all-findings precision of `findings` to `target` (method: module docstring). When no
    set does, `reached` is False and the set is the one giving the highest precision (then
    the fewest TRUE lost, then the fewest rules): how close removing rules can come."""
    per_rule, costly, free = _split(findings)
    best: tuple[int, int, tuple[str, ...]] | None = None
    closest: tuple[Fraction, int, int, tuple[str, ...]] | None = None
    for size in range(len(costly) + 1):
        for paid in itertools.combinations(costly, size):
            lost = sum(per_rule[r].true for r in paid)
            if best is not None and (lost, size) > best[:2]:
                continue
            for extra in range(len(free) + 1):
                chosen = (*paid, *free[:extra])
                after = tally(without(findings, set(chosen)))
                p = after.precision()
                if p is not None:
                    # Highest precision first: its negation sorts first.
                    near = (-p, lost, len(chosen), tuple(sorted(chosen)))
                    if closest is None or near < closest:
                        closest = near
                if _meets(after, target):
                    key = (lost, len(chosen), tuple(sorted(chosen)))
                    if best is None or key < best:
                        best = key
                    break
    if best is not None:
        return _removal(findings, best[2], target)
    return _removal(findings, closest[3] if closest is not None else (), target)


@dataclass(frozen=True, slots=True)
class SyntheticItem:
    """One item of a synthetic benchmark: a mutant of `kind` (its topic) or a benign control
    (`kind` "benign"), and the rules whose findings caught it (alarmed, on a control)."""

    kind: str
    caught_by: frozenset[str]

    def caught(self, removed: Collection[str] = ()) -> bool:
        return any(rule not in removed for rule in self.caught_by)


@dataclass(frozen=True, slots=True)
class Recall:
    kind: str
    n: int
    caught: int
    caught_without: int

    @property
    def lost(self) -> int:
        return self.caught - self.caught_without


def synthetic_recall(items: Sequence[SyntheticItem], removed: Collection[str]) -> list[Recall]:
    """Per kind (each topic, and "benign": false alarms): caught with every rule, and with
    `removed` not raised. Kinds alphabetically, "benign" last."""
    kinds = sorted({i.kind for i in items}, key=lambda k: (k == "benign", k))
    out = []
    for kind in kinds:
        mine = [i for i in items if i.kind == kind]
        out.append(
            Recall(
                kind,
                len(mine),
                sum(i.caught() for i in mine),
                sum(i.caught(removed) for i in mine),
            )
        )
    return out


def pct(p: Fraction | None) -> str:
    return "n/a" if p is None else f"{float(p) * 100:.1f}%"
