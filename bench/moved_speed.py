"""The moved-code test (`contend.critics.static.moved`) of this checkout against another
revision's, alternating in one process on static_speed's 10-file stdlib change.

    nice -n 10 .venv/bin/python bench/moved_speed.py [--old REV] [--pairs 15]

Builds the change of `static_speed.py` (a copy of the standard library, ten mutated files),
runs the static critics once to collect the findings the test is handed, then times
`drop_moved` of REV's `moved.py` (read with `git show REV:src/…/moved.py`, default `main`)
and of this checkout's alternately, `--pairs` times each, and the whole
`collect_changes` + `run_static` with each version plugged into the runner. Fails when the two
versions keep different findings. Prints the medians and the ratios (old / new).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

import static_speed
from contend.critics.static import moved, runner
from contend.critics.static.base import FileChange, Finding
from contend.gitio.diff import collect_changes

ROOT = Path(__file__).resolve().parents[1]
MOVED = "src/contend/critics/static/moved.py"

Drop = Callable[[Sequence[Finding], Sequence[FileChange]], list[Finding]]


def load_old(rev: str, where: Path) -> ModuleType:
    text = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:{MOVED}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = where / "moved_old.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("moved_old", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["moved_old"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def review(repo: Path, drop: Drop) -> tuple[float, list[tuple[object, ...]]]:
    runner.drop_moved = drop
    started = time.perf_counter()
    changes, skipped = collect_changes(repo, "HEAD~1", "HEAD")
    result = runner.run_static(changes, skipped=skipped)
    seconds = time.perf_counter() - started
    return seconds, [(f.rule, f.path, f.start_line, f.severity, f.claim) for f in result.findings]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", default="main", help="revision whose moved.py is compared")
    parser.add_argument("--pairs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="contend-moved-") as tmp:
        old = load_old(args.old, Path(tmp))
        repo = Path(tmp) / "stdlib"
        repo.mkdir()
        static_speed.copy_stdlib(repo)
        static_speed.run_git(repo.parent, "init", "-q", repo.name)
        static_speed.run_git(repo, "add", "-A")
        static_speed.run_git(repo, "commit", "-q", "-m", "stdlib")
        static_speed.apply_change(repo, static_speed.SEED, 0)
        static_speed.run_git(repo, "commit", "-q", "-a", "-m", "change")

        handed: dict[str, list[object]] = {}

        def spy(findings: Sequence[Finding], changes: Sequence[FileChange]) -> list[Finding]:
            handed["args"] = [list(findings), list(changes)]
            return moved.drop_moved(findings, changes)

        review(repo, spy)  # imports, and the findings the test is handed
        findings, changes = handed["args"]
        drops: dict[str, Drop] = {"old": old.drop_moved, "new": moved.drop_moved}
        if drops["old"](findings, changes) != drops["new"](findings, changes):
            print("error: the two versions keep different findings", file=sys.stderr)
            return 1
        alone: dict[str, list[float]] = {"old": [], "new": []}
        whole: dict[str, list[float]] = {"old": [], "new": []}
        kept: dict[str, list[tuple[object, ...]]] = {}
        for i in range(args.pairs):
            for name in ("old", "new") if i % 2 == 0 else ("new", "old"):
                started = time.perf_counter()
                drops[name](findings, changes)
                alone[name].append(time.perf_counter() - started)
                seconds, kept[name] = review(repo, drops[name])
                whole[name].append(seconds)
        runner.drop_moved = moved.drop_moved
        if kept["old"] != kept["new"]:
            print("error: the reviews differ between the two versions", file=sys.stderr)
            return 1
    for label, times in (("drop_moved alone", alone), ("whole review", whole)):
        o, n = statistics.median(times["old"]), statistics.median(times["new"])
        print(f"{label:18} median {args.old} {o:.3f} s, this checkout {n:.3f} s, ratio {o / n:.3f}")
    print(f"{args.pairs} alternating pairs; {len(kept['new'])} findings, identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
