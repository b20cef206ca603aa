"""Simulator speed, memory and scaling: critic-trials per second, peak memory at growing
trial counts (bounded by the chunk), and cost against trials x critics (linear).

    nice -n 10 .venv/bin/python bench/experiment_simulator.py

Prints: throughput per (k, rho) as the median of 3 runs; tracemalloc peak for 1e5..1e7
trials (numpy reports its buffers to tracemalloc); the log-log slope of time against trials
(1.0 is linear) and a linear fit of time against critics (ns per critic-trial, ns per
trial, R^2).
"""

from __future__ import annotations

import math
import statistics
import sys
import time
import tracemalloc

from contend.experiments.simulate import simulate_counts


def timed(p: list[float], rho: float, trials: int) -> float:
    runs = []
    for seed in range(3):
        start = time.perf_counter()
        simulate_counts(p, rho, trials, seed=seed)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def slope(xs: list[float], ys: list[float]) -> float:
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def main() -> int:
    print("throughput (median of 3):")
    worst = math.inf
    for k, rho in [(3, 0.0), (3, 0.3), (3, 0.63), (9, 0.63), (30, 0.63), (9, -0.1)]:
        trials = 3_000_000
        seconds = timed([0.4] * k, rho, trials)
        rate = trials * k / seconds
        worst = min(worst, rate)
        print(
            f"  k={k:<3} rho={rho:<5} {trials:>9} trials  {seconds:6.3f} s  "
            f"{rate / 1e6:7.1f} M critic-trials/s"
        )
    print(f"slowest: {worst / 1e6:.1f} M critic-trials/s (target >= 10 M)")

    print("peak memory (tracemalloc), k=9, rho=0.63:")
    peaks = []
    for trials in (100_000, 1_000_000, 10_000_000):
        tracemalloc.start()
        simulate_counts([0.4] * 9, 0.63, trials)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        peaks.append(peak)
        print(f"  {trials:>10} trials  peak {peak / 2**20:6.2f} MiB")
    print(f"peak at 1e7 / peak at 1e5: {peaks[-1] / peaks[0]:.2f}x (bounded: ~1x)")

    print("cost vs trials (k=9, rho=0.63):")
    xs, ys = [], []
    for trials in (1_000_000, 3_000_000, 10_000_000):
        seconds = timed([0.4] * 9, 0.63, trials)
        xs.append(math.log(trials))
        ys.append(math.log(seconds))
        print(f"  trials={trials:>10}  {seconds:6.3f} s")
    print(f"log-log slope of time vs trials: {slope(xs, ys):.3f} (1.0 = linear)")

    print("cost vs critics (2e6 trials, rho=0.63): time = a*trials + b*trials*k")
    ks, ts = [], []
    for k in (3, 9, 27, 81):
        seconds = timed([0.4] * k, 0.63, 2_000_000)
        ks.append(float(k))
        ts.append(seconds)
        print(f"  k={k:<3} {seconds:6.3f} s  {seconds / (2e6 * k) * 1e9:5.1f} ns per critic-trial")
    b = slope(ks, ts)
    a = statistics.fmean(ts) - b * statistics.fmean(ks)
    fitted = [a + b * k for k in ks]
    ss_res = sum((t - f) ** 2 for t, f in zip(ts, fitted, strict=True))
    ss_tot = sum((t - statistics.fmean(ts)) ** 2 for t in ts)
    print(
        f"linear fit: {b / 2e6 * 1e9:.1f} ns per critic-trial + {a / 2e6 * 1e9:.1f} ns per "
        f"trial, R^2 = {1 - ss_res / ss_tot:.4f}"
    )
    return 0 if worst >= 1e7 else 1


if __name__ == "__main__":
    sys.exit(main())
