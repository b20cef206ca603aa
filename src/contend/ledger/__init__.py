"""The ledger: an append-only, hash-chained JSONL file per run, the single source of truth.

    keys    the per-user key and the entry hash functions (sha256, hmac-sha256)
    anchor  each run's head, anchored outside the run directory
    entries the line format and head record the writer and the verifier share
    store   the writer (canonical lines, redaction, head and anchor after every append)
    verify  the verifier: what the fold reads is what was hashed, first bad line named
    runs    where runs live and how a user names one
    index   the SQLite index behind `contend status` (a cache); index_rows its rows

Reports are folds of it; `contend ledger verify` checks it; docs/security.md says what an
unkeyed reader, the key and the anchor each detect.
"""

from contend.ledger.keys import HASH_ALG, HMAC_ALG, LedgerKey, load_key
from contend.ledger.store import EVENT_SCHEMA, Entry, Ledger
from contend.ledger.verify import VerifyResult, verify

__all__ = [
    "EVENT_SCHEMA",
    "HASH_ALG",
    "HMAC_ALG",
    "Entry",
    "Ledger",
    "LedgerKey",
    "VerifyResult",
    "load_key",
    "verify",
]
