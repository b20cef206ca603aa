"""Pure metrics of the experiments: rates with confidence intervals, agreement, entropy,
coefficient of variation, ROC curves and their area. No I/O, no numpy: plain numbers in,
plain numbers out, so each can be checked by hand on toy data.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Rate:
    """k successes of n, with the Wilson score 95% interval; `value` None when n == 0."""

    k: int
    n: int
    low: float
    high: float

    @property
    def value(self) -> float | None:
        return None if self.n == 0 else self.k / self.n

    def text(self) -> str:
        if self.n == 0:
            return "n/a (n=0)"
        return f"{self.k / self.n:.2f} [{self.low:.2f}, {self.high:.2f}] (n={self.n})"

    def as_dict(self) -> dict[str, float | int | None]:
        return {"k": self.k, "n": self.n, "value": self.value, "low": self.low, "high": self.high}


def rate(k: int, n: int, z: float = Z95) -> Rate:
    """k of n with its Wilson score interval (sensible at 0 and n, unlike the normal one)."""
    if not 0 <= k <= n:
        raise ValueError(f"rate needs 0 <= k <= n, got k={k} n={n}")
    if n == 0:
        return Rate(0, 0, 0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Rate(k, n, max(0.0, centre - half), min(1.0, centre + half))


Outcome = str  # "unanimous" | "majority" | "fragmented"


def plurality(answers: Sequence[Hashable | None]) -> tuple[Hashable | None, Outcome]:
    """The answer a vote picks and how the vote went. None is an abstention (no usable
    answer): it counts towards N but never towards an answer.

    unanimous: every one of N gave the same answer; majority: one answer has more than
    N/2 (not all); fragmented: no answer has more than N/2 (the answer is then None)."""
    n = len(answers)
    counts = Counter(a for a in answers if a is not None)
    if not counts:
        return None, "fragmented"
    top, votes = counts.most_common(1)[0]
    if votes == n:
        return top, "unanimous"
    if votes * 2 > n:
        return top, "majority"
    return None, "fragmented"


def entropy(values: Sequence[Hashable], *, normalised: bool = True) -> float:
    """Shannon entropy (bits) of the answers' distribution; normalised by log2(N) so 0 is
    full agreement and 1 is every answer different. 0 for fewer than two answers."""
    n = len(values)
    if n < 2:
        return 0.0
    h = -sum((c / n) * math.log2(c / n) for c in Counter(values).values())
    return h / math.log2(n) if normalised else h


def coefficient_of_variation(values: Sequence[float]) -> float:
    """Population standard deviation over |mean|; 0 when all equal; inf for a zero mean
    with spread."""
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    if sd == 0:
        return 0.0
    return math.inf if mean == 0 else sd / abs(mean)


@dataclass(frozen=True, slots=True)
class RocPoint:
    threshold: float
    tpr: float
    fpr: float


def roc_curve(scores: Sequence[float], labels: Sequence[bool]) -> list[RocPoint]:
    """ROC points for "positive when score >= threshold", from the strictest threshold
    (nothing positive) to the loosest (everything positive)."""
    if len(scores) != len(labels):
        raise ValueError("scores and labels differ in length")
    pos = sum(1 for x in labels if x)
    neg = len(labels) - pos
    points = [RocPoint(math.inf, 0.0, 0.0)]
    for t in sorted(set(scores), reverse=True):
        tp = sum(1 for s, y in zip(scores, labels, strict=True) if s >= t and y)
        fp = sum(1 for s, y in zip(scores, labels, strict=True) if s >= t and not y)
        points.append(RocPoint(t, tp / pos if pos else 0.0, fp / neg if neg else 0.0))
    return points


def roc_auc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """Area under the ROC curve as the probability that a random positive scores above a
    random negative (ties count one half); None without both classes."""
    positives = [s for s, y in zip(scores, labels, strict=True) if y]
    negatives = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not positives or not negatives:
        return None
    wins = 0.0
    for p in positives:
        for q in negatives:
            wins += 1.0 if p > q else 0.5 if p == q else 0.0
    return wins / (len(positives) * len(negatives))


def auc_of_points(points: Sequence[tuple[float, float]]) -> float:
    """Trapezoidal area under (fpr, tpr) points, sorted by fpr, closed at (0,0) and (1,1)."""
    pts = sorted({(0.0, 0.0), (1.0, 1.0), *points})
    return sum((x2 - x1) * (y1 + y2) / 2 for (x1, y1), (x2, y2) in itertools.pairwise(pts))


def mean(values: Sequence[float]) -> float | None:
    return None if not values else sum(values) / len(values)


def mean_ci(values: Sequence[float], z: float = Z95) -> tuple[float, float, float] | None:
    """Mean with a normal-approximation 95% interval (None for no values)."""
    n = len(values)
    if n == 0:
        return None
    m = sum(values) / n
    if n == 1:
        return m, m, m
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    half = z * sd / math.sqrt(n)
    return m, m - half, m + half
