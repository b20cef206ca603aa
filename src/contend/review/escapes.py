"""Escapes: a person records a defect that got through a review, in that run's ledger.

An escape is an `escape_recorded` event appended to the run's ledger (never an edit),
under the review lock and through the recorder, with who recorded it. `contend stats`
counts it against the critics that were on the run (those of `topic`, when it names the
topic of one of them).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from contend.errors import UserError
from contend.ledger.runs import LEDGER_FILE
from contend.ledger.store import Ledger
from contend.protocol import events as ev
from contend.protocol.state import fold
from contend.review.lock import review_lock
from contend.review.recorder import Recorder
from contend.review.respond import who_is_answering
from contend.review.runread import read_run


@dataclass(frozen=True, slots=True)
class Escape:
    note: str
    path: str | None = None
    line: int | None = None
    topic: str | None = None

    def check(self) -> None:
        if not self.note.strip():
            raise UserError("--note is empty: say what got through (it goes into the ledger)")
        if self.line is not None and self.path is None:
            raise UserError("--line needs --path: a line of which file?")
        if self.line is not None and self.line < 1:
            raise UserError(f"--line must be 1 or more, got {self.line}")
        for name, value in (("--path", self.path), ("--topic", self.topic)):
            if value is not None and (not value.strip() or "\n" in value or "\0" in value):
                raise UserError(f"{name} must be one non-empty line, got {value!r}")


def record_escape(
    state_dir: Path, run_id: str, repo_root: Path, escape: Escape, *, wait_s: float = 0.0
) -> int:
    """Append the escape to run `run_id`; returns its sequence number in the ledger."""
    escape.check()
    with review_lock(state_dir, command=f"contend escape {run_id}", wait_s=wait_s):
        # Verified (and refused when tampered) before anything is appended.
        read = read_run(state_dir, run_id, min_families=1)
        if read.kind != "review":
            raise UserError(f"run {run_id} is a {read.kind} run: escapes are recorded on reviews")
        ledger_path = read.run_dir / LEDGER_FILE
        with Ledger.open(ledger_path, run_id) as ledger:
            rec = Recorder(ledger, fold(read.entries))
            entry = rec.emit(
                ev.escape_recorded(
                    note=escape.note,
                    path=escape.path,
                    line=escape.line,
                    topic=escape.topic,
                    person=who_is_answering(repo_root),
                )
            )
            rec.checkpoint()
    return int(entry["seq"])
