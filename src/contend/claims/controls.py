"""Negative controls for the level-3 evaluator: a verifier must show it can say no.

The seed's evaluator contract promotes a candidate only when at least one candidate was
rejected. For a claim with a number, `negative_control` builds the claim with that number
changed (doubled, or moved by 3 when small) and runs the same internal-fact check on the
same regions: the changed claim must be rejected. A claim without a number gets no control,
so its candidate is not promoted by this run. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from contend.claims.findings import CheckVerdict, CitedRegion
from contend.claims.internal_fact import check_claim
from contend.claims.quantities import extract


@dataclass(frozen=True, slots=True)
class Control:
    candidate: str
    verdict: CheckVerdict
    changed: str  # "12.5 → 25"


def _changed(value: Decimal) -> Decimal:
    return value + 3 if value == value.to_integral_value() and abs(value) < 10 else value * 2


_DIGITS = re.compile(r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+")


def negative_control(claim_text: str, regions: Sequence[CitedRegion]) -> Control | None:
    for q in extract(claim_text):
        if q.is_label or q.is_range:
            continue
        # The number as written (before any magnitude or unit) starts the quantity.
        written = _DIGITS.match(claim_text, q.start)
        if written is None:
            continue
        value = Decimal(written.group().replace(",", ""))
        new_text = f"{_changed(value):.{q.decimals}f}"
        candidate = claim_text[: q.start] + new_text + claim_text[written.end() :]
        result = check_claim(candidate, regions)
        return Control(candidate, result.verdict, f"{written.group()} → {new_text}")
    return None
