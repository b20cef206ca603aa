"""Measured speed of the static critics on a 10-file change in a large repository.

    .venv/bin/python bench/static_speed.py [--runs 15] [--seed N]

Copies every .py file of this interpreter's standard library (tests included, without
site-packages) into a temporary git repository and commits it; counts and prints the real
number of lines; applies ten mutations (operators of several topics plus benign controls,
one file each) and commits them as the change; then times `collect_changes` + `run_static`
with all topics, `--runs` times, and prints the median and p90, plus the time of each topic
alone. The parse cache is cleared before every run so each run parses the ten files afresh,
as a new `contend review` process would; the first run of the process, which also pays
one-time imports (bandit), is reported separately, and so is the wall time of a review in a
fresh interpreter (`--fresh` runs), start-up and imports included.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benign import BENIGN
from contend.critics.static import pyast
from contend.critics.static.base import Topic
from contend.critics.static.runner import run_static
from contend.gitio.diff import collect_changes
from operators import OPERATORS, TEST_TOPICS
from static_corpus import SEED, NotUsed, load_source, mutate, run_git, stdlib_pools

# The topics of the ten changed files, in order: mostly defects, two benign refactors.
CHANGE_PLAN = (
    "silent-fallback",
    "test-weakening",
    "boundary-typing",
    "concurrency",
    "security",
    "secrets",
    "silent-fallback",
    "test-weakening",
    "benign",
    "benign",
)


def copy_stdlib(dest: Path) -> tuple[int, int]:
    """Copy the stdlib's .py files into dest; return (files, lines)."""
    pools = stdlib_pools()
    files = lines = 0
    for path in sorted(pools.root.rglob("*.py")):
        rel = path.relative_to(pools.root)
        if "site-packages" in rel.parts or "dist-packages" in rel.parts:
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        files += 1
        lines += path.read_bytes().count(b"\n")
    return files, lines


def apply_change(repo: Path, seed: int, min_lines: int = 0) -> list[str]:
    """Mutate ten files of the copy, one operator each; return 'path (label/operator)'."""
    pools = stdlib_pools()
    rng = random.Random(seed)
    library, tests = list(pools.library), list(pools.tests)
    rng.shuffle(library)
    rng.shuffle(tests)
    done: list[str] = []
    used: set[Path] = set()
    for label in CHANGE_PLAN:
        pool = tests if label in TEST_TOPICS else library
        ops = BENIGN if label == "benign" else OPERATORS[label]
        for path in pool:
            if path in used:
                continue
            src = load_source(pools.root, path)
            if isinstance(src, NotUsed) or len(src.lines) < min_lines:
                continue
            names = list(ops)
            rng.shuffle(names)
            new_text: str | NotUsed | None = None
            for name in names:
                candidates = ops[name](src, random.Random(f"{seed}:{src.path}:{name}"))
                if candidates:
                    new_text = mutate(src, rng.choice(candidates))
                if isinstance(new_text, str):
                    (repo / src.path).write_text(new_text, encoding="utf-8")
                    size = new_text.count("\n")
                    done.append(f"{src.path} ({label}/{name}, {size} lines)")
                    break
            if isinstance(new_text, str):
                used.add(path)
                break
    if len(done) != len(CHANGE_PLAN):
        raise RuntimeError(f"only {len(done)} of {len(CHANGE_PLAN)} files could be mutated")
    return done


def timed(repo: Path, topics: list[Topic] | None) -> tuple[float, int]:
    pyast.parse.cache_clear()
    started = time.perf_counter()
    changes, skipped = collect_changes(repo, "HEAD~1", "HEAD")
    result = run_static(changes, topics, skipped=skipped)
    return time.perf_counter() - started, len(result.findings)


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--fresh", type=int, default=5, help="runs in a new process each")
    parser.add_argument(
        "--min-lines", type=int, default=0, help="change only files at least this long"
    )
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="contend-speed-") as tmp:
        repo = Path(tmp) / "stdlib"
        repo.mkdir()
        t0 = time.perf_counter()
        files, lines = copy_stdlib(repo)
        run_git(repo.parent, "init", "-q", repo.name)
        run_git(repo, "add", "-A")
        run_git(repo, "commit", "-q", "-m", "stdlib")
        changed = apply_change(repo, args.seed, args.min_lines)
        run_git(repo, "commit", "-q", "-a", "-m", "change")
        print(
            f"repository: {files} .py files, {lines} lines (setup {time.perf_counter() - t0:.1f} s)"
        )
        print(f"python {sys.version.split()[0]}, nproc {os.cpu_count()}, runs {args.runs}")
        print("change (10 files):")
        for line in changed:
            print(f"  {line}")

        first, findings = timed(repo, None)
        print(f"first run in process (imports included): {first:.3f} s, {findings} findings")
        totals = [timed(repo, None)[0] for _ in range(args.runs)]
        print(
            f"all topics: median {statistics.median(totals):.3f} s, p90 {p90(totals):.3f} s, "
            f"min {min(totals):.3f} s, max {max(totals):.3f} s"
        )
        collect = []
        for _ in range(args.runs):
            started = time.perf_counter()
            collect_changes(repo, "HEAD~1", "HEAD")
            collect.append(time.perf_counter() - started)
        median, tail = statistics.median(collect), p90(collect)
        print(f"  {'collect_changes':16} median {median:.3f} s, p90 {tail:.3f} s")
        for topic in Topic:
            times = [timed(repo, [topic])[0] for _ in range(args.runs)]
            print(
                f"  {topic:16} median {statistics.median(times):.3f} s, p90 {p90(times):.3f} s"
                " (collect_changes included)"
            )
        fresh = [fresh_process(repo) for _ in range(args.fresh)]
        if fresh:
            print(
                f"fresh process (interpreter start + imports + all topics): median "
                f"{statistics.median(fresh):.3f} s over {len(fresh)} runs"
            )
    return 0


FRESH_SCRIPT = """
import sys
from pathlib import Path
from contend.critics.static.runner import run_static
from contend.gitio.diff import collect_changes
changes, skipped = collect_changes(Path(sys.argv[1]), "HEAD~1", "HEAD")
run_static(changes, skipped=skipped)
"""


def fresh_process(repo: Path) -> float:
    """Wall time of one review in a new interpreter, as a `contend review` would pay it."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", FRESH_SCRIPT, str(repo)], check=True)
    return time.perf_counter() - started


if __name__ == "__main__":
    raise SystemExit(main())
