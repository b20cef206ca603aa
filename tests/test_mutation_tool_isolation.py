"""A mutant's writes stay in the worker's copy: a mutated generator once wrote over a source
file of the checkout under test. Here a function appends its result to a project file, at a
path computed from its module's `__file__`; no mutant's value may reach the real file, only
the unmutated runs' "6" — on the slow path (the mutant imported from the worker's copy) and
on the fast path (the function imported from the checkout: each child sees the copy over the
checkout in its own mount namespace). Without that isolation (`--no-isolation`, or where
namespaces cannot be made) the write is reported and the run fails."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

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


def test_a_fast_path_mutant_writes_into_the_copy_not_the_checkout(tmp_path: Path) -> None:
    root = recorder_project(tmp_path / "proj")
    done = run_tool(root)
    if "children not isolated (" in done.stdout:
        reason = done.stdout.split("children not isolated (", 1)[1].split(")", 1)[0]
        pytest.skip(f"no mount namespace for the children here: {reason}")
    line = next(x for x in done.stdout.splitlines() if x.startswith("each child sees"))
    over = line.split("over the checkout's ", 1)[1].split(" (its own", 1)[0].split(", ")
    assert {"src", "data"} <= set(over), line
    assert "killed" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the checkout changed" not in done.stdout
    results = json.loads((root / "out" / "results.json").read_text())
    paths = {m["path"] for m in results["mutants"] if m["status"] != "equivalent"}
    assert "fast" in paths, paths  # double() itself: imported from the checkout
    written = (root / "data" / "out.txt").read_text().split()
    assert written, "the unmutated line-map run records its result here"
    assert set(written) == {"6"}, written


def test_a_fast_path_mutant_that_writes_into_the_checkout_is_reported(tmp_path: Path) -> None:
    # Without a mount namespace the fast path runs mutants in functions the host imported
    # from the checkout itself, so such a write is not prevented; it must not go unnoticed.
    root = recorder_project(tmp_path / "proj")
    done = run_tool(root, "--no-isolation")
    assert "children not isolated (--no-isolation)" in done.stdout
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the checkout changed while mutants ran (1 file(s))" in done.stdout
    assert "\n  data/out.txt" in done.stdout


WHERE = '''\
"""A module that finds the project from its own file, as contend.schemafiles does."""

from pathlib import Path

HOME = Path(__file__).resolve().parents[2]
'''

WHERE_TEST = """\
from pathlib import Path

from tiny import where


def test_the_project_is_found_from_the_module():
    assert where.HOME == Path(__file__).resolve().parents[1]
"""


def test_a_slow_path_child_imports_the_mutant_from_the_checkouts_own_path(
    tmp_path: Path,
) -> None:
    """A module that computes the project's place from its `__file__` (the published
    schemas' directory) is right in a slow-path child: the child sees its copy over the
    checkout and imports from the checkout's path, so a test of that place judges the
    mutant (`parents[2]` → `parents[3]`) instead of failing on the unmutated code."""
    root = tmp_path / "proj"
    (root / "src" / "tiny").mkdir(parents=True)
    (root / "src" / "tiny" / "__init__.py").write_text("")
    (root / "src" / "tiny" / "where.py").write_text(WHERE)
    (root / "tests").mkdir()
    (root / "tests" / "test_where.py").write_text(WHERE_TEST)
    (root / "equivalent.toml").write_text("")
    done = run_tool(root, target="src/tiny/where.py")
    if "children not isolated (" in done.stdout:
        reason = done.stdout.split("children not isolated (", 1)[1].split(")", 1)[0]
        pytest.skip(f"no mount namespace for the children here: {reason}")
    assert "fail on the unmutated code in the harness" not in done.stdout, done.stdout
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((root / "out" / "results.json").read_text())
    judged = {m["key"]: m["status"] for m in results["mutants"]}
    assert judged["src/tiny/where.py::<module>::constant::2 => 3"] == "killed", judged
