"""Write an experiment's report, and the one-page summary of a suite directory.

    <suite>/<id>-<slug>/report/tables.md      Markdown tables
    <suite>/<id>-<slug>/report/<figure>.png   plots
    <suite>/<id>-<slug>/report/analysis.json  the JSON behind both, and the finding
    <suite>/report.md                         each experiment's finding in one sentence

Only renders: metrics come from the experiment's `analyse`.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

from contend.experiments.framework import Analysis, Table
from contend.experiments.plots import draw
from contend.report.escape import visible
from contend.report.mdtext import one_line

ANALYSIS_SCHEMA = "contend.experiment-report/v1"
_TABLE_SPECIAL = re.compile(r"([\\`*_\[\]<>|])")


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    tmp.replace(path)


def table_md(table: Table) -> str:
    def cell(value: Any) -> str:
        # Markdown that could break the table or turn into markup; control characters shown.
        return visible(_TABLE_SPECIAL.sub(r"\\\1", str(value)), single_line=True)

    lines = [
        f"### {table.title}",
        "",
        "| " + " | ".join(cell(h) for h in table.headers) + " |",
        "|" + "---|" * len(table.headers),
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in table.rows]
    return "\n".join(lines) + "\n"


def write_report(folder: Path, title: str, analysis: Analysis, status: dict[str, Any]) -> Path:
    out = folder / "report"
    figures = [draw(f, out / f"{f.name}.png").name for f in analysis.figures]
    head = [
        f"# {title}",
        "",
        f"**Finding.** {analysis.finding}",
        "",
        f"Grid: {status['finished']} of {status['cells']} cells finished"
        f"{'' if status['complete'] else ' (INCOMPLETE: ' + str(status['stopped']) + ')'}; "
        f"{status['errors']} cell errors; {status['tokens']} tokens; ${status['cost']:.4f}.",
        "",
    ]
    body = "\n".join(table_md(t) for t in analysis.tables)
    pics = "\n".join(f"![{name}]({name})" for name in figures)
    write_atomic(out / "tables.md", "\n".join(head) + "\n" + body + "\n" + pics + "\n")
    payload = {
        "schema": ANALYSIS_SCHEMA,
        "title": title,
        "finding": analysis.finding,
        "status": status,
        "tables": [asdict(t) for t in analysis.tables],
        "figures": [asdict(f) for f in analysis.figures],
        "data": analysis.data,
    }
    write_atomic(out / "analysis.json", json.dumps(payload, indent=1, default=_plain) + "\n")
    return out


def _plain(value: Any) -> Any:
    if hasattr(value, "as_dict"):
        return value.as_dict()
    if isinstance(value, set | frozenset):
        return sorted(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def write_summary(suite: Path) -> Path:
    """report.md at the suite's root: one line per experiment that has a report."""
    lines = [
        "# contend experiment: findings",
        "",
        "Each finding: rates with their n and Wilson 95% confidence interval "
        "[low, high]; liveness and safety are reported on separate axes.",
        "",
    ]
    found = 0
    for analysis in sorted(suite.glob("*/report/analysis.json")):
        data = json.loads(analysis.read_text(encoding="utf-8"))
        status = data.get("status", {})
        state = "" if status.get("complete") else " *(incomplete grid)*"
        rel = analysis.parent.relative_to(suite) / "tables.md"
        lines.append(
            f"- **{one_line(data['title'])}**{state}: {one_line(data['finding'])} "
            f"([tables and plots]({rel.as_posix()}))"
        )
        found += 1
    sim = suite / "simulate" / "sweep.json"
    if sim.is_file():
        lines.append("- **simulator sweep**: see [simulate/sweep.md](simulate/sweep.md)")
    if not found:
        lines.append("No experiment has finished a report in this directory yet.")
    path = suite / "report.md"
    write_atomic(path, "\n".join(lines) + "\n")
    return path
