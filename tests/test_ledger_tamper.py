"""Tampering the ledger so that the fold reads something other than what was hashed.

Each kind ends in `contend ledger verify` exit 1 naming the line: duplicate members (the
parser keeps the last one, the hash covered the first), bytes outside the canonical form,
and a last line cut shorter than the last acknowledged entry recorded in `ledger.head`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from contend.cli.main import main
from contend.errors import LedgerCorrupt
from contend.ledger.store import Ledger
from contend.ledger.verify import verify

Tamper = Callable[[list[bytes]], tuple[list[bytes], int]]


def build(path: Path, n: int = 10, run: str = "run-1") -> None:
    with Ledger(path, run) as ledger:
        for i in range(n):
            ledger.append("agent_call", {"thread": "t", "i": i, "severity": "critical"})
        ledger.checkpoint()


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def after_hash(line: bytes, member: bytes) -> bytes:
    """Add `member` after the `"hash"` member: outside the bytes the old verifier hashed."""
    body = line.rstrip(b"\n")
    assert body.endswith(b"}")
    return body[:-1] + b"," + member + b"}\n"


def dup_data_after_hash(lines: list[bytes]) -> tuple[list[bytes], int]:
    lines[3] = after_hash(lines[3], b'"data":{"thread":"t","i":3,"severity":"minor"}')
    return lines, 4


def dup_kind_after_hash(lines: list[bytes]) -> tuple[list[bytes], int]:
    lines[6] = after_hash(lines[6], b'"kind":"no_such_kind"')
    return lines, 7


def dup_key_inside_data(lines: list[bytes]) -> tuple[list[bytes], int]:
    lines[2] = lines[2].replace(b'"i":2,', b'"i":2,"i":99,', 1)
    return lines, 3


def space_after_colon(lines: list[bytes]) -> tuple[list[bytes], int]:
    lines[5] = lines[5].replace(b'"kind":"agent_call"', b'"kind": "agent_call"', 1)
    return lines, 6


def members_reordered(lines: list[bytes]) -> tuple[list[bytes], int]:
    entry = orjson.loads(lines[1])
    recorded = entry.pop("hash")
    reordered = dict(reversed(list(entry.items())))
    lines[1] = orjson.dumps(reordered)[:-1] + b',"hash":"' + recorded.encode() + b'"}\n'
    return lines, 2


def escaped_unicode(lines: list[bytes]) -> tuple[list[bytes], int]:
    # The same string, spelled with an escape: parses equal, is not the canonical bytes.
    lines[4] = lines[4].replace(b'"thread":"t"', b'"thread":"\\u0074"', 1)
    return lines, 5


def trailing_space(lines: list[bytes]) -> tuple[list[bytes], int]:
    lines[8] = lines[8].rstrip(b"\n") + b" \n"
    return lines, 9


NON_CANONICAL: list[Tamper] = [
    dup_data_after_hash,
    dup_kind_after_hash,
    dup_key_inside_data,
    space_after_colon,
    members_reordered,
    escaped_unicode,
    trailing_space,
]


@pytest.mark.parametrize("tamper", NON_CANONICAL, ids=lambda t: t.__name__)
def test_bytes_the_fold_reads_but_the_hash_did_not_cover_are_tampering(
    tmp_path: Path, tamper: Tamper, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ledger.jsonl"
    build(path)
    lines, bad = tamper(lines_of(path))
    path.write_bytes(b"".join(lines))
    result = verify(path)
    assert not result.ok
    assert result.first_bad_line == bad
    assert main(["ledger", "verify", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"line {bad}:" in err


def test_a_duplicate_key_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    build(path)
    lines, _ = dup_data_after_hash(lines_of(path))
    path.write_bytes(b"".join(lines))
    assert "duplicate key 'data'" in verify(path).message


def cut_last_line_partway(raw: bytes) -> tuple[bytes, int]:
    return raw[:-40], 10


def cut_in_half_mid_line(raw: bytes) -> tuple[bytes, int]:
    half = len(raw) // 2
    while raw[half - 1 : half] == b"\n":
        half += 1
    line = raw[:half].count(b"\n") + 1
    return raw[:half], line


def last_line_replaced_by_garbage(raw: bytes) -> tuple[bytes, int]:
    lines = raw.splitlines(keepends=True)
    return b"".join(lines[:-1]) + b"garbage", 10


def last_line_replaced_by_garbage_line(raw: bytes) -> tuple[bytes, int]:
    lines = raw.splitlines(keepends=True)
    return b"".join(lines[:-1]) + b"garbage\n", 10


@pytest.mark.parametrize(
    "cut",
    [
        cut_last_line_partway,
        cut_in_half_mid_line,
        last_line_replaced_by_garbage,
        last_line_replaced_by_garbage_line,
    ],
    ids=lambda c: c.__name__,
)
def test_a_tail_cut_shorter_than_the_head_is_tampering_not_a_crash(
    tmp_path: Path, cut: Callable[[bytes], tuple[bytes, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ledger.jsonl"
    build(path)
    raw, bad = cut(path.read_bytes())
    path.write_bytes(raw)
    result = verify(path)
    assert not result.ok and result.torn_line is None
    assert result.first_bad_line == bad
    assert main(["ledger", "verify", str(path)]) == 1
    assert f"line {bad}" in capsys.readouterr().err
    # The next writer refuses to continue: it neither truncates nor starts a new history.
    with pytest.raises(LedgerCorrupt, match=f"line {bad}"):
        Ledger.open(path, "run-1")
    assert path.read_bytes() == raw


def test_a_torn_line_after_the_last_acknowledged_entry_is_a_crash(tmp_path: Path) -> None:
    # What a crash mid-write leaves: a prefix of the next entry after the acknowledged ones.
    path = tmp_path / "ledger.jsonl"
    build(path)
    other = tmp_path / "other" / "ledger.jsonl"
    build(other, 11, run="another-run")
    partial = lines_of(other)[10][:57]
    with path.open("ab") as fh:
        fh.write(partial)
    result = verify(path)
    assert result.ok and result.count == 10 and result.torn_line == 11, result.message
    with Ledger.open(path, "run-1") as ledger:
        assert ledger.discarded_torn_bytes == len(partial)
        assert ledger.append("run_resumed", {})["seq"] == 10
    assert verify(path).ok


def test_a_torn_tail_must_look_like_the_start_of_an_entry(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    build(path)
    with path.open("ab") as fh:
        fh.write(b"garbage")
    result = verify(path)
    assert not result.ok and result.first_bad_line == 11


@pytest.mark.parametrize(
    ("content", "why"),
    [(b"", "empty"), (b"myhost\n", "line 1"), (b"myhost", "line 1"), (b'{"a":1}\n', "line 1")],
)
def test_a_file_that_is_not_a_ledger_says_so(
    tmp_path: Path, content: bytes, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "hostname"
    path.write_bytes(content)
    assert main(["ledger", "verify", str(path)]) == 1
    err = capsys.readouterr().err
    assert "not a contend ledger" in err and why in err


@pytest.mark.parametrize("depth", [300, 1010])
@pytest.mark.parametrize("keyed", [True, False])
def test_a_line_nested_deeper_than_the_writer_writes_is_reported_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], depth: int, keyed: bool
) -> None:
    """orjson reads values nested up to 1,024 deep but writes only up to 255, and the
    standard parser stops near 1,000: a line in between once made the verifier raise
    (TypeError: Recursion limit reached) instead of naming the line. With the key the line's
    MAC fails first; without it the verifier re-serialises the line."""
    path = tmp_path / "ledger.jsonl"
    build(path)
    lines = lines_of(path)
    nested = b"[" * depth + b"]" * depth
    lines[4] = lines[4].replace(b'"i":4,', b'"i":' + nested + b",", 1)
    path.write_bytes(b"".join(lines))
    result = verify(path) if keyed else verify(path, key=None)
    assert (result.ok, result.first_bad_line) == (False, 5)
    assert "nests values deeper than a ledger line can be written" in result.message
    if keyed:
        assert main(["ledger", "verify", str(path)]) == 1
        assert "line 5: nests values deeper" in capsys.readouterr().err
