"""The baseline linters of the benchmark, run once over the whole corpus.

ruff and bandit are not diff-aware, so each runs twice — over every item's change version
(the items' work trees) and over a copy of every base version — and a diagnostic counts as
introduced by the change when its (rule, source line) occurs more often after than before.
Each tool is one subprocess over all items, started in the background so it overlaps with
scoring contend.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

# The exception-handling and test rule families of ruff the issue names. PT009 and PT027
# ("use a plain assert instead of unittest's assertX / assertRaises") are left out: they
# flag every unittest assertion line whether or not it was weakened, which is style, not a
# signal about the change.
RUFF_SELECT = "BLE,S110,S112,SIM105,PT,E722,B,TRY"
RUFF_IGNORE = "PT009,PT027"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    rule: str
    start_line: int
    end_line: int


def _tool(name: str) -> str:
    """The tool next to the running interpreter (the project venv), else on PATH."""
    local = Path(sys.executable).parent / name
    if local.exists():
        return str(local)
    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(f"{name} is not installed in {local.parent} nor on PATH")
    return found


def ruff_command(target: Path) -> list[str]:
    return [
        _tool("ruff"),
        "check",
        "--isolated",
        "--no-cache",
        "--exit-zero",
        "--select",
        RUFF_SELECT,
        "--ignore",
        RUFF_IGNORE,
        "--output-format",
        "json",
        str(target),
    ]


def bandit_command(target: Path) -> list[str]:
    return [_tool("bandit"), "-q", "-r", "-f", "json", str(target)]


class Job:
    """A baseline tool running in the background over one directory."""

    def __init__(self, tool: str, target: Path) -> None:
        self.tool = tool
        self.target = target
        command = ruff_command(target) if tool == "ruff" else bandit_command(target)
        self._proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def result(self) -> dict[str, list[Diagnostic]]:
        """Diagnostics keyed by file path relative to the target directory."""
        out, err = self._proc.communicate()
        # bandit exits 1 when it found issues; anything else without JSON is a real failure.
        if not out.strip():
            raise RuntimeError(
                f"{self.tool} printed no JSON (exit {self._proc.returncode}): {err.decode()[:500]}"
            )
        data = json.loads(out)
        found: dict[str, list[Diagnostic]] = defaultdict(list)
        if self.tool == "ruff":
            for d in data:
                rel = Path(d["filename"]).resolve().relative_to(self.target.resolve())
                start = int(d["location"]["row"])
                end = int(d["end_location"]["row"])
                found[rel.as_posix()].append(Diagnostic(str(d["code"]), start, end))
        else:
            for d in data["results"]:
                rel = Path(d["filename"]).resolve().relative_to(self.target.resolve())
                lines = [int(n) for n in d.get("line_range") or [d["line_number"]]]
                found[rel.as_posix()].append(Diagnostic(str(d["test_id"]), min(lines), max(lines)))
            errors = data.get("errors") or []
            if errors:
                print(f"bandit could not scan {len(errors)} file(s)", file=sys.stderr)
        return found


def introduced(
    old_text: str, new_text: str, old: list[Diagnostic], new: list[Diagnostic]
) -> list[Diagnostic]:
    """Diagnostics of the new version whose (rule, stripped source line) occurs more often
    than in the old version: the ones the change brought in."""
    old_lines, new_lines = old_text.splitlines(), new_text.splitlines()

    def key(text_lines: list[str], d: Diagnostic) -> tuple[str, str]:
        line = text_lines[d.start_line - 1].strip() if 0 < d.start_line <= len(text_lines) else ""
        return d.rule, line

    budget = Counter(key(old_lines, d) for d in old)
    fresh = []
    for d in sorted(new, key=lambda d: (d.start_line, d.rule)):
        k = key(new_lines, d)
        if budget[k] > 0:
            budget[k] -= 1
        else:
            fresh.append(d)
    return fresh
