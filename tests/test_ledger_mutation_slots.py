"""`ledger.head` and the anchors on disk, where the mutation run (bench/mutation/) found them
unguarded: the two-slot file format as another contend version (or a crash) leaves it, the
writer keeping the older record whole while it writes the newer, its descriptor, and the
anchors' directory, file names and records."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from contend.cli.main import main
from contend.errors import LedgerCorrupt, LedgerKeyError
from contend.ledger.anchor import Anchor, Anchors, anchor_dir
from contend.ledger.slots import SLOT, SlotWriter, encode, read_newest
from contend.ledger.store import HEAD_FILE, Ledger
from contend.ledger.verify import verify

RUN = "20261201-010000-abc123"


def slot(record: dict[str, Any], *, check: bool = True) -> bytes:
    """One slot as docs and slots.py define it: sorted compact JSON with a 16-hex sha256
    check appended, padded with spaces to 4095 bytes and a newline."""
    body = orjson.dumps(record, option=orjson.OPT_SORT_KEYS)
    if check:
        body = body[:-1] + b',"check":"' + hashlib.sha256(body).hexdigest()[:16].encode() + b'"}'
    return body.ljust(SLOT - 1, b" ") + b"\n"


OLD = {"seq": 3, "hash": "a" * 64, "alg": "sha256"}
NEW = {"seq": 4, "hash": "b" * 64, "alg": "sha256"}


# --- reading ---------------------------------------------------------------------------------


def test_a_head_of_one_unslotted_line_without_a_check_is_read(tmp_path: Path) -> None:
    """A head written as one JSON line, without slots or check (as before slots existed),
    is still a head."""
    path = tmp_path / HEAD_FILE
    path.write_bytes(orjson.dumps(NEW, option=orjson.OPT_SORT_KEYS) + b"\n")
    assert read_newest(path) == (NEW, 0)


def test_a_slot_whose_check_does_not_match_is_torn_and_the_other_is_taken(tmp_path: Path) -> None:
    path = tmp_path / HEAD_FILE
    torn = slot(NEW).replace(b'"seq":4', b'"seq":9')
    path.write_bytes(slot(OLD) + torn)
    assert read_newest(path) == (OLD, 0)


def test_a_slot_of_zeros_or_of_json_that_is_no_record_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / HEAD_FILE
    path.write_bytes(b"\0" * SLOT + slot(OLD))
    assert read_newest(path) == (OLD, 1)
    path.write_bytes(b"[4, 5]".ljust(SLOT - 1) + b"\n" + slot(OLD))
    assert read_newest(path) == (OLD, 1)
    path.write_bytes(slot(OLD) + b'{"seq": 4, "hash'.ljust(SLOT - 1) + b"\n")
    assert read_newest(path) == (OLD, 0)


def test_a_head_file_of_zeros_is_no_head_but_one_of_garbage_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / HEAD_FILE
    assert read_newest(path) == (None, -1)
    path.write_bytes(b"\0" * (2 * SLOT))
    assert read_newest(path) == (None, -1)
    path.write_bytes(b"\0" * SLOT + b"garbage".ljust(SLOT - 1) + b"\n")
    with pytest.raises(LedgerCorrupt, match="holds no whole record"):
        read_newest(path)


@pytest.mark.parametrize("byte", [b"X", b" ", b"\xff", b"\n"])
def test_a_head_overwritten_with_any_byte_but_nul_is_corrupt(tmp_path: Path, byte: bytes) -> None:
    path = tmp_path / HEAD_FILE
    path.write_bytes(byte * (2 * SLOT))
    with pytest.raises(LedgerCorrupt, match="holds no whole record"):
        read_newest(path)


def test_a_head_that_cannot_be_read_is_corrupt_not_missing(tmp_path: Path) -> None:
    path = tmp_path / HEAD_FILE
    path.mkdir()
    with pytest.raises(LedgerCorrupt, match=f"{path} cannot be read"):
        read_newest(path)


def test_the_newest_record_wins_whatever_its_slot_and_a_record_without_seq_loses(
    tmp_path: Path,
) -> None:
    path = tmp_path / HEAD_FILE
    path.write_bytes(slot(NEW) + slot(OLD))
    assert read_newest(path) == (NEW, 0)
    no_seq = {"hash": "c" * 64, "alg": "sha256"}
    path.write_bytes(slot(NEW) + slot(no_seq))
    assert read_newest(path) == (NEW, 0)
    path.write_bytes(slot(no_seq) + slot(OLD))
    assert read_newest(path) == (OLD, 1)
    path.write_bytes(slot({**OLD, "seq": 0}) + slot(no_seq))
    assert read_newest(path)[0] == {**OLD, "seq": 0}
    path.write_bytes(slot(no_seq) + slot({**OLD, "seq": 0}))
    assert read_newest(path) == ({**OLD, "seq": 0}, 1)


# --- writing ---------------------------------------------------------------------------------


def test_a_record_fills_exactly_one_slot_and_one_too_large_is_refused() -> None:
    record = {"seq": 1, "pad": ""}
    overhead = len(encode(record).rstrip())
    fits = {"seq": 1, "pad": "x" * (SLOT - 1 - overhead)}
    raw = encode(fits)
    assert len(raw) == SLOT and raw.endswith(b'"}\n')
    with pytest.raises(ValueError, match="does not fit a 4096-byte slot"):
        encode({"seq": 1, "pad": "x" * (SLOT - overhead)})


def test_a_reopened_writer_writes_the_slot_that_does_not_hold_the_newest_record(
    tmp_path: Path,
) -> None:
    """A write torn by a crash must leave the newest whole record in the other slot."""
    for newest_first in (True, False):
        path = tmp_path / f"{newest_first}.head"
        path.write_bytes(slot(NEW) + slot(OLD) if newest_first else slot(OLD) + slot(NEW))
        writer = SlotWriter(path)
        newer = {"seq": 5, "hash": "c" * 64, "alg": "sha256"}
        writer.write(newer, sync=False)
        writer.close()
        raw = path.read_bytes()
        kept, written = (raw[:SLOT], raw[SLOT:]) if newest_first else (raw[SLOT:], raw[:SLOT])
        assert kept == slot(NEW) and written == encode(newer)
        assert read_newest(path)[0] == newer


def test_a_new_writer_starts_at_the_first_slot_and_alternates(tmp_path: Path) -> None:
    path = tmp_path / "new.head"
    writer = SlotWriter(path)
    for seq in range(3):
        writer.write({"seq": seq}, sync=seq == 2)
    writer.close()
    raw = path.read_bytes()
    assert raw == encode({"seq": 2}) + encode({"seq": 1})


def test_the_head_file_is_created_readable_and_never_executable(tmp_path: Path) -> None:
    """rw-r--r-- under the user's umask, as `ls -l` shows a plain data file."""
    old = os.umask(0o022)
    try:
        path = tmp_path / "run" / "ledger.jsonl"
        with Ledger(path, RUN, key=None, anchors=None) as ledger:
            ledger.append("run_started", {"run_id": RUN})
    finally:
        os.umask(old)
    assert (path.parent / HEAD_FILE).stat().st_mode & 0o777 == 0o644


def test_closing_a_writer_twice_closes_nobody_elses_descriptor(tmp_path: Path) -> None:
    # Descriptor 0 open on a file of the test's own, whatever the runner left there.
    saved = os.dup(0)
    stdin = os.open(tmp_path / "stdin", os.O_RDWR | os.O_CREAT, 0o600)
    os.dup2(stdin, 0)
    os.close(stdin)
    try:
        writer = SlotWriter(tmp_path / "a.head")
        writer.write({"seq": 0}, sync=False)
        writer.close()
        # The descriptor number just freed is handed to the next file opened.
        other = os.open(tmp_path / "other", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            writer.close()
            assert os.write(other, b"still mine") == 10
            assert os.fstat(0).st_ino == (tmp_path / "stdin").stat().st_ino
        finally:
            os.close(other)
    finally:
        os.dup2(saved, 0)
        os.close(saved)


def test_a_writer_given_descriptor_0_releases_it(tmp_path: Path) -> None:
    """A process started with stdin closed (a daemon, a hook) gets descriptor 0 for the
    first file it opens: closing the writer must release it like any other."""
    saved = os.dup(0)
    try:
        os.close(0)
        writer = SlotWriter(tmp_path / "a.head")
        writer.write({"seq": 0}, sync=False)
        writer.close()
        with pytest.raises(OSError):
            os.fstat(0)
    finally:
        os.dup2(saved, 0)
        os.close(saved)
    assert read_newest(tmp_path / "a.head") == ({"seq": 0}, 0)


# --- the anchors -----------------------------------------------------------------------------


def test_the_anchor_directory_follows_xdg_state_home_else_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    home = str(tmp_path / "h")
    assert anchor_dir({"HOME": home}) == tmp_path / "h" / ".local" / "state" / "contend" / "anchors"
    state = str(tmp_path / "state")
    assert anchor_dir({"XDG_STATE_HOME": state, "HOME": home}) == (
        tmp_path / "state" / "contend" / "anchors"
    )
    # A relative XDG_STATE_HOME is invalid (XDG spec) and ignored, not resolved against the
    # working directory (the repository under review).
    assert anchor_dir({"XDG_STATE_HOME": "rel/state", "HOME": home}) == (
        tmp_path / "h" / ".local" / "state" / "contend" / "anchors"
    )
    assert anchor_dir({"CONTEND_ANCHOR_DIR": "~/a", "HOME": home}) == tmp_path / "h" / "a"


def test_without_home_the_anchors_cannot_be_placed_and_the_user_is_told_what_to_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run" / "ledger.jsonl"
    with Ledger(path, RUN, key=None) as ledger:
        ledger.append("run_started", {"run_id": RUN})
    monkeypatch.delenv("HOME")
    monkeypatch.setenv("CONTEND_KEY_FILE", str(tmp_path / "ledger.key"))
    capsys.readouterr()
    assert main(["ledger", "verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert "cannot place ledger anchors: HOME is unset; set CONTEND_ANCHOR_DIR" in err
    assert "Traceback" not in err
    with pytest.raises(LedgerKeyError, match="HOME is unset"):
        anchor_dir({"XDG_STATE_HOME": "relative"})


def test_a_run_id_that_is_no_safe_file_name_is_anchored_under_its_hash(tmp_path: Path) -> None:
    anchors = Anchors(tmp_path / "anchors")
    assert anchors.path(RUN) == tmp_path / "anchors" / f"{RUN}.json"
    for run in ("../../escape", "a/b", ".hidden", "x" * 102, ""):
        name = hashlib.sha256(run.encode()).hexdigest()
        assert anchors.path(run) == tmp_path / "anchors" / f"{name}.json"
    assert anchors.path("x" * 101) == tmp_path / "anchors" / f"{'x' * 101}.json"
    assert anchors.path("A1._-z") == tmp_path / "anchors" / "A1._-z.json"


def test_the_anchor_record_on_disk_has_the_documented_fields(tmp_path: Path) -> None:
    anchors = Anchors(tmp_path / "state" / "anchors")
    anchor = Anchor(RUN, "/r/ledger.jsonl", 4, "b" * 64, "sha256", "a" * 64)
    old = os.umask(0o022)
    try:
        writer = anchors.writer(RUN)
    finally:
        os.umask(old)
    writer.write(anchor.to_record(), sync=True)
    writer.close()
    # Private to the user, whatever their umask lets others see of other files.
    assert (tmp_path / "state" / "anchors").stat().st_mode & 0o777 == 0o700
    record, _ = read_newest(anchors.path(RUN))
    assert record == {
        "schema": "contend.anchor/v1",
        "run": RUN,
        "ledger": "/r/ledger.jsonl",
        "seq": 4,
        "hash": "b" * 64,
        "alg": "sha256",
        "genesis": "a" * 64,
        "kid": None,
    }
    assert anchors.read(RUN) == anchor


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"seq": "four"}, "unreadable (ValueError"),
        ({"seq": None}, "unreadable (TypeError"),
        ({"genesis": None, "drop": "genesis"}, "unreadable (KeyError"),
        ({"schema": "contend.anchor/v2"}, f"is not the anchor of run {RUN}"),
        ({"run": "another-run"}, f"is not the anchor of run {RUN}"),
    ],
)
def test_an_anchor_that_is_not_this_runs_whole_anchor_is_corrupt(
    tmp_path: Path, change: dict[str, Any], problem: str
) -> None:
    anchors = Anchors(tmp_path / "anchors")
    anchors.root.mkdir()
    record = Anchor(RUN, "/r/ledger.jsonl", 4, "b" * 64, "sha256", "a" * 64).to_record()
    record.update({k: v for k, v in change.items() if k != "drop"})
    if "drop" in change:
        del record[change["drop"]]
    anchors.path(RUN).write_bytes(slot(record))
    with pytest.raises(LedgerCorrupt, match=f"the anchor {anchors.path(RUN)} "):
        anchors.read(RUN)
    with pytest.raises(LedgerCorrupt) as caught:
        anchors.read(RUN)
    assert problem in str(caught.value)


def test_a_run_verified_against_a_corrupt_anchor_is_not_intact(tmp_path: Path) -> None:
    anchors = Anchors(tmp_path / "anchors")
    path = tmp_path / "run" / "ledger.jsonl"
    with Ledger(path, RUN, key=None, anchors=anchors) as ledger:
        ledger.append("run_started", {"run_id": RUN})
        ledger.checkpoint()
    assert verify(path, key=None, anchors=anchors).ok
    record = read_newest(anchors.path(RUN))[0]
    assert record is not None
    anchors.path(RUN).write_bytes(slot({**record, "run": "another-run"}))
    result = verify(path, key=None, anchors=anchors)
    assert not result.ok and "is not the anchor of run" in result.message


def test_a_run_racing_another_to_create_the_anchor_directory_still_anchors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs start at once: both see no anchor directory, the other creates it first.
    This one must still get its anchor writer, not fail on the directory now there."""
    anchors = Anchors(tmp_path / "state" / "anchors")
    real_exists = Path.exists
    created_by_the_other = False

    def exists(self: Path) -> bool:
        nonlocal created_by_the_other
        if self == anchors.root and not created_by_the_other:
            created_by_the_other = True
            self.mkdir(mode=0o700, parents=True)
            return False  # as this run saw it, just before the other created it
        return real_exists(self)

    monkeypatch.setattr(type(anchors.root), "exists", exists)
    writer = anchors.writer(RUN)
    monkeypatch.undo()
    writer.write(Anchor(RUN, "/r/l", 0, "b" * 64, "sha256", "b" * 64).to_record(), sync=False)
    writer.close()
    assert created_by_the_other
    read = anchors.read(RUN)
    assert read is not None and read.seq == 0
