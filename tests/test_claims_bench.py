"""The internal-fact bench (bench/claims_internal_fact.py) builds well-formed cases."""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import claims_internal_fact as bench
from contend.claims.quantities import compare, extract

ROOT = Path(__file__).resolve().parents[1]


def test_cases_from_a_real_doc() -> None:
    cases = bench.derive(ROOT / "docs" / "configuration.md", random.Random(1))
    kinds = {case.kind for case in cases}
    assert {"control", "number-changed", "reworded", "reworded-changed"} <= kinds
    for case in cases:
        if case.kind in ("number-changed", "unit-swapped", "percent-flipped"):
            # The mutated element is in the claim and differs from every equal reading
            # of the number it replaced.
            assert case.target and case.target in case.claim
            [mutated] = [q for q in extract(case.claim) if q.text == case.target][:1]
            assert mutated is not None
    controls = [c for c in cases if c.kind == "control"]
    assert controls and all(c.target == "" for c in controls)


def test_caught_needs_a_contradiction_on_the_mutated_element() -> None:
    cases = [
        c
        for c in bench.derive(ROOT / "docs" / "configuration.md", random.Random(2))
        if c.kind == "number-changed"
    ]
    case = cases[0]
    result = bench.check_claim(case.claim, [case.region])
    assert bench.caught(case, result) == any(
        f.status == "contradicted" and f.claimed == case.target for f in result.findings
    )
    untouched = bench.Case("control", case.source, case.claim, case.region, "")
    assert not bench.caught(untouched, bench.check_claim("nothing here", [case.region]))


def test_equal_forms_compare_equal() -> None:
    [a] = extract("1,250 ms")
    [b] = extract("1.25 s")
    assert compare(a, b)[0] == "equal"
