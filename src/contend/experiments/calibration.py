"""The default correlation rho, calibrated from a published figure.

Kim, Garg, Peng and Garg, "Correlated Errors in Large Language Models" (ICML 2025,
PMLR 267:30038-30066, arXiv:2506.07962): on the HELM leaderboard's 4-option multiple-choice
questions, two models that are both wrong pick the same wrong answer about 60% of the time,
against 1/3 by chance (three wrong options).

The simulator's latent-factor model is carried over to that choice: each model scores the
three wrong options with latents U_a = sqrt(rho) S + sqrt(1 - rho) E_a (S shared, E_a its
own, all standard normal) and, when wrong, picks its highest-scoring wrong option. The
probability that two models pick the same one rises from 1/3 at rho = 0 to 1 at rho = 1;
`calibrate` solves agreement(rho) = 0.60 by bisection on a fixed-seed Monte Carlo estimate
(common random numbers, so the estimate is monotone in rho). The assumption that the same
rho governs whether critics *miss* a flaw together is the model's, not the paper's; the
docs say so.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

Array = np.ndarray[Any, np.dtype[np.float64]]

KIM_2025_SAME_WRONG_ANSWER = 0.60
KIM_2025_WRONG_OPTIONS = 3  # HELM MMLU: 4 options, one right
# calibrate() rounded to two decimals; tests/test_simulator.py recomputes it.
DEFAULT_RHO = 0.63


@functools.cache
def _draws(options: int, samples: int, seed: int) -> tuple[Array, Array, Array]:
    rng = np.random.default_rng(seed)
    shape = (samples, options)
    return rng.standard_normal(shape), rng.standard_normal(shape), rng.standard_normal(shape)


def agreement(
    rho: float, *, options: int = KIM_2025_WRONG_OPTIONS, samples: int = 400_000, seed: int = 7
) -> float:
    """P(two models that are both wrong pick the same wrong option) under latent rho."""
    if not 0 <= rho <= 1:
        raise ValueError(f"rho must lie in [0, 1] here, got {rho}")
    shared, own_a, own_b = _draws(options, samples, seed)
    a = math.sqrt(rho) * shared + math.sqrt(1 - rho) * own_a
    b = math.sqrt(rho) * shared + math.sqrt(1 - rho) * own_b
    return float(np.mean(np.argmax(a, axis=1) == np.argmax(b, axis=1)))


def calibrate(
    target: float = KIM_2025_SAME_WRONG_ANSWER,
    *,
    options: int = KIM_2025_WRONG_OPTIONS,
    samples: int = 400_000,
    seed: int = 7,
    tol: float = 1e-4,
) -> float:
    """The rho at which agreement(rho) == target."""
    chance = 1 / options
    if not chance < target < 1:
        raise ValueError(f"target agreement must lie in ({chance:.3f}, 1), got {target}")
    low, high = 0.0, 1.0
    while high - low > tol:
        mid = (low + high) / 2
        if agreement(mid, options=options, samples=samples, seed=seed) < target:
            low = mid
        else:
            high = mid
    return (low + high) / 2
