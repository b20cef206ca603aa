"""Hypothesis settings shared by the coverage run and every mutant run.

Derandomized, so a mutant meets the same examples the coverage map was built with and
its result does not depend on the luck of a draw; no example database, so a mutant's
counterexample is never replayed against the real code later; no shrinking: a killed
mutant needs a failing example, not the smallest one, and shrinking re-runs the test
dozens to hundreds of times after the first failure (the outcome is the same).
"""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, settings


def load() -> None:
    settings.register_profile(
        "contend-mutation",
        database=None,
        derandomize=True,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[p for p in Phase if p not in (Phase.shrink, Phase.explain)],
    )
    settings.load_profile("contend-mutation")
