"""Pause the cyclic garbage collector around bulk work that allocates only acyclic data.

Parsing or folding 100,000 ledger entries allocates several hundred thousand dicts; the
collector would rescan the growing heap many times over for cycles that cannot exist,
which roughly doubles the cost. Reference counting still frees everything as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
