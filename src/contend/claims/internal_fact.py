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

import functools
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from contend.claims.evidence import EvidenceLine
from contend.claims.findings import (
    CheckAttack,
    CheckVerdict,
    CitedRegion,
    ElementKind,
    Finding,
    InternalFactResult,
    region_text,
)
from contend.claims.phrases import QUOTE, check_entity, check_quote, extract_entities
from contend.claims.quantities import Quantity, compare, compatible, extract, strongly_typed
from contend.claims.words import STOP, stem

AXIS = "internal-fact"

NEAR = 3
WINDOW = 15


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
            if word in STOP or len(word) < 2 or any(a <= at < b for a, b in skip):
                continue
            starts.append(at)
            stems.append(stem(word))
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


@functools.lru_cache(maxsize=256)
def _region_quantities(cited: CitedRegion) -> tuple[_Located, ...]:
    text, offsets = region_text(cited)
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
    """The same number with a label or unit the claim left out ("issue 3", "0.46 s" for a
    bare "3" or "0.46") may confirm it; it is never a different value."""
    bare = q.dimension is None or q.dimension.startswith("count:")
    return (
        bare
        and not q.is_label
        and not compatible(q, e.quantity)
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
        best[4] == "differs"
        and not _confirms_only(q, best[3])
        and _anchored(q, best[3], best[1], best[2])
    )
    # An equal value standing in the claim's context wins over a better-placed different
    # one: which of two numbers a phrase attaches to ("20 ms at p99") is beyond a lexical
    # check, and a false reject is the worst outcome.
    anchored_equal = any(_anchored(q, r[3], r[1], r[2]) for r in equal)
    # A value of the claim's own shape that is only less precise, standing in the claim's
    # context, blocks a reject too: the claim is then unconfirmed, not contradicted.
    claim_shape = (q.bound, q.approx)
    if refuting and any(
        r[4] == "unconfirmed"
        and (r[3].quantity.bound, r[3].quantity.approx) == claim_shape
        and _anchored(q, r[3], r[1], r[2])
        for r in rated
    ):
        refuting = False
    if equal and (anchored_equal or not refuting or equal[0][0] >= 0.6 * best[0]):
        _, _, _, e, _, how = equal[0]
        return Finding(
            kind,
            q.text,
            "present",
            e.cited.evidence_id,
            e.cited.locator(),
            e.line,
            e.quantity.text,
            how,
        )
    if refuting:
        e = best[3]
        return Finding(
            kind,
            q.text,
            "contradicted",
            e.cited.evidence_id,
            e.cited.locator(),
            e.line,
            e.quantity.text,
        )
    unconfirmed = [r for r in rated if r[4] == "unconfirmed" and r[1] >= 1]
    if unconfirmed:
        e = unconfirmed[0][3]
        return Finding(
            kind,
            q.text,
            "absent",
            e.cited.evidence_id,
            e.cited.locator(),
            e.line,
            e.quantity.text,
            unconfirmed[0][5],
        )
    return Finding(kind, q.text, "absent", None, where, note="not stated there")


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
        text, _ = region_text(cited)
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
    stripped = QUOTE.sub(lambda m: " " * len(m.group()), claim_text)
    # Numbers inside quotes are the quote's; the words of quotes are context all the same.
    numbers = extract(stripped)
    claim_tokens = _Tokens.of(claim_text, [(q.start, q.end) for q in numbers])
    aligned = _verbatim_pairs(stripped, numbers, regions)
    for q in numbers:
        pair = aligned.get(q.start)
        if pair is not None and compare(q, pair.quantity)[0] == "differs":
            findings.append(
                Finding(
                    "number",
                    q.text,
                    "contradicted",
                    pair.cited.evidence_id,
                    pair.cited.locator(),
                    pair.line,
                    pair.quantity.text,
                    "the same passage with another number",
                )
            )
            continue
        findings.append(check_number(q, claim_tokens.context(q.start, q.end), located, regions))
    for match in QUOTE.finditer(claim_text):
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
        else "escalate"
        if attacks
        else "accept"
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
