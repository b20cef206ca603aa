"""Anchors: each run's last acknowledged ledger entry, recorded outside the run directory.

`ledger.head` beside the ledger lets `verify` see lines cut from the end, but whoever can
rewrite the ledger can rewrite or delete the head with it. The anchor is a second copy of
the head in the user's state directory, where the reviewed change, agents confined to the
repository and anyone with only repository access cannot reach:

    $CONTEND_ANCHOR_DIR/<run-id>.json, else $XDG_STATE_HOME/contend/anchors/<run-id>.json,
    else ~/.local/state/contend/anchors/<run-id>.json

It names the run, the ledger's absolute path, the first entry's hash (so a history
rewritten from its first line is seen), and the last acknowledged (seq, hash, alg). The
writer updates it after every append; nothing in contend deletes it (run cleanup removes
git refs and worktrees, never anchors). Why a file there and not a git ref: see
docs/security.md.

This module only reads and writes anchors; what a mismatch means is decided in `verify`.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contend.errors import LedgerCorrupt, LedgerKeyError
from contend.ledger.slots import SlotWriter, read_newest

ANCHOR_ENV = "CONTEND_ANCHOR_DIR"
ANCHOR_SCHEMA = "contend.anchor/v1"
_SAFE_RUN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,100}")


@dataclass(frozen=True, slots=True)
class Anchor:
    run: str
    ledger: str  # absolute path of the ledger it anchors
    seq: int
    hash: str
    alg: str
    genesis: str  # hash of the ledger's first entry
    kid: str | None = None  # id of the key that wrote the entry (None: unkeyed)

    def to_record(self) -> dict[str, Any]:
        return {
            "schema": ANCHOR_SCHEMA,
            "run": self.run,
            "ledger": self.ledger,
            "seq": self.seq,
            "hash": self.hash,
            "alg": self.alg,
            "genesis": self.genesis,
            "kid": self.kid,
        }


def anchor_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    override = env.get(ANCHOR_ENV)
    if override is not None:
        if not override:
            raise LedgerKeyError(f"{ANCHOR_ENV} is set but empty; unset it or name a directory")
        return Path(override).expanduser()
    xdg = env.get("XDG_STATE_HOME", "")
    # As for XDG_CONFIG_HOME: a relative XDG_STATE_HOME is invalid and ignored.
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "contend" / "anchors"
    home = env.get("HOME")
    if not home:
        raise LedgerKeyError(
            f"cannot place ledger anchors: HOME is unset; set {ANCHOR_ENV} to a directory"
        )
    return Path(home) / ".local" / "state" / "contend" / "anchors"


class Anchors:
    """The anchor directory of one user."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def for_user(cls, env: Mapping[str, str] | None = None) -> Anchors:
        return cls(anchor_dir(env))

    def path(self, run: str) -> Path:
        # Run ids are `YYYYmmdd-HHMMSS-hex`; anything else is hashed into a safe file name.
        name = run if _SAFE_RUN.fullmatch(run) else hashlib.sha256(run.encode()).hexdigest()
        return self.root / f"{name}.json"

    def read(self, run: str) -> Anchor | None:
        """The anchor of `run`, None when it has none; LedgerCorrupt when it is unreadable."""
        path = self.path(run)
        data, _ = read_newest(path)
        if data is None:
            return None
        try:
            anchor = Anchor(
                run=str(data["run"]),
                ledger=str(data["ledger"]),
                seq=int(data["seq"]),
                hash=str(data["hash"]),
                alg=str(data["alg"]),
                genesis=str(data["genesis"]),
                kid=None if data.get("kid") is None else str(data["kid"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise LedgerCorrupt(
                f"the anchor {path} is unreadable ({exc.__class__.__name__}: {exc})",
                path=str(path),
            ) from exc
        if data.get("schema") != ANCHOR_SCHEMA or anchor.run != run:
            raise LedgerCorrupt(f"the anchor {path} is not the anchor of run {run}", path=str(path))
        return anchor

    def writer(self, run: str) -> SlotWriter:
        """Open (creating) the anchor file of `run` for the run's writer."""
        if not self.root.exists():
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        return SlotWriter(self.path(run))
