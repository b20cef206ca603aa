"""`contend review --critic static` over pathological inputs, under a 4 GB address-space limit
(issue 10): deep expressions, minified JavaScript, huge lines, deep nesting and many files end
in skips with reasons and findings — never in a traceback, a kill or a lost ledger."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from review_helpers import make_repo

_FOUR_GB = 4 * 1024**3


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (_FOUR_GB, _FOUR_GB))


def _pathological_tree() -> dict[str, str | None]:
    terms = "+".join(["x"] * 60_000)
    medium = "+".join(["x"] * 1_500)
    files: dict[str, str | None] = {
        # CPython's own compiler cannot build this tree.
        "deep_expr.py": f"def f(x):\n    try:\n        return {terms}\n"
        "    except Exception:\n        return 0\n",
        # Valid, but deep enough to break a recursive walk over the handler.
        "medium_expr.py": f"def g(x):\n    try:\n        return {medium}\n"
        "    except Exception:\n        return 0\n",
        # One line of minified handlers, ~900 KB (under the 1 MB file limit).
        "dist/app.min.js": "".join(
            f"function f{i}(a){{try{{return g(a)}}catch(e){{return 0}}}};" for i in range(18_000)
        )
        + "\n",
        # A huge line in Python and in TypeScript.
        "huge_line.py": 'BLOB = "' + "a" * 900_000 + '"\n',
        "huge_line.ts": "export const blob: string = '" + "b" * 900_000 + "';\n",
        # Deep nesting in JavaScript: recursive helpers over values must not crash.
        "nested.js": "export const v = " + "[" * 3_000 + "]" * 3_000 + ";\n"
        "export function h() {\n  try {\n    return 1;\n  } catch {\n"
        "    return " + "[" * 3_000 + "]" * 3_000 + ";\n  }\n}\n",
    }
    for i in range(400):
        files[f"many/mod_{i}.py"] = (
            f"def load_{i}(path):\n    try:\n        return open(path).read()\n"
            "    except Exception:\n        return None\n"
        )
        files[f"many/mod_{i}.js"] = (
            f"export function load{i}(p) {{\n  try {{\n    return read(p);\n"
            "  } catch {\n    return null;\n  }\n}\n"
        )
    return files


@pytest.mark.slow
def test_review_of_pathological_inputs_under_4gb_ends_in_skips_not_crashes(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path, base={"README.md": "x\n"}, change=_pathological_tree())
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "contend.cli.main",
            "review",
            str(repo),
            "--base",
            "main",
            "--critic",
            "static",
            "--format",
            "json",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        preexec_fn=_limit_memory,
        timeout=600,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.returncode in (1, 3), (done.returncode, done.stderr[-2000:])
    report = json.loads((out / "report.json").read_text())
    reasons = {s["path"]: s["reason"] for s in report["skipped"]}
    assert "too deeply nested" in reasons["deep_expr.py"]
    paths = {d["location"]["path"] for d in report["disputes"]}
    assert "dist/app.min.js" in paths
    assert "many/mod_399.js" in paths and "many/mod_399.py" in paths
    # Evidence stays a window: nothing close to the 900 KB line is copied into a dispute.
    assert max(len(d["evidence"]) for d in report["disputes"]) < 10_000
    assert (out / "ledger.jsonl").stat().st_size < 200 * 1024**2
