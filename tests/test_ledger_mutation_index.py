"""The SQLite index's own format (ledger/index.py), tested against its mutants (issue 18):
the index records the schema version it was written with, keeps an index of that version,
and rebuilds one of any other version rather than read rows of a shape it does not know."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest

from contend.cli.main import main
from contend.ledger.entries import HEAD_FILE, USER, read_head, resolve_anchors
from contend.ledger.index import INDEX_FILE, _tail_hash, recent, refresh, stats_rows
from contend.ledger.slots import SlotWriter
from contend.ledger.store import Ledger
from review_helpers import make_repo

# These tests are about the run index, not about which static findings may block: the change they
# plant as the one that fails (a broad `except Exception: return 0`) is a `swallowing-handler`,
# which the default earned policy lists as minor. They let static findings block at each rule's own
# severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


FALLBACK = "def f(g):\n    try:\n        return g()\n    except Exception:\n        return None\n"


def reviewed_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose uncommitted change adds a swallowing fallback, reviewed once from
    inside it (verdict `fail`); its state directory."""
    repo = make_repo(
        tmp_path,
        base={"m.py": "def f(g):\n    return g()\n"},
        change={"m.py": FALLBACK},
        commit_change=False,
    )
    monkeypatch.chdir(repo)
    assert main(["review", "-q", "--format", "json"]) == 1
    return repo / ".contend"


def _meta(path: Path) -> str:
    with closing(sqlite3.connect(path)) as db:
        (value,) = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        return str(value)


def _marker_rows(path: Path) -> int:
    with closing(sqlite3.connect(path)) as db:
        (n,) = db.execute("SELECT count(*) FROM runs WHERE run_id = 'marker'").fetchone()
        return int(n)


def _plant_marker(path: Path, run_id: str = "marker", started: str = "") -> None:
    """A row no ledger backs, written straight into the index (a stand-in for rows of
    an earlier version's shape)."""
    with closing(sqlite3.connect(path)) as db, db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(runs)")]
        values = {c: "" for c in columns}
        values.update(
            run_id=run_id,
            started=started,
            integrity="intact",
            sessions=0,
            attacks=0,
            unresolved=0,
            tokens=0,
            cost=0.0,
        )
        names = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        db.execute(f"INSERT INTO runs ({names}) VALUES ({marks})", tuple(values.values()))


def test_the_index_is_written_as_schema_version_3(tmp_path: Path) -> None:
    refresh(tmp_path)
    assert _meta(tmp_path / INDEX_FILE) == "3"
    assert recent(tmp_path) == []


def test_an_index_of_this_version_is_kept_and_one_of_another_is_rebuilt(
    tmp_path: Path,
) -> None:
    index = tmp_path / INDEX_FILE
    refresh(tmp_path)
    _plant_marker(index)
    with closing(sqlite3.connect(index)) as db:
        assert db.execute("SELECT count(*) FROM runs").fetchone() == (1,)
    # Opening it again (same version) keeps what it holds ...
    recent(tmp_path)
    assert _marker_rows(index) == 1
    # ... an index another version wrote is dropped and rebuilt from the ledgers.
    with closing(sqlite3.connect(index)) as db, db:
        db.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
    recent(tmp_path)
    assert _marker_rows(index) == 0
    assert _meta(index) == "3"


def test_a_missing_state_directory_is_created_with_its_parents(tmp_path: Path) -> None:
    state = tmp_path / "a" / "b" / ".contend"
    assert refresh(state).indexed == 0
    assert (state / INDEX_FILE).is_file()


def test_every_run_is_read_again_on_rebuild_and_when_min_families_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = reviewed_fallback(tmp_path, monkeypatch)
    reads = [
        refresh(state).reread,
        refresh(state).reread,  # unchanged: kept
        refresh(state, rebuild=True).reread,
        refresh(state, min_families=2).reread,  # another setting: verdicts recomputed
        refresh(state, min_families=2).reread,
        refresh(state).reread,  # the default setting is 1
        refresh(state, min_families=1).reread,
    ]
    assert reads == [1, 0, 1, 1, 0, 1, 0]
    assert [r.verdict for r in recent(state)] == ["fail"]


def test_a_tampered_run_read_from_the_cache_is_reported_with_its_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = reviewed_fallback(tmp_path, monkeypatch)
    [ledger] = (state / "runs").glob("*/ledger.jsonl")
    ledger.write_bytes(ledger.read_bytes().replace(b'"severity":"major"', b'"severity":"minor"', 1))
    first = refresh(state)
    [problem] = first.problems
    assert problem.startswith(f"{ledger.parent.name}: ") and "MAC mismatch" in problem
    cached = refresh(state)
    assert (cached.reread, cached.indexed) == (0, 1)
    assert cached.problems == first.problems
    [row] = recent(state)
    assert (row.integrity, row.verdict, row.exit_code, row.key, row.families) == (
        "tampered",
        None,
        None,
        "",
        "",
    )
    assert (row.sessions, row.attacks, row.unresolved, row.tokens, row.cost) == (0, 0, 0, 0, 0.0)
    # What a tampered run's row leaves at its defaults: nothing read from the ledger.
    assert (row.chain, row.kind, row.branch, row.headline, row.phase) == ("", "review", "", "", "")
    assert (row.wall_s, row.decided, row.escapes) == (0.0, 0, 0)


def test_a_run_read_again_or_removed_leaves_no_stale_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = reviewed_fallback(tmp_path, monkeypatch)
    refresh(state)
    [run_id] = [r.run_id for r in recent(state)]
    first = stats_rows(state)
    assert first.attacks[run_id] and first.threads[run_id]
    # An escape and a second session append to the same ledger: the run is read again,
    # its rows replaced, none doubled.
    assert main(["escape", run_id, "--note", "None leaked", "--path", "m.py"]) == 0
    assert refresh(state).reread == 1
    assert main(["review", "-q", "--format", "json"]) == 1
    assert refresh(state).reread == 1
    again = stats_rows(state)
    assert [r.run_id for r in again.runs] == [run_id]
    assert sorted(a.attack_id for a in again.attacks[run_id]) == sorted(
        a.attack_id for a in first.attacks[run_id]
    )
    assert len(again.threads[run_id]) == len({t.thread for t in again.threads[run_id]})
    assert [e.note for e in again.escapes[run_id]] == ["None leaked"]
    # The run's folder removed: the index forgets it.
    shutil.rmtree(state / "runs" / run_id)
    refresh(state)
    assert recent(state) == []
    assert stats_rows(state).runs == []


def test_a_row_carries_the_first_event_time_every_sessions_wall_time_and_escape_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = reviewed_fallback(tmp_path, monkeypatch)
    [ledger] = (state / "runs").glob("*/ledger.jsonl")
    run_id = ledger.parent.name
    assert main(["escape", run_id, "--note", "None leaked"]) == 0
    assert main(["review", "-q", "--format", "json"]) == 1  # a second session
    entries = [json.loads(line) for line in ledger.read_text().splitlines()]
    walls = [e["data"]["wall_s"] for e in entries if e["kind"] == "run_finished"]
    assert len(walls) == 2
    refresh(state)
    [row] = recent(state)
    assert row.started == entries[0]["ts"]
    assert row.wall_s == round(sum(walls), 3)
    # Every line is under the user's key (HMAC), so the chain is keyed, not mixed.
    assert {e["alg"] for e in entries} == {"hmac-sha256"}
    assert row.chain == "keyed"
    [escape] = stats_rows(state).escapes[run_id]
    [recorded] = [e for e in entries if e["kind"] == "escape_recorded"]
    assert (escape.seq, escape.ts) == (recorded["seq"], recorded["ts"])


def test_a_run_whose_anchor_changed_is_verified_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The anchor is part of what the index checks on every read: an anchor put back to
    an earlier entry (the ledger unchanged) makes the run be read and verified again."""
    state = reviewed_fallback(tmp_path, monkeypatch)
    [ledger] = (state / "runs").glob("*/ledger.jsonl")
    run_id = ledger.parent.name
    assert refresh(state).reread == 1
    assert refresh(state).reread == 0
    anchors = resolve_anchors(USER)
    assert anchors is not None
    now = anchors.read(run_id)
    assert now is not None and now.seq > 0
    earlier = json.loads(ledger.read_text().splitlines()[0])
    writer = anchors.writer(run_id)
    for _ in range(2):  # both slots: the newest record is the highest seq
        writer.write(replace(now, seq=0, hash=earlier["hash"]).to_record(), sync=True)
    writer.close()
    assert anchors.read(run_id) == replace(now, seq=0, hash=earlier["hash"])
    assert refresh(state).reread == 1


def test_a_run_whose_head_was_put_back_is_verified_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = reviewed_fallback(tmp_path, monkeypatch)
    [ledger] = (state / "runs").glob("*/ledger.jsonl")
    assert refresh(state).reread == 1
    head = read_head(ledger)
    assert head is not None and head.seq > 0
    first = json.loads(ledger.read_text().splitlines()[0])
    record = {"seq": 0, "hash": first["hash"], "alg": head.alg, "run": head.run, "kid": head.kid}
    writer = SlotWriter(ledger.parent / HEAD_FILE)
    for _ in range(2):  # both slots: the newest record is the highest seq
        writer.write(record, sync=True)
    writer.close()
    assert read_head(ledger) == replace(head, seq=0, hash=first["hash"])
    assert refresh(state).reread == 1  # the head is part of what every read checks


def test_the_tail_hash_is_the_hash_on_the_last_line_read_from_the_tail(tmp_path: Path) -> None:
    """What the fingerprint takes from the ledger's last line (ledger/index.py
    `_tail_hash`): the hash written there, found within the last 8 KiB, whatever came
    before; none when the last line carries none."""
    ledger = tmp_path / "ledger.jsonl"

    def line(n: int, pad: str = "") -> str:
        return f'{{"kind":"k","pad":"{pad}","seq":{n},"hash":"{n:064x}"}}\n'

    ledger.write_text(line(0) + line(1))
    assert _tail_hash(ledger, ledger.stat().st_size) == f"{1:064x}"
    # Past the 8 KiB window: a long ledger, its last line after a long one.
    ledger.write_text(line(0, "x" * 20_000) + line(1, "y" * 8_000) + line(2))
    assert _tail_hash(ledger, ledger.stat().st_size) == f"{2:064x}"
    # A one-line ledger, and a last line without its newline (torn).
    ledger.write_text(line(7))
    assert _tail_hash(ledger, ledger.stat().st_size) == f"{7:064x}"
    ledger.write_text(line(0) + line(3).rstrip("\n"))
    assert _tail_hash(ledger, ledger.stat().st_size) == f"{3:064x}"
    # No hash on the last line, or nothing but a hash suffix at its very start.
    ledger.write_text(line(0) + '{"kind":"k"}\n')
    assert _tail_hash(ledger, ledger.stat().st_size) == ""
    ledger.write_text(line(0) + ',"hash":"ab"}\n')
    assert _tail_hash(ledger, ledger.stat().st_size) == "ab"
    ledger.write_text(',"hash":"ab"}\n')  # read from its first byte
    assert _tail_hash(ledger, ledger.stat().st_size) == "ab"
    # Bytes that are not ASCII are replaced, never an exception.
    ledger.write_bytes(b',"hash":"\xff"}\n')
    assert _tail_hash(ledger, ledger.stat().st_size) == "\ufffd"


def test_recent_lists_the_ten_newest_runs_by_default(tmp_path: Path) -> None:
    refresh(tmp_path)
    for n in range(12):
        _plant_marker(tmp_path / INDEX_FILE, f"r{n:02d}", f"2026-12-01T00:00:{n:02d}Z")
    assert [r.run_id for r in recent(tmp_path)] == [f"r{n:02d}" for n in range(11, 1, -1)]
    assert len(recent(tmp_path, limit=12)) == 12


def _claims_run(state: Path, run_id: str, *, finished: bool) -> None:
    ledger = state / "runs" / run_id / "ledger.jsonl"
    with Ledger(ledger, run_id, anchors=None) as writer:
        writer.append("claims_run_started", {"run_id": run_id})
        for claim, verdict in (("K1", "accept"), ("K2", "reject"), ("K3", "accept")):
            writer.append("claim_verdict", {"claim_id": claim, "verdict": verdict})
        if finished:  # resumed once: the last session's verdict stands
            writer.append("claims_run_finished", {"verdict": "pass", "exit_code": 0})
            writer.append("claims_run_finished", {"verdict": "fail", "exit_code": 1})


def test_a_claims_run_is_indexed_as_such_and_left_out_of_the_stats(tmp_path: Path) -> None:
    _claims_run(tmp_path, "20261201-000001-aaaaaa", finished=True)
    _claims_run(tmp_path, "20261201-000002-bbbbbb", finished=False)
    refresh(tmp_path)
    rows = {r.run_id: r for r in recent(tmp_path)}
    done, open_ = rows["20261201-000001-aaaaaa"], rows["20261201-000002-bbbbbb"]
    assert (done.kind, done.verdict, done.exit_code, done.phase) == (
        "claims",
        "fail",
        1,
        "finished",
    )
    assert (done.attacks, done.unresolved, done.sessions, done.integrity) == (3, 1, 1, "intact")
    assert (open_.kind, open_.verdict, open_.exit_code, open_.phase) == (
        "claims",
        None,
        None,
        "unfinished",
    )
    assert done.started != "" and done.chain == "keyed"
    assert (done.key, done.families, done.tokens, done.cost) == ("", "", 0, 0.0)
    assert stats_rows(tmp_path).runs == []


def test_the_chain_says_whether_the_ledger_is_keyed_unkeyed_or_mixed(tmp_path: Path) -> None:
    plain, mixed = "20261201-000001-aaaaaa", "20261201-000002-bbbbbb"
    for run_id in (plain, mixed):
        path = tmp_path / "runs" / run_id / "ledger.jsonl"
        with Ledger(path, run_id, key=None, anchors=None) as writer:
            writer.append("claims_run_started", {"run_id": run_id})
    with Ledger.open(tmp_path / "runs" / mixed / "ledger.jsonl", mixed, anchors=None) as writer:
        writer.append("claim_verdict", {"claim_id": "K1", "verdict": "accept"})
    refresh(tmp_path)
    rows = {r.run_id: r for r in recent(tmp_path)}
    assert (rows[plain].chain, rows[plain].integrity) == ("unkeyed", "intact")
    assert (rows[mixed].chain, rows[mixed].integrity) == ("mixed", "intact")


def test_an_empty_ledger_has_no_start_time(tmp_path: Path) -> None:
    run_id = "20261201-000001-aaaaaa"
    ledger = tmp_path / "runs" / run_id / "ledger.jsonl"
    ledger.parent.mkdir(parents=True)
    ledger.write_text("")
    refresh(tmp_path)
    [row] = recent(tmp_path)
    assert (row.run_id, row.started) == (run_id, "")
