"""The per-user ledger key and the entry hash functions it selects.

A ledger entry's `hash` is computed by the algorithm its `alg` member names:
  - `sha256`: sha256 over the entry's canonical bytes. Anyone can recompute it, so it only
    shows accidents and careless edits (ledgers written before keys existed use it);
  - `hmac-sha256`: HMAC-SHA256 under the user's key over the same bytes. Without the key
    nobody can compute a valid entry, so a rewrite, a forged entry or a re-chained
    history is detected by whoever holds the key.

The key is 32 random bytes, stored hex-encoded in `$CONTEND_KEY_FILE`, else `ledger.key`
beside the user config (`$CONTEND_CONFIG_HOME`, `$XDG_CONFIG_HOME/contend`,
`~/.config/contend`). A writer creates it on first use (mode 0600, directory 0700); a
reader never does. A key file that others can read is refused: it would no longer be a
secret, and a chain keyed by it proves nothing.

This module must not decide what a verification means; it only names, loads and applies keys.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from contend.config.files import user_config_path
from contend.errors import LedgerKeyError

if TYPE_CHECKING:
    from hashlib import _Hash

KEY_ENV = "CONTEND_KEY_FILE"
KEY_FILE = "ledger.key"
HASH_ALG = "sha256"
HMAC_ALG = "hmac-sha256"
ALGORITHMS = frozenset({HASH_ALG, HMAC_ALG})
_KEY_BYTES = 32

Digest = Callable[[bytes], str]


@dataclass(frozen=True, slots=True)
class LedgerKey:
    path: Path
    secret: bytes = b""

    @property
    def kid(self) -> str:
        """A short public id of the key (not of the secret's bits): says which key wrote a
        head or anchor, so "another key" can be told apart from "edited"."""
        return hashlib.sha256(b"contend-ledger-key-id\0" + self.secret).hexdigest()[:16]

    def digest(self) -> Digest:
        return hmac_sha256(self.secret)

    def __repr__(self) -> str:  # never print the secret
        return f"LedgerKey(path={str(self.path)!r}, kid={self.kid!r})"


def key_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the user's ledger key lives (it need not exist yet)."""
    env = os.environ if env is None else env
    override = env.get(KEY_ENV)
    if override is not None:
        if not override:
            raise LedgerKeyError(f"{KEY_ENV} is set but empty; unset it or name a file")
        return Path(override).expanduser()
    config = user_config_path(env)
    if config is None:
        raise LedgerKeyError(
            f"cannot place the ledger key: HOME is unset; set {KEY_ENV} to a file path"
        )
    return config.parent / KEY_FILE


def load_key(*, create: bool, env: Mapping[str, str] | None = None) -> LedgerKey | None:
    """The user's key; created when missing and `create`, else None when missing."""
    path = key_path(env)
    if not path.exists():
        if not create:
            return None
        _create(path)
    return _read(path)


def _create(path: Path) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    secret = secrets.token_hex(_KEY_BYTES).encode() + b"\n"
    # Written whole under a private name, then linked into place: the key file is never visible
    # half-written, and link (unlike rename) fails when another writer's key is already there,
    # so two writers racing to create it both end up with one key.
    fd, temp = tempfile.mkstemp(prefix=".ledger-key-", dir=path.parent)  # mode 0600
    try:
        try:
            os.write(fd, secret)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temp, path)
        # contend: allow silent-fallback -- another writer created the key first; we read theirs
        except FileExistsError:
            return
        except OSError as exc:
            raise LedgerKeyError(
                f"cannot create ledger key {path}: {exc} (the directory must allow hard links; "
                f"or point {KEY_ENV} at a key file you created)"
            ) from exc
    finally:
        os.unlink(temp)


def _read(path: Path) -> LedgerKey:
    try:
        info = path.stat()
        if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise LedgerKeyError(
                f"ledger key {path} is accessible to others "
                f"(mode {stat.S_IMODE(info.st_mode):04o}); a shared key proves nothing: "
                f"run `chmod 600 {path}`"
            )
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise LedgerKeyError(f"ledger key {path} belongs to another user (uid {info.st_uid})")
        text = path.read_text("ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise LedgerKeyError(f"cannot read ledger key {path}: {exc}") from exc
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        secret = b""
    if len(secret) < 16:
        raise LedgerKeyError(
            f"ledger key {path} is not a key (expected {_KEY_BYTES * 2} hex digits)"
        )
    return LedgerKey(path, secret)


def sha256_hex(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def hmac_pads(secret: bytes) -> tuple[_Hash, _Hash]:
    """The HMAC-SHA256 (RFC 2104) inner and outer hash states after the key's pads: an
    entry's MAC is then two state copies and two updates (verify inlines them in its loop)."""
    block = 64
    if len(secret) > block:
        secret = hashlib.sha256(secret).digest()
    padded = secret.ljust(block, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in padded))
    outer = hashlib.sha256(bytes(b ^ 0x5C for b in padded))
    return inner, outer


def hmac_sha256(secret: bytes) -> Digest:
    """HMAC-SHA256 with the pads hashed once: about half the cost of `hmac.digest`, which
    sets the key up on every call."""
    inner, outer = hmac_pads(secret)
    inner_copy = inner.copy
    outer_copy = outer.copy

    def digest(body: bytes) -> str:
        h = inner_copy()
        h.update(body)
        o = outer_copy()
        o.update(h.digest())
        return o.hexdigest()

    return digest
