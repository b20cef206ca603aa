"""The SQLite index across runs: what `contend status` reads. A cache, never the truth.

Each row summarises one run's ledger (verdict, counts, spend) together with the ledger's
size and head hash when it was read; a row whose ledger has grown or whose last line
changed is re-read, and `rebuild` re-verifies every ledger and recreates the index. A
ledger that fails verification is not indexed: it is named in the result, never silently
dropped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from contend.ledger.runs import LEDGER_FILE, list_runs
from contend.ledger.store import split_line
from contend.ledger.verify import verify
from contend.protocol.state import RunState, fold

INDEX_FILE = "index.sqlite3"
_SCHEMA_VERSION = 1

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    started TEXT NOT NULL,
    key TEXT NOT NULL,
    sessions INTEGER NOT NULL,
    verdict TEXT,
    exit_code INTEGER,
    attacks INTEGER NOT NULL,
    unresolved INTEGER NOT NULL,
    families TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    cost REAL NOT NULL,
    ledger_bytes INTEGER NOT NULL,
    ledger_head TEXT NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class RunRow:
    run_id: str
    started: str  # UTC timestamp of the run's first event
    key: str
    sessions: int
    verdict: str | None
    exit_code: int | None
    attacks: int
    unresolved: int
    families: str
    tokens: int
    cost: float


@dataclass(slots=True)
class Refresh:
    indexed: int = 0
    reread: int = 0
    unreadable: list[str] = field(default_factory=list)  # "run-id: why"


def summarise(run_id: str, started: str, state: RunState) -> RunRow:
    finished = state.finished or {}
    return RunRow(
        run_id=run_id,
        started=started,
        key=str(state.artifact.get("key", "")),
        sessions=state.sessions,
        verdict=finished.get("verdict"),
        exit_code=finished.get("exit_code"),
        attacks=len(state.attacks),
        unresolved=len(state.unresolved()),
        families=",".join(sorted(state.families())),
        tokens=state.tokens_in + state.tokens_out,
        cost=round(state.cost, 6),
    )


@contextmanager
def _connect(state_dir: Path) -> Iterator[sqlite3.Connection]:
    state_dir.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(state_dir / INDEX_FILE)) as db:
        db.executescript(_DDL)
        found = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if found is None or int(found[0]) != _SCHEMA_VERSION:
            # An index from another version is rebuilt, not migrated: it is only a cache.
            db.execute("DELETE FROM runs")
            db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(_SCHEMA_VERSION),))
        with db:
            yield db


def refresh(state_dir: Path, *, rebuild: bool = False) -> Refresh:
    """Bring the index up to date with the ledgers under `state_dir`."""
    result = Refresh()
    with _connect(state_dir) as db:
        if rebuild:
            db.execute("DELETE FROM runs")
        known = {
            row[0]: (row[1], row[2])
            for row in db.execute("SELECT run_id, ledger_bytes, ledger_head FROM runs")
        }
        present = set()
        for run_dir in list_runs(state_dir):
            run_id = run_dir.name
            present.add(run_id)
            ledger = run_dir / LEDGER_FILE
            size = ledger.stat().st_size
            if run_id in known and known[run_id] == (size, _tail_hash(ledger, size)):
                result.indexed += 1
                continue
            checked = verify(ledger, keep_entries=True)
            if not checked.ok:
                result.unreadable.append(f"{run_id}: {checked.message}")
                db.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))
                continue
            started = str(checked.entries[0]["ts"]) if checked.entries else ""
            row = summarise(run_id, started, fold(checked.entries))
            db.execute(
                "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row.run_id,
                    row.started,
                    row.key,
                    row.sessions,
                    row.verdict,
                    row.exit_code,
                    row.attacks,
                    row.unresolved,
                    row.families,
                    row.tokens,
                    row.cost,
                    size,
                    checked.last_hash,
                ),
            )
            result.indexed += 1
            result.reread += 1
        for gone in set(known) - present:
            db.execute("DELETE FROM runs WHERE run_id = ?", (gone,))
    return result


def _tail_hash(ledger: Path, size: int) -> str:
    """The hash recorded on the ledger's last line, read from its tail only: enough to
    notice appended sessions; `rebuild` (and `contend ledger verify`) re-check everything."""
    with ledger.open("rb") as fh:
        fh.seek(max(0, size - 8192))
        tail = fh.read()
    lines = tail.rstrip(b"\n").rsplit(b"\n", 1)
    parts = split_line(lines[-1]) if lines else None
    return parts[1] if parts is not None else ""


def recent(state_dir: Path, limit: int = 10) -> list[RunRow]:
    """The newest runs first, by the timestamp of their first event."""
    with _connect(state_dir) as db:
        rows = db.execute(
            "SELECT run_id, started, key, sessions, verdict, exit_code, attacks, unresolved,"
            " families, tokens, cost FROM runs ORDER BY started DESC, run_id DESC LIMIT ?",
            (limit,),
        ).fetchall()
    return [RunRow(*row) for row in rows]


def verdict_counts(state_dir: Path) -> dict[str, int]:
    with _connect(state_dir) as db:
        rows = db.execute(
            "SELECT COALESCE(verdict, 'unfinished'), COUNT(*) FROM runs GROUP BY 1"
        ).fetchall()
    return {str(verdict): int(count) for verdict, count in rows}
