"""Which run continues where: one active run per branch (or detached commit) in author mode.

`<state_dir>/active/<key>.json` names the run that the next `contend review` on that
branch continues; `--new` replaces it. Written atomically.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import orjson

from contend.errors import UserError
from contend.ledger.runs import LEDGER_FILE, runs_dir
from contend.ledger.store import write_atomic


def _file(state_dir: Path, key: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", key)[:80]
    digest = hashlib.sha256(key.encode()).hexdigest()[:8]
    return state_dir / "active" / f"{safe}-{digest}.json"


def active_run(state_dir: Path, key: str) -> str | None:
    path = _file(state_dir, key)
    if not path.exists():
        return None
    try:
        data = orjson.loads(path.read_bytes())
        run_id = str(data["run_id"])
    except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
        raise UserError(
            f"{path} is damaged ({exc}); remove it or pass --new to start a fresh review"
        ) from exc
    if not (runs_dir(state_dir) / run_id / LEDGER_FILE).exists():
        raise UserError(
            f"{path} names run {run_id}, whose ledger is missing; pass --new to start afresh"
        )
    return run_id


def set_active_run(state_dir: Path, key: str, run_id: str | None) -> None:
    """Make `run_id` the active run of `key`; None: `key` has no active run any more."""
    path = _file(state_dir, key)
    if run_id is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, orjson.dumps({"key": key, "run_id": run_id}) + b"\n")


def all_active_runs(state_dir: Path) -> set[str]:
    """Every run some branch or commit would continue (a damaged pointer names none)."""
    folder = state_dir / "active"
    found: set[str] = set()
    if not folder.is_dir():
        return found
    for path in folder.glob("*.json"):
        try:
            found.add(str(orjson.loads(path.read_bytes())["run_id"]))
        # contend: allow silent-fallback -- a damaged pointer is reported when its key is used
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
            continue
    return found
