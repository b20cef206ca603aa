"""The ledger: an append-only, hash-chained JSONL file per run, the single source of truth.

Reports are folds of it; `contend ledger verify` checks it.
"""

from contend.ledger.store import EVENT_SCHEMA, HASH_ALG, Entry, Ledger, read_entries
from contend.ledger.verify import VerifyResult, verify

__all__ = ["EVENT_SCHEMA", "HASH_ALG", "Entry", "Ledger", "VerifyResult", "read_entries", "verify"]
