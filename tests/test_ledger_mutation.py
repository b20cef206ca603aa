"""Ledger behaviour that the mutation run (bench/mutation/) found unguarded: the on-disk
format of `ledger.head` (files written by another contend version must still be read),
what `contend status --json` says about intact and tampered runs, and what `refresh`
reports it did."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import orjson
import pytest

from contend.cli.main import main
from contend.errors import LedgerKeyError
from contend.ledger.anchor import Anchor, Anchors, anchor_dir
from contend.ledger.index import INDEX_FILE, recent, refresh, verdict_counts
from contend.ledger.keys import LedgerKey
from contend.ledger.slots import read_newest
from contend.ledger.store import HEAD_FILE, Ledger, read_head
from contend.ledger.verify import verify
from review_helpers import make_repo

# These tests are about the ledger and the status index, not about which static findings may block:
# the change they plant as the one that fails (a broad `except Exception: return 0`) is a
# `swallowing-handler`, which the default earned policy lists as minor. They let static findings
# block at each rule's own severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


FALLBACK = "def f(g):\n    try:\n        return g()\n    except Exception:\n        return None\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose uncommitted change a review fails (a silent fallback)."""
    path = make_repo(
        tmp_path,
        base={"m.py": "def f(g):\n    return g()\n"},
        change={"m.py": FALLBACK},
        commit_change=False,
    )
    monkeypatch.chdir(path)
    return path


def slot_record(record: dict[str, object]) -> bytes:
    """One slot as docs and slots.py define it: sorted compact JSON with a 16-hex sha256
    check appended, padded with spaces to 4095 bytes and a newline."""
    body = orjson.dumps(record, option=orjson.OPT_SORT_KEYS)
    check = hashlib.sha256(body).hexdigest()[:16]
    signed = body[:-1] + b',"check":"' + check.encode() + b'"}'
    return signed.ljust(4095, b" ") + b"\n"


def test_a_head_file_of_two_4k_slots_is_read_at_its_newest_record(tmp_path: Path) -> None:
    """The slot size is a file format: a head written by another version (or by this one
    before a restart) is two 4096-byte slots, and the newest whole record wins."""
    path = tmp_path / HEAD_FILE
    older = {"seq": 3, "hash": "a" * 64, "alg": "sha256"}
    newer = {"seq": 4, "hash": "b" * 64, "alg": "sha256"}
    path.write_bytes(slot_record(older) + slot_record(newer))
    assert read_newest(path) == (newer, 1)
    path.write_bytes(slot_record(newer) + slot_record(older))
    assert read_newest(path) == (newer, 0)
    head = read_head(tmp_path / "ledger.jsonl")
    assert head is not None and (head.seq, head.hash) == (4, "b" * 64)


def test_the_writer_lays_the_head_out_in_4k_slots(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    with Ledger(path, "run-1", key=None, anchors=None) as ledger:
        ledger.append("agent_call", {"i": 0})
        assert (tmp_path / HEAD_FILE).stat().st_size == 4096
        ledger.append("agent_call", {"i": 1})
    raw = (tmp_path / HEAD_FILE).read_bytes()
    assert len(raw) == 8192
    assert json.loads(raw[4096:].strip())["seq"] == 1


def test_an_intact_ledger_is_not_called_something_else(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    with Ledger(path, "run-1", key=None, anchors=None) as ledger:
        ledger.append("agent_call", {"i": 0})
    result = verify(path, key=None, anchors=None)
    assert result.ok and not result.not_a_ledger


def test_status_json_names_no_problem_for_an_intact_run_and_no_chain_for_a_tampered_one(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["review", "-q", "--format", "json"]) == 1
    capsys.readouterr()
    assert main(["status", "--json"]) == 0
    [run] = json.loads(capsys.readouterr().out)["runs"]
    assert (run["integrity"], run["problem"], run["chain"]) == ("intact", "", "keyed")
    [run_dir] = list((repo / ".contend" / "runs").iterdir())
    ledger = run_dir / "ledger.jsonl"
    ledger.write_bytes(ledger.read_bytes().replace(b'"alg":"hmac', b'"alg": "hmac', 1))
    assert main(["status", "--json"]) == 1
    [run] = json.loads(capsys.readouterr().out)["runs"]
    assert run["integrity"] == "tampered" and "line 1:" in run["problem"]
    assert run["chain"] == "" and run["verdict"] is None


def test_refresh_counts_every_run_it_indexed_and_only_those_it_read_again(
    repo: Path,
) -> None:
    assert main(["review", "-q", "--format", "json"]) == 1
    state = repo / ".contend"
    first = refresh(state)
    assert (first.indexed, first.reread, first.problems) == (1, 1, [])
    again = refresh(state)
    assert (again.indexed, again.reread, again.problems) == (1, 0, [])


def test_an_empty_anchor_dir_setting_is_refused_not_taken_for_the_working_directory() -> None:
    """`Path("")` is the current directory — the repository under review, which the anchors
    must stay out of."""
    with pytest.raises(LedgerKeyError, match="set but empty"):
        anchor_dir({"CONTEND_ANCHOR_DIR": "", "HOME": "/home/someone"})
    assert anchor_dir({"CONTEND_ANCHOR_DIR": "/x/anchors", "HOME": "/h"}) == Path("/x/anchors")


def test_an_anchor_in_the_documented_format_is_read_back_whole(tmp_path: Path) -> None:
    anchors = Anchors(tmp_path / "anchors")
    anchor = Anchor("run-1", "/r/ledger.jsonl", 4, "b" * 64, "hmac-sha256", "a" * 64, kid="k1")
    writer = anchors.writer("run-1")
    writer.write(anchor.to_record(), sync=True)
    writer.close()
    assert anchors.read("run-1") == anchor
    # One written by another version: the schema name is the format's, not this module's.
    record = {**anchor.to_record(), "schema": "contend.anchor/v1", "seq": 5}
    anchors.path("run-1").write_bytes(slot_record(record))
    read = anchors.read("run-1")
    assert read is not None and (read.seq, read.kid) == (5, "k1")


def test_an_index_of_an_older_schema_is_rebuilt_not_read(repo: Path) -> None:
    assert main(["review", "-q", "--format", "json"]) == 1
    state = repo / ".contend"
    state.mkdir(exist_ok=True)
    with closing(sqlite3.connect(state / INDEX_FILE)) as db, db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('schema', '1')")
        db.execute("CREATE TABLE runs (run_id TEXT PRIMARY KEY, verdict TEXT)")
        db.execute("INSERT INTO runs VALUES ('old-run', 'pass')")
    refreshed = refresh(state)
    assert (refreshed.indexed, refreshed.reread, refreshed.problems) == (1, 1, [])
    assert [r.verdict for r in recent(state)] == ["fail"]


def test_a_chain_that_verifies_but_that_the_fold_refuses_is_unreadable(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = repo / ".contend"
    run_dir = state / "runs" / "20260101-000000-abcdef"
    run_dir.mkdir(parents=True)
    with Ledger(run_dir / "ledger.jsonl", run_dir.name, key=None, anchors=None) as ledger:
        ledger.append("no_such_event_kind", {"x": 1})
    refreshed = refresh(state)
    assert len(refreshed.problems) == 1 and "the fold refuses it" in refreshed.problems[0]
    [row] = recent(state)
    assert (row.integrity, row.verdict) == ("unreadable", None)
    assert verdict_counts(state) == {"unreadable": 1}
    capsys.readouterr()
    assert main(["status"]) == 1
    assert f"{run_dir.name}  UNREADABLE" in capsys.readouterr().out


def test_another_key_is_suggested_only_for_a_mac_mismatch_not_for_an_edit(
    tmp_path: Path,
) -> None:
    """Verified with another key than the writer's, a ledger whose first line was also
    re-spaced is tampered with — and nothing points at the key instead."""
    writer_key = LedgerKey(tmp_path / "a.key", b"a" * 32)
    reader_key = LedgerKey(tmp_path / "b.key", b"b" * 32)
    path = tmp_path / "ledger.jsonl"
    with Ledger(path, "run-1", key=writer_key, anchors=None) as ledger:
        ledger.append("agent_call", {"i": 0})
        ledger.checkpoint()
    other = verify(path, key=reader_key, anchors=None)
    assert not other.ok and f"names key id {writer_key.kid}" in other.message
    path.write_bytes(path.read_bytes().replace(b'"alg":"hmac', b'"alg": "hmac', 1))
    edited = verify(path, key=reader_key, anchors=None)
    assert not edited.ok and edited.first_bad_line == 1
    assert "names key id" not in edited.message


def write_ledger(path: Path, n: int = 3) -> None:
    with Ledger(path, "run-1", key=None, anchors=None) as ledger:
        for i in range(n):
            ledger.append("agent_call", {"i": i})


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "not a contend ledger: it is empty"),
        (b"myhost", "not a contend ledger: line 1 is not a ledger entry"),
        (b"myhost\n", "not a contend ledger: line 1 is not valid JSON"),
    ],
)
def test_a_file_that_is_not_a_ledger_says_exactly_why(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "hostname"
    path.write_bytes(content)
    result = verify(path, key=None, anchors=None)
    assert not result.ok and result.not_a_ledger
    assert result.message == f"{path}: {message}"


def test_bytes_after_the_last_entry_are_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    write_ledger(path)
    with path.open("ab") as fh:
        fh.write(b"garbage")
    result = verify(path, key=None, anchors=None)
    assert not result.ok and not result.not_a_ledger and result.first_bad_line == 4
    assert result.message == (
        f"{path}: line 4: not the beginning of a ledger entry (bytes appended after the last entry)"
    )


def test_verify_keeps_the_entries_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    write_ledger(path)
    assert verify(path, key=None, anchors=None).entries == []
    kept = verify(path, key=None, anchors=None, keep_entries=True).entries
    assert [e["data"] for e in kept] == [{"i": 0}, {"i": 1}, {"i": 2}]


def test_the_intact_message_mentions_a_torn_line_only_when_there_is_one(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    write_ledger(path)
    assert verify(path, key=None, anchors=None).message == f"{path}: 3 entries intact"
    with path.open("ab") as fh:
        fh.write(b'{"alg":"sha')
    torn = verify(path, key=None, anchors=None)
    assert torn.ok and torn.torn_line == 4
    assert torn.message.startswith(f"{path}: 3 entries intact; line 4 is torn (a crash")


def test_a_mac_mismatch_under_the_writers_own_key_points_at_no_other_key(tmp_path: Path) -> None:
    key = LedgerKey(tmp_path / "a.key", b"a" * 32)
    path = tmp_path / "ledger.jsonl"
    with Ledger(path, "run-1", key=key, anchors=None) as ledger:
        ledger.append("agent_call", {"i": 0})
        ledger.append("agent_call", {"i": 1})
        ledger.checkpoint()
    # The value edited, the line still canonical: only the MAC can tell.
    path.write_bytes(path.read_bytes().replace(b'{"i":1}', b'{"i":7}', 1))
    result = verify(path, key=key, anchors=None)
    assert not result.ok and result.first_bad_line == 2
    assert result.message == (
        f"{path}: line 2: MAC mismatch: the line was edited or forged (or written with another "
        f"ledger key than {key.path})"
    )


def test_an_edited_unkeyed_line_is_named_with_nothing_appended(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    write_ledger(path)
    path.write_bytes(path.read_bytes().replace(b'{"i":1}', b'{"i":7}', 1))
    result = verify(path, key=None, anchors=None)
    assert result.message == f"{path}: line 2: hash mismatch (the line was edited)"


def test_a_cut_tail_is_named_cut_mid_line_or_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    with Ledger(path, "run-1", key=None, anchors=None) as ledger:
        for i in range(4):
            ledger.append("agent_call", {"i": i})
        ledger.checkpoint()
    whole = path.read_bytes()
    lines = whole.splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:3]) + lines[3][:20])
    mid_line = verify(path, key=None, anchors=None)
    assert not mid_line.ok and mid_line.torn_line is None
    assert mid_line.message == (
        f"{path}: line 4: truncated mid-line: ledger.head records entry 4 as acknowledged, "
        "but only 3 entries are whole (cut, not torn by a crash)"
    )
    path.write_bytes(b"".join(lines[:2]))
    cut = verify(path, key=None, anchors=None)
    assert cut.message == (
        f"{path}: line 3: truncated: ledger.head records entry 4 as acknowledged, but the "
        "ledger holds only 2 (whole lines were cut from the end)"
    )


def test_a_head_of_another_run_is_refused_even_naming_the_right_entry(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    write_ledger(path)
    head = read_head(path)
    assert head is not None and head.run == "run-1"
    record = {**head.to_record(), "run": "run-2"}
    (tmp_path / HEAD_FILE).write_bytes(slot_record(record))
    result = verify(path, key=None, anchors=None)
    assert not result.ok
    expected = "after line 3: ledger.head is the head of run run-2, not of run-1"
    assert result.message == f"{path}: {expected}"


def test_a_deleted_head_with_an_anchor_is_named_after_the_last_line(tmp_path: Path) -> None:
    anchors = Anchors(tmp_path / "anchors")
    path = tmp_path / "run" / "ledger.jsonl"
    with Ledger(path, "run-1", key=None, anchors=anchors) as ledger:
        ledger.append("agent_call", {"i": 0})
        ledger.checkpoint()
    (path.parent / HEAD_FILE).unlink()
    result = verify(path, key=None, anchors=anchors)
    assert not result.ok and result.first_bad_line == 2
    assert result.message.startswith(f"{path}: after line 1: ledger.head is missing, but the")


def test_without_an_anchor_directory_the_result_says_the_anchor_was_not_compared(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ledger.jsonl"
    write_ledger(path)
    result = verify(path, key=None, anchors=None)
    assert result.ok and not result.strict_ok
    assert "no anchor directory: the head was not compared to an anchor" in result.unchecked


def test_a_head_naming_an_earlier_entry_with_another_hash_is_tampering(tmp_path: Path) -> None:
    """The entry ledger.head acknowledged was replaced: the head names entry 2 (not the
    last), and its hash is not entry 2's."""
    path = tmp_path / "ledger.jsonl"
    write_ledger(path)
    record = {"seq": 1, "hash": "f" * 64, "alg": "sha256", "run": "run-1"}
    (tmp_path / HEAD_FILE).write_bytes(slot_record(record))
    result = verify(path, key=None, anchors=None)
    assert not result.ok and result.first_bad_line == 2
    assert result.message == (
        f"{path}: line 2: does not match ledger.head (the entry ledger.head acknowledged was "
        "replaced)"
    )


def test_an_anchor_directory_without_the_runs_anchor_says_so(tmp_path: Path) -> None:
    anchors = Anchors(tmp_path / "anchors")
    path = tmp_path / "ledger.jsonl"
    write_ledger(path)
    result = verify(path, key=None, anchors=anchors)
    assert result.ok and not result.strict_ok
    assert any(u.startswith("no anchor for run run-1 in ") for u in result.unchecked)
