"""How long a coding agent waits on contend's Stop hook: the trivial short-circuit (git
only, no engine import) against a full static review, in a throwaway repository.

    .venv/bin/python bench/hook_latency.py [--runs N]

Prints the median and min wall time of each, and their ratio (measured in one run)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _time_hook(repo: Path, session: str) -> float:
    payload = json.dumps({"session_id": session, "cwd": str(repo)})
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "contend.integrations.stop_hook", "--agent", "claude"],
        input=payload, cwd=repo, capture_output=True, text=True, check=False,
    )  # fmt: skip
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"hook failed: {done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        os.environ.update(
            HOME=tmp, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b",
            GIT_COMMITTER_EMAIL="b@x", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
        )  # fmt: skip
        _git(repo, "init", "-q", "-b", "main")
        (repo / "a.py").write_text("X = 1\n")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "base")
        (repo / "a.py").write_text("X = 2\nY = 3\n")  # 3 changed lines: trivial
        trivial = [_time_hook(repo, "trivial") for _ in range(runs)]
        (repo / "b.py").write_text("".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(8)))
        # a new session id each time: every stop is a real review, never "already reviewed"
        full = [_time_hook(repo, f"full-{i}") for i in range(runs)]
    for name, times in (("trivial short-circuit", trivial), ("full static review", full)):
        print(
            f"{name:<22} median {statistics.median(times) * 1000:7.0f} ms   "
            f"min {min(times) * 1000:7.0f} ms   ({runs} runs)"
        )
    print(
        f"ratio full/trivial (medians): {statistics.median(full) / statistics.median(trivial):.1f}x"
    )


if __name__ == "__main__":
    main()
