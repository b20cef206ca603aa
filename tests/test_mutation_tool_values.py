"""A mutant of a module-level value takes the fast path when every reader of its name is
known (bench/mutation/patch.py GlobalPatch): the value is computed again from the mutated
expression and rebound wherever it is bound — and it keeps the slow path (a re-import)
wherever rebinding would not give what an import gives: a value computed from it at
import, a test reading it at collection, a name bound twice."""

from __future__ import annotations

import ast
import json
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench" / "mutation"
sys.path.insert(0, str(BENCH))

import patch  # noqa: E402
import reads  # noqa: E402

from test_mutation_tool import run_tool  # noqa: E402

CONSTS = '''\
"""Module-level values and their readers."""

import re

LIMIT = 18
TIMEOUT = 30
NAMES = frozenset({"a", "b"})
CASES = (1, 2, 3)
BASE = 10
DERIVED = BASE * 2
PATTERN = re.compile(r"^a+$")
TWICE = 1
TWICE = 2


def is_adult(age):
    return age >= LIMIT


def known(name):
    return name in NAMES


def derived():
    return DERIVED


def matches(text):
    return bool(PATTERN.match(text))


def twice():
    return TWICE
'''

TESTS = """\
import pytest

from tiny.consts import CASES, TIMEOUT as WAIT, derived, is_adult, known, matches, twice


def test_timeout():
    # TIMEOUT is read here only, through the name this file bound at import
    assert WAIT == 30


def test_is_adult():
    assert is_adult(18)
    assert not is_adult(17)


def test_known():
    assert known("a") and known("b")
    assert not known("c")


@pytest.mark.parametrize("n", CASES)
def test_cases(n):
    assert n in (1, 2, 3)


def test_derived():
    assert derived() == 20


def test_matches():
    assert matches("aa")
    assert not matches("b")


def test_twice():
    assert twice() == 2
"""


def _project(root: Path) -> Path:
    (root / "src" / "tiny").mkdir(parents=True)
    (root / "src" / "tiny" / "__init__.py").write_text("")
    (root / "src" / "tiny" / "consts.py").write_text(CONSTS)
    (root / "tests").mkdir()
    (root / "tests" / "test_consts.py").write_text(TESTS)
    (root / "equivalent.toml").write_text("")
    return root


def _readers(root: Path, name: str) -> reads.Readers:
    index = reads.Index(root, root / "src", root / "tests", {})
    return index.readers("tiny.consts", [name])


def test_readers_say_where_the_value_is_bound_and_what_rebinding_would_miss(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    timeout = _readers(root, "TIMEOUT")
    assert timeout.bound == {("src/tiny/consts.py", "TIMEOUT"), ("tests/test_consts.py", "WAIT")}
    assert not timeout.computed and not timeout.test_import_time
    # BASE is computed into DERIVED at import: DERIVED keeps the original's result.
    assert _readers(root, "BASE").computed
    # parametrize reads CASES at collection: the collected ids keep the original.
    assert _readers(root, "CASES").test_import_time
    assert not _readers(root, "LIMIT").test_import_time


def test_a_test_file_mentioning_the_name_only_in_test_bodies_reads_it_when_tests_run(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    (root / "tests" / "test_patched.py").write_text(
        "import tiny.consts\n\n\ndef test_patched(monkeypatch):\n"
        '    monkeypatch.setattr(tiny.consts, "LIMIT", 3)\n'
        "    assert tiny.consts.is_adult(4)\n"
    )
    assert not _readers(root, "LIMIT").test_import_time
    (root / "tests" / "test_patched.py").write_text(
        'import tiny.consts\n\nKNOWN = getattr(tiny.consts, "LIMIT")\n'
    )
    assert _readers(root, "LIMIT").test_import_time


def test_a_name_bound_twice_or_declared_global_is_not_rebound() -> None:
    tree = ast.parse(CONSTS)
    assert patch.bound_once(tree, ["LIMIT", "re"]) is None
    assert patch.bound_once(tree, ["TWICE"]) == "TWICE is bound more than once at module level"
    declared = ast.parse("X = 1\n\n\ndef bump():\n    global X\n    X += 1\n")
    assert patch.bound_once(declared, ["X"]) == "X is declared global in a function"
    deleted = ast.parse("X = 1\ndel X\n")
    assert patch.bound_once(deleted, ["X"]) == "X is deleted"


def test_the_value_of_a_module_level_binding_is_compiled_alone() -> None:
    """What the planner evaluates for a value mutant: the mutated expression of the
    assignment that holds the line (plain, annotated, inside a module-level `if`), alone."""
    source = 'import os\nNAMES = frozenset({"a", "z"})\nif True:\n    LIMIT: int = 3 + 1\n'
    names = patch.value_code(source, "consts.py", 2)
    assert names is not None and eval(names, {}) == frozenset({"a", "z"})
    limit = patch.value_code(source, "consts.py", 4)
    assert limit is not None and eval(limit, {}) == 4
    assert patch.value_code(source, "consts.py", 1) is None  # an import holds no value


def test_rebinding_changes_exactly_the_bindings_that_hold_the_original(tmp_path: Path) -> None:
    original = frozenset({"a"})
    owner = types.ModuleType("pkg.consts")
    owner.__file__ = str(tmp_path / "src/pkg/consts.py")
    owner.NAMES = original
    user = types.ModuleType("tests.test_x")
    user.__file__ = str(tmp_path / "tests/test_x.py")
    user.ALIAS = original
    other = types.ModuleType("pkg.other")
    other.__file__ = str(tmp_path / "src/pkg/other.py")
    other.NAMES = frozenset({"a"})  # equal, but another object: another binding
    found = patch.GlobalPatch(
        "pkg.consts",
        ("NAMES",),
        frozenset({"a", "z"}),  # the mutated value, as the planner computes it
        frozenset(
            {
                ("src/pkg/consts.py", "NAMES"),
                ("tests/test_x.py", "ALIAS"),
                ("src/pkg/other.py", "NAMES"),
            }
        ),
    )
    assert patch.apply_global(found, [owner, user, other]) == 2
    assert owner.NAMES == user.ALIAS == frozenset({"a", "z"})
    assert owner.NAMES is user.ALIAS
    assert "z" not in other.NAMES
    # the module not loaded: nothing is rebound, and the caller reports it
    assert patch.apply_global(found, [user, other]) == 0


def _run(root: Path, *extra: str) -> tuple[dict[str, str], str]:
    # The results go outside the project: the tool reads the project's data files for
    # names looked up by string, and its own results name every mutated expression.
    out = root.parent / f"{root.name}-out"
    done = run_tool(
        root,
        "--test-files",
        "tests/test_*.py",
        *extra,
        target="src/tiny/consts.py",
        out=out,
        timeout=300,
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr
    results = json.loads((out / "results.json").read_text())
    paths = next(line for line in done.stdout.splitlines() if "on the fast path" in line)
    return {f"{m['line']}:{m['key']}": m["status"] for m in results["mutants"]}, paths


@pytest.mark.slow
def test_values_rebound_on_the_fast_path_are_judged_as_a_re_import_judges_them(
    tmp_path: Path,
) -> None:
    """Every mutant of consts.py judged on the fast path (values rebound) and with
    --slow-only (the module imported again per mutant): the same outcome, mutant by
    mutant. TIMEOUT's mutants are killed only if the test file's own binding (`WAIT`) is
    rebound; CASES (read at collection), BASE (computed into DERIVED at import) and TWICE
    (bound twice) keep the slow path."""
    fast, fast_paths = _run(_project(tmp_path / "fast"))
    slow, slow_paths = _run(_project(tmp_path / "slow"), "--slow-only")
    assert slow_paths.startswith("0 mutants on the fast path"), slow_paths
    assert "module-level value(s) rebound" in fast_paths, fast_paths
    assert "a module-level value a test file reads at import or collection" in fast_paths
    assert "a module-level value another one is computed from at import" in fast_paths
    assert "TWICE is bound more than once at module level" in fast_paths
    assert fast == slow
    line = {n: i for i, text in enumerate(CONSTS.splitlines(), 1) for n in [text]}
    status = {
        (int(k.split(":", 1)[0]), k.split("::", 1)[1].split(" #")[0]): v for k, v in fast.items()
    }
    assert status[(line["TIMEOUT = 30"], "<module>::constant::30 => 31")] == "killed"  # WAIT
    assert status[(line["LIMIT = 18"], "<module>::constant::18 => 19")] == "killed"
    pattern = (line['PATTERN = re.compile(r"^a+$")'], "<module>::constant::'^a+$' => 'XX^a+$XX'")
    assert status[pattern] == "killed"
    # TWICE's first value is overwritten at import: rebinding it would kill a mutant
    # a re-import shows to be harmless
    assert status[(line["TWICE = 1"], "<module>::constant::1 => 2")] == "survived"
