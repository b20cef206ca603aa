"""The hash-chained ledger: intact, tampered (edit, delete, swap, insert, truncate), torn.

Duplicate keys, non-canonical bytes and cut tails: test_ledger_tamper.py. The key and the
anchor: test_ledger_keyed.py.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from contend.cli.main import main
from contend.errors import LedgerCorrupt
from contend.ledger.store import HEAD_FILE, Ledger
from contend.ledger.verify import verify


def build(
    path: Path, n: int = 10, *, checkpoint: bool = True, keyed: bool = True, run: str = "run-1"
) -> None:
    with Ledger(path, run, **({} if keyed else {"key": None, "anchors": None})) as ledger:
        for i in range(n):
            ledger.append("agent_call", {"thread": "t", "i": i, "text": f"event {i} ü"})
        if checkpoint:
            ledger.checkpoint()


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def test_intact_ledger_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ledger.jsonl"
    build(path)
    result = verify(path)
    assert result.ok and result.count == 10 and result.first_bad_line is None
    assert main(["ledger", "verify", str(path)]) == 0
    assert "10 entries intact" in capsys.readouterr().out


def test_every_line_names_schema_and_algorithm(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    build(path, 3)
    for line in lines_of(path):
        entry = orjson.loads(line)
        assert entry["schema"] == "contend.event/v1"
        assert entry["alg"] == "hmac-sha256"
        assert len(entry["hash"]) == 64


def test_an_unkeyed_writer_writes_the_old_sha256_chain(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    build(path, 3, keyed=False)
    assert {orjson.loads(line)["alg"] for line in lines_of(path)} == {"sha256"}
    result = verify(path)
    assert result.ok and result.unkeyed == 3 and not result.strict_ok


def tamper_edit(lines: list[bytes]) -> tuple[list[bytes], int]:
    lines[4] = lines[4].replace(b"event 4", b"event X")
    return lines, 5


def tamper_delete(lines: list[bytes]) -> tuple[list[bytes], int]:
    del lines[3]
    return lines, 4


def tamper_swap(lines: list[bytes]) -> tuple[list[bytes], int]:
    lines[2], lines[6] = lines[6], lines[2]
    return lines, 3


def tamper_insert(lines: list[bytes]) -> tuple[list[bytes], int]:
    lines.insert(5, lines[1])
    return lines, 6


def tamper_truncate(lines: list[bytes]) -> tuple[list[bytes], int]:
    return lines[:7], 8


@pytest.mark.parametrize(
    "tamper", [tamper_edit, tamper_delete, tamper_swap, tamper_insert, tamper_truncate]
)
def test_tampering_is_caught_at_the_first_bad_line(
    tmp_path: Path, tamper: object, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ledger.jsonl"
    build(path)
    lines, bad_line = tamper(lines_of(path))  # type: ignore[operator]
    path.write_bytes(b"".join(lines))
    result = verify(path)
    assert not result.ok
    assert result.first_bad_line == bad_line
    assert main(["ledger", "verify", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"line {bad_line}" in err or "truncated" in err


def test_edit_with_recomputed_hash_is_caught_by_the_next_line(tmp_path: Path) -> None:
    # Rewriting one entry of an unkeyed chain consistently still breaks the chain: the next
    # prev no longer matches. (A keyed chain refuses the rewritten line itself.)
    from contend.ledger.store import encode_entry

    path = tmp_path / "ledger.jsonl"
    build(path, keyed=False)
    lines = lines_of(path)
    entry = orjson.loads(lines[4])
    entry.pop("hash")
    entry["data"]["text"] = "forged"
    lines[4], _ = encode_entry(entry)
    path.write_bytes(b"".join(lines))
    result = verify(path)
    assert not result.ok and result.first_bad_line == 6


def append_partial_entry(path: Path) -> bytes:
    """What a crash mid-write leaves: the first bytes of a next entry, no newline."""
    partial = b'{"alg":"hmac-sha256","data":{"thread":"t","i":10,"te'
    with path.open("ab") as fh:
        fh.write(partial)
    return partial


# contend: allow test-weakening -- read_entries is gone; verify asserts the same entries
def test_torn_last_line_is_reported_and_accepted(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    build(path, checkpoint=False)
    append_partial_entry(path)
    result = verify(path, keep_entries=True)
    assert result.ok and result.count == 10 and result.torn_line == 11
    assert "torn" in result.message
    assert len(result.entries) == 10 and result.good_bytes < path.stat().st_size


def test_resume_discards_the_torn_line_and_continues_the_chain(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    build(path, checkpoint=False)
    partial = append_partial_entry(path)
    with Ledger.open(path, "run-1") as ledger:
        assert ledger.discarded_torn_bytes == len(partial)
        entry = ledger.append("run_resumed", {})
        assert entry["seq"] == 10
    result = verify(path, keep_entries=True)
    assert result.ok and result.count == 11 and result.torn_line is None
    assert [e["data"].get("i") for e in result.entries[:10]] == list(range(10))


def test_open_refuses_a_corrupt_ledger(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    build(path)
    lines, _ = tamper_edit(lines_of(path))
    path.write_bytes(b"".join(lines))
    with pytest.raises(LedgerCorrupt, match="line 5"):
        Ledger.open(path, "run-1")
    assert b"event X" in path.read_bytes()  # nothing rewritten


def test_head_file_catches_lines_cut_from_the_end(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    build(path)
    assert (tmp_path / HEAD_FILE).exists()
    path.write_bytes(b"".join(lines_of(path)[:-1]))
    result = verify(path)
    assert not result.ok and "truncated" in result.message


def test_verify_by_run_id_in_the_state_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    run_dir = state / "runs" / "20261130-000000-abcdef"
    run_dir.mkdir(parents=True)
    build(run_dir / "ledger.jsonl", run=run_dir.name)
    monkeypatch.setenv("CONTEND_STATE_DIR", str(state))
    assert main(["ledger", "verify", "20261130-000000-abcdef"]) == 0
    assert main(["ledger", "verify", str(run_dir)]) == 0
    assert main(["ledger", "verify", "no-such-run"]) == 2
    err = capsys.readouterr().err
    assert "no run 'no-such-run'" in err and "Traceback" not in err
    # A run's directory names the run its ledger must belong to.
    other = state / "runs" / "20261130-000000-fedcba"
    other.mkdir()
    (other / "ledger.jsonl").write_bytes((run_dir / "ledger.jsonl").read_bytes())
    assert main(["ledger", "verify", other.name]) == 1
    assert "line 1: belongs to run '20261130-000000-abcdef'" in capsys.readouterr().err


def test_garbage_file_is_corrupt_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(b"hello\nworld\n")
    assert main(["ledger", "verify", str(path)]) == 1
    assert "line 1" in capsys.readouterr().err
