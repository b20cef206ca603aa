"""The SQLite index of runs: what `contend status`, `contend stats` and the web page read.
A cache, never the truth.

Each row summarises one run's ledger (verdict, counts, spend) together with a fingerprint
of what it was read from: the ledger's size, inode, mtime and ctime (which no one can set
back without root), the hash on its last line, and the (seq, hash) that `ledger.head`
and the run's anchor record. Every read recomputes the fingerprint — a few stat calls
and three small reads per run — and fully re-verifies any run whose fingerprint changed;
`rebuild` re-verifies every ledger. A ledger that fails verification, or that verifies
but that the fold refuses, is kept in the index as `tampered` / `unreadable` with the
reason, and never shown with a verdict.

Besides one row per run (its standing verdict: review/standing.py), the index keeps the
rows `contend stats` aggregates — one per attack (who raised it, how it ended, what a
person decided), one per critic thread (topic, family, spend) and one per escape a person
recorded — all derived from the ledger alone, so `rebuild` re-derives every figure.
Claim runs (`contend verify`) are indexed with their own verdict, as kind `claims`. The rows
themselves, built from the fold, are index_rows.py; here: the SQLite file, the
fingerprints, refresh and the queries.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from contend.errors import ContendError, LedgerCorrupt
from contend.ledger.anchor import Anchors
from contend.ledger.entries import (
    HASH_SUFFIX,
    USER,
    read_head,
    resolve_anchors,
    resolve_key,
)
from contend.ledger.index_rows import (
    INTACT,
    TAMPERED,
    UNREADABLE,
    AttackRow,
    EscapeRow,
    RunRow,
    ThreadRow,
    attack_rows,
    claims_row,
    escape_rows,
    not_intact,
    summarise,
    thread_rows,
)
from contend.ledger.keys import LedgerKey
from contend.ledger.runs import LEDGER_FILE, list_runs
from contend.ledger.verify import VerifyResult, verify
from contend.review.standing import standing

INDEX_FILE = "index.sqlite3"
_SCHEMA_VERSION = 3
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
    fingerprint TEXT NOT NULL,
    kind TEXT NOT NULL,
    branch TEXT NOT NULL,
    headline TEXT NOT NULL,
    wall_s REAL NOT NULL,
    phase TEXT NOT NULL,
    decided INTEGER NOT NULL,
    escapes INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS attacks (
    run_id TEXT NOT NULL,
    attack_id TEXT NOT NULL,
    thread TEXT NOT NULL,
    critic TEXT NOT NULL,
    family TEXT NOT NULL,
    topic TEXT NOT NULL,
    severity TEXT NOT NULL,
    status TEXT NOT NULL,
    resolved INTEGER NOT NULL,
    found INTEGER NOT NULL,
    decision TEXT NOT NULL,
    rounds INTEGER NOT NULL,
    PRIMARY KEY (run_id, attack_id)
);
CREATE TABLE IF NOT EXISTS threads (
    run_id TEXT NOT NULL,
    thread TEXT NOT NULL,
    critic TEXT NOT NULL,
    family TEXT NOT NULL,
    topic TEXT NOT NULL,
    cost REAL NOT NULL,
    tokens INTEGER NOT NULL,
    PRIMARY KEY (run_id, thread)
);
CREATE TABLE IF NOT EXISTS escapes (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    ts TEXT NOT NULL,
    note TEXT NOT NULL,
    path TEXT NOT NULL,
    line INTEGER,
    topic TEXT NOT NULL,
    person TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
"""
# The row's columns in RunRow order; spelled out in each query (no SQL is built by formatting).
_INSERT = (
    "INSERT OR REPLACE INTO runs (run_id, started, key, sessions, verdict, exit_code, attacks,"
    " unresolved, families, tokens, cost, integrity, problem, chain, fingerprint, kind, branch,"
    " headline, wall_s, phase, decided, escapes)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_COLUMNS = (
    "run_id, started, key, sessions, verdict, exit_code, attacks, unresolved, families,"
    " tokens, cost, integrity, problem, chain, kind, branch, headline, wall_s, phase, decided,"
    " escapes"
)
_SELECT_RECENT = (
    "SELECT " + _COLUMNS + " FROM runs"
    " ORDER BY integrity = 'intact', started DESC, run_id DESC LIMIT ?"
)
_SELECT_ONE = "SELECT " + _COLUMNS + " FROM runs WHERE run_id = ?"


@dataclass(frozen=True, slots=True)
class _Read:
    row: RunRow
    attacks: list[AttackRow] = field(default_factory=list)
    threads: list[ThreadRow] = field(default_factory=list)
    escapes: list[EscapeRow] = field(default_factory=list)


@dataclass(slots=True)
class Refresh:
    indexed: int = 0
    reread: int = 0
    problems: list[str] = field(default_factory=list)  # "run-id: why", every non-intact run


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


def refresh(state_dir: Path, *, rebuild: bool = False, min_families: int = 1) -> Refresh:
    """Bring the index up to date with the ledgers under `state_dir`.

    `min_families` is the project's setting, with which a verdict is recomputed after a
    person's decision (as `contend decide` does); a change of it re-reads every run."""
    result = Refresh()
    key = resolve_key(USER, create=False)
    anchors = resolve_anchors(USER)
    with _connect(state_dir) as db:
        setting = str(min_families)
        stored = db.execute("SELECT value FROM meta WHERE key = 'min_families'").fetchone()
        if rebuild or stored is None or stored[0] != setting:
            db.execute("DELETE FROM runs")
            db.execute("DELETE FROM attacks")
            db.execute("DELETE FROM threads")
            db.execute("DELETE FROM escapes")
            db.execute("INSERT OR REPLACE INTO meta VALUES ('min_families', ?)", (setting,))
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
            # Taken before the read: a ledger that changes meanwhile is re-read next time.
            read = _read_run(run_id, ledger, key, anchors, min_families)
            _store(db, read, fingerprint)
            if read.row.integrity != INTACT:
                result.problems.append(f"{run_id}: {read.row.problem}")
            result.indexed += 1
            result.reread += 1
        for gone in set(known) - present:
            _forget(db, gone)
    return result


def _forget(db: sqlite3.Connection, run_id: str) -> None:
    db.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))
    db.execute("DELETE FROM attacks WHERE run_id = ?", (run_id,))
    db.execute("DELETE FROM threads WHERE run_id = ?", (run_id,))
    db.execute("DELETE FROM escapes WHERE run_id = ?", (run_id,))


def _store(db: sqlite3.Connection, read: _Read, fingerprint: str) -> None:
    row = read.row
    _forget(db, row.run_id)
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
            fingerprint,
            row.kind,
            row.branch,
            row.headline,
            row.wall_s,
            row.phase,
            row.decided,
            row.escapes,
        ),
    )
    db.executemany(
        "INSERT INTO attacks (run_id, attack_id, thread, critic, family, topic, severity,"
        " status, resolved, found, decision, rounds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                row.run_id,
                a.attack_id,
                a.thread,
                a.critic,
                a.family,
                a.topic,
                a.severity,
                a.status,
                int(a.resolved),
                int(a.found),
                a.decision,
                a.rounds,
            )
            for a in read.attacks
        ],
    )
    db.executemany(
        "INSERT INTO threads (run_id, thread, critic, family, topic, cost, tokens)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (row.run_id, t.thread, t.critic, t.family, t.topic, t.cost, t.tokens)
            for t in read.threads
        ],
    )
    db.executemany(
        "INSERT INTO escapes (run_id, seq, ts, note, path, line, topic, person)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (row.run_id, e.seq, e.ts, e.note, e.path, e.line, e.topic, e.person)
            for e in read.escapes
        ],
    )


CLAIMS_STARTED = "claims_run_started"


def _read_run(
    run_id: str, ledger: Path, key: LedgerKey | None, anchors: Anchors | None, min_families: int
) -> _Read:
    checked = verify(ledger, keep_entries=True, key=key, anchors=anchors, run=run_id)
    started = str(checked.entries[0].get("ts", "")) if checked.entries else ""
    if not checked.ok:
        return _Read(not_intact(run_id, started, TAMPERED, checked.message))
    entries = checked.entries
    if entries and entries[0].get("kind") == CLAIMS_STARTED:
        return _Read(claims_row(run_id, started, entries, _chain(checked)))
    try:
        now = standing(entries, min_families=min_families)
        wall_s = sum(
            float(e["data"].get("wall_s", 0.0)) for e in entries if e["kind"] == "run_finished"
        )
        row = summarise(run_id, started, now, _chain(checked), wall_s)
        ts = {int(e["seq"]): str(e.get("ts", "")) for e in entries}
        escapes = [
            EscapeRow(e.seq, ts.get(e.seq, ""), e.note, e.path, e.line, e.topic, e.person)
            for e in escape_rows(now.state)
        ]
        return _Read(row, attack_rows(now.state), thread_rows(now.state), escapes)
    except (ContendError, KeyError, TypeError, ValueError, AttributeError) as exc:
        # A chain that verifies but that the protocol refuses (an unkeyed ledger anyone
        # could have rewritten, or a bug): shown as unreadable with the reason, never
        # allowed to take `status` down for every other run.
        problem = f"{ledger}: the fold refuses it: {exc}"
        return _Read(not_intact(run_id, started, UNREADABLE, problem))


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


def run_row(state_dir: Path, run_id: str) -> RunRow | None:
    with _connect(state_dir) as db:
        row = db.execute(_SELECT_ONE, (run_id,)).fetchone()
    return RunRow(*row) if row is not None else None


@dataclass(frozen=True, slots=True)
class StatsRows:
    """Every row `contend stats` aggregates, for the runs that started at or after `since`."""

    runs: list[RunRow]
    attacks: dict[str, list[AttackRow]]  # by run id
    threads: dict[str, list[ThreadRow]]
    escapes: dict[str, list[EscapeRow]]


def stats_rows(state_dir: Path, since: str = "") -> StatsRows:
    """Intact review runs only: a tampered run has no figures to count."""
    with _connect(state_dir) as db:
        runs = [
            RunRow(*row)
            for row in db.execute(
                "SELECT " + _COLUMNS + " FROM runs WHERE integrity = 'intact' AND kind = 'review'"
                " AND started >= ? ORDER BY started, run_id",
                (since,),
            )
        ]
        chosen = {r.run_id for r in runs}
        attacks: dict[str, list[AttackRow]] = {r: [] for r in chosen}
        threads: dict[str, list[ThreadRow]] = {r: [] for r in chosen}
        escapes: dict[str, list[EscapeRow]] = {r: [] for r in chosen}
        for run_id, *rest in db.execute(
            "SELECT run_id, attack_id, thread, critic, family, topic, severity, status,"
            " resolved, found, decision, rounds FROM attacks ORDER BY run_id, attack_id"
        ):
            if run_id in chosen:
                aid, thread, critic, family, topic, severity, status, resolved, found, *tail = rest
                decision, rounds = tail
                attacks[run_id].append(
                    AttackRow(
                        aid,
                        thread,
                        critic,
                        family,
                        topic,
                        severity,
                        status,
                        bool(resolved),
                        bool(found),
                        decision,
                        rounds,
                    )
                )
        for run_id, *rest in db.execute(
            "SELECT run_id, thread, critic, family, topic, cost, tokens FROM threads"
            " ORDER BY run_id, thread"
        ):
            if run_id in chosen:
                threads[run_id].append(ThreadRow(*rest))
        for run_id, *rest in db.execute(
            "SELECT run_id, seq, ts, note, path, line, topic, person FROM escapes"
            " ORDER BY run_id, seq"
        ):
            if run_id in chosen:
                escapes[run_id].append(EscapeRow(*rest))
    return StatsRows(runs, attacks, threads, escapes)


def verdict_counts(state_dir: Path) -> dict[str, int]:
    """Runs per verdict; a run that is not intact counts as `tampered` / `unreadable`."""
    with _connect(state_dir) as db:
        rows = db.execute(
            "SELECT CASE WHEN integrity != 'intact' THEN integrity"
            " ELSE COALESCE(verdict, 'unfinished') END, COUNT(*) FROM runs GROUP BY 1"
        ).fetchall()
    return {str(verdict): int(count) for verdict, count in rows}


__all__ = [
    "CLAIMS_STARTED",
    "INDEX_FILE",
    "INTACT",
    "TAMPERED",
    "UNREADABLE",
    "Refresh",
    "RunRow",
    "StatsRows",
    "recent",
    "refresh",
    "run_row",
    "stats_rows",
    "verdict_counts",
]
