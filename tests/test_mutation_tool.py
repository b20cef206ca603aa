"""The mutation-testing step (bench/mutation/) works: on a tiny project it kills a mutant
its tests catch, reports one they miss as surviving, and keeps a listed equivalent mutant
apart — and mutant keys do not depend on line numbers."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench" / "mutation"
sys.path.insert(0, str(BENCH))

import incremental  # noqa: E402
import preload  # noqa: E402
import run  # noqa: E402
import scores  # noqa: E402
from mutate import OPERATORS, mutants_of  # noqa: E402

CALC = '''\
"""A tiny module under test."""


def clamp(value, low, high):
    if value < low:
        return low
    return value


def is_adult(age):
    return age >= 18
'''

TESTS = """\
import os
from pathlib import Path

from tiny.calc import clamp, is_adult


def test_clamp():
    assert clamp(-5, 0, 10) == 0
    assert clamp(5, 0, 10) == 5


def test_is_adult():
    assert is_adult(30)
    assert not is_adult(3)


def test_flaky_the_first_time():
    marker = Path(os.environ["HOME"]) / "ran-before"
    if not marker.exists():
        marker.write_text("")
        raise AssertionError("fails on its first run only")
    assert clamp(-1, 0, 10) == 0
"""

EQUIVALENT = """\
[[mutant]]
key = "src/tiny/calc.py::clamp::compare::value < low => value <= low"
reason = "at value == low both return the same number (low is value)"
"""


def make_project(root: Path, equivalents: str = EQUIVALENT) -> Path:
    (root / "src" / "tiny").mkdir(parents=True)
    (root / "src" / "tiny" / "__init__.py").write_text("")
    (root / "src" / "tiny" / "calc.py").write_text(CALC)
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(TESTS)
    (root / "equivalent.toml").write_text(equivalents)
    return root


def run_tool(
    root: Path,
    *extra: str,
    target: str = "src/tiny/calc.py",
    out: Path | None = None,
    timeout: float = 240,
) -> subprocess.CompletedProcess[str]:
    """bench/mutation/run.py on the tiny project at `root` (its results in `out`, by
    default `root/out`), with a bare environment: nothing of this session leaks in."""
    return subprocess.run(
        [
            sys.executable,
            str(BENCH / "run.py"),
            "--root",
            str(root),
            "--equivalents",
            str(root / "equivalent.toml"),
            "--out",
            str(out or root / "out"),
            *extra,
            target,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"PATH": "/usr/bin:/bin", "HOME": str(root)},
    )


def test_a_mutant_killed_one_surviving_and_an_equivalent_listed(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    done = run_tool(root)
    assert done.returncode == 0, done.stdout + done.stderr
    # A test that failed once and then passed is flaky: it decides no mutant.
    covmap = json.loads((root / "out" / "covmap.json").read_text())
    flaky = "tests/test_calc.py::test_flaky_the_first_time"
    assert covmap["flaky"] == [flaky]
    assert f"never used to judge a mutant: {flaky}" in done.stdout
    results = json.loads((root / "out" / "results.json").read_text())
    status = {m["key"].split("::", 1)[1]: m["status"] for m in results["mutants"]}
    assert status["clamp::compare::value < low => value <= low"] == "equivalent"
    assert status["clamp::negate::value < low => not (value < low)"] == "killed"
    assert status["is_adult::compare::age >= 18 => age > 18"] == "survived"
    assert status["is_adult::return::return age >= 18 => return None"] == "killed"
    counts = results["files"]["src/tiny/calc.py"]
    survived = {k for k, v in status.items() if v == "survived"}
    assert counts["equivalent"] == 1
    assert counts["survived"] == len(survived)
    assert counts["killed"] == counts["mutants"] - 1 - len(survived)
    # The report names the file's score and every survivor.
    non_eq = counts["mutants"] - 1
    score = f"{100.0 * counts['killed'] / non_eq:.1f}%"
    table_row = next(line for line in done.stdout.splitlines() if line.startswith("src/tiny"))
    assert table_row.split() == [
        "src/tiny/calc.py",
        str(counts["mutants"]),
        str(counts["killed"]),
        str(non_eq),
        "1",
        str(len(survived)),
        "0",  # not covered: every line of calc.py runs in some test
        score,
    ]
    for key in survived:
        assert key in done.stdout


def test_an_equivalent_entry_that_matches_nothing_is_reported(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    path = "src/tiny/calc.py"
    mutants = mutants_of(path, CALC)
    listed = {
        f"{path}::clamp::compare::value < low => value <= low": "still generated",
        f"{path}::clamp::compare::value < low => value == low": "no such mutant",
        "src/tiny/other.py::f::compare::a < b => a <= b": "file not targeted",
    }
    whole = run.parse_targets(root, [path])
    assert run.stale_equivalents(listed, mutants, whole) == [
        f"{path}::clamp::compare::value < low => value == low"
    ]
    # Narrowed to one function, the file was not wholly generated: nothing can be judged.
    narrowed = run.parse_targets(root, [f"{path}::is_adult"])
    assert run.stale_equivalents(listed, mutants, narrowed) == []


def test_an_equivalent_list_without_reasons_is_refused(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj", equivalents='[[mutant]]\nkey = "x"\n')
    done = run_tool(root)
    assert done.returncode == 2
    assert "needs a key and a reason" in done.stderr


def test_mutant_keys_do_not_depend_on_line_numbers() -> None:
    before = mutants_of("m.py", CALC)
    after = mutants_of("m.py", CALC.replace('"""\n', '"""\n\nimport os\n\n', 1))
    assert [m.key for m in before] == [m.key for m in after]
    assert [m.line + 3 for m in before] == [m.line for m in after]


EVERY_OPERATOR = """\
def f(xs, n=2, *, flag=False):
    total = -n
    for x in xs:
        if x in (1, 2) and not flag:
            total += x * 2
        elif x > n or x is None:
            continue
        else:
            xs.append(x)
    while total < 0:
        total = total + 1
    return [y for y in xs if y] if total else None
"""


@pytest.mark.parametrize(
    "path",
    ["<sample>", "machine.py", "verdict.py", "termination.py"],
)
def test_every_mutant_applies_to_valid_python_that_differs(path: str) -> None:
    source = (
        EVERY_OPERATOR if path == "<sample>" else (ROOT / "src/contend/protocol" / path).read_text()
    )
    mutants = mutants_of(path, source)
    if path == "<sample>":
        assert {m.operator for m in mutants} == set(OPERATORS)
    baseline = ast.dump(ast.parse(source))
    for m in mutants:
        assert ast.dump(ast.parse(m.apply(source))) != baseline, m.key
    assert len({m.key for m in mutants}) == len(mutants), "keys are unique"


def test_docstrings_annotations_and_raise_messages_are_not_mutated() -> None:
    source = '''\
"""Doc."""


def f(x: int = 3) -> str:
    """Doc."""
    if x > 1:
        raise ValueError("too big " + str(x))
    return "ok"
'''
    keys = {m.key.split("::", 1)[1] for m in mutants_of("m.py", source)}
    assert keys == {
        "f::default::3 => 4",
        "f::default::3 => 2",
        "f::negate::x > 1 => not (x > 1)",
        "f::compare::x > 1 => x >= 1",
        "f::constant::1 => 2",
        "f::constant::1 => 0",
        "f::branch::if x > 1 => pass",
        "f::statement::raise ValueError('too big ' + str(x)) => pass",
        "f::constant::'ok' => 'XXokXX'",
        "f::return::return 'ok' => return None",
    }


def test_a_child_imports_again_exactly_what_can_reach_the_mutant(tmp_path: Path) -> None:
    src = tmp_path / "src"
    pkg = src / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "base.py": "VALUE = 1\n",
        "mid.py": "from pkg.base import VALUE\n",
        "top.py": "from . import mid\n",
        "alone.py": "import json\n",
        "plugins.py": "import importlib\n\ndef load(n):\n    return importlib.import_module(n)\n",
        "sub/__init__.py": "from ..base import VALUE\n",
        "sub/leaf.py": "X = 2\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text)
    graph = preload.ImportGraph(src)
    assert graph.dynamic == {"pkg.plugins"}
    assert graph.dependents("pkg.base") == {
        "pkg.base",
        "pkg.mid",
        "pkg.top",
        "pkg.sub",
        "pkg.sub.leaf",  # its package imports the mutated module first
        "pkg.plugins",
    }
    assert graph.dependents("pkg.alone") == {"pkg.alone", "pkg.plugins"}
    assert preload.module_name(src, pkg / "sub" / "__init__.py") == "pkg.sub"


def test_a_test_that_fails_only_in_the_harness_kills_nothing(tmp_path: Path) -> None:
    """Every killing test is re-run on the unmutated code in the harness: one that fails
    there for another reason judged nothing. This one passes in the coverage run and in
    the harness's first (smoke) run, and fails in every later one."""
    root = make_project(tmp_path / "proj", equivalents="")
    (root / "tests" / "test_calc.py").write_text(
        "import tiny.calc\n\n\n"
        "def test_fails_after_the_smoke_run(tmp_path):\n"
        "    assert tiny.calc.is_adult(40)\n"
        "    harness = 'contend-mutation-' in str(tmp_path)\n"
        "    assert not harness or '/run1/' in str(tmp_path)\n"
    )
    done = run_tool(root, "-j", "1")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "fails unmutated too" in done.stdout
    results = json.loads((root / "out" / "results.json").read_text())
    statuses = {m["status"] for m in results["mutants"] if m["key"].split("::")[1] == "is_adult"}
    assert statuses == {"error"}
    assert results["files"]["src/tiny/calc.py"]["killed"] == 0


PATCHED = '''\
"""Functions the fast path patches in place, and one it must not."""


def _limit():
    return 18


LIMIT = _limit()  # computed at import: patching _limit afterwards would change nothing


def is_adult(age):
    return age >= LIMIT


def scale(x, factor=2):
    return x * factor
'''

PATCHED_TESTS = """\
from tiny.calc import LIMIT, _limit, is_adult, scale


def test_limit():
    assert _limit() == LIMIT == 18


def test_is_adult():
    assert is_adult(18)
    assert not is_adult(17)


def test_scale():
    assert scale(3) == 6
"""


def test_the_fast_path_judges_every_mutant_as_the_slow_path_does(tmp_path: Path) -> None:
    """The fast path swaps the mutated code (or default value) into the live function; a
    function that ran at import keeps its result in a module constant, so its mutants
    must take the slow path (re-import) — or a killable mutant would survive."""
    outcomes = {}
    for mode in ("fast", "slow"):
        root = make_project(tmp_path / mode, equivalents="")
        (root / "src" / "tiny" / "calc.py").write_text(PATCHED)
        (root / "tests" / "test_calc.py").write_text(PATCHED_TESTS)
        done = run_tool(root, *(["--slow-only"] if mode == "slow" else []))
        assert done.returncode == 0, done.stdout + done.stderr
        results = json.loads((root / "out" / "results.json").read_text())
        outcomes[mode] = {m["key"]: m["status"] for m in results["mutants"]}
        paths = next(line for line in done.stdout.splitlines() if "on the fast path" in line)
        if mode == "fast":
            assert "the function runs at import or collection" in paths, paths
            assert not paths.startswith("0 mutants on the fast path"), paths
        else:
            assert paths.startswith("0 mutants on the fast path"), paths
    assert outcomes["fast"] == outcomes["slow"]
    status = {k.split("::", 1)[1]: v for k, v in outcomes["fast"].items()}
    # _limit ran at import (LIMIT keeps its result), so its mutants take the slow path.
    assert status["_limit::constant::18 => 19"] == "killed"
    assert status["scale::default::2 => 3"] == "killed"  # fast path: __defaults__ patched
    assert status["is_adult::compare::age >= LIMIT => age > LIMIT"] == "killed"


def test_the_score_is_summed_per_package_from_the_files() -> None:
    """The targets are set per package (protocol/ ≥ 95%, report/ ≥ 90%): the package line
    adds up its own files and nothing of another package."""
    per_file = {
        "src/p/a.py": {"mutants": 10, "killed": 8, "equivalent": 1, "survived": 1},
        "src/p/b.py": {"mutants": 5, "killed": 5},
        "src/q/c.py": {"mutants": 4, "killed": 1, "survived": 3},
    }
    packages = scores.by_package(per_file)
    assert {p: dict(c) for p, c in packages.items()} == {
        "src/p": {"mutants": 15, "killed": 13, "equivalent": 1, "survived": 1},
        "src/q": {"mutants": 4, "killed": 1, "survived": 3},
    }
    assert scores.line("src/p/", packages["src/p"]).split()[-1] == "92.9%"  # 13 / 14


def test_a_rerun_judges_only_what_survived_and_keeps_the_earlier_kills(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    assert run_tool(root).returncode == 0
    earlier = tmp_path / "earlier.json"
    earlier.write_text((root / "out" / "results.json").read_text())
    before = {m["key"]: m["status"] for m in json.loads(earlier.read_text())["mutants"]}
    target = "src/tiny/calc.py::is_adult::compare::age >= 18 => age > 18"
    assert before[target] == "survived"
    # A test written against the survivor; the code under test unchanged.
    with (root / "tests" / "test_calc.py").open("a") as fh:
        fh.write("\n\ndef test_eighteen_is_adult():\n    assert is_adult(18)\n")
    done = run_tool(root, "--rerun", str(earlier))
    assert done.returncode == 0, done.stdout + done.stderr
    kept = sum(status == "killed" for status in before.values())
    assert f"--rerun: {kept} mutants killed in {earlier} counted as killed" in done.stdout
    after = {
        m["key"]: m["status"]
        for m in json.loads((root / "out" / "results.json").read_text())["mutants"]
    }
    assert after[target] == "killed"
    assert all(after[k] == "killed" for k, v in before.items() if v == "killed")
    # A kill stands only for the code it was judged on.
    calc = root / "src" / "tiny" / "calc.py"
    calc.write_text(CALC.replace("return value\n", "return value  # changed\n"))
    changed = run_tool(root, "--rerun", str(earlier))
    assert changed.returncode == 2 and "changed since" in changed.stderr


def test_incremental_carries_what_still_stands_and_judges_the_rest(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    assert run_tool(root).returncode == 0
    earlier = tmp_path / "earlier.json"
    earlier.write_text((root / "out" / "results.json").read_text())
    before = {m["key"]: m["status"] for m in json.loads(earlier.read_text())["mutants"]}
    judged = sum(status != "equivalent" for status in before.values())
    survivor = "src/tiny/calc.py::is_adult::compare::age >= 18 => age > 18"
    assert before[survivor] == "survived"

    # Nothing changed: every outcome stands, nothing is judged again.
    same = run_tool(root, "--incremental", str(earlier))
    assert same.returncode == 0, same.stdout + same.stderr
    assert f"--incremental: {judged} of {len(before)} outcomes carried" in same.stdout
    assert "judged in this run: 0 mutants" in same.stdout
    again = json.loads((root / "out" / "results.json").read_text())
    assert {m["key"]: m["status"] for m in again["mutants"]} == before

    # A new test file: the kills stand (their test file is unchanged), every survivor is
    # judged again, and the new test kills it.
    (root / "tests" / "test_more.py").write_text(
        "from tiny.calc import is_adult\n\n\ndef test_eighteen():\n    assert is_adult(18)\n"
    )
    more = run_tool(root, "--incremental", str(earlier))
    assert more.returncode == 0, more.stdout + more.stderr
    survivors = sum(status == "survived" for status in before.values())
    assert f"{judged - survivors} of {len(before)} outcomes carried" in more.stdout
    assert "test files changed: survivors judged again" in more.stdout
    assert f"judged in this run: {survivors} mutants" in more.stdout
    after = json.loads((root / "out" / "results.json").read_text())
    status = {m["key"]: m["status"] for m in after["mutants"]}
    assert status[survivor] == "killed"

    # The module changed: none of its outcomes stands.
    calc = root / "src" / "tiny" / "calc.py"
    calc.write_text(CALC.replace("return value\n", "return value  # changed\n"))
    changed = run_tool(root, "--incremental", str(root / "out" / "results.json"))
    assert changed.returncode == 0, changed.stdout + changed.stderr
    assert "0 of" in changed.stdout
    assert "files changed since: 1 (src/tiny/calc.py)" in changed.stdout
    assert f"judged in this run: {judged} mutants" in changed.stdout


DEFAULTS = '''\
"""A class-body default: the line runs at import, so coverage credits it to no test."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Failed:
    reason: str
    retryable: bool = False


def describe(failed):
    return failed.reason
'''

# Runs a line of the module (describe), but cannot see the default.
DESCRIBE_TEST = """\
from tiny.calc import Failed, describe


def test_describe():
    assert describe(Failed("boom")) == "boom"
"""

# Sees the default, yet runs no line of the module (the dataclass __init__ is generated).
DEFAULT_TEST = """\
from tiny.calc import Failed


def test_not_retryable_by_default():
    assert Failed("boom").retryable is False
"""


@pytest.mark.parametrize("only", [None, "tests/test_*.py"])
def test_an_import_time_mutant_runs_against_tests_that_ran_no_line_of_its_file(
    tmp_path: Path, only: str | None
) -> None:
    """A class-body default runs at import: no test is credited with its line, and the
    test that kills it runs no other line of the file either — it must still be run."""
    root = make_project(tmp_path / "proj", equivalents="")
    (root / "src" / "tiny" / "calc.py").write_text(DEFAULTS)
    (root / "tests" / "test_calc.py").write_text(DESCRIBE_TEST)
    (root / "tests" / "test_defaults.py").write_text(DEFAULT_TEST)
    done = run_tool(root, *(["--test-files", only] if only else []))
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((root / "out" / "results.json").read_text())
    on_default = [m for m in results["mutants"] if m["line"] == 9]
    assert on_default, [m["key"] for m in results["mutants"]]
    for mutant in on_default:
        assert mutant["status"] == "killed", mutant
        assert mutant["killer"] == "tests/test_defaults.py::test_not_retryable_by_default"


def test_a_mutant_stopped_by_a_test_broken_in_the_harness_is_judged_by_the_others(
    tmp_path: Path,
) -> None:
    """A test that fails unmutated in the harness (here after the smoke run; in contend,
    one that checks where the source lives) kills nothing — and the mutants it stopped
    first are judged again by the tests after it, not left as harness errors."""
    root = make_project(tmp_path / "proj", equivalents="")
    (root / "tests" / "test_calc.py").write_text(
        "import tiny.calc\n\n\n"
        "def test_fails_after_the_smoke_run(tmp_path):\n"
        "    assert tiny.calc.is_adult(40)\n"
        "    harness = 'contend-mutation-' in str(tmp_path)\n"
        "    assert not harness or '/run1/' in str(tmp_path)\n"
    )
    # Slower, so the broken test runs first on every mutant.
    (root / "tests" / "test_later.py").write_text(
        "import time\n\nfrom tiny.calc import is_adult\n\n\n"
        "def test_is_adult_slowly():\n"
        "    time.sleep(0.3)\n"
        "    assert is_adult(30)\n"
        "    assert not is_adult(3)\n"
    )
    done = run_tool(root, "-j", "1")
    assert "fails unmutated too" in done.stdout, done.stdout + done.stderr
    assert "re-judging" in done.stdout, done.stdout
    results = json.loads((root / "out" / "results.json").read_text())
    status = {m["key"].split("::", 1)[1]: m for m in results["mutants"]}
    judged = status["is_adult::return::return age >= 18 => return None"]
    assert judged["status"] == "killed", judged
    assert judged["killer"] == "tests/test_later.py::test_is_adult_slowly"


def test_incremental_plans_merge_results_files_run_apart(tmp_path: Path) -> None:
    """The whole set is measured package by package: an outcome stands if any results
    file vouches for it, and a file is changed only if none has it as it is now."""
    tests_now = {"tests/test_a.py": "ta", "tests/test_b.py": "tb"}
    sources = {"src/p/a.py": "A = 1\n", "src/q/b.py": "B = 1\n", "src/r/c.py": "C = 1\n"}

    def results(name: str, path: str, text: str, mutants: list[dict[str, Any]]) -> Path:
        out = tmp_path / name
        out.write_text(
            json.dumps(
                {
                    "sources": {path: incremental.digest(text)},
                    "test_files": tests_now,
                    "mutants": mutants,
                }
            )
        )
        return out

    killed = {"key": "src/p/a.py::f::x", "status": "killed", "killer": "tests/test_a.py::t"}
    survived = {"key": "src/q/b.py::g::y", "status": "survived", "killer": None}
    stale = {"key": "src/r/c.py::h::z", "status": "killed", "killer": "tests/test_b.py::t"}
    plan = incremental.plan_all(
        [
            results("p.json", "src/p/a.py", "A = 1\n", [killed]),
            results("q.json", "src/q/b.py", "B = 1\n", [survived]),
            results("r.json", "src/r/c.py", "C = 0\n", [stale]),  # c.py changed since
        ],
        sources,
        tests_now,
    )
    assert set(plan.carried) == {killed["key"], survived["key"]}
    assert plan.carried[survived["key"]].status == "survived"
    assert plan.changed_files == ["src/r/c.py"]
    assert plan.tests_changed is False
