"""The run's CPU time, per phase, is accounted (bench/mutation/cputime.py): what the same run
would cost on dedicated cores whatever the load — this process and every child it waited for,
the mutants' children included, and per mutant the CPU of the children that judged it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from test_mutation_tool import BENCH, make_project, run_tool

sys.path.insert(0, str(BENCH))

import cputime

# The child reports its own CPU seconds (user+system) on stdout.
BUSY = (
    "import os, time\n"
    "end = time.process_time() + 0.3\n"
    "while time.process_time() < end:\n"
    "    pass\n"
    "t = os.times()\n"
    "print(t.user + t.system)\n"
)


def test_a_phase_counts_its_waited_children_and_adds_up_when_entered_again() -> None:
    meter = cputime.Meter()
    reported = 0.0
    for _ in range(2):
        with meter.phase("children"):
            done = subprocess.run(
                [sys.executable, "-c", BUSY], capture_output=True, text=True, check=True
            )
        reported += float(done.stdout)
    # Everything the children measured of themselves is in the phase (and the interpreter
    # start, which they did not see): the parent's view is never less than theirs.
    assert meter.get("children") >= reported
    assert meter.get("never entered") == 0.0


def _figure(pattern: str, text: str) -> float:
    match = re.search(pattern, text)
    assert match, (pattern, text)
    return float(match.group(1))


def test_the_report_gives_cpu_per_phase_and_per_mutant(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj", equivalents="")
    done = run_tool(root)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "CPU time (user+system of this process and every child it waited for" in out
    line_map = _figure(r"\n  line map: (\d+) s", out)
    whole = _figure(r"\n  whole run: (\d+) s", out)
    assert abs(_figure(r"at least (\d+) s of wall time", out) - whole / 2) <= 1  # 2 workers
    assert line_map <= whole
    results = json.loads((root / "out" / "results.json").read_text())
    judged = [m for m in results["mutants"] if m["seconds"] > 0]
    assert judged
    # Each judged mutant's children spent CPU; together no more than the whole run.
    assert all(m["cpu"] > 0 for m in judged), judged
    assert sum(m["cpu"] for m in judged) <= whole + 1  # the report rounds to whole seconds
    assert "fast path:" in out and "s a mutant" in out
    assert "in the tests themselves" in out
    assert "tests/test_calc.py:" in out  # the test file's CPU in killed / surviving mutants


def test_a_sample_projects_the_whole_runs_cpu(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj", equivalents="")
    done = run_tool(root, "--sample", "2")
    assert done.returncode == 1, done.stdout + done.stderr  # a partial run
    out = done.stdout
    assert "projection: " in out
    projected = _figure(r"projected CPU of the whole run \(not measured\): (\d+) s", out)
    assert projected >= _figure(r"\n  line map: (\d+) s", out)
