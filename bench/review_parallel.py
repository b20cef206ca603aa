"""Do the threads of a review really run in parallel?

Scripted agents with a fixed latency per turn; each thread runs 3 critic rounds and 2
proposer turns (objection, defense, re-attack, defense, re-attack → deadlock at the cap).
A review with 4 critics must take at most 1.15 × its longest single thread.

Run: .venv/bin/python bench/review_parallel.py [--latency 1.0] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import datetime
from pathlib import Path

from contend.config import load_settings
from contend.ledger.verify import verify
from contend.review.engine import ReviewRequest, review
from review_bench_common import debate_scripts, make_repo

BASE = "def total(items):\n    return sum(items)\n"
CHANGED = BASE + "\n\ndef average(items):\n    return total(items) / len(items)\n"


def one_review(root: Path, critics: int, latency: float) -> tuple[float, float]:
    """Returns (wall time of the whole review, longest thread's own duration)."""
    repo = make_repo(root, {"app.py": (BASE, CHANGED)}, "Add average()")
    specs = [debate_scripts(root, i, latency) for i in range(1, critics + 1)]
    # Every thread has the same proposer script; the first one serves all.
    flags = {
        "critics": [c for c, _ in specs],
        "proposer": specs[0][1],
        "max_rounds": 2,
        "parallelism": critics,
    }
    settings = load_settings(repo, flags=flags)
    t0 = time.perf_counter()
    result = review(ReviewRequest(path=repo), settings)
    wall = time.perf_counter() - t0
    entries = verify(result.run_dir / "ledger.jsonl", keep_entries=True).entries
    started: dict[str, datetime] = {}
    longest = 0.0
    for e in entries:
        ts = datetime.fromisoformat(e["ts"].replace("Z", "+00:00"))
        if e["kind"] == "thread_started":
            started[e["data"]["thread"]] = ts
        elif e["kind"] == "thread_ended":
            longest = max(longest, (ts - started[e["data"]["thread"]]).total_seconds())
    assert result.outcome.verdict == "escalate", result.outcome  # deadlock at the cap
    return wall, longest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    singles, quads, ratios, internal = [], [], [], []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            t1, _ = one_review(Path(a), 1, args.latency)
            t4, longest4 = one_review(Path(b), 4, args.latency)
        singles.append(t1)
        quads.append(t4)
        ratios.append(t4 / t1)
        internal.append(t4 / longest4)
    turns = 5
    print(
        f"latency per agent turn: {args.latency:.2f} s; turns per thread: {turns} "
        f"(3 critic, 2 proposer); repeats: {args.repeat}"
    )
    print(f"1 critic  review wall: median {statistics.median(singles):.2f} s")
    print(f"4 critics review wall: median {statistics.median(quads):.2f} s")
    print(
        f"ratio 4-critic review / 1-critic review: median {statistics.median(ratios):.3f} "
        f"(max {max(ratios):.3f}; target <= 1.15)"
    )
    print(
        f"ratio 4-critic review / its longest thread: median "
        f"{statistics.median(internal):.3f} (max {max(internal):.3f})"
    )


if __name__ == "__main__":
    main()
