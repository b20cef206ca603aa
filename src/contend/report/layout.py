"""How the unresolved disputes read, shared by every renderer for a person (Markdown, text).

report.json lists disputes in rank order (contention, severity, the rule's confidence,
age). A person reads them differently:

- in tiers of equal rank — contention first, then severity — and, within a tier, by file
  and line, as one reads code;
- disputes of different rules or topics at exactly the same places are one item: the
  highest-ranked is the item, the others are named with it (each keeps its own id, status
  and place in report.json, since each is resolved on its own);
- a dispute is shown in full when it can block, was re-attacked or has an exchange; the
  rest (minor, unanswered) read as one line each (the headline section shows its own in
  full either way).

Pure: a Report in, plain data out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from contend.protocol.model import Severity
from contend.report.model import Dispute, Report, Site

# Places of a group listed inline before "and N more" (report.json has them all).
PLACES_SHOWN = 8


@dataclass(frozen=True, slots=True)
class Item:
    main: Dispute
    also: tuple[Dispute, ...] = ()

    @property
    def disputes(self) -> tuple[Dispute, ...]:
        return (self.main, *self.also)


@dataclass(frozen=True, slots=True)
class Tier:
    contention: int
    severity: Severity
    items: tuple[Item, ...]


def _places_key(d: Dispute) -> tuple[str, tuple[int, ...]]:
    return (d.location.path, tuple(sorted({s.start_line for s in d.locations})))


_DIGITS = re.compile(r"(\d+)")


PathKey = tuple[int | str, ...]


def path_key(path: str) -> PathKey:
    """Paths as a person sorts them: `mod2.py` before `mod10.py`. Split on runs of digits,
    text sits at the even places and digits at the odd ones, so an int only ever meets an
    int (`str.isdigit` cannot tell them apart: it is true of `²`, which is no digit run)."""
    return tuple(int(p) if i % 2 else p for i, p in enumerate(_DIGITS.split(path)))


def reading_key(d: Dispute) -> tuple[PathKey, int, int]:
    loc = d.location
    return (path_key(loc.path), loc.start_line, loc.end_line)


def _reading_key(item: Item) -> tuple[PathKey, int, int]:
    return reading_key(item.main)


def items(disputes: list[Dispute]) -> list[Item]:
    """Merge disputes at the same places; `disputes` are in rank order, so the first of
    each set is its item's main dispute."""
    return [Item(group[0], tuple(group[1:])) for group in same_places(disputes)]


def tiers(report: Report) -> list[Tier]:
    """The unresolved disputes as a person reads them: tiers of equal contention and
    severity, most contended and most severe first, each in file and line order."""
    by_rank: dict[tuple[int, Severity], list[Item]] = {}
    for item in items(report.disputes):
        by_rank.setdefault((item.main.contention, item.main.severity), []).append(item)
    ordered = sorted(by_rank.items(), key=lambda kv: (-kv[0][0], -kv[0][1].rank))
    return [
        Tier(contention, severity, tuple(sorted(found, key=_reading_key)))
        for (contention, severity), found in ordered
    ]


def in_full(item: Item, report: Report) -> bool:
    """Shown with evidence, ways out and exchange; otherwise one line. Surviving rounds
    alone does not count: in author mode every review survives one."""
    return any(
        d.severity.blocks or d.re_attacked or report.history.get(d.id) for d in item.disputes
    )


def by_file(disputes: list[Dispute]) -> list[tuple[str, list[Dispute]]]:
    """One-line disputes gathered per file, files and lines in reading order."""
    files: dict[str, list[Dispute]] = {}
    for d in sorted(disputes, key=reading_key):
        files.setdefault(d.location.path, []).append(d)
    return list(files.items())


def same_places(disputes: list[Dispute]) -> list[list[Dispute]]:
    """Disputes (in reading order) gathered where they sit at exactly the same places."""
    merged: dict[tuple[str, tuple[int, ...]], list[Dispute]] = {}
    for d in disputes:
        merged.setdefault(_places_key(d), []).append(d)
    return list(merged.values())


def by_rule(disputes: list[Dispute]) -> list[tuple[str, list[Dispute]]]:
    """Disputes per rule (topic when a critic named none), in order of first appearance."""
    rules: dict[str, list[Dispute]] = {}
    for d in sorted(disputes, key=reading_key):
        rules.setdefault(d.rule or d.topic, []).append(d)
    return list(rules.items())


def where(d: Dispute) -> str:
    """`path:line` or `path:start-end` (or just the path for a whole-file attack)."""
    loc = d.location
    if loc.start_line <= 0:
        return loc.path
    if loc.end_line > loc.start_line:
        return f"{loc.path}:{loc.start_line}-{loc.end_line}"
    return f"{loc.path}:{loc.start_line}"


def lines_of(site: Site) -> str:
    if site.start_line <= 0:
        return "whole file"
    if site.end_line > site.start_line:
        return f"{site.start_line}-{site.end_line}"
    return str(site.start_line)


def shown_places(d: Dispute) -> tuple[list[Site], int]:
    """The places listed inline, and how many more report.json holds."""
    return d.locations[:PLACES_SHOWN], max(len(d.locations) - PLACES_SHOWN, 0)


def symbol_of(d: Dispute) -> str | None:
    return d.locations[0].symbol if d.locations else None
