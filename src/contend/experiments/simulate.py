"""The simulator of correlated critics: does a flaw survive a panel of k critics?

Critic i catches the flaw with probability p_i = c_i * d_i (c_i: it picks the relevant
axis; d_i: it turns that axis into a concrete objection). Catches are correlated through a
Gaussian copula: critic i has a latent Z_i ~ N(0, 1) with corr(Z_i, Z_j) = rho for every
pair, and catches when Z_i < Phi^-1(p_i). For rho >= 0 this is one shared factor,
Z_i = sqrt(rho) F + sqrt(1 - rho) E_i; a negative rho (down to -1/(k-1), where the
correlation matrix stops being positive semi-definite) pulls every latent toward the
panel's sum instead, Z = a E + b sum(E).

    adversarial   the flaw survives when no critic catches it (one upheld objection
                  suffices)
    majority      the flaw survives unless more than k/2 critics catch it

Pure numpy, vectorised over trials and processed in chunks, so memory is bounded by
`chunk * k` whatever the number of trials. No I/O; closed forms live in `closed_forms`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from contend.experiments.closed_forms import reference_values, thresholds

DEFAULT_CHUNK = 1 << 16


class SimulationInputError(ValueError):
    """p, rho or trials out of range; the message is one line for the user."""


def check_inputs(p: Sequence[float], rho: float, trials: int) -> None:
    if not p:
        raise SimulationInputError("need at least one critic probability p")
    for value in p:
        if not (isinstance(value, int | float) and math.isfinite(value) and 0 <= value <= 1):
            raise SimulationInputError(f"p must lie in [0, 1], got {value!r}")
    k = len(p)
    if not math.isfinite(rho) or rho > 1 or (k > 1 and rho < -1 / (k - 1)) or rho < -1:
        low = -1 / (k - 1) if k > 1 else -1.0
        raise SimulationInputError(
            f"rho={rho:g} makes the {k}x{k} correlation matrix invalid: "
            f"rho must lie in [{low:.4g}, 1] for {k} critics"
        )
    if trials < 1:
        raise SimulationInputError(f"trials must be at least 1, got {trials}")


@dataclass(frozen=True, slots=True)
class Counts:
    """Raw Monte Carlo tallies: flaws that survived each rule, out of `trials`."""

    trials: int
    adversarial: int
    majority: int

    def estimate(self, survived: int) -> tuple[float, float]:
        p = survived / self.trials
        return p, math.sqrt(p * (1 - p) / self.trials)


def simulate_counts(
    p: Sequence[float],
    rho: float,
    trials: int,
    *,
    seed: int = 0,
    chunk: int = DEFAULT_CHUNK,
) -> Counts:
    """Run `trials` independent flaws past the panel; count survivals under both rules."""
    check_inputs(p, rho, trials)
    k = len(p)
    t = thresholds(p).astype(np.float32)
    probs = np.asarray(p, dtype=np.float32)
    rng = np.random.default_rng(seed)
    # rho < 0: Z = a E + b sum(E), with a^2 = 1 - rho and k b^2 + 2ab = rho, gives unit
    # variances and every pairwise correlation rho; b is real exactly when rho >= -1/(k-1).
    spread = np.float32(math.sqrt(1 - rho))
    pull = np.float32((-math.sqrt(1 - rho) + math.sqrt(max(1 - rho + k * rho, 0.0))) / k)
    a, b = np.float32(math.sqrt(max(rho, 0.0))), np.float32(math.sqrt(1 - max(rho, 0.0)))
    majority_needs = k // 2 + 1
    adversarial = majority = 0
    done = 0
    caught = np.empty(chunk, dtype=np.int32)
    while done < trials:
        m = min(chunk, trials - done)
        hits = caught[:m]
        hits.fill(0)
        # Critic-major layout: each critic's row is contiguous, so a catch test is one pass.
        if rho == 0:
            # Independent: a uniform below p_i is exactly a latent below Phi^-1(p_i).
            u = rng.random((k, m), dtype=np.float32)
            for i in range(k):
                np.add(hits, u[i] < probs[i], out=hits)
        else:
            z = rng.standard_normal((k, m), dtype=np.float32)
            if rho < 0:
                total = z.sum(axis=0)
                z *= spread
                z += pull * total
            else:
                z *= b
                z += a * rng.standard_normal(m, dtype=np.float32)
            for i in range(k):
                np.add(hits, z[i] < t[i], out=hits)
        adversarial += int(np.count_nonzero(hits == 0))
        majority += int(np.count_nonzero(hits < majority_needs))
        done += m
    return Counts(trials, adversarial, majority)


def simulate(
    p: Sequence[float],
    rho: float,
    trials: int,
    *,
    seed: int = 0,
    chunk: int = DEFAULT_CHUNK,
) -> dict[str, Any]:
    """Monte Carlo survival under both rules with standard errors, beside every closed
    form (or quadrature) that exists for these inputs."""
    counts = simulate_counts(p, rho, trials, seed=seed, chunk=chunk)
    adv, adv_se = counts.estimate(counts.adversarial)
    maj, maj_se = counts.estimate(counts.majority)
    out: dict[str, Any] = {
        "schema": "contend.simulation/v1",
        "p": [float(v) for v in p],
        "k": len(p),
        "rho": rho,
        "trials": trials,
        "seed": seed,
        "adversarial_survival": adv,
        "majority_survival": maj,
        "stderr": {"adversarial": adv_se, "majority": maj_se},
    }
    out.update(reference_values(p, rho))
    return out


def sweep(
    p: float,
    rhos: Sequence[float],
    k_max: int,
    trials: int,
    *,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Survival against the number of critics k = 1..k_max, every critic with the same p,
    for each rho (the k values for which rho is not a valid correlation are skipped and
    listed)."""
    rows: list[dict[str, Any]] = []
    for rho in rhos:
        for k in range(1, k_max + 1):
            if k > 1 and rho < -1 / (k - 1):
                continue
            rows.append(simulate([p] * k, rho, trials, seed=seed + k))
    return rows
