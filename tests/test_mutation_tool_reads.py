"""The readers of a module-level name (bench/mutation/reads.py): a mutant of the value bound
to it is judged by the tests that ran a line loading it and the test files naming it —
and by the broad fallback whenever a use cannot be followed (each rule below)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "mutation"))

import reads  # noqa: E402

from test_mutation_tool import run_tool  # noqa: E402

CONSTS = '''\
"""Module-level values."""

LIMIT = 3
NAMES = frozenset({"a"})
DERIVED = NAMES | {"b"}
UNREAD = "nobody"
LOGGED = print("impure")
IN_CLASS = 5
IN_DEFAULT = 6
IN_ANNOTATION = 7
AT_IMPORT = 8
AS_STRING = 9
STARRED = 10


def table():
    return AT_IMPORT
'''

USE = """\
import tiny.consts as c
from tiny.consts import IN_ANNOTATION, LIMIT, table
from tiny import consts

CACHED = table()


def check(x):
    return x < LIMIT


def names():
    return c.DERIVED


class Box:
    size = consts.IN_CLASS


def grow(x=consts.IN_DEFAULT):
    return x


def typed(x: IN_ANNOTATION):
    return x


def lookup():
    return "AS_STRING"
"""


def _project(root: Path) -> Path:
    (root / "src" / "tiny").mkdir(parents=True)
    (root / "src" / "tiny" / "__init__.py").write_text("")
    (root / "src" / "tiny" / "consts.py").write_text(CONSTS)
    (root / "src" / "tiny" / "use.py").write_text(USE)
    (root / "tests").mkdir()
    (root / "tests" / "test_use.py").write_text(
        "from tiny.use import check\n\n\ndef test_check():\n    assert check(1)\n"
    )
    (root / "tests" / "test_names.py").write_text(
        "from tiny.consts import NAMES\n\n\ndef test_names():\n    assert 'a' in NAMES\n"
    )
    return root


def _index(root: Path, import_lines: dict[str, list[int]] | None = None) -> reads.Index:
    # table() ran at import (use.py's CACHED = table()): its line is in the import record.
    ran = _line(CONSTS, "return AT_IMPORT")
    lines = import_lines if import_lines is not None else {"src/tiny/consts.py": [ran]}
    return reads.Index(root, root / "src", root / "tests", lines)


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_name_is_read_where_a_function_body_loads_it(tmp_path: Path) -> None:
    root = _project(tmp_path)
    found = _index(root).readers("tiny.consts", ["LIMIT"])
    at = _line(USE, "return x < LIMIT")
    assert found.lines == {"src/tiny/use.py": [(at, at)]}
    assert found.test_files == frozenset()


def test_a_derived_value_and_a_test_file_that_imports_the_name(tmp_path: Path) -> None:
    root = _project(tmp_path)
    found = _index(root).readers("tiny.consts", ["NAMES"])
    # DERIVED = NAMES | {"b"} is pure: whoever reads DERIVED (c.DERIVED) reads NAMES too.
    at = _line(USE, "return c.DERIVED")
    assert found.lines == {"src/tiny/use.py": [(at, at)]}
    assert found.test_files == frozenset({"tests/test_names.py"})


def test_a_name_nobody_reads_has_no_reader(tmp_path: Path) -> None:
    found = _index(_project(tmp_path)).readers("tiny.consts", ["UNREAD"])
    assert found.lines == {} and found.test_files == frozenset()


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("IN_CLASS", "read in a class body"),
        ("IN_DEFAULT", "read where grow is defined"),
        ("IN_ANNOTATION", "read in an annotation"),
        ("AT_IMPORT", "read by code that ran at import"),
        ("AS_STRING", "the string 'AS_STRING'"),
    ],
)
def test_a_use_that_cannot_be_followed_keeps_the_broad_selection(
    tmp_path: Path, name: str, why: str
) -> None:
    with pytest.raises(reads.Unfollowable, match=why):
        _index(_project(tmp_path)).readers("tiny.consts", [name])


@pytest.mark.parametrize(
    ("code", "why"),
    [
        ("from tiny.consts import *\n", "import \\*"),
        ("import tiny.consts\n\nNS = vars(tiny.consts)\n", "used as an object"),
        ("from tiny import consts\n\n\ndef f(n):\n    return getattr(consts, n)\n", "object"),
        (
            "import importlib\n\n\ndef f(m):\n    return vars(importlib.import_module(m))\n",
            "computed",
        ),
    ],
)
def test_a_module_accessed_dynamically_keeps_the_broad_selection(
    tmp_path: Path, code: str, why: str
) -> None:
    root = _project(tmp_path)
    (root / "src" / "tiny" / "dyn.py").write_text(code)
    with pytest.raises(reads.Unfollowable, match=why):
        _index(root).readers("tiny.consts", ["LIMIT"])


def test_a_module_reading_its_own_namespace_keeps_the_broad_selection(tmp_path: Path) -> None:
    root = _project(tmp_path)
    path = root / "src" / "tiny" / "consts.py"
    path.write_text(CONSTS + "\n\ndef every():\n    return globals()\n")
    with pytest.raises(reads.Unfollowable, match="its own namespace"):
        _index(root).readers("tiny.consts", ["LIMIT"])


def test_a_name_in_a_data_file_keeps_the_broad_selection(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "registry.toml").write_text('limit = "tiny.consts:LIMIT"\n')
    with pytest.raises(reads.Unfollowable, match="data file"):
        _index(root).readers("tiny.consts", ["LIMIT"])


def test_a_test_file_that_looks_a_name_up_is_selected_whole(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "tests" / "test_patch.py").write_text(
        "import tiny.use\n\n\ndef test_patched(monkeypatch):\n"
        "    monkeypatch.setattr('tiny.consts.LIMIT', 0)\n"
    )
    found = _index(root).readers("tiny.consts", ["LIMIT"])
    assert found.test_files == frozenset({"tests/test_patch.py"})


def test_a_re_export_is_followed(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "src" / "tiny" / "__init__.py").write_text("from .consts import LIMIT as CAP\n")
    (root / "src" / "tiny" / "far.py").write_text(
        "import tiny\n\n\ndef capped(x):\n    return min(x, tiny.CAP)\n"
    )
    found = _index(root).readers("tiny.consts", ["LIMIT"])
    assert found.lines["src/tiny/far.py"] == [(5, 5)]


def test_only_a_pure_simple_binding_is_narrowed() -> None:
    import ast

    tree = ast.parse(CONSTS)
    assert reads.binding_of(tree, _line(CONSTS, "DERIVED =")) == ("DERIVED",)
    assert reads.binding_of(tree, _line(CONSTS, "LOGGED =")) is None  # a call: an effect
    assert reads.binding_of(tree, _line(CONSTS, "return AT_IMPORT")) is None


TINY_CONSTS = "LIMIT = 3\nOTHER = 4\n"
TINY_USE = "from tiny.consts import LIMIT, OTHER\n\n\ndef below(x):\n    return x < LIMIT\n"
TINY_TESTS = {
    "test_below.py": "from tiny.use import below\n\n\ndef test_below():\n"
    "    assert below(2)\n    assert not below(3)\n",
    "test_other.py": "import tiny.use\n\n\ndef test_imports():\n    assert tiny.use.below\n",
    "test_consts.py": "import tiny.consts\n\n\ndef test_module():\n"
    "    assert tiny.consts.__name__\n",
}


@pytest.mark.slow
def test_the_tool_judges_a_constant_by_its_readers_with_the_same_outcome(tmp_path: Path) -> None:
    """End to end: the mutants of LIMIT run only test_below (its reader) and are killed, as
    with the broad selection (--broad-import-time: every test of the named files), which
    also runs test_imports and test_module. OTHER, which no test reads, survives either way:
    judged by one test of a file that imports its module at the top (there a value that
    failed to compute would fail the import)."""
    outcomes = {}
    for flag in ("", "--broad-import-time"):
        root = tmp_path / (flag or "narrow")
        (root / "src" / "tiny").mkdir(parents=True)
        (root / "src" / "tiny" / "__init__.py").write_text("")
        (root / "src" / "tiny" / "consts.py").write_text(TINY_CONSTS)
        (root / "src" / "tiny" / "use.py").write_text(TINY_USE)
        (root / "tests").mkdir()
        for name, text in TINY_TESTS.items():
            (root / "tests" / name).write_text(text)
        (root / "equivalent.toml").write_text("")
        done = run_tool(
            root,
            "--test-files",
            "tests/test_*.py",
            *([flag] if flag else []),
            target="src/tiny/consts.py",
        )
        assert done.returncode == 0, done.stdout + done.stderr
        results = json.loads((root / "out" / "results.json").read_text())
        outcomes[flag] = {m["key"]: (m["status"], m["tests"]) for m in results["mutants"]}
    narrow, broad = outcomes[""], outcomes["--broad-import-time"]
    assert narrow.keys() == broad.keys()
    limit = [k for k in narrow if "3 =>" in k]
    assert limit
    for key in limit:
        assert narrow[key][0] == broad[key][0] == "killed"
        assert narrow[key][1] == 1  # test_below only
        assert broad[key][1] == 3
    other = [k for k in narrow if "4 =>" in k]
    assert other
    for key in other:
        assert narrow[key] == ("survived", 1) and broad[key] == ("survived", 3)


def test_the_modules_name_as_a_string_matters_only_where_names_are_looked_up(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    usage = root / "src" / "tiny" / "usage.py"
    usage.write_text('USAGE = "python -m tiny.consts"\nWHICH = "tiny.consts"\n')
    assert _index(root).readers("tiny.consts", ["LIMIT"]).lines  # no lookup: followed
    usage.write_text(
        "import importlib\n\n\ndef pick(name):\n"
        '    return getattr(importlib.import_module("tiny.consts"), name)\n'
    )
    with pytest.raises(reads.Unfollowable, match="names looked up"):
        _index(root).readers("tiny.consts", ["LIMIT"])


def test_documentation_naming_a_constant_does_not_read_it(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "README.md").write_text("`LIMIT` caps the check.\n")
    assert _index(root).readers("tiny.consts", ["LIMIT"]).lines
