"""The order and grouping of a mutant's tests (staging.Learner), and the line map measured
by two coverage sessions at once (linemap): neither changes what is judged — the same
tests run, the same lines are credited to the same tests — only what it costs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "mutation"))

import execute  # noqa: E402
import linemap  # noqa: E402
import run  # noqa: E402

from test_mutation_tool import make_project  # noqa: E402


def _job(key: str, tests: list[str], durations: dict[str, float]) -> execute.Job:
    return execute.Job(key, Path("src/m.py"), "", tests, durations)


def test_slow_path_stages_double_so_a_kill_in_an_early_file_collects_few_files() -> None:
    files = [f"tests/test_{c}.py" for c in "abcdefghij"]
    durations = {f"{f}::t": 0.1 * (i + 1) for i, f in enumerate(files)}
    learner = run.Learner(durations)
    stages = learner.stages(_job("k", sorted(durations), durations))
    # Cheapest file first (nothing killed yet, nothing near), then 2, 4, and the rest.
    assert [len(s) for s in stages] == [1, 2, 4, 3]
    assert stages[0] == ["tests/test_a.py::t"]
    assert [t for s in stages for t in s] == [f"{f}::t" for f in files]  # every test, once
    assert learner.one_stage(_job("k", sorted(durations), durations)) == [
        [t for s in stages for t in s]
    ]


def test_files_near_the_mutant_come_before_cheaper_far_ones_and_credited_before_near() -> None:
    durations = {
        "tests/test_far.py::t": 0.01,
        "tests/test_near.py::t": 0.5,
        "tests/test_script.py::t": 2.0,
    }
    learner = run.Learner(
        durations,
        near={"src/m.py": frozenset({"tests/test_near.py", "tests/test_script.py"})},
        credited={"k": frozenset({"tests/test_script.py"})},
    )
    order = [t for s in learner.stages(_job("k", sorted(durations), durations)) for t in s]
    assert order == ["tests/test_script.py::t", "tests/test_near.py::t", "tests/test_far.py::t"]
    # Another mutant of the file, credited with nothing: the near file leads.
    other = [t for s in learner.stages(_job("j", sorted(durations), durations)) for t in s]
    assert other == ["tests/test_near.py::t", "tests/test_script.py::t", "tests/test_far.py::t"]
    # A file that killed a mutant of the same file leads whatever its nearness.
    learner.killed("src/m.py", "tests/test_far.py::t", "x")
    again = [t for s in learner.stages(_job("k", sorted(durations), durations)) for t in s]
    assert again[0] == "tests/test_far.py::t"


def test_within_a_file_a_cheap_test_runs_before_a_slow_one_that_killed_little() -> None:
    durations = {
        "tests/test_a.py::slow_killer": 2.0,
        "tests/test_a.py::quick": 0.01,
        "tests/test_a.py::fast_killer": 0.2,
    }
    learner = run.Learner(durations)
    learner.scopes = {"k1": "f", "k2": "f", "new": "f"}
    learner.killed("src/m.py", "tests/test_a.py::slow_killer", "k1")
    learner.killed("src/m.py", "tests/test_a.py::slow_killer", "k2")
    learner.killed("src/m.py", "tests/test_a.py::fast_killer", "k1")
    # Expected seconds to a failure: quick 0.012/1, fast_killer 0.202/6, slow 2.002/11.
    order = learner.stages(_job("new", sorted(durations), durations))
    assert order == [
        ["tests/test_a.py::quick", "tests/test_a.py::fast_killer", "tests/test_a.py::slow_killer"]
    ]
    # Many kills in the scope outweigh a small difference in seconds.
    for _ in range(10):
        learner.killed("src/m.py", "tests/test_a.py::fast_killer", "k2")
    order = learner.stages(_job("new", sorted(durations), durations))
    assert order[0][0] == "tests/test_a.py::fast_killer"


def test_groups_balance_by_last_seconds_else_by_size(tmp_path: Path) -> None:
    for name, size in {"a": 900, "b": 500, "c": 400, "d": 100}.items():
        (tmp_path / f"test_{name}.py").write_text("#" * size)
    files = [f"test_{n}.py" for n in "abcd"]
    # Longest first, each to the lighter share: a+d (1,000 bytes), b+c (900).
    assert linemap._groups(tmp_path, files, 2, {}) == [
        ["test_a.py", "test_d.py"],
        ["test_b.py", "test_c.py"],
    ]
    # The last map's seconds, when it has every file: b+a (6 s), c+d (6 s).
    seconds = {"test_a.py": 1.0, "test_b.py": 5.0, "test_c.py": 4.0, "test_d.py": 2.0}
    assert linemap._groups(tmp_path, files, 2, seconds) == [
        ["test_a.py", "test_b.py"],
        ["test_c.py", "test_d.py"],
    ]
    # A file the last map lacks: sizes for all, the seconds are not comparable to bytes.
    del seconds["test_d.py"]
    assert linemap._groups(tmp_path, files, 2, seconds) == [
        ["test_a.py", "test_d.py"],
        ["test_b.py", "test_c.py"],
    ]
    # One shard, one file, or a directory: one session.
    assert linemap._groups(tmp_path, files, 1, {}) == [files]
    assert linemap._groups(tmp_path, ["."], 2, {}) == [["."]]


def test_a_map_measured_by_two_sessions_is_the_map_of_one(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj", equivalents="")
    other = root / "src" / "tiny" / "other.py"
    other.write_text("def double(x):\n    return 2 * x\n\n\nSEEN = 1\n")
    (root / "tests" / "test_other.py").write_text(
        "import subprocess, sys\nfrom tiny.other import double\n\n\n"
        "def test_double():\n    assert double(2) == 4\n\n\n"
        "def test_in_a_subprocess():\n"
        "    code = 'from tiny.other import double; assert double(3) == 6'\n"
        "    subprocess.run([sys.executable, '-c', code], check=True)\n"
    )
    # Three files, two sessions at a time: the third group waits for a free session.
    (root / "tests" / "test_third.py").write_text(
        "from tiny.other import SEEN\n\n\ndef test_seen():\n    assert SEEN == 1\n"
    )
    maps = {}
    for shards in (1, 2):
        cache = root / f"out{shards}" / "covmap.json"
        maps[shards] = linemap.load(root, root / "src", root / "tests", cache, True, shards=shards)
    one, two = maps[1], maps[2]
    assert two["files"] == one["files"]
    assert two["import_lines"] == one["import_lines"]
    assert set(two["durations"]) == set(one["durations"])
    assert sorted(two["project_modules"]) == sorted(one["project_modules"])
    # Both files' tests are in it, the subprocess's lines credited to the test that ran it.
    assert one["files"]["src/tiny/other.py"]["2"] == [
        "tests/test_other.py::test_double",
        "tests/test_other.py::test_in_a_subprocess",
    ]
    assert any(t.startswith("tests/test_calc.py::") for t in two["durations"])
    assert "tests/test_third.py::test_seen" in two["durations"]


def test_near_files_are_those_that_ran_a_line_of_the_file_or_import_its_module(
    tmp_path: Path,
) -> None:
    root = make_project(tmp_path / "proj", equivalents="")
    (root / "src" / "tiny" / "other.py").write_text("LIMIT = 3\n")
    (root / "tests" / "test_other.py").write_text(
        "from tiny.other import LIMIT\n\n\ndef test_limit():\n    assert LIMIT == 3\n"
    )
    (root / "tests" / "test_unrelated.py").write_text("def test_nothing():\n    assert 1\n")
    sources = {Path("src/tiny/calc.py"): "", Path("src/tiny/other.py"): ""}
    covmap = {"files": {"src/tiny/calc.py": {"3": ["tests/test_calc.py::test_clamp"]}}}
    durations = {
        "tests/test_calc.py::test_clamp": 0.1,
        "tests/test_other.py::test_limit": 0.1,
        "tests/test_unrelated.py::test_nothing": 0.1,
    }
    near = run._near_test_files(root, root / "src", sources, covmap, durations)
    assert near["src/tiny/calc.py"] == {"tests/test_calc.py"}  # ran a line of it
    assert near["src/tiny/other.py"] == {"tests/test_other.py"}  # imports it, ran no line


def test_a_stopped_map_leaves_no_coverage_session_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path / "proj", equivalents="")
    (root / "tests" / "test_other.py").write_text("def test_x():\n    assert 1\n")
    started: list[subprocess.Popen[bytes]] = []
    real_popen = subprocess.Popen

    def popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        proc = real_popen(*args, **kwargs)
        started.append(proc)
        return proc

    def interrupt(seconds: float) -> None:
        raise KeyboardInterrupt  # SIGTERM reaches run.py as this, while sessions run

    monkeypatch.setattr(linemap.subprocess, "Popen", popen)
    monkeypatch.setattr(linemap.time, "sleep", interrupt)
    tests = ["tests/test_calc.py", "tests/test_other.py"]
    with pytest.raises(KeyboardInterrupt):
        linemap._run_covmap(root, root / "src", tests, tmp_path / "map.json", shards=2)
    assert len(started) == 2
    assert all(proc.returncode is not None for proc in started)  # killed and reaped
