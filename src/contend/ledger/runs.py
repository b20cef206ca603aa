"""Where runs live: `<state_dir>/runs/<run-id>/ledger.jsonl`, and how a user names one."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from pathlib import Path

from contend.errors import UserError

LEDGER_FILE = "ledger.jsonl"


def new_run_id(now: datetime | None = None) -> str:
    """Sortable by time, unique by a random suffix: 20261130-142501-3f9a1c."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


def runs_dir(state_dir: Path) -> Path:
    return state_dir / "runs"


def resolve_ledger(run: str, state_dir: Path | None) -> Path:
    """A run id, a run directory or a ledger file → the ledger file, or a UserError."""
    candidate = Path(run)
    if candidate.is_file():
        return candidate
    if candidate.is_dir():
        if (candidate / LEDGER_FILE).is_file():
            return candidate / LEDGER_FILE
        raise UserError(f"{candidate} is a directory without a {LEDGER_FILE}")
    if state_dir is not None:
        by_id = runs_dir(state_dir) / run / LEDGER_FILE
        if by_id.is_file():
            return by_id
        where = f" in {runs_dir(state_dir)}"
    else:
        where = ""
    raise UserError(f"no run {run!r}{where}: give a run id, a run directory or a ledger file")


def list_runs(state_dir: Path) -> list[Path]:
    root = runs_dir(state_dir)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / LEDGER_FILE).is_file())
