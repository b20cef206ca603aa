"""What `contend status` reads from the index (ledger/index.py), where the mutation run
(bench/mutation/) found it unguarded: one run's row looked up by its id, a reader that
never creates the user's ledger key, and the chain of an empty ledger."""

from __future__ import annotations

from pathlib import Path

from contend.ledger.index import recent, refresh, run_row
from contend.ledger.keys import key_path
from contend.ledger.store import Ledger

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
