"""Which tests judge an import-time mutant when a test re-imported its module in a
subprocess (bench/mutation/linemap.select), and a mutant that renames a parametrized case
(bench/mutation/execute.py): end to end on a tiny project, each outcome seen wrong before
the fix (the mutant survived, judged by tests that could not see it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_mutation_tool import run_tool

LIMITS = """\
class Limits:
    top = 3


def over(x):
    return x > Limits.top
"""
KINDS = 'KINDS = ("attack", "silent")\n'
TABLE = """\
def _build(top, width=6):
    return {n: n > top for n in range(width)}


OVER = _build(3)


def over(x):
    return OVER[x]
"""

TESTS = {
    # Imports the module afresh in a subprocess: the line map credits it with every
    # import-time line of the module — and it checks nothing about them.
    "test_cli.py": "import subprocess\nimport sys\n\n\ndef test_imports_in_a_subprocess():\n"
    "    code = 'import tiny.limits, tiny.kinds, tiny.table'\n"
    "    subprocess.run([sys.executable, '-c', code], check=True)\n",
    # Reads the class-level value in the suite's own process, which imported the module at
    # collection, outside any test: the map credits it with none of those lines.
    "test_over.py": "from tiny.limits import over\n\n\ndef test_over():\n"
    "    assert over(4)\n    assert not over(3)\n",
    # Reads a table a function built at import: the function's lines ran then, outside
    # any test, and are credited to the subprocess test alone.
    "test_table.py": "from tiny.table import over\n\n\ndef test_table():\n"
    "    assert over(4) and over(5)\n    assert not over(3)\n",
    # Parametrized by the value: a mutant of it renames the cases.
    "test_kinds.py": "import pytest\n\nfrom tiny.kinds import KINDS\n\n\n"
    "@pytest.mark.parametrize('kind', KINDS)\ndef test_kind(kind):\n"
    "    assert kind in {'attack', 'silent'}\n",
}


def _run(root: Path, target: str) -> dict[str, dict[str, object]]:
    (root / "src" / "tiny").mkdir(parents=True)
    (root / "src" / "tiny" / "__init__.py").write_text("")
    (root / "src" / "tiny" / "limits.py").write_text(LIMITS)
    (root / "src" / "tiny" / "kinds.py").write_text(KINDS)
    (root / "src" / "tiny" / "table.py").write_text(TABLE)
    (root / "tests").mkdir()
    for name, text in TESTS.items():
        (root / "tests" / name).write_text(text)
    (root / "equivalent.toml").write_text("")
    done = run_tool(root, "--slow-only", target=target)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((root / "out" / "results.json").read_text())
    return {m["key"]: m for m in results["mutants"]}


@pytest.mark.slow
def test_an_import_time_value_credited_to_a_subprocess_is_judged_in_process_too(
    tmp_path: Path,
) -> None:
    mutants = _run(tmp_path, "src/tiny/limits.py::Limits")
    top = [m for k, m in mutants.items() if "3 =>" in k]
    assert len(top) == 2  # 3 → 4 and 3 → 2
    for m in top:
        assert m["status"] == "killed", m
        assert m["killer"] == "tests/test_over.py::test_over"


@pytest.mark.slow
def test_a_mutant_that_renames_parametrized_cases_runs_them(tmp_path: Path) -> None:
    mutants = _run(tmp_path, "src/tiny/kinds.py")
    renamed = mutants["src/tiny/kinds.py::<module>::constant::'silent' => 'XXsilentXX'"]
    assert renamed["status"] == "killed", renamed
    assert renamed["killer"] == "tests/test_kinds.py::test_kind[XXsilentXX]"


@pytest.mark.slow
def test_a_function_that_ran_at_import_is_judged_by_the_readers_of_its_result(
    tmp_path: Path,
) -> None:
    mutants = _run(tmp_path, "src/tiny/table.py::_build")
    # A default of a function that ran at import, as much as its body, is seen by the
    # readers of what it built. width 6 → 7 only adds a key no test looks up: a survivor.
    wider = "src/tiny/table.py::_build::default::6 => 7"
    assert mutants.pop(wider)["status"] == "survived"
    assert len(mutants) == 3  # return None, width 6 → 5, > → >=
    for key, m in mutants.items():
        assert m["status"] == "killed", (key, m)
        assert m["killer"] == "tests/test_table.py::test_table"
