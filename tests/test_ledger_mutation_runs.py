"""Where runs live and how a user names one (ledger/runs.py), tested against its mutants
(issue 18): the run id's form, each way of naming a run, and the one clear line when the
name matches nothing."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from contend.errors import UserError
from contend.ledger.runs import LEDGER_FILE, list_runs, new_run_id, resolve_ledger, runs_dir


def _run(state_dir: Path, run_id: str) -> Path:
    ledger = state_dir / "runs" / run_id / "ledger.jsonl"
    ledger.parent.mkdir(parents=True)
    ledger.write_text("")
    return ledger


def test_a_run_id_is_the_utc_time_then_six_random_hex_digits() -> None:
    when = datetime(2026, 11, 30, 14, 25, 1, tzinfo=UTC)
    first, second = new_run_id(when), new_run_id(when)
    assert re.fullmatch(r"20261130-142501-[0-9a-f]{6}", first), first
    assert first != second  # unique by its suffix within one second
    assert re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{6}", new_run_id())


def test_runs_live_in_the_runs_folder_of_the_state_directory(tmp_path: Path) -> None:
    assert LEDGER_FILE == "ledger.jsonl"
    assert runs_dir(tmp_path) == tmp_path / "runs"


def test_a_run_is_named_by_its_ledger_its_directory_or_its_id(tmp_path: Path) -> None:
    ledger = _run(tmp_path, "20261130-142501-abcdef")
    assert resolve_ledger(str(ledger), None) == ledger
    assert resolve_ledger(str(ledger.parent), None) == ledger
    assert resolve_ledger("20261130-142501-abcdef", tmp_path) == ledger


def test_a_directory_without_a_ledger_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(UserError) as caught:
        resolve_ledger(str(tmp_path), tmp_path)
    assert str(caught.value) == f"{tmp_path} is a directory without a ledger.jsonl"


def test_an_unknown_run_names_where_it_was_looked_for(tmp_path: Path) -> None:
    _run(tmp_path, "20261130-142501-abcdef")
    with pytest.raises(UserError) as caught:
        resolve_ledger("nope", tmp_path)
    assert str(caught.value) == (
        f"no run 'nope' in {tmp_path / 'runs'}: give a run id, a run directory or a ledger file"
    )
    with pytest.raises(UserError) as without:
        resolve_ledger("nope", None)
    assert str(without.value) == ("no run 'nope': give a run id, a run directory or a ledger file")


def test_runs_are_listed_in_order_and_only_with_a_ledger(tmp_path: Path) -> None:
    assert list_runs(tmp_path) == []  # no runs folder yet
    later = _run(tmp_path, "20261130-142502-000000").parent
    earlier = _run(tmp_path, "20261130-142501-000000").parent
    (tmp_path / "runs" / "20261130-142503-000000").mkdir()  # no ledger: not a run
    assert list_runs(tmp_path) == [earlier, later]
