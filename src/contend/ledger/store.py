"""Writing and reading the hash-chained JSONL ledger.

Line format. Each line is one entry, written as canonical JSON (orjson with sorted keys,
compact separators, UTF-8) of the entry without its hash, with `"hash":"<hex>"` appended
as the last member:

    {"alg":"sha256","data":{...},"id":"…","kind":"…","prev":"<hex>","run":"…",
     "schema":"contend.event/v1","seq":0,"ts":"…","hash":"<hex>"}

`hash` = sha256 over the canonical bytes of every other member (which include `prev`, the
previous entry's hash; the first entry's `prev` is 64 zeros). Because the writer emits
canonical bytes, a verifier can hash the bytes as written without re-serialising.

fsync policy. `append` writes the whole line with a single os.write on an O_APPEND
descriptor and then calls os.fsync before it returns: an event is *acknowledged* only
when `append` has returned, and from then on it survives a crash or power loss.
`append_many` does the same for a batch with one write and one fsync. A crash mid-write
can leave a torn last line; it was never acknowledged, so `Ledger.open` reports it and
truncates it away before appending. The `ledger.head` file beside the ledger records the
last checkpointed (seq, hash), written atomically (temp file, fsync, rename); `verify`
uses it to detect whole lines cut from the end, which a hash chain alone cannot see.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from contend.errors import LedgerCorrupt, LedgerTorn

EVENT_SCHEMA = "contend.event/v1"
SUPPORTED_SCHEMAS = frozenset({EVENT_SCHEMA})
HASH_ALG = "sha256"
GENESIS = "0" * 64
HEAD_FILE = "ledger.head"
_HASH_SUFFIX = b',"hash":"'

Entry = dict[str, Any]


def canonical(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _new_id() -> str:
    return uuid.uuid4().hex


def encode_entry(entry_without_hash: Mapping[str, Any]) -> tuple[bytes, str]:
    """Return (line bytes with trailing newline, hash hex) for an entry without "hash"."""
    body = canonical(entry_without_hash)
    digest = hashlib.sha256(body).hexdigest()
    return body[:-1] + _HASH_SUFFIX + digest.encode() + b'"}\n', digest


def split_line(line: bytes) -> tuple[bytes, str] | None:
    """Return (the bytes the hash covers, the recorded hash) or None when malformed."""
    cut = line.rfind(_HASH_SUFFIX)
    if cut < 0 or not line.endswith(b'"}'):
        return None
    recorded = line[cut + len(_HASH_SUFFIX) : -2]
    return line[:cut] + b"}", recorded.decode("ascii", "replace")


@dataclass(frozen=True, slots=True)
class ReadResult:
    entries: list[Entry]
    torn_line: int | None  # 1-based number of a torn last line, if any
    good_bytes: int  # length of the intact prefix


def read_entries(path: Path) -> ReadResult:
    """Parse the ledger without checking the chain (see verify for that).

    A last line with no newline, or that does not parse, is torn. Any other unparsable
    line is corruption, raised as LedgerCorrupt naming the line.
    """
    raw = path.read_bytes()
    entries: list[Entry] = []
    pos = 0
    lineno = 0
    size = len(raw)
    while pos < size:
        lineno += 1
        end = raw.find(b"\n", pos)
        if end < 0:
            return ReadResult(entries, lineno, pos)
        line = raw[pos:end]
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            if end + 1 == size:
                return ReadResult(entries, lineno, pos)
            raise LedgerCorrupt(
                f"{path}: line {lineno} is not valid JSON", path=str(path), line=lineno
            ) from None
        if not isinstance(entry, dict):
            raise LedgerCorrupt(
                f"{path}: line {lineno} is not an object", path=str(path), line=lineno
            )
        entries.append(entry)
        pos = end + 1
    return ReadResult(entries, None, pos)


class Ledger:
    """Appends events to one run's ledger. Not shared between processes: the review lock
    guarantees one writer per repository."""

    def __init__(
        self,
        path: Path,
        run_id: str,
        *,
        clock: Callable[[], str] = _utc_now,
        new_id: Callable[[], str] = _new_id,
        _seq: int = 0,
        _prev: str = GENESIS,
    ) -> None:
        self.path = path
        self.run_id = run_id
        self._clock = clock
        self._new_id = new_id
        self._seq = _seq
        self._prev = _prev
        self.discarded_torn_bytes = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    @classmethod
    def open(cls, path: Path, run_id: str, **kwargs: Any) -> Ledger:
        """Open a ledger for appending; an existing one is verified first.

        A torn last line (never acknowledged) is truncated away; any other damage raises.
        """
        from contend.ledger.verify import verify

        if not path.exists():
            return cls(path, run_id, **kwargs)
        result = verify(path)
        if not result.ok:
            raise LedgerCorrupt(result.message, path=str(path), line=result.first_bad_line)
        discarded = 0
        if result.torn_line is not None:
            size = path.stat().st_size
            with path.open("r+b") as fh:
                fh.truncate(result.good_bytes)
                fh.flush()
                os.fsync(fh.fileno())
            discarded = size - result.good_bytes
        ledger = cls(path, run_id, _seq=result.count, _prev=result.last_hash, **kwargs)
        ledger.discarded_torn_bytes = discarded
        return ledger

    @property
    def next_seq(self) -> int:
        return self._seq

    @property
    def head(self) -> str:
        return self._prev

    def _envelope(self, kind: str, data: Mapping[str, Any]) -> dict[str, Any]:
        entry = {
            "schema": EVENT_SCHEMA,
            "seq": self._seq,
            "id": self._new_id(),
            "ts": self._clock(),
            "run": self.run_id,
            "kind": kind,
            "data": data,
            "prev": self._prev,
            "alg": HASH_ALG,
        }
        return entry

    def append(self, kind: str, data: Mapping[str, Any]) -> Entry:
        """Write one event, fsync, and return the full entry (acknowledged on return)."""
        return self.append_many([(kind, data)])[0]

    def append_many(self, events: Iterable[tuple[str, Mapping[str, Any]]]) -> list[Entry]:
        lines: list[bytes] = []
        written: list[Entry] = []
        seq, prev = self._seq, self._prev
        for kind, data in events:
            entry = self._envelope(kind, data)
            line, digest = encode_entry(entry)
            entry["hash"] = digest
            lines.append(line)
            written.append(entry)
            self._seq += 1
            self._prev = digest
        try:
            _write_all(self._fd, b"".join(lines))
            os.fsync(self._fd)
        except OSError:
            # Nothing of this batch is acknowledged; keep the in-memory chain consistent
            # with what a reopen would find, then let the caller see the failure.
            self._seq, self._prev = seq, prev
            raise
        return written

    def checkpoint(self) -> None:
        """Record the current head atomically beside the ledger (see module docstring)."""
        head = canonical({"seq": self._seq - 1, "hash": self._prev, "alg": HASH_ALG})
        write_atomic(self.path.parent / HEAD_FILE, head + b"\n")

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def write_atomic(path: Path, payload: bytes) -> None:
    """Write a whole file so readers see the old or the new content, never a mix."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        _write_all(fd, payload)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


__all__ = ["GENESIS", "Entry", "Ledger", "LedgerTorn", "ReadResult", "canonical", "read_entries"]
