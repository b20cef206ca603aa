"""Write a run's reports: report.json, report.md, report.sarif in the run directory, and
in `--out DIR` when given. Each file is written atomically."""

from __future__ import annotations

from pathlib import Path

from contend.ledger.store import write_atomic
from contend.protocol.state import RunState
from contend.protocol.verdict import Outcome
from contend.redaction import redact_json_text, redact_text
from contend.report import build_report, render_markdown, render_sarif, render_text

FILES = {"json": "report.json", "markdown": "report.md", "sarif": "report.sarif"}


def write_outputs(
    state: RunState,
    outcome: Outcome,
    run_dir: Path,
    out_dir: Path | None,
    *,
    wall_time_s: float,
) -> dict[str, str]:
    report = build_report(state, outcome, wall_time_s=wall_time_s)
    # Every rendered output passes redaction on its way to disk or stdout (the texts
    # returned here are what the CLI prints): a second line behind the ledger writer's.
    texts = {
        "json": redact_json_text(report.to_json()),
        "markdown": redact_text(render_markdown(report)),
        "sarif": redact_json_text(render_sarif(report)),
        "text": redact_text(render_text(report)),
    }
    targets = [run_dir] + ([out_dir] if out_dir is not None else [])
    for directory in targets:
        directory.mkdir(parents=True, exist_ok=True)
        for fmt, name in FILES.items():
            write_atomic(directory / name, texts[fmt].encode("utf-8"))
    if out_dir is not None:
        # The ledger travels with the reports so `contend ledger verify DIR` works there too.
        ledger = run_dir / "ledger.jsonl"
        write_atomic(out_dir / "ledger.jsonl", ledger.read_bytes())
        head = run_dir / "ledger.head"
        if head.exists():
            write_atomic(out_dir / "ledger.head", head.read_bytes())
    return texts
