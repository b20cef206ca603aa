"""Ranking of surviving disputes: pure arithmetic, no model involved (DESIGN §2)."""

from __future__ import annotations

from collections.abc import Iterable

from contend.protocol.model import Attack

# An attack that states no confidence (a model critic's) ranks as medium: no claim either
# way. The fold refuses any other word (events.CONFIDENCES).
_CONFIDENCE_RANK = {"high": 3, "medium": 2, "low": 1}


def confidence_rank(attack: Attack) -> int:
    return _CONFIDENCE_RANK[attack.confidence or "medium"]


def rank_key(attack: Attack) -> tuple[int, int, int, int]:
    """Sort key: highest contention first, then severity, then the rule's confidence,
    then earliest raised."""
    return (
        -attack.contention,
        -attack.severity.rank,
        -confidence_rank(attack),
        attack.raised_seq,
    )


def ranked(attacks: Iterable[Attack]) -> list[Attack]:
    return sorted(attacks, key=rank_key)


def headline(attacks: Iterable[Attack]) -> Attack | None:
    """The unresolved attack with the highest contention (ties: severity, then the rule's
    confidence, then earliest)."""
    unresolved = [a for a in attacks if not a.resolved]
    return min(unresolved, key=rank_key) if unresolved else None
