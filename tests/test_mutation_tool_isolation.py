"""A mutant's writes stay in the worker's copy: a mutated generator once wrote over a source
file of the checkout under test. Here a function appends its result to a project file; on the
slow path (the mutant imported from the worker's copy) no mutant's value may reach the real
file, only the unmutated runs' "6"."""

from __future__ import annotations

import sys
from pathlib import Path

from test_mutation_tool import BENCH, run_tool

sys.path.insert(0, str(BENCH))

RECORDER = '''\
"""A module that records its result in a project file, as a generator would."""

from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "data" / "out.txt"


def double(x):
    with OUT.open("a") as out:
        out.write(str(x * 2) + "\\n")
    return x * 2
'''

TEST = """\
from tiny.calc import double


def test_double():
    assert double(3) == 6
"""


def recorder_project(root: Path) -> Path:
    (root / "src" / "tiny").mkdir(parents=True)
    (root / "src" / "tiny" / "__init__.py").write_text("")
    (root / "src" / "tiny" / "calc.py").write_text(RECORDER)
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(TEST)
    (root / "data").mkdir()
    (root / "data" / "out.txt").write_text("")
    (root / "equivalent.toml").write_text("")
    return root


def test_a_slow_path_mutant_writes_into_the_copy_not_the_checkout(tmp_path: Path) -> None:
    root = recorder_project(tmp_path / "proj")
    done = run_tool(root, "--slow-only")
    assert "killed" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    written = (root / "data" / "out.txt").read_text().split()
    assert written, "the unmutated line-map run records its result here"
    assert set(written) == {"6"}, written


def test_a_fast_path_mutant_that_writes_into_the_checkout_is_reported(tmp_path: Path) -> None:
    # The fast path runs mutants in functions the host imported from the checkout itself, so
    # such a write is not prevented; it must not go unnoticed either.
    root = recorder_project(tmp_path / "proj")
    done = run_tool(root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the checkout changed while mutants ran (1 file(s))" in done.stdout
    assert "\n  data/out.txt" in done.stdout
