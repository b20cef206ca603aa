"""Per-slice metrics: `slice.json` beside each slice's events (the truth) and a `slices`
table in the state directory's SQLite index (a cache rebuilt from those files).

A slice's record holds its topology, verdict, reviews and fix rounds, first-pass readiness,
findings caught by topic and by critic (static and model critics apart, so the static
critics' share is visible), tokens and cost per role, wall time — and what a person enters
later: review minutes (`contend run note`) and defects that escaped (`contend escape SLICE`).
`contend stats --by topology` prints seed 001's comparison of the indexed slices.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from contend.errors import UserError
from contend.ledger.index import INDEX_FILE

SLICES_DIR = "harness/slices"
RECORD_FILE = "slice.json"
RECORD_SCHEMA = "contend.slice/v1"

_DDL = """
CREATE TABLE IF NOT EXISTS slices (
    slice_id TEXT PRIMARY KEY,
    started TEXT NOT NULL,
    topology TEXT NOT NULL,
    verdict TEXT NOT NULL,
    ready INTEGER NOT NULL,
    first_pass INTEGER NOT NULL,
    reviews INTEGER NOT NULL,
    fix_rounds INTEGER NOT NULL,
    fallbacks_caught INTEGER NOT NULL,
    weakened_tests_caught INTEGER NOT NULL,
    cost REAL NOT NULL,
    wall_s REAL NOT NULL,
    review_minutes REAL,
    record TEXT NOT NULL
);
"""
_UPSERT = (
    "INSERT OR REPLACE INTO slices (slice_id, started, topology, verdict, ready, first_pass,"
    " reviews, fix_rounds, fallbacks_caught, weakened_tests_caught, cost, wall_s,"
    " review_minutes, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def slice_dir(state_dir: Path, slice_id: str) -> Path:
    return state_dir / SLICES_DIR / slice_id


@contextmanager
def _connect(state_dir: Path) -> Iterator[sqlite3.Connection]:
    with closing(sqlite3.connect(state_dir / INDEX_FILE)) as db:
        db.executescript(_DDL)
        with db:
            yield db


def _row(record: dict[str, Any]) -> tuple[Any, ...]:
    caught = record.get("caught", {}).get("by_topic", {})
    return (
        record["slice"],
        record["started"],
        record["topology"],
        record["verdict"],
        int(bool(record["ready"])),
        int(bool(record["first_pass"])),
        int(record["reviews"]),
        int(record["fix_rounds"]),
        int(caught.get("silent-fallback", 0)),
        int(caught.get("test-weakening", 0)),
        float(record.get("cost", 0.0)),
        float(record.get("wall_s", 0.0)),
        record.get("review_minutes"),
        json.dumps(record, sort_keys=True),
    )


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".slice-", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, sort_keys=True)
        handle.write("\n")
    os.replace(tmp, path)


def record_slice(state_dir: Path, record: dict[str, Any]) -> Path:
    """Write the slice's record and index it."""
    path = slice_dir(state_dir, record["slice"]) / RECORD_FILE
    _write_json(path, {"schema": RECORD_SCHEMA, **record})
    with _connect(state_dir) as db:
        db.execute(_UPSERT, _row(record))
    return path


def load_record(state_dir: Path, slice_id: str) -> dict[str, Any]:
    path = slice_dir(state_dir, slice_id) / RECORD_FILE
    if not path.is_file():
        raise UserError(f"no slice {slice_id!r} in {state_dir / SLICES_DIR}")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def note_slice(
    state_dir: Path,
    slice_id: str,
    *,
    review_minutes: float | None = None,
    defect_escape: bool | None = None,
) -> dict[str, Any]:
    """What a person entered later — review time, a defect that escaped — kept in the
    slice's record and the index."""
    if review_minutes is not None and not (0 <= review_minutes < float("inf")):
        raise UserError(f"--review-minutes must be 0 or more, got {review_minutes:g}")
    record = load_record(state_dir, slice_id)
    if review_minutes is not None:
        record["review_minutes"] = review_minutes
    if defect_escape is not None:
        record["defect_escape"] = defect_escape
    record_slice(state_dir, record)
    return record


def is_slice(state_dir: Path, slice_id: str) -> bool:
    return (slice_dir(state_dir, slice_id) / RECORD_FILE).is_file()


def record_escape(state_dir: Path, slice_id: str, escape: dict[str, Any]) -> dict[str, Any]:
    """A defect that got through the slice (`contend escape SLICE`): appended to the
    record's `escapes` (never replacing one) and counted in the escape rate."""
    record = load_record(state_dir, slice_id)
    record["escapes"] = [*record.get("escapes", []), escape]
    record["defect_escape"] = True
    record_slice(state_dir, record)
    return record


def rebuild(state_dir: Path) -> int:
    """Re-index every slice record under the state directory; returns how many."""
    folder = state_dir / SLICES_DIR
    records = [
        json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob(f"*/{RECORD_FILE}"))
    ]
    with _connect(state_dir) as db:
        db.execute("DELETE FROM slices")
        db.executemany(_UPSERT, [_row(r) for r in records])
    return len(records)


def indexed(state_dir: Path) -> list[dict[str, Any]]:
    with _connect(state_dir) as db:
        rows = db.execute("SELECT record FROM slices ORDER BY started, slice_id").fetchall()
    return [json.loads(r[0]) for r in rows]


def _started(record: dict[str, Any]) -> datetime:
    moment = datetime.fromisoformat(str(record["started"]))
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def topology_stats(state_dir: Path, since: str | None = None) -> list[dict[str, Any]]:
    """Seed 001's table from the index (rebuilt from the records first), of the slices
    started at or after `since` (an ISO UTC time, as `contend stats --since` gives it)."""
    rebuild(state_dir)
    records = indexed(state_dir)
    if since:
        cutoff = datetime.fromisoformat(since.replace("Z", "+00:00"))
        records = [r for r in records if _started(r) >= cutoff]
    return by_topology(records)


def render_topologies(table: Sequence[dict[str, Any]]) -> str:
    if not table:
        return "no slices yet: `contend run --spec SPEC ...` records them\n"

    def pct(v: float | None) -> str:
        return "—" if v is None else f"{100 * v:.1f}%"

    def num(v: float | None, unit: str = "") -> str:
        return "—" if v is None else f"{v:.2f}{unit}"

    lines = [
        f"{'topology':<9}{'slices':>7}{'escapes':>9}{'fallbacks':>10}{'weakened':>9}"
        f"{'1st-pass':>9}{'$/slice':>9}{'review':>9}"
    ]
    for row in table:
        lines.append(
            f"{row['topology']:<9}{row['slices']:>7}{pct(row['defect_escape_rate']):>9}"
            f"{row['silent_fallbacks_caught']:>10}{row['weakened_assertions_caught']:>9}"
            f"{pct(row['first_pass_merge_rate']):>9}{num(row['cost_per_slice']):>9}"
            f"{num(row['human_review_minutes'], 'm'):>9}"
        )
    lines += [
        "",
        "escapes: defects found later (`contend escape SLICE`, `contend run note`) ÷ slices a",
        "person judged; fallbacks/weakened: findings caught; review: mean minutes a person spent",
    ]
    return "\n".join(lines) + "\n"


def by_topology(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Seed 001's comparison table per topology, from slice records (pure)."""
    table = []
    for topology in sorted({str(r["topology"]) for r in records}):
        mine = [r for r in records if r["topology"] == topology]
        n = len(mine)
        timed = [float(r["review_minutes"]) for r in mine if r.get("review_minutes") is not None]
        escapes = [r for r in mine if r.get("defect_escape") is not None]
        table.append(
            {
                "topology": topology,
                "slices": n,
                "defect_escape_rate": (
                    sum(1 for r in escapes if r["defect_escape"]) / len(escapes)
                    if escapes
                    else None
                ),
                "silent_fallbacks_caught": sum(
                    int(r["caught"]["by_topic"].get("silent-fallback", 0)) for r in mine
                ),
                "weakened_assertions_caught": sum(
                    int(r["caught"]["by_topic"].get("test-weakening", 0)) for r in mine
                ),
                "first_pass_merge_rate": sum(1 for r in mine if r["first_pass"]) / n,
                "cost_per_slice": sum(float(r.get("cost", 0.0)) for r in mine) / n,
                "human_review_minutes": sum(timed) / len(timed) if timed else None,
            }
        )
    return table
