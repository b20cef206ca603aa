"""`contend verify CARDS…`: verify claim cards — the entry gate, the evidence precheck and the
deterministic internal-fact critic, end to end, with a hash-chained ledger and reports.

Claims are documents, so this works outside a git repository: a run lives in `--out DIR`,
else in the user state directory (`$CONTEND_STATE_DIR` when absolute, else
`$XDG_STATE_HOME/contend`, else `~/.local/state/contend`) under `runs/<run-id>/`:
ledger.jsonl (+ ledger.head), report.json (`contend.claims/v1`), report.md, and for each
level-3 claim the evaluator artifact set in `claims/<claim-id>/`.

Exit codes: 0 every claim accepted, 1 any reject, 2 a card or file could not be read (and
nothing was rejected) or bad usage, 3 any escalate.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import click

from contend.claims.artifacts import evaluator_artifacts
from contend.claims.events import run_started
from contend.claims.load import load_card_files
from contend.claims.render import render_markdown
from contend.claims.report import ClaimsReport
from contend.claims.run import CRITICS, verify_loaded
from contend.errors import UserError
from contend.ledger.runs import LEDGER_FILE, new_run_id, runs_dir
from contend.ledger.store import Ledger, write_atomic
from contend.redaction import redact_json_text, redact_text
from contend.report.escape import visible

CARD_SUFFIXES = (".yaml", ".yml", ".json")
_OUTPUTS = ("ledger.jsonl", "ledger.head", "report.json", "report.md", "claims")


def user_state_dir(env: os._Environ[str] | dict[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    configured = env.get("CONTEND_STATE_DIR", "")
    if configured and Path(configured).expanduser().is_absolute():
        return Path(configured).expanduser()
    xdg = env.get("XDG_STATE_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "contend"
    return Path.home() / ".local" / "state" / "contend"


def card_files(paths: Sequence[Path]) -> list[Path]:
    """The card files named, a directory standing for the card files below it."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(
                p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in CARD_SUFFIXES
            )
        elif path.is_file():
            found.append(path)
        else:
            raise UserError(f"{path}: no such file or directory")
    if not found:
        shown = ", ".join(str(p) for p in paths)
        raise UserError(f"no claim-card files ({', '.join(CARD_SUFFIXES)}) in {shown}")
    return found


def _run_dir(out: Path | None, run_id: str) -> Path:
    if out is None:
        path = runs_dir(user_state_dir()) / run_id
    else:
        path = out
        if path.exists() and not path.is_dir():
            raise UserError(f"--out {path} exists and is not a directory")
        if path.is_dir():
            foreign = sorted(p.name for p in path.iterdir() if p.name not in _OUTPUTS)
            if foreign:
                raise UserError(
                    f"--out {path} holds files contend did not write ({', '.join(foreign[:3])}); "
                    "choose an empty or new directory"
                )
            if (path / LEDGER_FILE).exists():
                raise UserError(
                    f"--out {path} already holds a run's ledger; choose a new directory"
                )
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create the run directory {path}: {exc.strerror or exc}") from exc
    return path


def _summary(report: ClaimsReport) -> str:
    lines = []
    for claim in report.claims:
        lines.append(
            visible(f"{claim.claim_id}  {claim.verdict}  {claim.summary}", single_line=True)
        )
    for error in report.card_errors:
        where = f"card {error.card}" if error.card else "file"
        if error.line is not None:
            where += f" (line {error.line})"
        lines.append(visible(f"{error.file} {where}: {error.message}", single_line=True))
    lines.append(f"verdict: {report.verdict} (exit {report.exit_code})")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class VerifyRun:
    """A finished `contend verify`: the report, where the run lives, the rendered texts."""

    report: ClaimsReport
    run_id: str
    run_dir: Path
    texts: dict[str, str]


def run_verify(cards: Sequence[Path], out: Path | None) -> VerifyRun:
    """Verify the card files (or directories) `cards`; the run is written to `out`, else
    to the user state directory. The command below and `contend.verify` both call this."""
    files = card_files(cards)
    loaded = load_card_files(files)
    report, events = verify_loaded(loaded)
    run_id = new_run_id()
    run_dir = _run_dir(out, run_id)
    with Ledger(run_dir / LEDGER_FILE, run_id) as ledger:
        ledger.append_many([run_started([str(f) for f in files], CRITICS), *events])
        ledger.checkpoint()
    # Every rendered output passes redaction on its way to disk or stdout, as review's do:
    # a card or its evidence may carry a secret the ledger already redacted.
    texts = {
        "json": redact_json_text(report.to_json()),
        "markdown": redact_text(render_markdown(report)),
        "text": redact_text(_summary(report)),
    }
    write_atomic(run_dir / "report.json", texts["json"].encode("utf-8"))
    write_atomic(run_dir / "report.md", texts["markdown"].encode("utf-8"))
    by_id = {c.card.claim_id: c.card for c in loaded.cards}
    for claim in report.claims:
        if claim.level != 3:
            continue
        trace = [
            {"kind": kind, "data": data}
            for kind, data in events
            if data.get("claim_id") == claim.claim_id
        ]
        target = run_dir / "claims" / claim.claim_id
        target.mkdir(parents=True, exist_ok=True)
        for name, text in evaluator_artifacts(by_id[claim.claim_id], claim, trace).items():
            safe = redact_json_text(text) if name.endswith(".json") else redact_text(text)
            write_atomic(target / name, safe.encode("utf-8"))
    return VerifyRun(report, run_id, run_dir, texts)


@click.command("verify")
@click.argument("cards", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    help="Run directory (default: the user state directory, runs/<run-id>).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
    help="What to print on stdout; report.json and report.md are written either way.",
)
def verify(cards: tuple[Path, ...], out: Path | None, fmt: str) -> int:
    """Verify claim cards (YAML or JSON files, or directories of them).

    Runs the entry gate and the evidence precheck of every card, then the deterministic
    internal-fact critic: each number, quote and named entity of a claim against the page
    and region of its local evidence. Other axes need agents and are listed as not run.

    \b
    Exit codes: 0 all accepted, 1 any reject, 2 unreadable card or usage error,
    3 any escalate.
    """
    done = run_verify(cards, out)
    report, run_id, run_dir, texts = done.report, done.run_id, done.run_dir, done.texts
    click.echo(texts[fmt], nl=False)
    click.echo(f"contend: run {run_id} → {run_dir}", err=True)
    return report.exit_code
