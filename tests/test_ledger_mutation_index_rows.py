"""What the run index shows (ledger/index_rows.py through ledger/index.py and `contend
status`) where the mutation run (bench/mutation/) found it unguarded (issue 18): a run
whose ledger verifies but that the protocol refuses is shown as unreadable; a run whose
artifact names no key shows no key and no branch; an escape whose person has no name
shows no name — never a made-up value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contend.cli.main import main
from contend.ledger.index import recent, refresh, stats_rows
from contend.ledger.store import Ledger
from review_helpers import make_repo

RUN = "20261201-000001-aaaaaa"


def _write_run(state: Path, events: list[tuple[str, dict[str, Any]]]) -> Path:
    """An unkeyed ledger of these events: it verifies whatever they say, so what the
    index shows of them is the fold's and the rows' doing, not the chain's."""
    path = state / "runs" / RUN / "ledger.jsonl"
    with Ledger(path, RUN, key=None, anchors=None) as writer:
        for kind, data in events:
            writer.append(kind, data)
    return path


def test_a_ledger_the_protocol_refuses_is_shown_as_unreadable_in_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The chain verifies, but an escape with an empty note is refused by the fold: the
    run is listed as UNREADABLE with the fold's reason, with no verdict, and `status`
    exits 1 on it as on any run that is not intact."""
    repo = make_repo(tmp_path)
    monkeypatch.chdir(repo)
    _write_run(
        repo / ".contend",
        [
            ("run_started", {"run_id": RUN, "artifact": {"kind": "change", "key": "feature"}}),
            ("escape_recorded", {"note": "  "}),
        ],
    )
    assert main(["status", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    [row] = data["runs"]
    assert (row["run_id"], row["integrity"], row["verdict"]) == (RUN, "unreadable", None)
    assert "the fold refuses it" in row["problem"]
    assert "escape_recorded at seq 1 has no note" in row["problem"]
    assert data["problems"] == [f"{RUN}: {row['problem']}"]
    assert main(["status"]) == 1
    [line] = [x for x in capsys.readouterr().out.splitlines() if x.startswith(RUN)]
    assert line.split()[:2] == [RUN, "UNREADABLE"]


def test_a_run_whose_artifact_names_no_key_shows_no_key_and_no_branch(tmp_path: Path) -> None:
    """`key` is optional in a run_started's artifact (a review of no branch): the row
    carries an empty key and branch, which `status` prints as nothing."""
    _write_run(tmp_path, [("run_started", {"run_id": RUN, "artifact": {"kind": "change"}})])
    refresh(tmp_path)
    [row] = recent(tmp_path)
    assert (row.run_id, row.integrity, row.phase) == (RUN, "intact", "unfinished")
    assert (row.key, row.branch) == ("", "")
    [counted] = stats_rows(tmp_path).runs
    assert (counted.key, counted.branch) == ("", "")


def test_an_escape_whose_person_has_no_name_is_shown_with_no_person(tmp_path: Path) -> None:
    """The fold checks an escape's note only: a person recorded without a name (only an
    email) leaves the escape row's person empty, as an escape with no person does."""
    _write_run(
        tmp_path,
        [
            ("run_started", {"run_id": RUN, "artifact": {"kind": "change", "key": "feature"}}),
            ("escape_recorded", {"note": "nameless", "person": {"email": "dana@example.org"}}),
            ("escape_recorded", {"note": "named", "person": {"name": "Dana"}}),
            ("escape_recorded", {"note": "nobody"}),
        ],
    )
    refresh(tmp_path)
    escapes = stats_rows(tmp_path).escapes[RUN]
    assert [(e.note, e.person) for e in escapes] == [
        ("nameless", ""),
        ("named", "Dana"),
        ("nobody", ""),
    ]
