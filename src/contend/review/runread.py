"""Reading one run of a state directory by id, for `gate`, `escape` and the web page.

A run id comes from a person or a URL: it must look like a run directory's name, name a
directory under `<state_dir>/runs/` that really lies there (a symlink leading out of the
runs directory is refused), and hold a ledger that verifies. A ledger that does not is
refused with the verifier's message (`RunTampered`), never folded into a page or a verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contend.errors import LedgerCorrupt, UserError
from contend.ledger.index import CLAIMS_STARTED
from contend.ledger.runs import LEDGER_FILE, runs_dir
from contend.ledger.verify import VerifyResult, verify
from contend.review.standing import Standing, standing

RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


class RunTampered(LedgerCorrupt):
    """The run's ledger failed verification: named, and refused."""


@dataclass(frozen=True, slots=True)
class RunRead:
    run_id: str
    run_dir: Path
    checked: VerifyResult
    kind: str  # review | claims
    standing: Standing | None  # review runs only

    @property
    def entries(self) -> list[dict[str, Any]]:
        return self.checked.entries


def run_dir_of(state_dir: Path, run_id: str) -> Path:
    """The directory of run `run_id`, or a UserError; nothing outside `runs/` is reached."""
    if not RUN_ID.fullmatch(run_id):
        raise UserError(f"{run_id!r} is not a run id (e.g. 20260101-120000-3f9a1c)")
    root = runs_dir(state_dir)
    candidate = root / run_id
    if not (candidate / LEDGER_FILE).is_file():
        raise UserError(f"no run {run_id!r} in {root}")
    if not candidate.resolve().is_relative_to(root.resolve()) or candidate.is_symlink():
        raise UserError(f"run {run_id!r} is a link out of {root}: refused")
    if (candidate / LEDGER_FILE).is_symlink():
        raise UserError(f"run {run_id!r}: its ledger is a link (to a file anywhere): refused")
    return candidate


def read_run(state_dir: Path, run_id: str, *, min_families: int) -> RunRead:
    run_dir = run_dir_of(state_dir, run_id)
    ledger = run_dir / LEDGER_FILE
    checked = verify(ledger, keep_entries=True, run=run_id)
    if not checked.ok:
        raise RunTampered(
            f"run {run_id} is not intact — {checked.message}; refused (inspect it with "
            f"`contend ledger verify {run_id}`)",
            path=str(ledger),
            line=checked.first_bad_line,
        )
    if checked.entries and checked.entries[0].get("kind") == CLAIMS_STARTED:
        return RunRead(run_id, run_dir, checked, "claims", None)
    now = standing(checked.entries, min_families=min_families)
    return RunRead(run_id, run_dir, checked, "review", now)
