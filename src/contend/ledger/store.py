"""Writing the hash-chained JSONL ledger.

Line format. Each line is one entry: the canonical JSON (orjson, sorted keys, compact
separators, UTF-8) of the entry without its hash, with `"hash":"<hex>"` appended as the
last member:

    {"alg":"hmac-sha256","data":{...},"id":"…","kind":"…","prev":"<hex>","run":"…",
     "schema":"contend.event/v1","seq":0,"ts":"…","hash":"<hex>"}

`hash` is computed by `alg` (see keys.py: HMAC-SHA256 under the user's key, or plain
sha256 for ledgers written before keys) over the canonical bytes of every other member,
which include `prev`, the previous entry's hash (64 zeros for the first). A line is valid
only if it is byte for byte the serialisation of the object it parses to, so what the
fold reads is exactly what was hashed (verify.py).

Redaction. Every text of an event's data passes `contend.redaction.redact_json` before it
is hashed and written: the ledger is the one place every string of a run passes on its
way to disk, and what it returns is what the live state and the reports are built from.

fsync policy. `append_many` writes the whole batch with one os.write on an O_APPEND
descriptor and one os.fsync; an event is *acknowledged* when `append` returns. Right after,
the writer records the new head — (seq, hash) of the last acknowledged entry — in
`ledger.head` beside the ledger and in the run's anchor outside the run directory
(anchor.py), both rewritten in place (slots.py). Both are written only after the entries
they name are durable, so a crash can leave them behind the ledger, never ahead: a torn
last line is legitimate only after the entry they record, and `Ledger.open` truncates such
a line away before appending. `checkpoint` (the end of a session) fsyncs them as well.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from contend.errors import LedgerCorrupt
from contend.ledger.anchor import Anchor, Anchors
from contend.ledger.entries import (
    EVENT_SCHEMA,
    GENESIS,
    HEAD_FILE,
    USER,
    AnchorsArg,
    Entry,
    Head,
    KeyArg,
    canonical,
    encode_entry,
    read_head,
    resolve_anchors,
    resolve_key,
)
from contend.ledger.keys import (
    HASH_ALG,
    HMAC_ALG,
    Digest,
    sha256_hex,
)
from contend.ledger.slots import SlotWriter
from contend.ledger.verify import verify
from contend.redaction import redact_json


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _new_id() -> str:
    return uuid.uuid4().hex


class Ledger:
    """Appends events to one run's ledger. Not shared between processes: the review lock
    guarantees one writer per repository.

    `key` is the user's key by default (created on first use); None writes the unkeyed
    sha256 chain of old ledgers (tests and benchmarks only). `anchors` is the user's anchor
    directory by default; None writes no anchor.
    """

    def __init__(
        self,
        path: Path,
        run_id: str,
        *,
        key: KeyArg = USER,
        anchors: AnchorsArg = USER,
        clock: Callable[[], str] = _utc_now,
        new_id: Callable[[], str] = _new_id,
        _seq: int = 0,
        _prev: str = GENESIS,
        _genesis: str | None = None,
    ) -> None:
        self.path = path
        self.run_id = run_id
        self._key = resolve_key(key, create=True)
        self._anchors = resolve_anchors(anchors)
        self._digest: Digest = self._key.digest() if self._key is not None else sha256_hex
        self._alg = HMAC_ALG if self._key is not None else HASH_ALG
        self._clock = clock
        self._new_id = new_id
        self._seq = _seq
        self._prev = _prev
        self._genesis = _genesis
        self.discarded_torn_bytes = 0
        self._head_file: SlotWriter | None = None
        self._anchor_file: SlotWriter | None = None
        if _seq == 0 and self._anchors is not None:
            self._refuse_taken_run_id()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._resolved = str(path.resolve())

    def _refuse_taken_run_id(self) -> None:
        assert self._anchors is not None
        existing = self._anchors.read(self.run_id)
        if existing is not None:
            raise LedgerCorrupt(
                f"run {self.run_id} already has an anchor ({self._anchors.path(self.run_id)}, "
                f"for {existing.ledger}, entry {existing.seq + 1}): refusing to start a second "
                "history under the same run id",
                path=str(self.path),
            )

    @classmethod
    def open(
        cls,
        path: Path,
        run_id: str,
        *,
        key: KeyArg = USER,
        anchors: AnchorsArg = USER,
        **kwargs: Any,
    ) -> Ledger:
        """Open a ledger for appending; an existing one is verified first.

        A torn last line after the last acknowledged entry (a crash mid-write) is truncated
        away; anything else that fails verification raises LedgerCorrupt and nothing is
        written: a tampered run is not continued, nor replaced by a new history.
        """
        resolved_key = resolve_key(key, create=True)
        resolved_anchors = resolve_anchors(anchors)
        if resolved_anchors is not None and not path.exists():
            anchor = resolved_anchors.read(run_id)
            if anchor is not None:
                raise LedgerCorrupt(
                    f"{path} is missing, but the anchor {resolved_anchors.path(run_id)} "
                    f"records entry {anchor.seq + 1} of run {run_id}: the ledger was deleted "
                    "— contend will not continue this run (`contend review --new` starts a "
                    "fresh one)",
                    path=str(path),
                )
        if not path.exists() or _never_written(path, run_id, resolved_anchors):
            return cls(path, run_id, key=resolved_key, anchors=resolved_anchors, **kwargs)
        result = verify(path, key=resolved_key, anchors=resolved_anchors, run=run_id)
        if not result.ok:
            raise LedgerCorrupt(
                f"{result.message} — contend will not continue this run "
                "(inspect it with `contend ledger verify`; `contend review --new` starts "
                "a fresh one)",
                path=str(path),
                line=result.first_bad_line,
            )
        discarded = 0
        if result.torn_line is not None:
            size = path.stat().st_size
            with path.open("r+b") as fh:
                fh.truncate(result.good_bytes)
                fh.flush()
                os.fsync(fh.fileno())
            discarded = size - result.good_bytes
        ledger = cls(
            path,
            run_id,
            key=resolved_key,
            anchors=resolved_anchors,
            _seq=result.count,
            _prev=result.last_hash,
            _genesis=result.first_hash,
            **kwargs,
        )
        ledger.discarded_torn_bytes = discarded
        return ledger

    @property
    def next_seq(self) -> int:
        return self._seq

    @property
    def head(self) -> str:
        return self._prev

    @property
    def alg(self) -> str:
        return self._alg

    def _envelope(self, kind: str, data: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "schema": EVENT_SCHEMA,
            "seq": self._seq,
            "id": self._new_id(),
            "ts": self._clock(),
            "run": self.run_id,
            "kind": kind,
            "data": redact_json(data),
            "prev": self._prev,
            "alg": self._alg,
        }

    def append(self, kind: str, data: Mapping[str, Any]) -> Entry:
        """Write one event, fsync, record the head, and return the entry as written
        (redacted): acknowledged on return."""
        return self.append_many([(kind, data)])[0]

    def append_many(self, events: Iterable[tuple[str, Mapping[str, Any]]]) -> list[Entry]:
        lines: list[bytes] = []
        written: list[Entry] = []
        seq, prev, genesis = self._seq, self._prev, self._genesis
        for kind, data in events:
            entry = self._envelope(kind, data)
            line, digest = encode_entry(entry, self._digest)
            entry["hash"] = digest
            lines.append(line)
            written.append(entry)
            if self._genesis is None:
                self._genesis = digest
            self._seq += 1
            self._prev = digest
        if not written:
            return written
        try:
            _write_all(self._fd, b"".join(lines))
            os.fsync(self._fd)
        except OSError:
            # Nothing of this batch is acknowledged; keep the in-memory chain consistent
            # with what a reopen would find, then let the caller see the failure.
            self._seq, self._prev, self._genesis = seq, prev, genesis
            raise
        self._record_head(sync=False)
        return written

    def checkpoint(self) -> None:
        """Make the head and the anchor durable: the end of a session."""
        if self._seq > 0:
            self._record_head(sync=True)

    def _record_head(self, *, sync: bool) -> None:
        kid = self._key.kid if self._key is not None else None
        head = Head(self._seq - 1, self._prev, self._alg, self.run_id, kid)
        # Head first, anchor second (a new head file is made durable before the anchor
        # names it): an anchor on disk implies a head file, so a missing head is a deleted one.
        if self._head_file is None:
            self._head_file = SlotWriter(self.path.parent / HEAD_FILE)
        self._head_file.write(head.to_record(), sync=sync)
        if self._anchors is not None:
            assert self._genesis is not None
            if self._anchor_file is None:
                self._anchor_file = self._anchors.writer(self.run_id)
            anchor = Anchor(
                run=self.run_id,
                ledger=self._resolved,
                seq=head.seq,
                hash=head.hash,
                alg=head.alg,
                genesis=self._genesis,
                kid=kid,
            )
            self._anchor_file.write(anchor.to_record(), sync=sync)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        for slot_file in (self._head_file, self._anchor_file):
            if slot_file is not None:
                slot_file.close()
        self._head_file = self._anchor_file = None

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _never_written(path: Path, run_id: str, anchors: Anchors | None) -> bool:
    """An empty ledger with no head and no anchor: the run was created and crashed before
    its first event was acknowledged. Anything that recorded a head is not "never written"."""
    if path.stat().st_size != 0 or (path.parent / HEAD_FILE).exists():
        return False
    return anchors is None or anchors.read(run_id) is None


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


__all__ = [
    "EVENT_SCHEMA",
    "GENESIS",
    "HEAD_FILE",
    "USER",
    "Entry",
    "Head",
    "Ledger",
    "canonical",
    "encode_entry",
    "read_head",
    "write_atomic",
]
