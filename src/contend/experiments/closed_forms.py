"""Exact survival probabilities to check the simulator against.

    rho = 0      adversarial: prod(1 - p_i); majority: the Poisson-binomial tail
    rho = 1      one latent for all: adversarial 1 - max p_i; majority 1 - p_(m), the m-th
                 largest p with m = floor(k/2) + 1
    0 < rho < 1  conditionally independent given the shared factor F: the same two
                 formulas with p_i(F) = Phi((Phi^-1(p_i) - sqrt(rho) F) / sqrt(1 - rho)),
                 integrated over F numerically on a fine grid (exact up to quadrature
                 error: below 1e-6 for rho <= 0.99, tests/test_simulator.py checks it
                 against a grid four times finer)
    p_i = 1/2    (k = 2 or 3, any valid rho, negative included) Sheppard's orthant
                 probabilities: P(no catch) = 1/4 + asin(rho)/(2 pi) for two critics,
                 1/8 + 3 asin(rho)/(4 pi) for three
    otherwise    (rho < 0) no closed form here: Monte Carlo only

Also the copula thresholds Phi^-1(p_i) the simulator draws against, so the simulator
imports the closed forms and not the other way round. Pure numpy and math, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

import numpy as np

QUADRATURE_NODES = 20_001
QUADRATURE_SPAN = 9.0  # standard deviations of F; the mass beyond is below 1e-18
Array = np.ndarray[Any, np.dtype[np.float64]]


def thresholds(p: Sequence[float]) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Phi^-1(p_i): -inf for p = 0 (never catches), +inf for p = 1 (always catches)."""
    inv = NormalDist().inv_cdf
    return np.array(
        [-math.inf if v <= 0 else math.inf if v >= 1 else inv(v) for v in p], dtype=np.float64
    )


def poisson_binomial(p: Sequence[float]) -> list[float]:
    """P(exactly s of the critics catch), s = 0..k, for independent catches."""
    pmf = [1.0]
    for q in p:
        nxt = [0.0] * (len(pmf) + 1)
        for s, mass in enumerate(pmf):
            nxt[s] += mass * (1 - q)
            nxt[s + 1] += mass * q
        pmf = nxt
    return pmf


def independent(p: Sequence[float]) -> tuple[float, float]:
    """(adversarial, majority) survival for independent critics."""
    adversarial = math.prod(1 - q for q in p)
    needs = len(p) // 2 + 1
    majority = sum(poisson_binomial(p)[:needs])
    return adversarial, majority


def comonotone(p: Sequence[float]) -> tuple[float, float]:
    """(adversarial, majority) survival when every critic shares one latent (rho = 1)."""
    ordered = sorted(p, reverse=True)
    m = len(p) // 2 + 1
    return 1 - ordered[0], 1 - ordered[m - 1]


def _phi(x: Array) -> Array:
    erf = np.frompyfunc(math.erf, 1, 1)
    return np.asarray(0.5 * (1 + erf(x / math.sqrt(2))), dtype=np.float64)


def _pmf_rows(cond: Array) -> Array:
    """Poisson-binomial pmf per row of conditional catch probabilities [node, critic]."""
    nodes, k = cond.shape
    pmf = np.zeros((nodes, k + 1))
    pmf[:, 0] = 1.0
    for i in range(k):
        q = cond[:, i : i + 1]
        pmf[:, 1:] = pmf[:, 1:] * (1 - q) + pmf[:, :-1] * q
        pmf[:, 0] *= 1 - q[:, 0]
    return pmf


def quadrature(
    p: Sequence[float], rho: float, nodes: int = QUADRATURE_NODES
) -> tuple[float, float]:
    """(adversarial, majority) survival for 0 < rho < 1 by integrating over the factor F
    on a fine grid (a conditional catch probability is a steep step when rho is near 1,
    which a Gauss-Hermite rule of modest order would miss)."""
    grid = np.linspace(-QUADRATURE_SPAN, QUADRATURE_SPAN, nodes)
    weights = np.exp(-(grid**2) / 2)
    weights /= weights.sum()
    t = thresholds(p)
    # p = 0 or 1 has an infinite threshold, which stays infinite whatever F is.
    finite = np.where(np.isfinite(t), t, 0.0)
    shifted = (finite[None, :] - math.sqrt(rho) * grid[:, None]) / math.sqrt(1 - rho)
    shifted = np.where(np.isfinite(t)[None, :], shifted, t[None, :])
    cond = _phi(shifted)  # [node, critic]: P(critic catches | F)
    adversarial = float(np.sum(weights * np.prod(1 - cond, axis=1)))
    needs = len(p) // 2 + 1
    majority = float(np.sum(weights * _pmf_rows(cond)[:, :needs].sum(axis=1)))
    return adversarial, majority


def orthant(k: int, rho: float) -> tuple[float, float]:
    """(adversarial, majority) survival of 2 or 3 critics with p = 1/2 each."""
    if k == 2:
        none = 0.25 + math.asin(rho) / (2 * math.pi)
        return none, 1 - none  # a majority of two needs both: the flaw survives otherwise
    if k == 3:
        # By the symmetry Z -> -Z, "at most one catches" and "at least two" are equally likely.
        return 0.125 + 3 * math.asin(rho) / (4 * math.pi), 0.5
    raise ValueError("orthant probabilities are implemented for 2 or 3 critics")


def reference_values(p: Sequence[float], rho: float) -> dict[str, Any]:
    """The exact values that exist for (p, rho), keyed as the simulator's JSON prints
    them; `reference` names how they were obtained."""
    if len(p) in (2, 3) and all(q == 0.5 for q in p) and rho not in (0, 1):
        adv, maj = orthant(len(p), rho)
        return {
            "closed_form_adversarial": adv,
            "closed_form_majority": maj,
            "reference": "orthant probability (p = 1/2)",
        }
    if rho == 0:
        adv, maj = independent(p)
        return {
            "closed_form_adversarial": adv,
            "closed_form_majority": maj,
            "reference": "independent",
        }
    if rho == 1:
        adv, maj = comonotone(p)
        return {
            "closed_form_adversarial": adv,
            "closed_form_majority": maj,
            "reference": "comonotone",
        }
    if 0 < rho < 1:
        adv, maj = quadrature(p, rho)
        return {
            "quadrature_adversarial": adv,
            "quadrature_majority": maj,
            "reference": f"quadrature over the shared factor, {QUADRATURE_NODES} nodes",
        }
    return {"reference": None}
