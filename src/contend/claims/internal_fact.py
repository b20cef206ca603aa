"""The deterministic `internal-fact` critic: the claim against its cited local evidence.

Pure: it reads the claim text and the located evidence regions (evidence.locate), nothing
else. Every number (with its unit, percentage, range, hedge or bound), every quoted phrase
and every named entity of the claim is looked up in the cited regions:

- present       the region states it (for a number: an equal value under a fair reading —
                see quantities.compare — in a comparable context); the matching line is
                quoted with its page, line and region.
- contradicted  a number: the region states a different value of the same kind in the
                same context (the words around the number agree) → a `reject` attack naming
                both values. A quote: the region holds the passage with other words → a
                `reject` attack quoting both.
- absent        not found, or not confirmed (the source is less precise, gives a bound or a
                range) → an `escalate` attack naming the locator that failed to show it.

Labels (`Table 2`, `Step 4`) and named entities are present or absent, never
contradicted: that another table is named nearby proves nothing. A claim with nothing to
check, or no local evidence to check it against, is escalated — the critic never accepts
what it did not look at. Number words in evidence ("three rounds") may confirm a claim's
digits but never contradict them.
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from contend.claims.evidence import EvidenceLine, RegionText
from contend.claims.quantities import Quantity, compare, compatible, extract, strongly_typed

Status = Literal["present", "absent", "contradicted"]
ElementKind = Literal["number", "label", "quote", "entity"]
CheckVerdict = Literal["accept", "reject", "escalate"]
AXIS = "internal-fact"

_WORD = re.compile(r"[a-z][a-z0-9]*(?:['’][a-z]+)?")
_STOP = frozenset(
    "a an and are as at be been by can could do does each every for from had has have he "
    "her his how i if in into is it its may might more most much must no nor not of on one "
    "or our over per she should so some such than that the their them then there these "
    "they this those to too under up us was we were what when where which while who will "
    "with would you your also only just very about".split()
)
_QUOTE = re.compile(r'"([^"\n]{3,}?)"|“([^”\n]{3,}?)”|«([^»\n]{3,}?)»|`([^`\n]{2,}?)`')
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…|\[\s*(?:\.\.\.|…)?\s*\])\s*")
_SMALL_WORDS = frozenset({"a", "an", "the"})
_CAPITAL_STOP = frozenset(
    "The A An This That These Those It Its In On At Of For And Or But If When While Each "
    "Every We Our Us I You Your They Their He She His Her There Here No Not All Any Some "
    "Both Only Also As By With Without From To Is Are Was Were Be Then Than So Yes".split()
)
NEAR = 3
WINDOW = 15


@dataclass(frozen=True, slots=True)
class CitedRegion:
    """One kept local evidence item, located: its id, file and lines."""

    evidence_id: str
    file: str
    region: RegionText

    def locator(self) -> str:
        return f"evidence {self.evidence_id} ({self.file}, {self.region.describe()})"


@dataclass(frozen=True, slots=True)
class Finding:
    kind: ElementKind
    claimed: str
    status: Status
    evidence_id: str | None
    locator: str
    line: EvidenceLine | None = None
    evidence_value: str | None = None
    note: str = ""

    def where(self) -> str:
        if self.line is None:
            return self.locator
        at = f"page {self.line.page} line {self.line.line}"
        if self.line.file_line is not None:
            at += f" (file line {self.line.file_line})"
        if self.line.in_margin:
            at += ", just outside the named region"
        return f"{self.locator}, {at}"


@dataclass(frozen=True, slots=True)
class CheckAttack:
    verdict: Literal["reject", "escalate"]
    message: str
    finding: Finding | None


@dataclass(frozen=True, slots=True)
class InternalFactResult:
    verdict: CheckVerdict
    findings: tuple[Finding, ...]
    attacks: tuple[CheckAttack, ...]
    unchecked: tuple[str, ...] = field(default=())

    @property
    def no_attack_point(self) -> bool:
        return not self.attacks


def normalise(text: str) -> str:
    """Casefolded, NFKC, quotes and dashes unified, Markdown emphasis and whitespace gone."""
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(
        str.maketrans(
            {"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "−": "-", "*": "", "`": ""}
        )
    )
    text = re.sub(r"(\w)-\n(\w)", r"\1\2", text)  # a word hyphenated at a line end
    return re.sub(r"\s+", " ", text).strip().casefold()


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(normalise(text)) if w not in _STOP and len(w) > 1]


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


@dataclass(frozen=True, slots=True)
class _Context:
    left: str | None  # the content word just before the number
    right: str | None  # and just after it
    near: frozenset[str]
    window: frozenset[str]


_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:['’][A-Za-z]+)?")
# Where a statement ends: a sentence end, a blank line, a table row, a list item, a heading.
# Context never crosses one, so the numbers of the next table row do not lend their words.
# A line opening with a capital starts a new statement too: plain-text tables put one row on
# a line, and wrapped prose rarely breaks right before a capitalised word.
_SEGMENT_END = re.compile(r"[.!?;](?=\s)|\n\s*\n|\n(?=\s*(?:[|#>A-Z]|[-*+] |\d+[.)] ))")


@dataclass(frozen=True, slots=True)
class _Tokens:
    """The content words of a text with their offsets and statement segments."""

    starts: tuple[int, ...]
    stems: tuple[str, ...]
    segments: tuple[int, ...]
    boundaries: tuple[int, ...]

    @classmethod
    def of(cls, text: str, skip: Sequence[tuple[int, int]] = ()) -> _Tokens:
        """`skip`: spans of quantities, whose unit words are not context."""
        boundaries = tuple(m.start() for m in _SEGMENT_END.finditer(text))
        starts: list[int] = []
        stems: list[str] = []
        segments: list[int] = []
        for match in _TOKEN.finditer(text):
            word = match.group().casefold()
            at = match.start()
            if word in _STOP or len(word) < 2 or any(a <= at < b for a, b in skip):
                continue
            starts.append(at)
            stems.append(_stem(word))
            segments.append(bisect_right(boundaries, at))
        return cls(tuple(starts), tuple(stems), tuple(segments), boundaries)

    def context(self, start: int, end: int) -> _Context:
        segment = bisect_right(self.boundaries, start)
        first_after = bisect_right(self.starts, end - 1)
        last_before = bisect_right(self.starts, start - 1)
        before = [
            self.stems[i]
            for i in range(max(0, last_before - WINDOW), last_before)
            if self.segments[i] == segment
        ]
        after = [
            self.stems[i]
            for i in range(first_after, min(len(self.stems), first_after + WINDOW))
            if self.segments[i] == segment
        ]
        near = frozenset(before[-NEAR:] + after[:NEAR])
        return _Context(
            before[-1] if before else None,
            after[0] if after else None,
            near,
            frozenset(before + after),
        )


@dataclass(frozen=True, slots=True)
class _Located:
    quantity: Quantity
    context: _Context
    line: EvidenceLine
    cited: CitedRegion


def _region_text(cited: CitedRegion) -> tuple[str, list[int]]:
    offsets: list[int] = []
    parts: list[str] = []
    pos = 0
    for line in cited.region.lines:
        offsets.append(pos)
        parts.append(line.text)
        pos += len(line.text) + 1
    return "\n".join(parts), offsets


@functools.lru_cache(maxsize=256)
def _region_quantities(cited: CitedRegion) -> tuple[_Located, ...]:
    text, offsets = _region_text(cited)
    quantities = extract(text, number_words=True)
    tokens = _Tokens.of(text, [(q.start, q.end) for q in quantities])
    out: list[_Located] = []
    for quantity in quantities:
        index = bisect_right(offsets, quantity.start) - 1
        out.append(
            _Located(
                quantity,
                tokens.context(quantity.start, quantity.end),
                cited.region.lines[index],
                cited,
            )
        )
    return tuple(out)


def _evidence_quantities(regions: Sequence[CitedRegion]) -> list[_Located]:
    return [located for cited in regions for located in _region_quantities(cited)]


def _score(claim: _Context, evidence: _Context) -> tuple[int, int, float]:
    # The word either side counts most: on the same side twice, across once ("95% recall"
    # and "recall of 95%" are the same statement).
    same = (claim.left is not None and claim.left == evidence.left) + (
        claim.right is not None and claim.right == evidence.right
    )
    across = (claim.left is not None and claim.left == evidence.right) + (
        claim.right is not None and claim.right == evidence.left
    )
    adjacent = 2 * same + across
    near = len(claim.near & evidence.near)
    ctx = len(claim.window & evidence.window) / max(1, len(claim.window))
    return adjacent, near, ctx


def _confirms_only(q: Quantity, e: _Located) -> bool:
    """A label of the same number ("issue 3") may confirm a bare "3" whose label word the
    claim left out; it is never a different value."""
    return (
        e.quantity.is_label
        and not q.is_label
        and (q.dimension is None or q.dimension.startswith("count:"))
        and (e.quantity.low, e.quantity.high) == (q.low, q.high)
    )


def _anchored(q: Quantity, e: _Located, near: int, ctx: float) -> bool:
    """The evidence number stands where the claim's number stands: a difference counts."""
    if e.quantity.from_words:
        return False
    if strongly_typed(q, e.quantity):
        return (near >= 1 and ctx >= 0.5) or (near >= 2 and ctx >= 0.3)
    return near >= 2 and ctx >= 0.6


def check_number(
    q: Quantity, claim_ctx: _Context, located: Sequence[_Located], regions: Sequence[CitedRegion]
) -> Finding:
    kind: ElementKind = "label" if q.is_label else "number"
    where = "; ".join(r.locator() for r in regions)
    candidates = [e for e in located if compatible(q, e.quantity) or _confirms_only(q, e)]
    if not candidates:
        return Finding(kind, q.text, "absent", None, where, note="no comparable value there")
    rated = []
    for e in candidates:
        adjacent, near, ctx = _score(claim_ctx, e.context)
        match, how = compare(q, e.quantity)
        typed = 1 if strongly_typed(q, e.quantity) else 0
        shape = 0.5 if (q.bound, q.approx) == (e.quantity.bound, e.quantity.approx) else 0
        rated.append((2 * adjacent + near + 2 * ctx + typed + shape, near, ctx, e, match, how))
    rated.sort(key=lambda r: -r[0])
    equal = [r for r in rated if r[4] == "equal"]
    best = rated[0]
    if q.is_label:
        if equal:
            e = equal[0][3]
            return Finding(kind, q.text, "present", e.cited.evidence_id, e.cited.locator(), e.line)
        return Finding(kind, q.text, "absent", None, where, note="not named there")
    refuting = (
        best[4] == "differs" and not _confirms_only(q, best[3]) and _anchored(q, best[3], best[1], best[2])
    )
    # An equal value standing in the claim's context wins over a better-placed different
    # one: which of two numbers a phrase attaches to ("20 ms at p99") is beyond a lexical
    # check, and a false reject is the worst outcome.
    anchored_equal = any(_anchored(q, r[3], r[1], r[2]) for r in equal)
    if equal and (anchored_equal or not refuting or equal[0][0] >= 0.6 * best[0]):
        score, _, _, e, _, how = equal[0]
        return Finding(kind, q.text, "present", e.cited.evidence_id, e.cited.locator(), e.line,
                       e.quantity.text, how)  # fmt: skip
    if refuting:
        e = best[3]
        return Finding(kind, q.text, "contradicted", e.cited.evidence_id, e.cited.locator(), e.line,
                       e.quantity.text)  # fmt: skip
    unconfirmed = [r for r in rated if r[4] == "unconfirmed" and r[1] >= 1]
    if unconfirmed:
        e = unconfirmed[0][3]
        return Finding(kind, q.text, "absent", e.cited.evidence_id, e.cited.locator(), e.line,
                       e.quantity.text, unconfirmed[0][5])  # fmt: skip
    return Finding(kind, q.text, "absent", None, where, note="not stated there")


def _fragments(quote: str) -> list[str]:
    return [normalise(p) for p in _ELLIPSIS.split(quote) if p.strip()]


def check_quote(quote: str, regions: Sequence[CitedRegion]) -> Finding:
    fragments = _fragments(quote)
    for cited in regions:
        text, _ = _region_text(cited)
        plain = normalise(text)
        pos = 0
        for fragment in fragments:
            found = plain.find(fragment, pos)
            if found < 0:
                break
            pos = found + len(fragment)
        else:
            line = _line_of(cited, fragments[0]) if fragments else None
            return Finding("quote", quote, "present", cited.evidence_id, cited.locator(), line)
    # Not verbatim. Articles added or dropped are no misquote.
    core = " ".join(w for w in _QUOTE_WORD.findall(normalise(quote)) if w not in _SMALL_WORDS)
    for cited in regions:
        words = _QUOTE_WORD.findall(normalise(_region_text(cited)[0]))
        if core and f" {core} " in " " + " ".join(w for w in words if w not in _SMALL_WORDS) + " ":
            return Finding("quote", quote, "present", cited.evidence_id, cited.locator(),
                           _line_of(cited, core), note="differs only in articles")  # fmt: skip
    # The passage with other numbers in the same words is a misquote.
    misquoted = _numbers_differ(quote, regions)
    if misquoted is not None:
        return misquoted
    # Else the closest passage of the same length decides misquote vs absent.
    wanted = _QUOTE_WORD.findall(normalise(quote))
    best: tuple[float, CitedRegion | None, list[str]] = (0.0, None, [])
    for cited in regions:
        words = _QUOTE_WORD.findall(normalise(_region_text(cited)[0]))
        size = len(wanted)
        for start in range(0, max(1, len(words) - size + 1)):
            window = words[start : start + size]
            if not window or window[0] not in wanted[:3] and window[-1] not in wanted[-3:]:
                continue
            ratio = difflib.SequenceMatcher(None, wanted, window, autojunk=False).ratio()
            if ratio > best[0]:
                best = (ratio, cited, window)
    ratio, cited, window = best
    where = "; ".join(r.locator() for r in regions)
    if cited is not None and len(wanted) >= 3 and ratio >= 0.75:
        differing = set(wanted) ^ set(window)
        if differing <= _SMALL_WORDS:
            line = _line_of(cited, " ".join(window[:3]))
            return Finding("quote", quote, "present", cited.evidence_id, cited.locator(), line,
                           note="differs only in articles")  # fmt: skip
        line = _line_of(cited, " ".join(window[:3]))
        return Finding("quote", quote, "contradicted", cited.evidence_id, cited.locator(), line,
                       " ".join(window))  # fmt: skip
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
        found = pattern.search(normalise(_region_text(cited)[0]))
        if found is not None and found.group() != plain_quote:
            line = _line_of(cited, parts[0] or parts[1])
            return Finding("quote", quote, "contradicted", cited.evidence_id, cited.locator(),
                           line, found.group())  # fmt: skip
    return None


def _line_of(cited: CitedRegion, needle: str) -> EvidenceLine | None:
    words = _WORD.findall(normalise(needle))
    for line in cited.region.lines:
        plain = " ".join(_WORD.findall(normalise(line.text)))
        if words and " ".join(words[:2]) in plain:
            return line
    return None


def extract_entities(text: str) -> list[str]:
    """Named things of the claim: capitalised names not opening a sentence, acronyms,
    CamelCase, identifiers with digits, dots or underscores. Quoted spans are quotes."""
    stripped = _QUOTE.sub(lambda m: " " * len(m.group()), text)
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
        tentative = bool(word) and opening and word[0].isupper() and word not in _CAPITAL_STOP
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
    if word in _CAPITAL_STOP:
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
        text = normalise(_region_text(cited)[0]).replace("-", " ")
        if pattern.search(text):
            return Finding("entity", entity, "present", cited.evidence_id, cited.locator(),
                           _line_of(cited, entity))  # fmt: skip
    where = "; ".join(r.locator() for r in regions)
    return Finding("entity", entity, "absent", None, where, note="not named there")


_PASSAGE_TOKEN = re.compile(r"[^\W\d_]+|\d+(?:[.,]\d+)*")


def _passage_tokens(text: str) -> list[tuple[bool, str, int]]:
    """(is a number, token, offset): words lowercased, numbers as written."""
    return [
        (m.group()[0].isdigit(), m.group().lower(), m.start())
        for m in _PASSAGE_TOKEN.finditer(text)
    ]


def _verbatim_pairs(
    claim: str, numbers: Sequence[Quantity], regions: Sequence[CitedRegion]
) -> dict[int, _Located]:
    """Where the claim is a passage of the evidence word for word with only its numbers
    free, each claim number pairs with the number at its place there (claim offset →
    evidence number). A table row copied with one value changed is caught this way, where
    the same value standing elsewhere in the row would otherwise confirm it. When some
    occurrence of the passage agrees on every number, nothing pairs."""
    tokens = _passage_tokens(claim)
    words = [t for is_number, t, _ in tokens if not is_number]
    if len(words) < 3 or not numbers:
        return {}
    starts = {q.start for q in numbers}
    first_word = next(i for i, (is_number, _, _) in enumerate(tokens) if not is_number)
    candidates: list[dict[int, _Located]] = []
    for cited in regions:
        text, _ = _region_text(cited)
        by_start = {e.quantity.start: e for e in _region_quantities(cited)}
        ev = _passage_tokens(text)
        for at in range(len(ev) - len(tokens) + 1):
            if ev[at + first_word][1] != tokens[first_word][1]:
                continue
            pairs: dict[int, _Located] = {}
            for (c_num, c_tok, c_at), (e_num, e_tok, e_at) in zip(
                tokens, ev[at : at + len(tokens)], strict=True
            ):
                if c_num != e_num or (not c_num and c_tok != e_tok):
                    break
                # The same digits are the same number, whatever unit one side cut off.
                if c_num and c_at in starts and e_at in by_start and c_tok != e_tok:
                    pairs[c_at] = by_start[e_at]
            else:
                candidates.append(pairs)
    for pairs in candidates:
        if not pairs or all(
            compare(q, pairs[q.start].quantity)[0] == "equal" for q in numbers if q.start in pairs
        ):
            return {}
    return candidates[0] if candidates else {}


def check_claim(
    claim_text: str, regions: Sequence[CitedRegion], unchecked: Sequence[str] = ()
) -> InternalFactResult:
    """The internal-fact critic's turn on one claim: findings, attacks and its verdict."""
    if not regions:
        attack = CheckAttack(
            "escalate",
            "no local evidence to check the claim against"
            + (f" ({'; '.join(unchecked)})" if unchecked else "")
            + ": web sources are not fetched offline, so they stay unverified",
            None,
        )
        return InternalFactResult("escalate", (), (attack,), tuple(unchecked))
    located = _evidence_quantities(regions)
    findings: list[Finding] = []
    stripped = _QUOTE.sub(lambda m: " " * len(m.group()), claim_text)
    # Numbers inside quotes are the quote's; the words of quotes are context all the same.
    numbers = extract(stripped)
    claim_tokens = _Tokens.of(claim_text, [(q.start, q.end) for q in numbers])
    aligned = _verbatim_pairs(stripped, numbers, regions)
    for q in numbers:
        pair = aligned.get(q.start)
        if pair is not None and compare(q, pair.quantity)[0] == "differs":
            findings.append(
                Finding("number", q.text, "contradicted", pair.cited.evidence_id,
                        pair.cited.locator(), pair.line, pair.quantity.text,
                        "the same passage with another number")  # fmt: skip
            )
            continue
        findings.append(check_number(q, claim_tokens.context(q.start, q.end), located, regions))
    for match in _QUOTE.finditer(claim_text):
        quote = next(g for g in match.groups() if g)
        findings.append(check_quote(quote, regions))
    for entity in extract_entities(claim_text):
        findings.append(check_entity(entity, regions))
    if not findings:
        attack = CheckAttack(
            "escalate",
            "nothing the internal-fact critic can check (no number, quote or named entity): "
            "the claim needs the logic axes",
            None,
        )
        return InternalFactResult("escalate", (), (attack,), tuple(unchecked))
    attacks = tuple(_attack(f) for f in findings if f.status != "present")
    verdict: CheckVerdict = (
        "reject"
        if any(a.verdict == "reject" for a in attacks)
        else "escalate" if attacks else "accept"
    )
    return InternalFactResult(verdict, tuple(findings), attacks, tuple(unchecked))


def _attack(f: Finding) -> CheckAttack:
    quoted = f": “{f.line.text.strip()}”" if f.line is not None else ""
    if f.status == "contradicted":
        what = "says" if f.kind == "number" else "reads"
        return CheckAttack(
            "reject",
            f"the claim {what} {f.claimed!r}, but {f.where()} {what} {f.evidence_value!r}{quoted}",
            f,
        )
    note = f" ({f.note})" if f.note else ""
    return CheckAttack(
        "escalate",
        f"{f.kind} {f.claimed!r} is not confirmed by {f.where()}{note}{quoted}; cite the page "
        "and region that state it",
        f,
    )
