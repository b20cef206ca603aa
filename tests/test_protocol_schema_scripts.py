"""`python -m` of the schema generators in protocol/ as a user runs them: run as a script
each writes its published schema to OUT and prints where; imported, it writes nothing. The
mutation run (issue 18) found both `__main__` guards untested: only a script run sees them.

Each module runs in a subprocess of this interpreter: the mutation harness puts its mutated
copy of the source first on the PYTHONPATH the subprocess inherits. (report/schema.py's
own script tests are in tests/test_report_schema_mutation.py.)"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"
GENERATORS = [
    ("contend.protocol.schema", "event.v1.schema.json"),
    ("contend.protocol.reply_schema_file", "reply.v1.schema.json"),
]


def _python(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize(("module", "published"), GENERATORS)
def test_run_as_a_script_it_writes_the_published_schema_to_out(
    tmp_path: Path, module: str, published: str
) -> None:
    out = tmp_path / published
    done = _python(tmp_path, "-m", module, str(out))
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{out}\n", "")
    assert out.read_text(encoding="utf-8") == (SCHEMAS / published).read_text(encoding="utf-8")


@pytest.mark.parametrize(("module", "published"), GENERATORS)
def test_importing_the_module_writes_nothing(tmp_path: Path, module: str, published: str) -> None:
    out = tmp_path / published
    code = f"import sys; sys.argv = ['python', {str(out)!r}]; import {module}; print('imported')"
    done = _python(tmp_path, "-c", code)
    assert (done.returncode, done.stdout) == (0, "imported\n")
    assert not out.exists()


@pytest.mark.parametrize(("module", "published"), GENERATORS)
def test_more_than_one_out_is_refused_with_the_usage_naming_the_module(
    tmp_path: Path, module: str, published: str, capsys: pytest.CaptureFixture[str]
) -> None:
    main = importlib.import_module(module).main
    assert main([str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 2
    assert capsys.readouterr().err == f"usage: python -m {module} [OUT]\n"
    assert not list(tmp_path.iterdir())  # nothing written
