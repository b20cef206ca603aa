"""Ranking of surviving disputes: pure arithmetic, no model involved (DESIGN §2)."""

from __future__ import annotations

from collections.abc import Iterable

from contend.protocol.model import Attack


def rank_key(attack: Attack) -> tuple[int, int, int]:
    """Sort key: highest contention first, then severity, then earliest raised."""
    return (-attack.contention, -attack.severity.rank, attack.raised_seq)


def ranked(attacks: Iterable[Attack]) -> list[Attack]:
    return sorted(attacks, key=rank_key)


def headline(attacks: Iterable[Attack]) -> Attack | None:
    """The unresolved attack with the highest contention (ties: severity, then earliest)."""
    unresolved = [a for a in attacks if not a.resolved]
    return min(unresolved, key=rank_key) if unresolved else None
