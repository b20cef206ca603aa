"""`python -m contend.report.schema [OUT]` as a user runs it (report/schema.py), where the
mutation run (bench/mutation/) found it unguarded (issue 18): run as a script it writes
the published schema to OUT and prints where; given too many arguments it names itself in
its usage line and writes nothing; imported, it writes nothing at all.

The module is run in a subprocess of this interpreter: the mutation harness puts its
mutated copy of the source first on PYTHONPATH, which the subprocess inherits. Nothing
here imports contend.report.schema at collection time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PUBLISHED = Path(__file__).resolve().parents[1] / "schemas" / "report.v1.schema.json"
USAGE = "usage: python -m contend.report.schema [OUT]\n"


def _python(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def test_run_as_a_script_it_writes_the_published_schema_to_out(tmp_path: Path) -> None:
    out = tmp_path / "nested" / "report.schema.json"
    done = _python(tmp_path, "-m", "contend.report.schema", str(out))
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{out}\n", "")
    assert out.read_text(encoding="utf-8") == PUBLISHED.read_text(encoding="utf-8")


def test_run_with_two_arguments_it_prints_its_usage_and_writes_nothing(tmp_path: Path) -> None:
    done = _python(tmp_path, "-m", "contend.report.schema", "a.json", "b.json")
    assert (done.returncode, done.stdout, done.stderr) == (2, "", USAGE)
    assert list(tmp_path.iterdir()) == []


def test_main_names_the_module_in_its_usage_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same usage line from `main` called in this process."""
    from contend.report.schema import main

    assert main([str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 2
    assert capsys.readouterr() == ("", USAGE)
    assert list(tmp_path.iterdir()) == []


def test_importing_the_module_writes_nothing(tmp_path: Path) -> None:
    """Only `python -m` runs `main`: an import, even with an OUT on the command line,
    neither writes nor prints nor exits."""
    out = tmp_path / "report.schema.json"
    code = (
        f"import sys; sys.argv = ['python', {str(out)!r}]; "
        "import contend.report.schema; print('imported')"
    )
    done = _python(tmp_path, "-c", code)
    assert (done.returncode, done.stdout, done.stderr) == (0, "imported\n", "")
    assert not out.exists()


def test_without_out_it_writes_report_v1_schema_json_in_the_schemas_directory(
    tmp_path: Path,
) -> None:
    """With no OUT the schema goes to `schemas/report.v1.schema.json` of the checkout: the
    file name is checked with the directory pointed at tmp_path, so the published file is
    never written by a test. In a subprocess, so the module's import-time lines are run
    (and, for the mutation run's line map, credited) here."""
    schemas = tmp_path / "schemas"
    code = (
        "import sys; from pathlib import Path; import contend.report.schema as s; "
        f"s.SCHEMAS_DIR = Path({str(schemas)!r}); sys.exit(s.main([]))"
    )
    done = _python(tmp_path, "-c", code)
    out = schemas / "report.v1.schema.json"
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{out}\n", "")
    assert [p.name for p in schemas.iterdir()] == ["report.v1.schema.json"]
    assert out.read_text(encoding="utf-8") == PUBLISHED.read_text(encoding="utf-8")
