"""A person's answer between reviews (review/respond.py) rewrites the run's reports: the wall
time they show is the last review session's own, recorded in the ledger, and none when the
ledger records no finished session (one that was cut short, or a `run_finished` written
without a wall time). Written where the mutation run (bench/mutation/) found it unguarded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contend.config import load_settings
from contend.ledger.store import Ledger
from contend.protocol.model import Action
from contend.review.respond import answer, answer_in_run
from test_review_mutation_verdict import _fallback_run

pytestmark = pytest.mark.usefixtures("static_blocking_rule")


def _report(repo: Path, run_id: str) -> dict[str, Any]:
    report = repo / ".contend" / "runs" / run_id / "report.json"
    data: dict[str, Any] = json.loads(report.read_text())
    return data


def _append(repo: Path, run_id: str, *events: tuple[str, dict[str, Any]]) -> None:
    path = repo / ".contend" / "runs" / run_id / "ledger.jsonl"
    with Ledger.open(path, run_id) as ledger:
        ledger.append_many(events)


def test_an_answer_keeps_the_wall_time_of_the_review_session_in_the_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, data = _fallback_run(tmp_path, monkeypatch, capsys)
    run_id = data["run_id"]
    _append(repo, run_id, ("run_started", {"run_id": run_id}))
    _append(repo, run_id, ("run_finished", {"verdict": "fail", "wall_s": 12.5}))
    answer(repo, load_settings(repo), data["disputes"][0]["id"], Action.DEFEND, text="logged")
    assert _report(repo, run_id)["stats"]["wall_time_s"] == 12.5


def test_an_answer_in_a_run_whose_last_session_never_finished_shows_no_wall_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, data = _fallback_run(tmp_path, monkeypatch, capsys)
    run_id = data["run_id"]
    # A second review session that was cut short: started, never finished.
    _append(repo, run_id, ("run_started", {"run_id": run_id}))
    done = answer(repo, load_settings(repo), data["disputes"][0]["id"], Action.DEFEND, text="ok")
    assert str(done.outcome.verdict) == "fail"
    assert _report(repo, run_id)["stats"]["wall_time_s"] == 0.0


def test_an_answer_after_a_session_finished_without_a_wall_time_shows_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, data = _fallback_run(tmp_path, monkeypatch, capsys)
    run_id = data["run_id"]
    _append(repo, run_id, ("run_started", {"run_id": run_id}))
    _append(repo, run_id, ("run_finished", {"verdict": "fail"}))
    state_dir = repo / ".contend"
    attack = data["disputes"][0]["id"]
    done = answer_in_run(
        state_dir, run_id, repo, load_settings(repo), attack, Action.CONCEDE, text="fair"
    )
    assert done.status == "conceded"
    assert _report(repo, run_id)["stats"]["wall_time_s"] == 0.0
