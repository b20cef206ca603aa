"""Ledger verification and reopening, second pass of the mutation run (issue 18): what a
failed verification keeps of the good prefix, which file it names, and what `Ledger.open`
leaves on disk — checked on the result and the bytes, not on the lines that compute them."""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

import orjson
import pytest

from contend.errors import LedgerCorrupt
from contend.ledger.anchor import Anchors
from contend.ledger.store import HEAD_FILE, Ledger, canonical, read_head
from contend.ledger.verify import verify

RUN = "run-1"


def write(path: Path, n: int = 3, *, anchors: Anchors | None = None) -> list[bytes]:
    with Ledger(path, RUN, key=None, anchors=anchors) as ledger:
        for i in range(n):
            ledger.append("agent_call", {"i": i})
        ledger.checkpoint()
    return path.read_bytes().splitlines(keepends=True)


def head_record(seq: int, hash_: str) -> bytes:
    return canonical({"seq": seq, "hash": hash_, "alg": "sha256", "run": RUN}) + b"\n"


def test_a_failed_verification_keeps_exactly_the_entries_before_the_bad_line(
    tmp_path: Path,
) -> None:
    """The head names entry 3 with a hash that is not entry 3's: line 3 is bad, and what
    the result keeps is lines 1–2 — their count, their bytes and the last one's hash (the
    point a reader of the result would resume from), not the whole file."""
    path = tmp_path / "ledger.jsonl"
    lines = write(path, 4)
    (tmp_path / HEAD_FILE).write_bytes(head_record(2, "f" * 64))
    result = verify(path, key=None, anchors=None, keep_entries=True)
    assert not result.ok and result.first_bad_line == 3
    assert result.count == 2
    assert result.good_bytes == len(lines[0]) + len(lines[1])
    assert result.last_hash == orjson.loads(lines[1])["hash"]
    assert [e["seq"] for e in result.entries] == [0, 1]


@pytest.mark.parametrize("content", [b"", b"myhost", b"myhost\n"])
def test_a_file_that_is_not_a_ledger_has_no_entry_and_fails_at_line_1(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "hostname"
    path.write_bytes(content)
    result = verify(path, key=None, anchors=None)
    assert (result.ok, result.not_a_ledger) == (False, True)
    assert (result.count, result.first_bad_line, result.good_bytes) == (0, 1, 0)


def test_an_anchor_mismatch_names_the_anchor_file(tmp_path: Path) -> None:
    """A history re-written from its first line under the same run id: refused at line 1,
    and the message names the anchor file it was compared with (where to look)."""
    anchors = Anchors(tmp_path / "anchors")
    path = tmp_path / "run" / "ledger.jsonl"
    write(path, anchors=anchors)
    genuine_anchor = anchors.path(RUN).read_bytes()
    path.unlink()
    (path.parent / HEAD_FILE).unlink()
    anchors.path(RUN).unlink()
    write(path)  # another history, written without an anchor
    anchors.path(RUN).write_bytes(genuine_anchor)
    result = verify(path, key=None, anchors=anchors)
    assert not result.ok and result.first_bad_line == 1
    assert result.message == (
        f"{path}: line 1: is not the first entry anchored for run {RUN} "
        f"({anchors.path(RUN)}): the history was rewritten from its start"
    )


def test_a_replaced_last_entry_with_a_matching_forged_head_is_caught_by_the_anchor(
    tmp_path: Path,
) -> None:
    """The last entry edited and re-hashed (anyone can recompute sha256) and `ledger.head`
    rewritten to match: only the anchor, outside the run directory, still knows the
    acknowledged hash of entry 3."""
    anchors = Anchors(tmp_path / "anchors")
    path = tmp_path / "run" / "ledger.jsonl"
    lines = write(path, anchors=anchors)
    last = orjson.loads(lines[2])
    body = {k: v for k, v in last.items() if k != "hash"}
    body["data"] = {"i": 99}
    raw = canonical(body)
    forged_hash = hashlib.sha256(raw).hexdigest()
    path.write_bytes(lines[0] + lines[1] + raw[:-1] + b',"hash":"' + forged_hash.encode() + b'"}\n')
    (path.parent / HEAD_FILE).write_bytes(head_record(2, forged_hash))
    assert verify(path, key=None, anchors=None).ok  # the head alone is fooled
    result = verify(path, key=None, anchors=anchors)
    assert not result.ok and result.first_bad_line == 3
    assert result.message == (
        f"{path}: line 3: does not match the anchor {anchors.path(RUN)} (the acknowledged "
        "entry was replaced)"
    )


def chained_line(body: dict[str, object]) -> bytes:
    """`body` as an unkeyed ledger line, its sha256 recomputed: what anyone can forge."""
    raw = canonical(body)
    return raw[:-1] + b',"hash":"' + hashlib.sha256(raw).hexdigest().encode() + b'"}\n'


def next_body(lines: list[bytes], **changes: object) -> dict[str, object]:
    last = orjson.loads(lines[-1])
    body = {k: v for k, v in last.items() if k != "hash"}
    body.update({"seq": last["seq"] + 1, "prev": last["hash"], **changes})
    return body


def test_a_respaced_unkeyed_line_whose_hash_covers_its_canonical_form_is_refused(
    tmp_path: Path,
) -> None:
    """sha256 over the canonical bytes still matches, but the bytes on disk are not them:
    whatever the fold reads must be exactly what was hashed."""
    path = tmp_path / "ledger.jsonl"
    lines = write(path)
    lines[1] = lines[1].replace(b'"kind":"agent_call"', b'"kind": "agent_call"', 1)
    path.write_bytes(b"".join(lines))
    result = verify(path, key=None, anchors=None)
    assert not result.ok and result.first_bad_line == 2
    assert result.message == (
        f"{path}: line 2: bytes outside the canonical form (whitespace, escapes, member "
        "order, or members after the hash): the line is not the canonical serialisation of "
        "what it parses to"
    )


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (b"[1, 2]\n", "is not a JSON object"),
        (b'{"alg":"sha256","seq":1}\n', "is not a ledger entry (no hash)"),
    ],
)
def test_a_later_line_that_is_no_entry_is_named_not_a_crash(
    tmp_path: Path, line: bytes, problem: str
) -> None:
    path = tmp_path / "ledger.jsonl"
    lines = write(path, 1)
    (tmp_path / HEAD_FILE).unlink()
    path.write_bytes(lines[0] + line)
    result = verify(path, key=None, anchors=None)
    assert not result.ok and not result.not_a_ledger
    assert result.message == f"{path}: line 2: {problem}"


def test_an_entry_under_an_unknown_algorithm_is_refused_even_chained(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    lines = write(path, 2)
    (tmp_path / HEAD_FILE).unlink()
    path.write_bytes(b"".join(lines) + chained_line(next_body(lines, alg="md5")))
    result = verify(path, key=None, anchors=None)
    assert not result.ok and result.first_bad_line == 3
    assert result.message == f"{path}: line 3: names an unknown hash algorithm 'md5'"


def test_an_unkeyed_entry_after_keyed_ones_is_named_a_downgrade(tmp_path: Path) -> None:
    from contend.ledger.keys import LedgerKey

    key = LedgerKey(tmp_path / "k.key", b"k" * 32)
    path = tmp_path / "ledger.jsonl"
    with Ledger(path, RUN, key=key, anchors=None) as ledger:
        ledger.append("agent_call", {"i": 0})
        ledger.append("agent_call", {"i": 1})
    (tmp_path / HEAD_FILE).unlink()
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines) + chained_line(next_body(lines, alg="sha256")))
    for reader in (key, None):  # with the key, and without it (MACs unchecked)
        result = verify(path, key=reader, anchors=None)
        assert not result.ok and result.first_bad_line == 3
        assert result.message == (
            f"{path}: line 3: an unkeyed entry after keyed ones (a downgrade: entries "
            "written without the key)"
        )


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"seq": 7}, "seq 7 where 2 was expected (a line was removed, inserted or moved)"),
        ({"seq": 2.0}, "seq 2.0 where 2 was expected (a line was removed, inserted or moved)"),
        ({"schema": "contend.event/v9"}, "names an unknown schema 'contend.event/v9'"),
        (
            {"prev": "e" * 64},
            "prev does not match the previous entry's hash (a line was removed, inserted, "
            "moved or rewritten)",
        ),
        ({"run": "run-2"}, "belongs to run 'run-2', not 'run-1' (spliced in)"),
    ],
)
def test_a_chained_line_that_breaks_the_envelope_is_named(
    tmp_path: Path, changes: dict[str, object], problem: str
) -> None:
    """Each line's hash is right (recomputed), so only the envelope checks can refuse it."""
    path = tmp_path / "ledger.jsonl"
    lines = write(path, 2)
    (tmp_path / HEAD_FILE).unlink()
    path.write_bytes(b"".join(lines) + chained_line(next_body(lines, **changes)))
    result = verify(path, key=None, anchors=None)
    assert not result.ok and result.first_bad_line == 3 and result.count == 2
    assert result.message == f"{path}: line 3: {problem}"


def test_an_entry_is_stamped_in_utc_with_a_z_and_microseconds(tmp_path: Path) -> None:
    """`ts` is RFC 3339 UTC with a `Z`, to the microsecond: the index stores it as the
    run's start and orders runs by it, so every writer must spell it the same way."""
    with Ledger(tmp_path / "ledger.jsonl", RUN, key=None, anchors=None) as ledger:
        entry = ledger.append("agent_call", {"i": 0})
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", entry["ts"]), entry["ts"]


def test_the_head_of_a_keyed_ledger_names_its_algorithm(tmp_path: Path) -> None:
    from contend.ledger.keys import LedgerKey

    key = LedgerKey(tmp_path / "k.key", b"k" * 32)
    path = tmp_path / "ledger.jsonl"
    with Ledger(path, RUN, key=key, anchors=None) as ledger:
        ledger.append("agent_call", {"i": 0})
    head = read_head(path)
    assert head is not None
    assert (head.seq, head.alg, head.run, head.kid) == (0, "hmac-sha256", RUN, key.kid)


@pytest.mark.parametrize("seq", [-1, "2", True])
def test_a_head_with_a_seq_that_is_no_position_is_unreadable(tmp_path: Path, seq: object) -> None:
    path = tmp_path / "ledger.jsonl"
    write(path)
    (tmp_path / HEAD_FILE).write_bytes(
        canonical({"seq": seq, "hash": "a" * 64, "alg": "sha256"}) + b"\n"
    )
    with pytest.raises(LedgerCorrupt, match=r"ledger\.head is unreadable \(ValueError: seq "):
        read_head(path)
    result = verify(path, key=None, anchors=None)
    assert not result.ok and result.first_bad_line == 4 and result.count == 3
    assert result.message.startswith(f"{path}: after line 3: {tmp_path / HEAD_FILE} is unreadable")


def test_opening_a_new_or_an_intact_ledger_discards_nothing(tmp_path: Path) -> None:
    """`discarded_torn_bytes` is what the engine reports as cut away: zero unless a torn
    line was truncated — for a ledger that does not exist yet, and for an intact one."""
    path = tmp_path / "ledger.jsonl"
    with Ledger.open(path, RUN, key=None, anchors=None) as fresh:
        assert fresh.discarded_torn_bytes == 0
        fresh.append("agent_call", {"i": 0})
    size = path.stat().st_size
    with Ledger.open(path, RUN, key=None, anchors=None) as again:
        assert again.discarded_torn_bytes == 0
        assert again.next_seq == 1
    assert path.stat().st_size == size


def test_the_ledger_file_is_created_readable_by_all_writable_by_its_owner(tmp_path: Path) -> None:
    """Mode 0644 under the usual umask 022: a ledger is evidence others may read and
    verify, but only its writer appends to it."""
    old = os.umask(0o022)
    try:
        write(tmp_path / "ledger.jsonl", 1)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "ledger.jsonl").stat().st_mode) == 0o644


def test_append_returns_the_entry_as_written_with_its_hash(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    with Ledger(path, RUN, key=None, anchors=None) as ledger:
        entry = ledger.append("agent_call", {"i": 0})
    assert entry == orjson.loads(path.read_bytes())
    assert entry["hash"] == ledger.head


def test_a_failed_write_acknowledges_nothing_and_the_chain_goes_on_from_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk: append raises the OSError itself, and the next append continues the
    chain from the last acknowledged entry (no gap in seq, prev the last hash on disk)."""
    import contend.ledger.store as store

    path = tmp_path / "ledger.jsonl"
    with Ledger(path, RUN, key=None, anchors=None) as ledger:
        first = ledger.append("agent_call", {"i": 0})
        real = store._write_all

        def full(fd: int, payload: bytes) -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(store, "_write_all", full)
        with pytest.raises(OSError, match="No space left"):
            ledger.append_many([("agent_call", {"i": 1}), ("agent_call", {"i": 2})])
        assert (ledger.next_seq, ledger.head) == (1, first["hash"])
        monkeypatch.setattr(store, "_write_all", real)
        ledger.append("agent_call", {"i": 3})
    result = verify(path, key=None, anchors=None, keep_entries=True)
    assert result.ok and [e["data"]["i"] for e in result.entries] == [0, 3]


def test_a_failed_first_write_leaves_no_trace_in_the_anchor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The anchor's genesis is the first acknowledged entry, not one that failed to write."""
    import contend.ledger.store as store

    anchors = Anchors(tmp_path / "anchors")
    path = tmp_path / "run" / "ledger.jsonl"
    with Ledger(path, RUN, key=None, anchors=anchors) as ledger:
        real = store._write_all

        def full(fd: int, payload: bytes) -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(store, "_write_all", full)
        with pytest.raises(OSError):
            ledger.append("agent_call", {"i": 0})
        monkeypatch.setattr(store, "_write_all", real)
        ledger.append("agent_call", {"i": 1})
        ledger.checkpoint()
    result = verify(path, key=None, anchors=anchors)
    assert result.ok and result.count == 1, result.message


def test_an_empty_batch_writes_nothing_not_even_a_head(tmp_path: Path) -> None:
    """Nothing acknowledged, nothing recorded: a head for "entry 0 of none" would make
    the run unreadable (a head with seq -1)."""
    path = tmp_path / "ledger.jsonl"
    with Ledger(path, RUN, key=None, anchors=None) as ledger:
        assert ledger.append_many([]) == []
    assert path.read_bytes() == b""
    assert not (tmp_path / HEAD_FILE).exists()
    with Ledger.open(path, RUN, key=None, anchors=None) as again:
        assert again.next_seq == 0


def test_a_checkpoint_before_any_entry_records_no_head(tmp_path: Path) -> None:
    """A session that ends before its first event (a crash, an empty review) leaves a
    ledger a later session may start afresh: no head naming an entry that never was."""
    anchors = Anchors(tmp_path / "anchors")
    path = tmp_path / "run" / "ledger.jsonl"
    with Ledger(path, RUN, key=None, anchors=anchors) as ledger:
        ledger.checkpoint()
    assert not (path.parent / HEAD_FILE).exists()
    assert anchors.read(RUN) is None
    with Ledger.open(path, RUN, key=None, anchors=anchors) as again:
        again.append("agent_call", {"i": 0})
        again.checkpoint()
    result = verify(path, key=None, anchors=anchors)
    assert result.ok and result.count == 1, result.message


def test_closing_a_ledger_releases_its_descriptors_and_may_be_repeated(tmp_path: Path) -> None:
    """A long-lived process (the MCP server, the web UI) opens a ledger per run: close must
    give back every descriptor, and a second close (``with`` after an explicit close) is
    harmless."""
    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        pytest.skip("issue 18: counting open descriptors needs /proc (Linux)")
    before = len(list(fds.iterdir()))
    ledger = Ledger(tmp_path / "ledger.jsonl", RUN, key=None, anchors=Anchors(tmp_path / "a"))
    ledger.append("agent_call", {"i": 0})
    ledger.close()
    ledger.close()
    assert len(list(fds.iterdir())) == before


def test_without_a_head_the_result_says_a_cut_could_not_be_detected(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    write(path)
    (tmp_path / HEAD_FILE).unlink()
    result = verify(path, key=None, anchors=None)
    assert result.ok and not result.strict_ok
    assert (
        "no ledger.head: whole lines cut from the end could not be detected by it"
        in result.unchecked
    )


def test_the_writer_says_which_chain_it_writes(tmp_path: Path) -> None:
    from contend.ledger.keys import LedgerKey

    with Ledger(tmp_path / "a.jsonl", RUN, key=None, anchors=None) as plain:
        assert plain.alg == "sha256"
    key = LedgerKey(tmp_path / "k.key", b"k" * 32)
    with Ledger(tmp_path / "b.jsonl", "run-2", key=key, anchors=None) as keyed:
        assert keyed.alg == "hmac-sha256"


def test_the_user_default_reads_as_user_in_a_signature() -> None:
    """help(verify) shows `key: KeyArg = USER`: the default is the user's own key, not
    None (no key)."""
    import inspect

    assert "key: 'KeyArg' = USER" in str(inspect.signature(verify))


def test_an_emptied_ledger_whose_head_remains_is_not_a_fresh_start(tmp_path: Path) -> None:
    """No anchor directory to ask, but `ledger.head` records an entry: the ledger was
    emptied, not created and never written — refused, and nothing is written."""
    path = tmp_path / "ledger.jsonl"
    write(path)
    path.write_bytes(b"")
    with pytest.raises(LedgerCorrupt):
        Ledger.open(path, RUN, key=None, anchors=None)
    assert path.read_bytes() == b""


def test_write_atomic_replaces_the_whole_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    from contend.ledger.store import write_atomic

    fds = Path("/proc/self/fd")
    open_before = len(list(fds.iterdir())) if fds.is_dir() else None
    path = tmp_path / "report.json"
    path.write_bytes(b"an older, longer content\n")
    old = os.umask(0o022)
    try:
        write_atomic(path, b"new\n")
    finally:
        os.umask(old)
    assert path.read_bytes() == b"new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    if open_before is not None:
        assert len(list(fds.iterdir())) == open_before


def test_a_mac_mismatch_beside_an_unreadable_head_is_named_without_a_key_hint(
    tmp_path: Path,
) -> None:
    """The hint about another key comes from ledger.head; an unreadable head gives no hint,
    and the MAC mismatch is still the one problem named."""
    from contend.ledger.keys import LedgerKey

    key = LedgerKey(tmp_path / "k.key", b"k" * 32)
    path = tmp_path / "ledger.jsonl"
    with Ledger(path, RUN, key=key, anchors=None) as ledger:
        ledger.append("agent_call", {"i": 0})
    path.write_bytes(path.read_bytes().replace(b'{"i":0}', b'{"i":7}', 1))
    (tmp_path / HEAD_FILE).write_bytes(b'{"seq": "x"}\n')
    result = verify(path, key=key, anchors=None)
    assert not result.ok and result.first_bad_line == 1
    assert result.message == (
        f"{path}: line 1: MAC mismatch: the line was edited or forged (or written with another "
        f"ledger key than {key.path})"
    )


def test_leaving_a_with_block_releases_the_ledgers_descriptors(tmp_path: Path) -> None:
    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        pytest.skip("issue 18: counting open descriptors needs /proc (Linux)")
    before = len(list(fds.iterdir()))
    with Ledger(tmp_path / "ledger.jsonl", RUN, key=None, anchors=Anchors(tmp_path / "a")) as led:
        led.append("agent_call", {"i": 0})
    assert len(list(fds.iterdir())) == before
