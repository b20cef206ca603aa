"""A mutant the suite stops on is detected by the suite: one that raises SystemExit while a
test module imports it (a `__main__` guard negated runs `sys.exit(main())` at import), or
that makes a test raise KeyboardInterrupt, aborts the pytest session — judged killed, as
`aborted`, on the fast and the slow path alike. The unmutated code aborting in the harness
is still the harness's failure: an error, never a kill."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from test_mutation_tool import BENCH, make_project, run_tool

sys.path.insert(0, str(BENCH))

ABORTING = '''\
"""A module with a script entry point and a function that can stop the session."""

import sys


def main():
    return 0


def stop(flag):
    if flag:
        raise KeyboardInterrupt
    return "go"


if __name__ == "__main__":
    sys.exit(main())
'''

ABORTING_TESTS = """\
from tiny.calc import main, stop


def test_main():
    assert main() == 0


def test_stop():
    assert stop(False) == "go"
"""


def _statuses(root: Path) -> dict[str, dict[str, str]]:
    results = json.loads((root / "out" / "results.json").read_text())
    return {m["key"].split("::", 1)[1]: m for m in results["mutants"]}


@pytest.mark.parametrize("mode", ["fast", "slow"])
def test_a_mutant_that_aborts_the_session_is_killed(tmp_path: Path, mode: str) -> None:
    root = make_project(tmp_path / mode, equivalents="")
    (root / "src" / "tiny" / "calc.py").write_text(ABORTING)
    (root / "tests" / "test_calc.py").write_text(ABORTING_TESTS)
    done = run_tool(root, *(["--slow-only"] if mode == "slow" else []))
    assert done.returncode == 0, done.stdout + done.stderr
    status = _statuses(root)
    # `sys.exit(main())` at import: SystemExit(0) while pytest imports the test module.
    at_import = status["<module>::compare::__name__ == '__main__' => __name__ != '__main__'"]
    assert at_import["status"] == "aborted", at_import
    assert at_import["killer"] == "collecting tests/test_calc.py"
    negated = status["<module>::negate::__name__ == '__main__' => not (__name__ == '__main__')"]
    assert negated["status"] == "aborted", negated
    # KeyboardInterrupt inside a test: pytest stops the session (fast path by default).
    in_test = status["stop::negate::flag => not (flag)"]
    assert in_test["status"] == "aborted", in_test
    assert in_test["killer"] == "tests/test_calc.py::test_stop"
    assert in_test["path"] == mode
    results = json.loads((root / "out" / "results.json").read_text())
    assert results["files"]["src/tiny/calc.py"].get("error", 0) == 0
    assert "killed (session aborted)" in done.stdout, done.stdout


COLLECTS_ONCE = """\
import os
import sys
from pathlib import Path

from tiny.calc import clamp, is_adult

# In the harness (a child's argv is ["pytest"]) this module imports once — the smoke run —
# and then stops the session every time: the unmutated code aborts there too.
if sys.argv == ["pytest"]:
    _marker = Path(os.environ["HOME"]) / "harness-imports"
    _seen = int(_marker.read_text()) if _marker.exists() else 0
    _marker.write_text(str(_seen + 1))
    if _seen:
        raise SystemExit(0)


def test_clamp():
    assert clamp(-5, 0, 10) == 0
    assert clamp(5, 0, 10) == 5


def test_is_adult():
    assert is_adult(30)
    assert not is_adult(3)
"""

STOPS_AFTER_SMOKE = """\
from tiny.calc import clamp, is_adult


def test_stops_after_the_smoke_run(tmp_path):
    assert clamp(-5, 0, 10) == 0
    assert clamp(5, 0, 10) == 5
    assert is_adult(30)
    assert not is_adult(3)
    harness = "contend-mutation-" in str(tmp_path)
    if harness and "/run1/" not in str(tmp_path):
        raise KeyboardInterrupt
"""


@pytest.mark.parametrize(("mode", "tests"), [("slow", COLLECTS_ONCE), ("fast", STOPS_AFTER_SMOKE)])
def test_the_unmutated_code_aborting_in_the_harness_is_an_error_not_a_kill(
    tmp_path: Path, mode: str, tests: str
) -> None:
    root = make_project(tmp_path / mode, equivalents="")
    (root / "tests" / "test_calc.py").write_text(tests)
    done = run_tool(root, "-j", "1", *(["--slow-only"] if mode == "slow" else []))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "fails unmutated too" in done.stdout, done.stdout
    results = json.loads((root / "out" / "results.json").read_text())
    statuses = {m["status"] for m in results["mutants"]}
    assert statuses == {"error"}, statuses
    assert results["files"]["src/tiny/calc.py"]["killed"] == 0
