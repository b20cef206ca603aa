"""Numbers in prose: values with units, percentages, multipliers, ranges, bounds and hedges.

`extract(text)` finds every quantity a claim or an evidence region states, as written and
normalised: `1,234` and `1.2k` are numbers, `3.5x` a multiplier, `350%` a percentage,
`10 ms` a duration, `between 3 and 5` a range, `about 50` approximate, `more than 40` a
bound, `126 findings` a count of findings. Labels (`Step 4`, `Table 2`, `issue 12`),
identifiers (`GPT-4`, `sha256`, `e2ebb91`), versions (`3.11.2`), dates and times are told
apart, because a label is matched, never compared as a magnitude.

`compare(claim, evidence)` says whether an evidence quantity confirms a claim quantity,
differs from it, or only fails to confirm it (less precise, a bound, a value inside a
range). Equivalent forms are equal: thousands separators, magnitudes (1.2k = 1,200), unit
conversion within a dimension (1,000 ms = 1 s), 3.5x = 350% (or 250% "faster"), a claim
rounded from a more precise source (3.5 from 3.47). The direction of every doubt is toward
"not contradicted": a false reject of a true claim is the worst outcome.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from typing import Literal

Bound = Literal["eq", "ge", "gt", "le", "lt"]
Match = Literal["equal", "differs", "unconfirmed"]

_NUMBER = re.compile(r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|(?<![\d.])\.\d+")
_MASKS = (
    re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE),  # URLs: ports and paths
    re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?"),  # dates
    re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b"),  # clock times
    re.compile(r"\bv?\d+(?:\.\d+){2,}\b"),  # versions
    re.compile(r"\b[0-9a-f]*[a-f][0-9a-f]*\d[0-9a-f]*\b|\b\d+[a-f][0-9a-f]{5,}\b"),  # hex ids
)

_TIME = {
    "ns": Decimal("1e-9"), "µs": Decimal("1e-6"), "us": Decimal("1e-6"),
    "ms": Decimal("0.001"), "s": Decimal(1), "sec": Decimal(1), "secs": Decimal(1),
    "second": Decimal(1), "seconds": Decimal(1), "min": Decimal(60), "mins": Decimal(60),
    "minute": Decimal(60), "minutes": Decimal(60), "h": Decimal(3600), "hr": Decimal(3600),
    "hrs": Decimal(3600), "hour": Decimal(3600), "hours": Decimal(3600),
    "day": Decimal(86400), "days": Decimal(86400), "week": Decimal(604800),
    "weeks": Decimal(604800),
}  # fmt: skip
_SIZE = {
    "b": Decimal(1), "byte": Decimal(1), "bytes": Decimal(1), "kb": Decimal(10**3),
    "mb": Decimal(10**6), "gb": Decimal(10**9), "tb": Decimal(10**12), "kib": Decimal(2**10),
    "mib": Decimal(2**20), "gib": Decimal(2**30), "tib": Decimal(2**40),
}  # fmt: skip
_BINARY = {"kb": Decimal(2**10), "mb": Decimal(2**20), "gb": Decimal(2**30), "tb": Decimal(2**40)}
_PERCENT = ("percentage points", "percentage point", "per cent", "percent", "pp", "%")
_RATIO = ("times", "-fold", "fold", "×", "x")
_MAGNITUDE = {
    "k": Decimal(10**3), "thousand": Decimal(10**3), "m": Decimal(10**6),
    "million": Decimal(10**6), "bn": Decimal(10**9), "billion": Decimal(10**9),
}  # fmt: skip
_CURRENCY = {"$": "USD", "€": "EUR", "£": "GBP"}
_LABELS = {
    "step", "steps", "section", "§", "issue", "issues", "table", "tab", "figure", "fig",
    "chapter", "page", "p", "pp", "line", "level", "version", "v", "seed", "round", "item",
    "rule", "phase", "part", "appendix", "exhibit", "claim", "example", "eq", "equation",
    "no", "#", "pr", "commit", "row", "column", "col", "stage", "option", "point", "topology",
    "experiment", "slice", "card", "agent", "axis", "test",
}  # fmt: skip
_TABLE_FIGURE = {"table", "tab", "figure", "fig"}
_APPROX = re.compile(
    r"(?:\b(?:about|around|approximately|approx\.?|roughly|nearly|almost|circa|ca\.|some|"
    r"close to|on the order of)|~|≈|\u223c)\s*$",
    re.IGNORECASE,
)
_BOUNDS: tuple[tuple[str, Bound], ...] = (
    (r"more than|greater than|over|above|exceeds?|exceeding|>", "gt"),
    (r"at least|no less than|no fewer than|≥|>=|minimum of", "ge"),
    (r"less than|fewer than|under|below|<", "lt"),
    (r"at most|up to|no more than|≤|<=|maximum of|within", "le"),
)
# Bound words that also mean something else ("12.5 s over 4,800 files": across; "under
# 2 cores": with): at the boundary value itself they are read as that other sense.
_LOOSE_BOUND = re.compile(r"\b(?:over|above|under|below|within)\s*$", re.IGNORECASE)
_BOUND_RE = [
    (re.compile(rf"(?:\b|(?<=\s)|^)(?:{words})\s*$", re.IGNORECASE), b) for words, b in _BOUNDS
]
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "each",
        "every",
        "for",
        "from",
        "has",
        "have",
        "in",
        "into",
        "is",
        "it",
        "its",
        "more",
        "less",
        "most",
        "least",
        "of",
        "on",
        "or",
        "per",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "these",
        "they",
        "this",
        "those",
        "to",
        "was",
        "were",
        "which",
        "while",
        "with",
        "without",
        "not",
        "no",
        "out",
        "over",
        "under",
    ]
)
NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20,
    "hundred": 100, "thousand": 1000, "half": None, "once": 1, "twice": 2, "thrice": 3,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Quantity:
    text: str  # as written, from the first character of a hedge or bound to the unit
    start: int  # offset of the number itself in the source text
    end: int
    low: Decimal  # in the unit as written, magnitude applied
    high: Decimal  # == low unless a range
    decimals: int  # digits after the decimal point, as written
    dimension: (
        str | None
    )  # time | size | percent | ratio | currency:USD | count:<noun> | label:<word> | None
    unit: str | None  # the unit as written, normalised (ms, %, x, finding, …)
    scale: Decimal  # unit → dimension base (ms → 0.001 s)
    approx: bool = False
    bound: Bound = "eq"
    loose_bound: bool = False  # the bound word has another sense (over, under, …)
    from_words: bool = False  # a number word in evidence ("three"): can confirm, never refute

    @property
    def is_label(self) -> bool:
        return bool(self.dimension and self.dimension.startswith("label:"))

    @property
    def is_range(self) -> bool:
        return self.low != self.high


def needs_exact_locator(text: str) -> bool:
    """True when `text` states a number, or names a table or figure (seed Step 1)."""
    for q in extract(text):
        if not q.is_label or (q.dimension or "").removeprefix("label:") in _TABLE_FIGURE:
            return True
    return False


def _masked(text: str) -> str:
    for pattern in _MASKS:
        text = pattern.sub(lambda m: "\0" * len(m.group()), text)
    return text


def extract(text: str, *, number_words: bool = False) -> list[Quantity]:
    """Every quantity of `text`, in order. `number_words` adds "three findings" and the like
    (for evidence only, where they may confirm a claim's digits)."""
    masked = _masked(text)
    found: list[Quantity] = []
    consumed_until = -1
    for match in _NUMBER.finditer(masked):
        start, end = match.span()
        if start < consumed_until:
            continue
        q = _read(text, start, end)
        if q is None:
            continue
        consumed_until = q.end
        found.append(q)
    if number_words:
        found.extend(_word_numbers(text))
        found.sort(key=lambda q: q.start)
    return found


def _read(text: str, start: int, end: int) -> Quantity | None:
    # Only the words just before a number bear on it (hedges, bounds, labels, currency).
    before = text[max(0, start - 48) : start]
    if before and (before[-1].isalpha() or before[-1] in "_\\/.") and not before.endswith("§"):
        return None  # sha256, v2, x86, path/42, .5 after a word: identifiers
    if re.search(r"[A-Za-z][\w]*-$", before):
        return None  # GPT-4, UTF-8, level-1: part of a name
    line_start = text.rfind("\n", 0, start) + 1
    if not text[line_start:start].strip() and re.match(r"[.)]\s", text[end : end + 2]):
        return None  # "5. user config": a list marker, no quantity
    raw = text[start:end]
    low = Decimal(raw.replace(",", ""))  # _NUMBER only matches decimal digits
    decimals = len(raw.split(".")[1]) if "." in raw else 0
    high = low
    after_index = end
    rest = text[end:]
    # A range: 10-20, 10–20, 10 to 20, between 10 and 20.
    range_match = re.match(
        r"(\s*(?:–|—|-|to)\s*|\s+and\s+)((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)", rest
    )
    if range_match and (
        range_match.group(1).strip() != "and" or re.search(r"\bbetween\s+$", before, re.I)
    ):
        second = Decimal(range_match.group(2).replace(",", ""))
        if second >= low:
            high = second
            after_index = end + range_match.end()
            rest = text[after_index:]
    magnitude = Decimal(1)
    mag_match = re.match(r"(?:(k|K|M|bn)(?![A-Za-z])|\s+(thousand|million|billion)\b)", rest)
    if mag_match:
        key = (mag_match.group(1) or mag_match.group(2)).lower()
        magnitude = _MAGNITUDE[key]
        after_index += mag_match.end()
        rest = text[after_index:]
    dimension, unit, scale, unit_len = _unit(rest)
    if unit_len < 0:
        return None  # glued letters that are no unit: 2nd, 3rd, 4xl
    after_index += unit_len
    currency = before[-1:] if before[-1:] in _CURRENCY else ""
    if currency and (dimension is None or dimension.startswith("count:")):
        dimension, unit, scale = f"currency:{_CURRENCY[currency]}", currency, Decimal(1)
    head = before[:-1] if currency else before
    approx = bool(_APPROX.search(head))
    bound: Bound = "eq"
    for pattern, name in _BOUND_RE:
        if pattern.search(head):
            bound = name
            break
    label = _label_word(head)
    if (
        label is not None
        and not approx
        and bound == "eq"
        and dimension not in ("percent", "ratio", "time", "size")
    ):
        dimension, unit, scale = f"label:{label}", label, Decimal(1)
    negative = bool(re.search(r"(?:^|[\s(])[-\u2212]$", head))
    if negative:
        low, high = -high, -low
    return Quantity(
        text=text[start:after_index].strip(),
        start=start,
        end=after_index,
        low=low * magnitude,
        high=high * magnitude,
        decimals=decimals,
        dimension=dimension,
        unit=unit,
        scale=scale,
        approx=approx,
        bound=bound,
        loose_bound=bound != "eq" and bool(_LOOSE_BOUND.search(head)),
    )


def _label_word(head: str) -> str | None:
    match = re.search(r"(§|#|[A-Za-z]+)\.?\s*$", head)
    if match is None:
        return None
    word = match.group(1).lower()
    return word if word in _LABELS else None


def _unit(rest: str) -> tuple[str | None, str | None, Decimal, int]:
    """(dimension, unit, scale, characters consumed) of what follows a number; consumed is
    -1 when letters glued to the number are no unit (an ordinal, an identifier)."""
    glued = bool(rest) and rest[0].isalpha()
    lower = rest.lower()
    for word in _PERCENT:
        if re.match(rf"\s?{re.escape(word)}(?![A-Za-z])", lower):
            used = lower.index(word) + len(word)
            return "percent", "%", Decimal(1), used
    for word in _RATIO:
        spaced = word in ("times", "×", "-fold", "fold")
        pattern = (
            rf"\s?{re.escape(word)}(?![A-Za-z0-9])"
            if spaced
            else rf"{re.escape(word)}(?![A-Za-z0-9])"
        )
        if re.match(pattern, lower):
            return "ratio", "x", Decimal(1), lower.index(word) + len(word)
    unit_match = re.match(r"(\s?)([A-Za-zµ]+)(?![A-Za-z0-9])", rest)
    if unit_match:
        word = unit_match.group(2)
        key = word.lower()
        if key in _TIME and (key not in ("s", "h", "min") or len(word) <= 3):
            return (
                "time",
                key if key in ("ns", "µs", "us", "ms") else _time_name(key),
                _TIME[key],
                unit_match.end(),
            )
        if key in _SIZE and (word[-1] == "B" or key in ("byte", "bytes")):
            return "size", word, _SIZE[key], unit_match.end()
        if glued:
            return None, None, Decimal(1), -1
    if glued:
        return None, None, Decimal(1), -1
    noun = re.match(r"\s+([A-Za-z][a-z]+(?:-[a-z]+)*)", rest)
    if noun:
        word = noun.group(1).lower()
        if word not in _STOP and word not in NUMBER_WORDS:
            return f"count:{_singular(word)}", _singular(word), Decimal(1), 0
    return None, None, Decimal(1), 0


def _time_name(key: str) -> str:
    return {"sec": "s", "secs": "s", "second": "s", "seconds": "s", "mins": "min",
            "minute": "min", "minutes": "min", "hr": "h", "hrs": "h", "hour": "h",
            "hours": "h", "days": "day", "weeks": "week"}.get(key, key)  # fmt: skip


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _word_numbers(text: str) -> list[Quantity]:
    out: list[Quantity] = []
    for match in re.finditer(r"\b([A-Za-z]+)\b", text):
        value = NUMBER_WORDS.get(match.group(1).lower())
        if value is None:
            continue
        dimension, unit, scale, _ = _unit(text[match.end() :])
        out.append(
            Quantity(
                text=match.group(1),
                start=match.start(),
                end=match.end(),
                low=Decimal(value),
                high=Decimal(value),
                decimals=0,
                dimension=dimension,
                unit=unit,
                scale=scale,
                from_words=True,
            )
        )
    return out


def compatible(claim: Quantity, evidence: Quantity) -> bool:
    """Whether the two can be compared as magnitudes at all."""
    if claim.is_label or evidence.is_label:
        return claim.dimension == evidence.dimension
    a, b = claim.dimension, evidence.dimension
    if a == b:
        return True
    if {a, b} == {"percent", "ratio"}:
        return True

    # Bare numbers and counts compare ("labelled 126" / "126 findings" / "126 real
    # findings"); only the same noun makes a difference meaningful (strongly_typed).
    def countish(d: str | None) -> bool:
        return d is None or d.startswith("count:")

    return countish(a) and countish(b)


def strongly_typed(claim: Quantity, evidence: Quantity) -> bool:
    """Both carry the same explicit unit kind: a difference between them is meaningful."""
    return claim.dimension is not None and claim.dimension == evidence.dimension


def compare(claim: Quantity, evidence: Quantity) -> tuple[Match, str]:
    """How `evidence` bears on `claim`: equal (with how), differs, or unconfirmed (why)."""
    if claim.is_label or evidence.is_label:
        same = claim.low == evidence.low and claim.high == evidence.high
        return ("equal", "same label") if same else ("differs", "another label")
    candidates = _evidence_values(claim, evidence)
    claim_low, claim_high = claim.low * claim.scale, claim.high * claim.scale
    for ev_low, ev_high, how in candidates:
        verdict = _compare_values(claim, claim_low, claim_high, evidence, ev_low, ev_high)
        if verdict[0] == "equal":
            return "equal", how or verdict[1]
    unconfirmed = [
        _compare_values(claim, claim_low, claim_high, evidence, lo, hi) for lo, hi, _ in candidates
    ]
    for verdict in unconfirmed:
        if verdict[0] == "unconfirmed":
            return verdict
    return "differs", f"{claim.text} vs {evidence.text}"


def _evidence_values(claim: Quantity, evidence: Quantity) -> list[tuple[Decimal, Decimal, str]]:
    """The evidence value in the claim's base units, under every fair reading."""
    low, high = evidence.low * evidence.scale, evidence.high * evidence.scale
    out = [(low, high, "")]
    if claim.dimension == "size" and evidence.dimension == "size":
        # KB/MB read as 1000 or 1024: both are in use.
        key = (evidence.unit or "").lower()
        if key in _BINARY:
            out.append((evidence.low * _BINARY[key], evidence.high * _BINARY[key], "binary prefix"))
        claim_key = (claim.unit or "").lower()
        if claim_key in _BINARY:
            factor = _BINARY[claim_key] / _SIZE[claim_key]
            out.append((low / factor, high / factor, "binary prefix"))
    if claim.dimension == "ratio" and evidence.dimension == "percent":
        out.append((low / 100, high / 100, f"{evidence.text} read as a multiplier"))
        out.append((low / 100 + 1, high / 100 + 1, f"{evidence.text} faster read as a multiplier"))
    if claim.dimension == "percent" and evidence.dimension == "ratio":
        out.append((low * 100, high * 100, f"{evidence.text} read as a percentage"))
        out.append(((low - 1) * 100, (high - 1) * 100, f"{evidence.text} read as an increase"))
    return out


def _rounds_to(value: Decimal, target: Decimal, decimals: int) -> bool:
    quantum = Decimal(1).scaleb(-decimals)
    return any(
        value.quantize(quantum, rounding=mode) == target
        for mode in (ROUND_HALF_UP, ROUND_HALF_EVEN)
    )


def _compare_values(
    claim: Quantity,
    c_low: Decimal,
    c_high: Decimal,
    evidence: Quantity,
    e_low: Decimal,
    e_high: Decimal,
) -> tuple[Match, str]:
    if claim.bound != "eq":
        return _compare_bound(claim, c_low, evidence, e_low, e_high)
    if evidence.bound != "eq":
        inside = _satisfies(evidence.bound, c_low, e_low) and _satisfies(
            evidence.bound, c_high, e_high
        )
        if c_low == e_low and c_high == e_high:
            return "equal", "same value"
        return (
            ("unconfirmed", f"the evidence gives only a bound: {evidence.text}")
            if inside
            else ("differs", "")
        )
    if c_low == e_low and c_high == e_high:
        return "equal", "same value"
    if claim.is_range or evidence.is_range:
        if claim.is_range and not evidence.is_range and c_low <= e_low <= c_high:
            return "equal", f"{evidence.text} lies in the claimed range"
        if evidence.is_range and not claim.is_range:
            if c_low in (e_low, e_high):
                return "equal", "an end of the evidence range"
            if e_low <= c_low <= e_high:
                return "unconfirmed", f"the evidence gives only the range {evidence.text}"
        if claim.is_range and evidence.is_range and c_low <= e_low and e_high <= c_high:
            return "equal", "the evidence range lies in the claimed range"
        return "differs", ""
    # One value each, in base units. Convert back into the claim's unit to judge rounding.
    claim_value = claim.low
    evidence_in_claim_unit = e_low / claim.scale
    if _rounds_to(evidence_in_claim_unit, claim_value, claim.decimals):
        return (
            "equal",
            "rounded from the evidence"
            if evidence.decimals > claim.decimals or evidence.scale != claim.scale
            else "same value",
        )
    if claim.approx:
        tolerance = abs(evidence_in_claim_unit) * Decimal("0.1")
        if abs(evidence_in_claim_unit - claim_value) <= tolerance:
            return "equal", "within the hedge of an approximate claim"
    if evidence.approx:
        tolerance = abs(evidence_in_claim_unit) * Decimal("0.1")
        if abs(evidence_in_claim_unit - claim_value) <= tolerance:
            return "unconfirmed", f"the evidence is approximate: {evidence.text}"
    if (
        evidence.decimals < claim.decimals
        and evidence.scale == claim.scale
        and _rounds_to(claim_value, e_low / evidence.scale, evidence.decimals)
    ):
        return "unconfirmed", f"the claim is more precise than the evidence ({evidence.text})"
    return "differs", ""


def _satisfies(bound: Bound, value: Decimal, limit: Decimal) -> bool:
    return {
        "eq": value == limit,
        "gt": value > limit,
        "ge": value >= limit,
        "lt": value < limit,
        "le": value <= limit,
    }[bound]


def _compare_bound(
    claim: Quantity, c_low: Decimal, evidence: Quantity, e_low: Decimal, e_high: Decimal
) -> tuple[Match, str]:
    if evidence.bound != "eq":
        if evidence.bound == claim.bound and e_low == c_low:
            return "equal", "same bound"
        stronger = (
            claim.bound in ("gt", "ge") and evidence.bound in ("gt", "ge") and e_low >= c_low
        ) or (claim.bound in ("lt", "le") and evidence.bound in ("lt", "le") and e_low <= c_low)
        return (
            ("equal", "implied by the evidence bound")
            if stronger
            else ("unconfirmed", f"the evidence gives another bound: {evidence.text}")
        )
    holds = _satisfies(claim.bound, e_low, c_low) and _satisfies(claim.bound, e_high, c_low)
    if holds:
        return "equal", f"{evidence.text} satisfies the bound"
    if e_low == c_low and claim.loose_bound:
        return "equal", "the value itself; the bound word read in its other sense"
    if claim.approx or e_low == c_low:
        # "over 644 items" may mean "across"; at the boundary value itself, a bound word
        # is read loosely, never as a contradiction.
        return "unconfirmed", f"the evidence gives {evidence.text}, the claim a bound"
    return "differs", ""
