"""Verification of a ledger's hash chain: the first bad line is named, a torn tail is told apart.

Checks per line: parses as JSON; names a supported schema and hash algorithm; `seq` equals
its position; `prev` equals the previous entry's hash; the recorded hash equals sha256 of
the bytes it covers. An edit breaks the line's own hash; a removal, reordering or
insertion breaks `seq` or `prev` on the first line after it; whole lines cut from the end
are caught against `ledger.head` when the run wrote one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from contend.gcpause import gc_paused
from contend.ledger.store import (
    _HASH_SUFFIX,
    GENESIS,
    HASH_ALG,
    HEAD_FILE,
    SUPPORTED_SCHEMAS,
    Entry,
    split_line,
)


@dataclass(slots=True)
class VerifyResult:
    ok: bool
    count: int  # intact entries
    message: str
    first_bad_line: int | None = None
    torn_line: int | None = None
    good_bytes: int = 0
    last_hash: str = GENESIS
    entries: list[Entry] = field(default_factory=list)


def verify(path: Path, *, keep_entries: bool = False) -> VerifyResult:
    with gc_paused():
        return _verify(path, keep_entries)


def _verify(path: Path, keep_entries: bool) -> VerifyResult:
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    # split() leaves b"" after a final newline; anything else there is a torn last line.
    tail = lines.pop()
    try:
        # Fast path: parse and hash in bulk; only a failure needs the line-by-line walk.
        entries: list[Entry] = list(map(orjson.loads, lines))
        cuts = [line.rfind(_HASH_SUFFIX) for line in lines]
        sha256 = hashlib.sha256
        digests = [
            sha256(line[:cut] + b"}").hexdigest() for line, cut in zip(lines, cuts, strict=True)
        ]
    except orjson.JSONDecodeError:
        return _walk(path, lines, tail)
    prev = GENESIS
    for index, (entry, cut, digest) in enumerate(zip(entries, cuts, digests, strict=True)):
        if (
            cut < 0
            or type(entry) is not dict
            or entry.get("seq") != index
            or entry.get("prev") != prev
            or entry.get("hash") != digest
            or entry.get("schema") not in SUPPORTED_SCHEMAS
            or entry.get("alg") != HASH_ALG
        ):
            return _walk(path, lines, tail)
        prev = digest
    count = len(lines)
    pos = len(raw) - len(tail)
    if tail:
        return _torn(path, count + 1, pos, prev, entries, "no newline at end")
    head_problem = _check_head(path, count, prev, lines)
    if head_problem is not None:
        return VerifyResult(
            False, count, f"{path}: {head_problem}", count + 1, None, pos, prev, entries
        )
    return VerifyResult(
        True,
        count,
        f"{path}: {count} entries intact",
        None,
        None,
        pos,
        prev,
        entries if keep_entries else [],
    )


def _walk(path: Path, lines: list[bytes], tail: bytes) -> VerifyResult:
    """The slow path: check line by line to name the first bad one."""
    entries: list[Entry] = []
    prev = GENESIS
    pos = 0
    last = len(lines) - 1
    for index, line in enumerate(lines):
        lineno = index + 1
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            if index == last and not tail:
                return _torn(path, lineno, pos, prev, entries, "incomplete JSON")
            return _bad(path, lineno, pos, prev, entries, "not valid JSON")
        cut = line.rfind(_HASH_SUFFIX)
        if cut < 0 or type(entry) is not dict:
            return _bad(path, lineno, pos, prev, entries, "not a ledger entry (no hash member)")
        if entry.get("seq") != index:
            return _bad(
                path,
                lineno,
                pos,
                prev,
                entries,
                f"seq {entry.get('seq')!r} where {index} was expected "
                "(a line was removed, inserted or moved)",
            )
        if entry.get("prev") != prev:
            return _bad(
                path,
                lineno,
                pos,
                prev,
                entries,
                "prev does not match the previous entry's hash "
                "(a line was removed, inserted or moved)",
            )
        digest = hashlib.sha256(line[:cut] + b"}").hexdigest()
        if entry.get("hash") != digest:
            return _bad(path, lineno, pos, prev, entries, "hash mismatch (the line was edited)")
        if entry.get("schema") not in SUPPORTED_SCHEMAS:
            return _bad(path, lineno, pos, prev, entries, f"unknown schema {entry.get('schema')!r}")
        if entry.get("alg") != HASH_ALG:
            return _bad(
                path, lineno, pos, prev, entries, f"unknown hash algorithm {entry.get('alg')!r}"
            )
        prev = digest
        entries.append(entry)
        pos += len(line) + 1
    # Every line passed on its own, so the fast path failed on a torn tail or the head.
    count = len(lines)
    if tail:
        return _torn(path, count + 1, pos, prev, entries, "no newline at end")
    raise AssertionError("unreachable: the fast path rejected a ledger the walk accepts")


def _bad(
    path: Path, lineno: int, pos: int, prev: str, entries: list[Entry], problem: str
) -> VerifyResult:
    return VerifyResult(
        False, lineno - 1, f"{path}: line {lineno}: {problem}", lineno, None, pos, prev, entries
    )


def _torn(
    path: Path, lineno: int, pos: int, prev: str, entries: list[Entry], why: str
) -> VerifyResult:
    # A torn tail is the mark of a crash mid-write, not of tampering: the prefix is intact.
    message = (
        f"{path}: {lineno - 1} entries intact; line {lineno} is torn ({why}): "
        "a crash mid-write; it was never acknowledged and a resume discards it"
    )
    return VerifyResult(True, lineno - 1, message, None, lineno, pos, prev, entries)


def _check_head(path: Path, count: int, last_hash: str, lines: list[bytes]) -> str | None:
    head_path = path.parent / HEAD_FILE
    if not head_path.exists():
        return None
    try:
        head = orjson.loads(head_path.read_bytes())
        seq = int(head["seq"])
        digest = str(head["hash"])
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return f"{HEAD_FILE} is unreadable"
    if seq >= count:
        return f"truncated: {HEAD_FILE} records entry {seq + 1} but the ledger holds only {count}"
    if seq == count - 1:
        return None if digest == last_hash else f"{HEAD_FILE} hash does not match entry {seq + 1}"
    parts = split_line(lines[seq])
    if parts is None or parts[1] != digest:
        return f"{HEAD_FILE} hash does not match entry {seq + 1}"
    return None
