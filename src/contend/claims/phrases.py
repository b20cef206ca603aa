"""Quotes and named entities of a claim, looked up in its cited evidence regions.

A quote is present verbatim (after normalising case, quotes, dashes, whitespace and
Markdown emphasis; an ellipsis or `[...]` splits it into fragments that must appear in
order; articles added or dropped do not count), contradicted when the region holds the same
passage with other words or other numbers (a misquote, quoting both), or absent. A named
entity is present or absent, never contradicted.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from contend.claims.findings import CitedRegion, Finding, line_of, region_text
from contend.claims.quantities import extract
from contend.claims.words import CAPITAL_STOP, SMALL_WORDS, normalise

QUOTE = re.compile(r'"([^"\n]{3,}?)"|“([^”\n]{3,}?)”|«([^»\n]{3,}?)»|`([^`\n]{2,}?)`')
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…|\[\s*(?:\.\.\.|…)?\s*\])\s*")


def _fragments(quote: str) -> list[str]:
    return [normalise(p) for p in _ELLIPSIS.split(quote) if p.strip()]


def check_quote(quote: str, regions: Sequence[CitedRegion]) -> Finding:
    fragments = _fragments(quote)
    for cited in regions:
        text, _ = region_text(cited)
        plain = normalise(text)
        pos = 0
        for fragment in fragments:
            found = plain.find(fragment, pos)
            if found < 0:
                break
            pos = found + len(fragment)
        else:
            line = line_of(cited, fragments[0]) if fragments else None
            return Finding("quote", quote, "present", cited.evidence_id, cited.locator(), line)
    # Not verbatim. Articles added or dropped are no misquote.
    core = " ".join(w for w in _QUOTE_WORD.findall(normalise(quote)) if w not in SMALL_WORDS)
    for cited in regions:
        words = _QUOTE_WORD.findall(normalise(region_text(cited)[0]))
        if core and f" {core} " in " " + " ".join(w for w in words if w not in SMALL_WORDS) + " ":
            return Finding(
                "quote",
                quote,
                "present",
                cited.evidence_id,
                cited.locator(),
                line_of(cited, core),
                note="differs only in articles",
            )
    # The passage with other numbers in the same words is a misquote.
    misquoted = _numbers_differ(quote, regions)
    if misquoted is not None:
        return misquoted
    # Else the closest passage of the same length decides misquote vs absent.
    wanted = _QUOTE_WORD.findall(normalise(quote))
    best: tuple[float, CitedRegion | None, list[str]] = (0.0, None, [])
    for cited in regions:
        words = _QUOTE_WORD.findall(normalise(region_text(cited)[0]))
        size = len(wanted)
        for start in range(0, max(1, len(words) - size + 1)):
            window = words[start : start + size]
            if not window or (window[0] not in wanted[:3] and window[-1] not in wanted[-3:]):
                continue
            ratio = difflib.SequenceMatcher(None, wanted, window, autojunk=False).ratio()
            if ratio > best[0]:
                best = (ratio, cited, window)
    ratio, closest, window = best
    where = "; ".join(r.locator() for r in regions)
    if closest is not None and len(wanted) >= 3 and ratio >= 0.75:
        cited = closest
        differing = set(wanted) ^ set(window)
        if differing <= SMALL_WORDS:
            line = line_of(cited, " ".join(window[:3]))
            return Finding(
                "quote",
                quote,
                "present",
                cited.evidence_id,
                cited.locator(),
                line,
                note="differs only in articles",
            )
        line = line_of(cited, " ".join(window[:3]))
        return Finding(
            "quote",
            quote,
            "contradicted",
            cited.evidence_id,
            cited.locator(),
            line,
            " ".join(window),
        )
    return Finding("quote", quote, "absent", None, where, note="not found there")


_QUOTE_WORD = re.compile(r"[a-z0-9]+(?:['.][a-z0-9]+)*")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")


def _numbers_differ(quote: str, regions: Sequence[CitedRegion]) -> Finding | None:
    plain_quote = normalise(quote)
    parts = _DIGITS.split(plain_quote)
    if len(parts) < 2 or not "".join(parts).strip():
        return None
    if len(_QUOTE_WORD.findall(" ".join(parts))) < 2:
        return None  # "HEAD~6": too little around the number to know it is the same passage
    pattern = re.compile(r"(\d+(?:[.,]\d+)*)".join(re.escape(p) for p in parts))
    for cited in regions:
        found = pattern.search(normalise(region_text(cited)[0]))
        if found is not None and found.group() != plain_quote:
            line = line_of(cited, parts[0] or parts[1])
            return Finding(
                "quote",
                quote,
                "contradicted",
                cited.evidence_id,
                cited.locator(),
                line,
                found.group(),
            )
    return None


def extract_entities(text: str) -> list[str]:
    """Named things of the claim: capitalised names not opening a sentence, acronyms,
    CamelCase, identifiers with digits, dots or underscores. Quoted spans are quotes."""
    stripped = QUOTE.sub(lambda m: " " * len(m.group()), text)
    spans = [(q.start, q.end) for q in extract(stripped)]
    tokens = list(re.finditer(r"[A-Za-z][\w.+-]*[\w+]|[A-Za-z]", stripped))
    entities: list[str] = []
    current: list[str] = []
    held = False
    for index, match in enumerate(tokens):
        word = match.group().rstrip(".")
        start = match.start()
        if any(a <= start < b for a, b in spans):
            word = ""
        opening = index == 0 or re.search(r"[.!?:]\s*$", stripped[:start]) is not None
        # A capitalised word opening a sentence is a name only when a name follows it
        # ("Claude Code ..."), so it is held back as tentative.
        tentative = bool(word) and opening and word[0].isupper() and word not in CAPITAL_STOP
        if word and (_entity_like(word, opening) or tentative):
            gap = stripped[tokens[index - 1].end() : start] if index and current else " "
            if current and gap.strip() == "":
                current.append(word)
                held = False
            else:
                _flush(entities, current, held)
                current = [word]
                held = tentative and not _entity_like(word, opening)
        else:
            _flush(entities, current, held)
            current = []
    _flush(entities, current, held)
    return list(dict.fromkeys(entities))


def _flush(entities: list[str], current: list[str], held: bool) -> None:
    if current and not (held and len(current) == 1):
        entities.append(" ".join(current))


def _entity_like(word: str, opening: bool) -> bool:
    if word in CAPITAL_STOP:
        return False
    if re.search(r"[a-z][A-Z]|[A-Z]{2}|\d|[._]\w", word[1:] if len(word) > 1 else ""):
        return True
    if re.search(r"[A-Za-z]\d|\d[A-Za-z]|_", word):
        return True
    return word[0].isupper() and not opening


def check_entity(entity: str, regions: Sequence[CitedRegion]) -> Finding:
    needle = normalise(entity).replace("-", " ")
    pattern = re.compile(rf"(?<![a-z0-9]){re.escape(needle)}(?![a-z0-9])")
    for cited in regions:
        text = normalise(region_text(cited)[0]).replace("-", " ")
        if pattern.search(text):
            return Finding(
                "entity",
                entity,
                "present",
                cited.evidence_id,
                cited.locator(),
                line_of(cited, entity),
            )
    where = "; ".join(r.locator() for r in regions)
    return Finding("entity", entity, "absent", None, where, note="not named there")
