"""Does a `contend run --batch` keep its slices running side by side?

20 slices of scripted agents (implementer and critic each take `--latency` seconds per
turn; one implementer pass and one review per slice) on the local executor with
`--concurrency` slots. Target (issue 13): the batch's wall time ≤ 1.2 × (longest slice ×
slices ÷ concurrency). Printed against the longest slice inside the batch (the issue's
measure) and against one slice run alone first (the stricter one: no contention at all).

Run: .venv/bin/python bench/harness_batch.py [--slices 20] [--concurrency 4] [--latency 1.0]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from contend.cli.main import main

BASE = "def total(items):\n    return sum(items)\n"
FIXED = BASE + (
    "\n\ndef average(items):\n    if not items:\n        raise ValueError('empty')\n"
    "    return total(items) / len(items)\n"
)
CLEAN = {"topic": "edge cases", "no_defect_found": True, "objections": [], "judgements": []}


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def setup(root: Path, slices: int, latency: float) -> tuple[Path, list[str], Path]:
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "app.py").write_text(BASE)
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "base")
    specs = root / "specs"
    specs.mkdir()
    for i in range(slices):
        (specs / f"s{i:02d}.md").write_text(f"Slice {i}: add average(items).\n")
    impl = root / "impl.json"
    impl.write_text(
        json.dumps(
            {
                "family": "fam-a",
                "latency_s": latency,
                "proposer": [{"output": {"summary": "done"}, "edits": {"app.py": FIXED}}],
            }
        )
    )
    crit = root / "crit.json"
    crit.write_text(
        json.dumps({"family": "fam-b", "latency_s": latency, "critic": [{"output": CLEAN}]})
    )
    agents = ["--implementer", f"scripted:{impl}", "--critic", f"scripted:{crit}"]
    return repo, agents, specs


def run_cli(repo: Path, args: list[str]) -> None:
    cwd = Path.cwd()
    os.chdir(repo)
    try:
        code = main(args)
    finally:
        os.chdir(cwd)
    if code != 0:
        raise SystemExit(f"contend {' '.join(args)} exited {code}")


def main_bench() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--slices", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--latency", type=float, default=1.0)
    opts = parser.parse_args()
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b"}
    env |= {"GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
    os.environ.update(env)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        repo, agents, specs = setup(root, opts.slices, opts.latency)
        solo_spec = root / "solo.md"
        solo_spec.write_text("Add average(items).\n")
        t0 = time.perf_counter()
        run_cli(repo, ["run", "--spec", str(solo_spec), *agents, "--format", "json"])
        solo = time.perf_counter() - t0
        t0 = time.perf_counter()
        run_cli(
            repo,
            ["run", "--batch", str(specs), *agents, "--concurrency", str(opts.concurrency)],
        )
        wall = time.perf_counter() - t0
        journal = repo / ".contend" / "harness" / "batches" / "specs" / "journal.jsonl"
        walls = [json.loads(line)["wall_s"] for line in journal.read_text().splitlines()]
    longest = max(walls)
    ideal = longest * opts.slices / opts.concurrency
    ideal_solo = solo * opts.slices / opts.concurrency
    print(f"slices {opts.slices}, concurrency {opts.concurrency}, latency {opts.latency:g}s/turn")
    print(
        f"one slice alone: {solo:.2f}s; in the batch: longest {longest:.2f}s, "
        f"median {sorted(walls)[len(walls) // 2]:.2f}s"
    )
    print(f"batch wall time: {wall:.2f}s")
    print(f"ratio vs longest slice × slices ÷ concurrency: {wall / ideal:.3f} (target ≤ 1.2)")
    print(f"ratio vs the slice alone × slices ÷ concurrency: {wall / ideal_solo:.3f}")


if __name__ == "__main__":
    main_bench()
