"""The SQLite index of runs: what `contend status` reads. A cache, never the truth.

Each row summarises one run's ledger (verdict, counts, spend) together with a fingerprint
of what it was read from: the ledger's size, inode, mtime and ctime (which no one can set
back without root), the hash on its last line, and the (seq, hash) that `ledger.head`
and the run's anchor record. Every read recomputes the fingerprint — a few stat calls
and three small reads per run — and fully re-verifies any run whose fingerprint changed;
`rebuild` re-verifies every ledger. A ledger that fails verification, or that verifies
but that the fold refuses, is kept in the index as `tampered` / `unreadable` with the
reason, and never shown with a verdict.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from contend.errors import ContendError, LedgerCorrupt
from contend.ledger.anchor import Anchors
from contend.ledger.keys import LedgerKey
from contend.ledger.runs import LEDGER_FILE, list_runs
from contend.ledger.store import HASH_SUFFIX, USER, read_head, resolve_anchors, resolve_key
from contend.ledger.verify import VerifyResult, verify
from contend.protocol.state import RunState, fold

INDEX_FILE = "index.sqlite3"
_SCHEMA_VERSION = 2
INTACT = "intact"
TAMPERED = "tampered"
UNREADABLE = "unreadable"

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
    integrity TEXT NOT NULL,
    problem TEXT NOT NULL,
    chain TEXT NOT NULL,
    fingerprint TEXT NOT NULL
);
"""
# The row's columns in RunRow order; spelled out in each query (no SQL is built by formatting).
_INSERT = (
    "INSERT OR REPLACE INTO runs (run_id, started, key, sessions, verdict, exit_code, attacks,"
    " unresolved, families, tokens, cost, integrity, problem, chain, fingerprint)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_SELECT_RECENT = (
    "SELECT run_id, started, key, sessions, verdict, exit_code, attacks, unresolved, families,"
    " tokens, cost, integrity, problem, chain FROM runs"
    " ORDER BY integrity = 'intact', started DESC, run_id DESC LIMIT ?"
)


@dataclass(frozen=True, slots=True)
class RunRow:
    run_id: str
    started: str  # UTC timestamp of the run's first event ("" when unreadable)
    key: str
    sessions: int
    verdict: str | None  # None when unfinished, or not intact
    exit_code: int | None
    attacks: int
    unresolved: int
    families: str
    tokens: int
    cost: float
    integrity: str = INTACT  # intact | tampered | unreadable
    problem: str = ""  # why, when not intact
    chain: str = ""  # keyed | unkeyed | mixed


@dataclass(slots=True)
class Refresh:
    indexed: int = 0
    reread: int = 0
    problems: list[str] = field(default_factory=list)  # "run-id: why", every non-intact run


def summarise(run_id: str, started: str, state: RunState, chain: str = "") -> RunRow:
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
        chain=chain,
    )


@contextmanager
def _connect(state_dir: Path) -> Iterator[sqlite3.Connection]:
    state_dir.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(state_dir / INDEX_FILE)) as db:
        found = None
        if db.execute("SELECT name FROM sqlite_master WHERE name = 'meta'").fetchone():
            found = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if found is None or int(found[0]) != _SCHEMA_VERSION:
            # An index from another version is rebuilt, not migrated: it is only a cache.
            db.executescript("DROP TABLE IF EXISTS runs; DROP TABLE IF EXISTS meta;")
        db.executescript(_DDL)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(_SCHEMA_VERSION),))
        with db:
            yield db


def refresh(state_dir: Path, *, rebuild: bool = False) -> Refresh:
    """Bring the index up to date with the ledgers under `state_dir`."""
    result = Refresh()
    key = resolve_key(USER, create=False)
    anchors = resolve_anchors(USER)
    with _connect(state_dir) as db:
        if rebuild:
            db.execute("DELETE FROM runs")
        known = {
            row[0]: (row[1], row[2], row[3])
            for row in db.execute("SELECT run_id, fingerprint, integrity, problem FROM runs")
        }
        present = set()
        for run_dir in list_runs(state_dir):
            run_id = run_dir.name
            present.add(run_id)
            ledger = run_dir / LEDGER_FILE
            fingerprint = _fingerprint(ledger, run_id, anchors)
            if run_id in known and known[run_id][0] == fingerprint:
                _, integrity, problem = known[run_id]
                result.indexed += 1
                if integrity != INTACT:
                    result.problems.append(f"{run_id}: {problem}")
                continue
            row = _read_run(run_id, ledger, key, anchors)
            db.execute(
                _INSERT,
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
                    row.integrity,
                    row.problem,
                    row.chain,
                    # Taken before the read: a ledger that changes meanwhile is re-read next time.
                    fingerprint,
                ),
            )
            if row.integrity != INTACT:
                result.problems.append(f"{run_id}: {row.problem}")
            result.indexed += 1
            result.reread += 1
        for gone in set(known) - present:
            db.execute("DELETE FROM runs WHERE run_id = ?", (gone,))
    return result


def _read_run(run_id: str, ledger: Path, key: LedgerKey | None, anchors: Anchors | None) -> RunRow:
    checked = verify(ledger, keep_entries=True, key=key, anchors=anchors, run=run_id)
    started = str(checked.entries[0].get("ts", "")) if checked.entries else ""
    if not checked.ok:
        return _not_intact(run_id, started, TAMPERED, checked.message)
    try:
        state = fold(checked.entries)
    except (ContendError, KeyError, TypeError, ValueError, AttributeError) as exc:
        # A chain that verifies but that the protocol refuses (an unkeyed ledger anyone
        # could have rewritten, or a bug): shown as unreadable with the reason, never
        # allowed to take `status` down for every other run.
        return _not_intact(run_id, started, UNREADABLE, f"{ledger}: the fold refuses it: {exc}")
    return summarise(run_id, started, state, _chain(checked))


def _not_intact(run_id: str, started: str, integrity: str, problem: str) -> RunRow:
    return RunRow(
        run_id=run_id,
        started=started,
        key="",
        sessions=0,
        verdict=None,
        exit_code=None,
        attacks=0,
        unresolved=0,
        families="",
        tokens=0,
        cost=0.0,
        integrity=integrity,
        problem=problem,
    )


def _chain(checked: VerifyResult) -> str:
    if checked.keyed and checked.unkeyed:
        return "mixed"
    return "keyed" if checked.keyed else "unkeyed" if checked.unkeyed else ""


def _fingerprint(ledger: Path, run_id: str, anchors: Anchors | None) -> str:
    """What a change to the ledger, its head or its anchor changes (see module docstring)."""
    info = ledger.stat()
    parts = [
        str(info.st_size),
        str(info.st_ino),
        str(info.st_mtime_ns),
        str(info.st_ctime_ns),
        _tail_hash(ledger, info.st_size),
    ]
    try:
        head = read_head(ledger)
        parts.append(f"{head.seq}:{head.hash}" if head is not None else "-")
        anchor = anchors.read(run_id) if anchors is not None else None
        parts.append(f"{anchor.seq}:{anchor.hash}" if anchor is not None else "-")
    except LedgerCorrupt as exc:
        # Unreadable head or anchor: a fingerprint no row has, so the run is re-verified
        # (and verify names the problem).
        parts.append(f"unreadable:{exc}")
    return "|".join(parts)


def _tail_hash(ledger: Path, size: int) -> str:
    """The hash recorded on the ledger's last line, read from its tail only."""
    with ledger.open("rb") as fh:
        fh.seek(max(0, size - 8192))
        tail = fh.read()
    last = tail.rstrip(b"\n").rsplit(b"\n", 1)[-1]
    cut = last.rfind(HASH_SUFFIX)
    return last[cut + len(HASH_SUFFIX) : -2].decode("ascii", "replace") if cut >= 0 else ""


def recent(state_dir: Path, limit: int = 10) -> list[RunRow]:
    """Runs that are not intact first (they are alarms), then the newest by first event."""
    with _connect(state_dir) as db:
        rows = db.execute(_SELECT_RECENT, (limit,)).fetchall()
    return [RunRow(*row) for row in rows]


def verdict_counts(state_dir: Path) -> dict[str, int]:
    """Runs per verdict; a run that is not intact counts as `tampered` / `unreadable`."""
    with _connect(state_dir) as db:
        rows = db.execute(
            "SELECT CASE WHEN integrity != 'intact' THEN integrity"
            " ELSE COALESCE(verdict, 'unfinished') END, COUNT(*) FROM runs GROUP BY 1"
        ).fetchall()
    return {str(verdict): int(count) for verdict, count in rows}
