"""The ledger's line format and head record, shared by the writer (store.py) and the
verifier (verify.py), so that neither imports the other for them: the schema and genesis
constants, the canonical serialisation and `encode_entry`, `ledger.head` (`Head`,
`read_head`), and the "the user's own key / anchors" default (`USER`) with its resolvers.
store.py re-exports the public names; the line format itself is described there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from contend.errors import LedgerCorrupt
from contend.ledger.anchor import Anchors
from contend.ledger.keys import HASH_ALG, Digest, LedgerKey, load_key, sha256_hex
from contend.ledger.slots import read_newest

EVENT_SCHEMA = "contend.event/v1"
SUPPORTED_SCHEMAS = frozenset({EVENT_SCHEMA})
GENESIS = "0" * 64
HEAD_FILE = "ledger.head"
HASH_SUFFIX = b',"hash":"'

Entry = dict[str, Any]


class _UserDefault:
    """Stands for "the user's own key / anchor directory" in a signature."""

    def __repr__(self) -> str:
        return "USER"


USER: Final = _UserDefault()
KeyArg = LedgerKey | None | _UserDefault
AnchorsArg = Anchors | None | _UserDefault


def resolve_key(key: KeyArg, *, create: bool) -> LedgerKey | None:
    return load_key(create=create) if isinstance(key, _UserDefault) else key


def resolve_anchors(anchors: AnchorsArg) -> Anchors | None:
    return Anchors.for_user() if isinstance(anchors, _UserDefault) else anchors


def canonical(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)


def encode_entry(
    entry_without_hash: Mapping[str, Any], digest: Digest = sha256_hex
) -> tuple[bytes, str]:
    """Return (line bytes with trailing newline, hash hex) for an entry without "hash"."""
    body = canonical(entry_without_hash)
    hexdigest = digest(body)
    return body[:-1] + HASH_SUFFIX + hexdigest.encode() + b'"}\n', hexdigest


@dataclass(frozen=True, slots=True)
class Head:
    """The last acknowledged entry, as `ledger.head` records it."""

    seq: int
    hash: str
    alg: str
    run: str | None = None
    kid: str | None = None

    def to_record(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seq": self.seq, "hash": self.hash, "alg": self.alg}
        if self.run is not None:
            data["run"] = self.run
        if self.kid is not None:
            data["kid"] = self.kid
        return data


def read_head(ledger_path: Path) -> Head | None:
    """`ledger.head` beside the ledger; None when absent (or created and never written),
    LedgerCorrupt when unreadable."""
    path = ledger_path.parent / HEAD_FILE
    data, _ = read_newest(path)
    if data is None:
        return None
    try:
        seq = data["seq"]
        if type(seq) is not int or seq < 0:
            raise ValueError(f"seq {seq!r}")
        return Head(
            seq=seq,
            hash=str(data["hash"]),
            alg=str(data.get("alg", HASH_ALG)),
            run=None if data.get("run") is None else str(data["run"]),
            kid=None if data.get("kid") is None else str(data["kid"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise LedgerCorrupt(
            f"{path} is unreadable ({exc.__class__.__name__}: {exc})", path=str(path)
        ) from exc
