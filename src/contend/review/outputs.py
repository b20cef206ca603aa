"""Write a run's reports: report.json, report.md, report.sarif in the run directory, and
in `--out DIR` when given. Each file is written atomically.

`--out DIR` never overwrites what contend did not write: DIR must be new, empty, or a
contend output directory — one holding `.contend-out.json`, the digests of the files contend
last wrote there — and each file about to be replaced must still be exactly what contend
wrote. `--force` lifts both rules. The run directory is written first, so a failure in DIR
loses nothing of the finished review.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from contend.errors import UserError
from contend.ledger.store import write_atomic
from contend.protocol.state import RunState
from contend.protocol.verdict import Outcome
from contend.redaction import redact_json_text, redact_text
from contend.report import build_report, render_markdown, render_sarif, render_text

FILES = {"json": "report.json", "markdown": "report.md", "sarif": "report.sarif"}
LEDGER_FILES = ("ledger.jsonl", "ledger.head")
MANIFEST = ".contend-out.json"
_MANIFEST_SCHEMA = "contend.out/v1"


def check_out_dir(out_dir: Path, *, force: bool) -> None:
    """Refuse (UserError) an `--out` directory whose files contend would overwrite without
    having written them; nothing is written here."""
    if out_dir.exists() and not out_dir.is_dir():
        raise UserError(f"--out {out_dir} exists and is not a directory")
    if force or not out_dir.is_dir() or not any(out_dir.iterdir()):
        return
    manifest = _read_manifest(out_dir)
    if manifest is None:
        raise UserError(
            f"--out {out_dir} is a non-empty directory that contend did not write (no "
            f"{MANIFEST}); choose an empty or new directory, or pass --force to overwrite "
            f"{', '.join(_written_names())} there"
        )
    for name in _written_names():
        path = out_dir / name
        if path.exists() and manifest.get(name) != _digest(path):
            raise UserError(
                f"--out {out_dir}: {name} was not written by contend, or changed since; "
                "move it away, or pass --force to overwrite it"
            )


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
    run_dir.mkdir(parents=True, exist_ok=True)
    for fmt, name in FILES.items():
        write_atomic(run_dir / name, texts[fmt].encode("utf-8"))
    if out_dir is not None:
        try:
            _write_out_dir(texts, run_dir, out_dir)
        except OSError as exc:
            raise UserError(
                f"cannot write the reports to --out {out_dir}: {exc.strerror or exc}; the "
                f"review finished (verdict {outcome.verdict}) and its reports and ledger are "
                f"in {run_dir}"
            ) from exc
    return texts


def _write_out_dir(texts: dict[str, str], run_dir: Path, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, str] = {}
    for fmt, name in FILES.items():
        data = texts[fmt].encode("utf-8")
        write_atomic(out_dir / name, data)
        written[name] = hashlib.sha256(data).hexdigest()
    # The ledger travels with the reports so `contend ledger verify DIR` works there too.
    for name in LEDGER_FILES:
        source = run_dir / name
        if source.exists():
            data = source.read_bytes()
            write_atomic(out_dir / name, data)
            written[name] = hashlib.sha256(data).hexdigest()
    manifest = {"schema": _MANIFEST_SCHEMA, "files": written}
    write_atomic(out_dir / MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode("utf-8"))


def _written_names() -> list[str]:
    return [*FILES.values(), *LEDGER_FILES]


def _read_manifest(out_dir: Path) -> dict[str, str] | None:
    path = out_dir / MANIFEST
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"--out {out_dir}: {MANIFEST} is unreadable ({exc}); pass --force") from exc
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict) or data.get("schema") != _MANIFEST_SCHEMA:
        raise UserError(f"--out {out_dir}: {MANIFEST} is not contend's; pass --force")
    return {str(k): str(v) for k, v in files.items()}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
