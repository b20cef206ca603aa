"""What makes the mutation run fit its budget does not change what it judges: mutants that
compile to the same bytecode are judged once (or not at all, when they are the unmutated
program), tests are ordered by what killed mutants of the same function, a slow-path
child imports again only what can reach the mutant, and `--plan` says where the time
would go. Also: the default targets hold every planner."""

from __future__ import annotations

import json
import sys
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "mutation"))

import bytecode  # noqa: E402
import choose  # noqa: E402
import execute  # noqa: E402
import linemap  # noqa: E402
import preload  # noqa: E402
import run  # noqa: E402
from mutate import mutants_of  # noqa: E402
from scores import Row  # noqa: E402

from test_mutation_tool import make_project, run_tool  # noqa: E402

SAME_PROGRAMS = '''\
"""Mutants the compiler cannot tell apart."""


def kept(xs, skip):
    out = []
    for x in xs:
        if x in skip:
            continue
        else:
            out.append(x)
    return out


def describe(x):
    if x is None:
        return "none"
    return "some"
'''

SAME_PROGRAMS_TESTS = """\
from tiny.calc import describe, kept


def test_kept():
    assert kept([1, 2], [2]) == [1]


def test_describe():
    assert describe(None) == "none"
    assert describe(1) == "some"
"""


def _keys(path: str, source: str) -> dict[str, str]:
    """scope::operator::edit → full key."""
    return {m.key.split("::", 1)[1]: m.key for m in mutants_of(path, source)}


def test_bytecode_sets_apart_the_unmutated_program_and_groups_the_same_ones() -> None:
    path = "src/tiny/calc.py"
    mutants = mutants_of(path, SAME_PROGRAMS)
    keys = _keys(path, SAME_PROGRAMS)
    classes = bytecode.classify({path: SAME_PROGRAMS}, mutants, None)
    # A `continue` that ends the loop body anyway (the `else` is the rest): removing it,
    # or the `if` body it is, leaves the bytecode as it was.
    assert classes.identical == {
        keys["kept::statement::continue => pass"],
        keys["kept::branch::if x in skip => pass"],
    }
    # `not (x is None)` compiles as `x is not None`: one program, judged once.
    negated = keys["describe::negate::x is None => not (x is None)"]
    swapped = keys["describe::compare::x is None => x is not None"]
    assert classes.same_as[swapped] == negated
    assert negated not in classes.same_as
    # Different programs are never grouped.
    flipped = keys["describe::constant::'none' => 'XXnoneXX'"]
    assert flipped not in classes.same_as and flipped not in classes.identical
    assert set(classes.same_as.values()).isdisjoint(classes.same_as)


def test_bytecode_cache_is_reused_and_refreshed_when_the_file_changes(tmp_path: Path) -> None:
    path = "src/tiny/calc.py"
    cache = tmp_path / "bytecode.json"
    first = bytecode.classify({path: SAME_PROGRAMS}, mutants_of(path, SAME_PROGRAMS), cache)
    stored = json.loads(cache.read_text())
    assert len(stored["files"][path]["of"]) == len(mutants_of(path, SAME_PROGRAMS))
    again = bytecode.classify({path: SAME_PROGRAMS}, mutants_of(path, SAME_PROGRAMS), cache)
    assert (again.identical, again.same_as) == (first.identical, first.same_as)
    # The loop body gains a statement after the `if`: removing `continue` now runs it.
    changed = SAME_PROGRAMS.replace(
        "            out.append(x)\n", "            out.append(x)\n        out.append(0)\n"
    )
    third = bytecode.classify({path: changed}, mutants_of(path, changed), cache)
    assert _keys(path, changed)["kept::statement::continue => pass"] not in third.identical


def test_a_listed_equivalent_stands_for_every_mutant_of_its_program() -> None:
    path = "src/tiny/calc.py"
    mutants = mutants_of(path, SAME_PROGRAMS)
    keys = _keys(path, SAME_PROGRAMS)
    classes = bytecode.classify({path: SAME_PROGRAMS}, mutants, None)
    negated = keys["describe::negate::x is None => not (x is None)"]
    swapped = keys["describe::compare::x is None => x is not None"]
    rows = [
        Row(m, [f"tests/test_{i}.py::t"], "listed: a reason" if m.key == swapped else None)
        for i, m in enumerate(mutants)
    ]
    choose.same_programs(rows, classes, {})
    by_key = {r.mutant.key: r for r in rows}
    assert by_key[negated].equivalent is not None
    assert swapped in (by_key[negated].equivalent or "")
    # One selection for one program: the union of both.
    assert set(by_key[negated].tests) == set(by_key[swapped].tests)
    assert len(by_key[negated].tests) == 2
    identical = keys["kept::statement::continue => pass"]
    assert by_key[identical].equivalent == bytecode.SAME_AS_ORIGINAL


def test_a_run_judges_one_program_once_and_counts_every_mutant(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj", equivalents="")
    (root / "src" / "tiny" / "calc.py").write_text(SAME_PROGRAMS)
    (root / "tests" / "test_calc.py").write_text(SAME_PROGRAMS_TESTS)
    done = run_tool(root)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((root / "out" / "results.json").read_text())
    by = {m["key"].split("::", 1)[1]: m for m in results["mutants"]}
    identical = by["kept::statement::continue => pass"]
    assert identical["status"] == "equivalent"
    assert identical["equivalent"] == bytecode.SAME_AS_ORIGINAL
    negated = by["describe::negate::x is None => not (x is None)"]
    swapped = by["describe::compare::x is None => x is not None"]
    assert negated["status"] == swapped["status"] == "killed"
    assert negated["killer"] == swapped["killer"] == "tests/test_calc.py::test_describe"
    assert swapped["same_as"] == negated["key"]
    assert swapped["seconds"] == 0 and negated["seconds"] > 0  # never run itself
    shared = sum(m["same_as"] is not None for m in results["mutants"])
    judged = sum(m["seconds"] > 0 for m in results["mutants"])
    assert shared >= 1
    # Every mutant is counted: judged, shared, equivalent or not covered.
    counts = results["files"]["src/tiny/calc.py"]
    assert counts["mutants"] == len(results["mutants"])
    assert counts["equivalent"] == 2
    assert f"as another mutant of their file: {shared}" in done.stdout
    assert f"judged in this run: {judged} mutants" in done.stdout
    assert "fast path: " in done.stdout and "a minute" in done.stdout


def test_tests_that_killed_mutants_of_the_same_function_run_first() -> None:
    durations = {"tests/test_a.py::t2": 0.1, "tests/test_b.py::t3": 0.1}
    learner = run.Learner(durations)
    learner.scopes = {"k1": "alpha", "k2": "alpha", "k3": "beta", "new": "beta"}
    # t2 killed two mutants of alpha, t3 one of beta: by file alone t2 leads.
    learner.killed("src/m.py", "tests/test_a.py::t2", "k1")
    learner.killed("src/m.py", "tests/test_a.py::t2", "k2")
    learner.killed("src/m.py", "tests/test_b.py::t3", "k3")
    job = execute.Job("new", Path("src/m.py"), "", sorted(durations), durations)
    assert learner.stages(job) == [["tests/test_b.py::t3"], ["tests/test_a.py::t2"]]
    other = execute.Job("k1", Path("src/m.py"), "", sorted(durations), durations)
    assert learner.stages(other) == [["tests/test_a.py::t2"], ["tests/test_b.py::t3"]]


def test_a_computed_import_that_never_ran_at_import_makes_no_module_a_dependent(
    tmp_path: Path,
) -> None:
    src = tmp_path / "src"
    pkg = src / "pkg"
    pkg.mkdir(parents=True)
    files = {
        "__init__.py": "from pkg import plugins\n",
        "base.py": "VALUE = 1\n",
        "paths.py": "HERE = __file__\n",
        "plugins.py": "import importlib\n\n\ndef load(n):\n    return importlib.import_module(n)\n",
        "eager.py": "import importlib\n\nTABLE = importlib.import_module('pkg.base')\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text)
    ran = {pkg / "plugins.py": {1, 4}, pkg / "eager.py": {1, 3}}
    graph = preload.ImportGraph(src, lambda p: ran.get(p))
    # plugins' import_module (line 5) runs only when called: it is not a dependent of
    # everything, and neither (through the package importing it) is every module.
    assert "pkg.plugins" not in graph.dynamic
    assert "pkg.eager" in graph.dynamic  # ran at import: it may hold the old module
    assert "pkg.paths" not in graph.dependents("pkg.base")
    # A file with no import record counts as dynamic (nothing known of it).
    unknown = preload.ImportGraph(src, lambda p: None)
    assert "pkg.plugins" in unknown.dynamic
    assert "pkg.paths" in unknown.dependents("pkg.base")


def test_a_slow_path_child_keeps_paths_computed_by_modules_the_mutant_cannot_reach(
    tmp_path: Path,
) -> None:
    """report/schema.py's case: its default path is built from a directory another module
    computes from its own `__file__`. Re-imported from the worker's copy, that module
    pointed elsewhere and the path test failed on the unmutated code — every import-time
    mutant of the file went unjudged. Now the test judges the mutant."""
    root = make_project(tmp_path / "proj", equivalents="")
    pkg = root / "src" / "tiny"
    (pkg / "__init__.py").write_text("from tiny import api\n")
    (pkg / "api.py").write_text(
        "import importlib\n\n\ndef load(name):\n    return importlib.import_module(name)\n"
    )
    (pkg / "paths.py").write_text(
        "from pathlib import Path\n\nPUBLISHED = Path(__file__).resolve().parents[2] / 'pub'\n"
    )
    (pkg / "calc.py").write_text(
        "from tiny.paths import PUBLISHED\n\nNAME = 'out.json'\n\n\n"
        "def default_path():\n    return PUBLISHED / NAME\n"
    )
    (root / "tests" / "test_calc.py").write_text(
        "from pathlib import Path\n\nfrom tiny.calc import default_path\n\n\n"
        "def test_default_path():\n"
        "    assert default_path() == Path(__file__).resolve().parents[1] / 'pub' / 'out.json'\n"
    )
    done = run_tool(root)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((root / "out" / "results.json").read_text())
    by = {m["key"].split("::", 1)[1]: m for m in results["mutants"]}
    name = by["<module>::constant::'out.json' => 'XXout.jsonXX'"]
    assert name["status"] == "killed", name
    assert name["path"] == "slow"
    assert name["killer"] == "tests/test_calc.py::test_default_path"


def test_plan_says_where_the_time_would_go_and_runs_nothing(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj", equivalents="")
    (root / "src" / "tiny" / "calc.py").write_text(SAME_PROGRAMS)
    (root / "tests" / "test_calc.py").write_text(SAME_PROGRAMS_TESTS)
    done = run_tool(root, "--plan")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "fast path: " in done.stdout and "selected tests per mutant" in done.stdout
    assert "same program" in done.stdout
    assert not (root / "out" / "results.json").exists()


def test_the_default_targets_hold_every_planner() -> None:
    files = {t.path.as_posix() for t in run.parse_targets(ROOT, run.DEFAULT_TARGETS)}
    for planner in (
        "src/contend/protocol/plan.py",
        "src/contend/protocol/turns.py",
        "src/contend/claims/rounds.py",
        "src/contend/claims/fold.py",
        "src/contend/harness/core.py",
        "src/contend/harness/plan.py",
        "src/contend/report/schema.py",
    ):
        assert planner in files, planner


def test_a_change_inside_function_bodies_re_runs_only_the_tests_that_ran_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path / "proj", equivalents="")
    (root / "tests" / "test_calc.py").write_text(
        "from tiny.calc import clamp\n\n\ndef test_clamp():\n    assert clamp(-5, 0, 10) == 0\n"
    )
    other = root / "src" / "tiny" / "other.py"
    other.write_text("def double(x):\n    return 2 * x\n\n\nSEEN = 1\n")
    (root / "tests" / "test_other.py").write_text(
        "from tiny.other import double\n\n\ndef test_double():\n    assert double(2) == 4\n"
    )
    cache = root / "out" / "covmap.json"

    def load() -> tuple[dict[str, Any], str]:
        data = linemap.load(root, root / "src", root / "tests", cache, False)
        return data, capsys.readouterr().out

    _, out = load()
    assert "whole suite" in out
    # A function body changed (its lines moved): only test_other.py ran it.
    other.write_text("def double(x):\n    y = 2 * x\n    return y\n\n\nSEEN = 1\n")
    data, out = load()
    assert "function bodies changed in src/tiny/other.py" in out
    assert "re-running the 1 test file(s)" in out
    assert "whole suite" not in out
    assert data["files"]["src/tiny/other.py"]["3"] == ["tests/test_other.py::test_double"]
    assert 6 in data["import_lines"]["src/tiny/other.py"]  # SEEN moved to line 6
    assert "tests/test_calc.py::test_clamp" in data["durations"]
    # Nothing changed since: cached.
    _, out = load()
    assert "cached" in out
    # What runs at import changed: the whole map again.
    other.write_text("def double(x):\n    y = 2 * x\n    return y\n\n\nSEEN = 2\n")
    _, out = load()
    assert "whole suite" in out
    # A function that runs at import may leave its result anywhere: the whole map too.
    other.write_text("def double(x):\n    return 2 * x\n\n\nSEEN = double(1)\n")
    load()
    other.write_text("def double(x):\n    y = 2 * x\n    return y\n\n\nSEEN = double(1)\n")
    _, out = load()
    assert "whole suite" in out


def test_a_sample_judges_every_kth_mutant_and_counts_the_rest_as_not_judged(
    tmp_path: Path,
) -> None:
    root = make_project(tmp_path / "proj", equivalents="")
    (root / "src" / "tiny" / "calc.py").write_text(SAME_PROGRAMS)
    (root / "tests" / "test_calc.py").write_text(SAME_PROGRAMS_TESTS)
    done = run_tool(root, "--sample", "2")
    assert done.returncode == 1, done.stdout + done.stderr  # a partial run
    results = json.loads((root / "out" / "results.json").read_text())
    judged = [m for m in results["mutants"] if m["seconds"] > 0]
    not_run = [m for m in results["mutants"] if m["status"] == "not_run"]
    assert judged and not_run
    line = next(x for x in done.stdout.splitlines() if x.startswith("--sample 2: judging"))
    words = line.split()
    fast, of_fast, slow, of_slow = int(words[3]), int(words[6]), int(words[9]), int(words[12])
    assert (fast, slow) == ((of_fast + 1) // 2, (of_slow + 1) // 2), line
    assert len(judged) == fast + slow
    # The ones not judged are in no figure, and said so.
    counts = results["files"]["src/tiny/calc.py"]
    assert counts["mutants"] == len(results["mutants"]) - len(not_run)
    assert f"not judged (--sample 2): {len(not_run)} mutants" in done.stdout
    assert "projection of the mutant phase, not a measured run" in done.stdout


TWO_FUNCTIONS_TESTS = """\
from tiny.calc import clamp, is_adult


def test_clamp():
    assert clamp(-5, 0, 10) == 0
    assert clamp(5, 0, 10) == 5


def test_is_adult():
    assert is_adult(30)
    assert not is_adult(3)
"""


def test_incremental_judges_again_only_survivors_a_changed_test_file_can_reach(
    tmp_path: Path,
) -> None:
    root = make_project(tmp_path / "proj", equivalents="")
    (root / "tests" / "test_calc.py").write_text(TWO_FUNCTIONS_TESTS)
    assert run_tool(root).returncode == 0
    first = tmp_path / "first.json"
    first.write_text((root / "out" / "results.json").read_text())
    before = {
        m["key"].split("::", 1)[1]: m["status"] for m in json.loads(first.read_text())["mutants"]
    }
    in_clamp = "clamp::compare::value < low => value <= low"
    in_adult = "is_adult::compare::age >= 18 => age > 18"
    assert before[in_clamp] == before[in_adult] == "survived"
    survivors = [k for k, v in before.items() if v == "survived"]
    adult_survivors = [k for k in survivors if k.startswith("is_adult::")]

    # A new test file that runs is_adult only: clamp's survivor still stands.
    (root / "tests" / "test_more.py").write_text(
        "from tiny.calc import is_adult\n\n\ndef test_eighteen():\n    assert is_adult(18)\n"
    )
    done = run_tool(root, "--incremental", str(first))
    assert done.returncode == 0, done.stdout + done.stderr
    carried = len(survivors) - len(adult_survivors)
    assert f"--incremental: {carried} of {len(survivors)} survivors carried" in done.stdout
    assert f"judged in this run: {len(adult_survivors)} mutants" in done.stdout
    after = json.loads((root / "out" / "results.json").read_text())
    status = {m["key"].split("::", 1)[1]: m for m in after["mutants"]}
    assert status[in_adult]["status"] == "killed"
    assert status[in_clamp]["status"] == "survived" and status[in_clamp]["carried"]

    # A changed support file may change any test: every survivor is judged again.
    second = tmp_path / "second.json"
    second.write_text((root / "out" / "results.json").read_text())
    still = [k for k, m in status.items() if m["status"] == "survived"]
    (root / "tests" / "conftest.py").write_text("# a fixture could live here\n")
    again = run_tool(root, "--incremental", str(second))
    assert again.returncode == 0, again.stdout + again.stderr
    assert "survivors carried" not in again.stdout
    assert f"judged in this run: {len(still)} mutants" in again.stdout


def test_a_test_that_fails_in_the_harness_from_the_start_judges_nothing(tmp_path: Path) -> None:
    """A sampled test that fails on the unmutated code in the harness (it depends on where
    the harness puts its temporary files; the source, since the children import it from
    the checkout's own path, is where it was) while the others pass does not stop the
    run: it judges no mutant, is listed, and the other tests judge them."""
    root = make_project(tmp_path / "proj", equivalents="")
    (root / "tests" / "test_calc.py").write_text(
        "import tiny.calc\n\n\n"
        "def test_where_the_source_lives(tmp_path):\n"
        "    assert tiny.calc.is_adult(40)\n"
        "    assert 'contend-mutation-' not in str(tmp_path)\n"
    )
    (root / "tests" / "test_later.py").write_text(
        "from tiny.calc import clamp, is_adult\n\n\n"
        "def test_is_adult():\n"
        "    assert is_adult(30)\n"
        "    assert not is_adult(3)\n"
        "    assert clamp(-5, 0, 10) == 0 and clamp(5, 0, 10) == 5\n"
    )
    done = run_tool(root, "--slow-only")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "fail on the unmutated code in the harness, so they judge no mutant: "
        "tests/test_calc.py::test_where_the_source_lives"
    ) in done.stdout
    results = json.loads((root / "out" / "results.json").read_text())
    killers = {m["killer"] for m in results["mutants"] if m["status"] == "killed"}
    assert killers == {"tests/test_later.py::test_is_adult"}


def test_the_fast_path_judges_a_survivor_in_one_child_and_the_same_as_the_slow_path(
    tmp_path: Path,
) -> None:
    """A stage saves collecting test files on the slow path; on the fast path (collected
    once, in the host) a second child would only repeat the fork and the session's fixtures.
    The same tests run, in the same order, stopping at the first failure: the outcomes are
    the slow path's."""
    outcomes, children = {}, {}
    for mode in ("fast", "slow"):
        root = make_project(tmp_path / mode, equivalents="")
        (root / "tests" / "test_more.py").write_text(
            "from tiny.calc import clamp, is_adult\n\n\n"
            "def test_more():\n    assert is_adult(40)\n    assert clamp(50, 0, 10) == 50\n"
        )
        done = run_tool(root, *(["--slow-only"] if mode == "slow" else []))
        assert done.returncode == 0, done.stdout + done.stderr
        results = json.loads((root / "out" / "results.json").read_text())
        # Which test kills first depends on which mutants finished first (two workers):
        # the statuses, not the killers, are what must agree.
        outcomes[mode] = {m["key"]: m["status"] for m in results["mutants"]}
        children[mode] = {m["key"]: m["children"] for m in results["mutants"]}
    assert outcomes["fast"] == outcomes["slow"]
    survivor = "src/tiny/calc.py::is_adult::compare::age >= 18 => age > 18"
    assert outcomes["fast"][survivor] == "survived"
    # Two test files select it: two stages, two children on the slow path; one on the fast.
    assert children["slow"][survivor] == 2
    assert children["fast"][survivor] == 1
    judged = [k for k, status in outcomes["fast"].items() if status != "equivalent"]
    assert all(children["fast"][k] == 1 for k in judged)


def test_one_stage_runs_the_stages_tests_in_their_order() -> None:
    durations = {"tests/test_a.py::t1": 0.1, "tests/test_a.py::t2": 0.2, "tests/test_b.py::t": 0.3}
    learner = run.Learner(durations)
    job = execute.Job("k", Path("src/x.py"), "", list(durations), durations)
    learner.killed("src/x.py", "tests/test_b.py::t", "k")
    staged = learner.stages(job)
    assert staged == [["tests/test_b.py::t"], ["tests/test_a.py::t1", "tests/test_a.py::t2"]]
    assert learner.one_stage(job) == [[t for stage in staged for t in stage]]


def test_the_default_test_files_each_name_a_test_file_and_hold_every_mutation_test() -> None:
    tests = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").glob("test_*.py"))
    for glob in run.DEFAULT_TEST_FILES:
        assert any(fnmatch(t, glob) for t in tests), f"{glob} names no test file"
    chosen = {t for t in tests if any(fnmatch(t, g) for g in run.DEFAULT_TEST_FILES)}
    # The tests written to kill mutants of the default set are in its line map.
    for name in ("test_report_mutation.py", "test_ledger_mutation.py", "test_protocol_topics.py"):
        assert f"tests/{name}" in chosen, name


def test_whole_suite_and_test_files_together_are_refused(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj", equivalents="")
    done = run_tool(root, "--whole-suite", "--test-files", "tests/test_calc.py")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--whole-suite and --test-files" in done.stderr + done.stdout
