"""What `contend status` reads from the index (ledger/index.py), where the mutation run
(bench/mutation/) found it unguarded: one run's row looked up by its id, a reader that
never creates the user's ledger key, the chain of an empty ledger, and an older ledger
without times."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from contend.cli.main import main
from contend.ledger.anchor import Anchors
from contend.ledger.entries import HEAD_FILE, encode_entry
from contend.ledger.index import recent, refresh, run_row, stats_rows
from contend.ledger.keys import key_path
from contend.ledger.slots import encode
from contend.ledger.store import Ledger
from test_ledger_mutation_index import reviewed_fallback

# These tests are about the run index, not about which static findings may block: the change
# they plant as the one that fails (a broad `except Exception: return None`) is a
# `swallowing-handler`, which the default earned policy lists as minor. They let static findings
# block at each rule's own severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


RUN = "20261201-000001-aaaaaa"
OTHER = "20261201-000002-bbbbbb"


def _claims_run(state: Path, run_id: str) -> None:
    path = state / "runs" / run_id / "ledger.jsonl"
    with Ledger(path, run_id, key=None, anchors=None) as writer:
        writer.append("claims_run_started", {"run_id": run_id})


def test_one_run_is_looked_up_by_its_id_and_an_unknown_id_is_none(tmp_path: Path) -> None:
    _claims_run(tmp_path, RUN)
    _claims_run(tmp_path, OTHER)
    refresh(tmp_path)
    rows = {r.run_id: r for r in recent(tmp_path)}
    assert run_row(tmp_path, RUN) == rows[RUN]
    assert run_row(tmp_path, OTHER) == rows[OTHER]
    assert run_row(tmp_path, "20261201-000003-cccccc") is None


def test_refreshing_the_index_never_creates_the_users_ledger_key(tmp_path: Path) -> None:
    """Reading is not writing: `contend status` on a machine without a key must not make
    one (the key is created by the first ledger written under it)."""
    _claims_run(tmp_path, RUN)
    assert not key_path().exists()
    refresh(tmp_path)
    assert not key_path().exists()
    [row] = recent(tmp_path)
    assert (row.run_id, row.chain, row.integrity) == (RUN, "unkeyed", "intact")


def test_an_empty_ledger_is_neither_keyed_nor_unkeyed(tmp_path: Path) -> None:
    ledger = tmp_path / "runs" / RUN / "ledger.jsonl"
    ledger.parent.mkdir(parents=True)
    ledger.write_text("")
    refresh(tmp_path)
    [row] = recent(tmp_path)
    assert (row.run_id, row.chain) == (RUN, "")


def _rechain_unkeyed(path: Path, entries: list[dict[str, Any]]) -> None:
    """The ledger as an older contend wrote it: an unkeyed sha256 chain and its head."""
    prev = "0" * 64
    lines = []
    for seq, entry in enumerate(entries):
        body = {k: v for k, v in entry.items() if k != "hash"}
        body.update(seq=seq, prev=prev, alg="sha256")
        line, prev = encode_entry(body)
        lines.append(line)
    path.write_bytes(b"".join(lines))
    head = {"seq": len(entries) - 1, "hash": prev, "alg": "sha256", "run": entries[0]["run"]}
    (path.parent / HEAD_FILE).write_bytes(encode(head))


def test_an_older_ledger_without_times_or_wall_time_is_indexed_with_neither(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entries without `ts` and a `run_finished` without `wall_s` (as ledgers written
    before those fields were): the row shows no start time and 0 s, the escape no time,
    not a made-up value."""
    state = reviewed_fallback(tmp_path, monkeypatch)
    [ledger] = (state / "runs").glob("*/ledger.jsonl")
    run_id = ledger.parent.name
    assert main(["escape", run_id, "--note", "None leaked"]) == 0
    entries = [orjson.loads(line) for line in ledger.read_bytes().splitlines()]
    assert any(e["kind"] == "run_finished" and "wall_s" in e["data"] for e in entries)
    for entry in entries:
        del entry["ts"]
        if entry["kind"] == "run_finished":
            del entry["data"]["wall_s"]
    _rechain_unkeyed(ledger, entries)
    Anchors.for_user().path(run_id).unlink()
    refresh(state)
    [row] = recent(state)
    assert (row.run_id, row.integrity, row.chain) == (run_id, "intact", "unkeyed")
    assert (row.started, row.wall_s, row.verdict) == ("", 0.0, "fail")
    [escape] = stats_rows(state).escapes[run_id]
    assert (escape.note, escape.ts) == ("None leaked", "")
