"""The grid's journal: one JSON record per finished cell, appended and fsynced as soon as
the cell finishes, so a crash loses at most the cells still in flight.

A kill during a write can leave a torn last line (no newline, or not JSON): opening the
journal cuts it off and says so; that cell was never acknowledged and runs again. A bad
line anywhere else is not a crash artefact: the journal is refused (UserError) rather than
guessed at. A cell recorded twice is refused too — that is the one thing resume promises
never happens.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson

from contend.errors import UserError
from contend.executor.base import CellRecord


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: list[CellRecord] = []
        self.discarded_torn_bytes = 0
        if path.exists():
            self._load()

    def _load(self) -> None:
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        tail = lines.pop()  # after the last newline: b"" when the file ends cleanly
        seen: set[str] = set()
        for number, line in enumerate(lines, start=1):
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                raise UserError(
                    f"{self.path}:{number} is not a JSON record: the journal was edited or "
                    "damaged; move it away to start the grid afresh"
                ) from None
            cell = record.get("cell") if isinstance(record, dict) else None
            if not isinstance(cell, str):
                raise UserError(f"{self.path}:{number} is not a cell record")
            if cell in seen:
                raise UserError(f"{self.path}:{number} records cell {cell!r} a second time")
            seen.add(cell)
            self.records.append(record)
        if tail:
            # Torn by a kill mid-write: cut it, so the next append starts a clean line.
            self.discarded_torn_bytes = len(tail)
            with self.path.open("r+b") as handle:
                handle.truncate(len(data) - len(tail))
                handle.flush()
                os.fsync(handle.fileno())

    def finished(self) -> set[str]:
        return {str(r["cell"]) for r in self.records}

    def append(self, record: CellRecord) -> None:
        line = orjson.dumps(record, option=orjson.OPT_SORT_KEYS) + b"\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = os.write(fd, line)
            if written != len(line):
                raise OSError(f"short write to {self.path}: {written} of {len(line)} bytes")
            os.fsync(fd)
        finally:
            os.close(fd)
        self.records.append(record)


def totals(records: list[CellRecord]) -> dict[str, Any]:
    """Tokens and cost summed over records."""
    return {
        "tokens_in": sum(int(r.get("tokens_in", 0)) for r in records),
        "tokens_out": sum(int(r.get("tokens_out", 0)) for r in records),
        "cost": round(sum(float(r.get("cost", 0.0)) for r in records), 6),
    }
