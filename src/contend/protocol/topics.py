"""Topic de-duplication, in code: a later critic may not take an axis already taken."""

from __future__ import annotations

import re
from collections.abc import Iterable
from difflib import SequenceMatcher

_STOP = frozenset({"and", "or", "the", "a", "an", "of", "in", "for", "to", "on", "with"})


def _words(topic: str) -> set[str]:
    words = {w for w in re.findall(r"[a-z0-9]+", topic.lower()) if w not in _STOP}
    # Crude stemming so "fallbacks" and "fallback" meet.
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words}


def near_duplicate(topic: str, taken: Iterable[str], *, threshold: float = 0.6) -> str | None:
    """The taken topic that `topic` duplicates, or None. Word overlap (Jaccard) or close
    spelling (difflib ratio) at or above `threshold`."""
    mine = _words(topic)
    for other in taken:
        theirs = _words(other)
        union = mine | theirs
        jaccard = len(mine & theirs) / len(union) if union else 1.0
        ratio = SequenceMatcher(None, topic.lower().strip(), other.lower().strip()).ratio()
        if jaccard >= threshold or ratio >= 0.85:
            return other
    return None
