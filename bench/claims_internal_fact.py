"""Measured quality of the deterministic internal-fact critic on real text with numbers.

    .venv/bin/python bench/claims_internal_fact.py [--limit N] [--seed S] [--json F] [-v]

Built at run time from real prose: the seeds (shared/seeds beside the checkout, or
CONTEND_SEEDS) and the project's own docs (README.md, docs/*.md). From every line that
states a number it derives claims — the sentence around the number, and a short clause
window — each citing its own file, page and region (the third of the file the line lies
in). Then, per claim:

- control          untouched: any reject is a false reject.
- equivalent       the number rewritten into an equal form (thousands separator, "percent",
                   "-fold", ms↔s, a hedge "about"): still true, any reject is a false reject.
- number-changed   one number changed (×0.5, ×1.3, ×2, ×10, ±n): must be rejected.
- unit-swapped     the unit swapped within its dimension (ms↔s, MB↔GB, min↔h): rejected.
- percent-flipped  p% → (100-p)%: rejected.
- reworded         the control with an attribution in front and articles dropped (so no
                   verbatim passage decides), and reworded-changed, its number changed.
- quote-altered    a quoted phrase of the line with one word changed: rejected (misquote);
                   its control is the phrase quoted verbatim.

A mutant is caught when the critic rejects with a contradicted finding on the mutated
element. Figures printed: recall of contradicted numbers (target ≥ 95%) and false rejects
on controls and equivalents (target ≤ 2%), with escalation rates beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from contend.claims.evidence import (
    EvidenceText,
    RegionText,
    locate,
    read_evidence,
    region_bounds,
)
from contend.claims.internal_fact import CitedRegion, InternalFactResult, check_claim
from contend.claims.quantities import Quantity, compare, extract

ROOT = Path(__file__).resolve().parents[1]
NUMBER_KINDS = ("number-changed", "unit-swapped", "percent-flipped", "reworded-changed")
MUTANT_KINDS = (*NUMBER_KINDS, "quote-altered")
CONTROL_KINDS = ("control", "equivalent", "reworded", "quote-control")
_UNIT_SWAPS = {
    "ms": "s",
    "s": "ms",
    "min": "h",
    "h": "min",
    "minutes": "hours",
    "hours": "minutes",
    "seconds": "minutes",
    "MB": "GB",
    "GB": "MB",
    "KB": "MB",
    "kB": "MB",
    "GiB": "MiB",
    "MiB": "GiB",
    "days": "weeks",
    "weeks": "days",
}


@dataclass(frozen=True, slots=True)
class Case:
    kind: str
    source: str
    claim: str
    region: CitedRegion
    target: str  # the element that was mutated (as written in the claim), "" for controls


def seed_dirs() -> list[Path]:
    env = os.environ.get("CONTEND_SEEDS")
    candidates = [Path(env)] if env else []
    candidates += [ROOT.parent / "shared" / "seeds", ROOT.parents[1] / "shared" / "seeds"]
    return [p for p in candidates if p.is_dir()]


# The page that reports this bench's figures is left out: editing the figures would
# otherwise change the corpus that produced them.
EXCLUDED = frozenset({"claims.md"})


def sources() -> list[Path]:
    docs = [p for p in sorted((ROOT / "docs").glob("*.md")) if p.name not in EXCLUDED]
    found = [ROOT / "README.md", *docs]
    for directory in seed_dirs()[:1]:
        found += sorted(directory.glob("*.txt"))
    return [p for p in found if p.is_file()]


def _plain(text: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # Markdown links
    text = re.sub(r"^\s*(?:#+|>)\s*", "", text)  # a heading or quote marker
    return re.sub(r"[*`|]+", " ", text).strip(" -")


def _in_quotes(claim: str, at: int) -> bool:
    return claim[:at].count('"') % 2 == 1 or claim[:at].count("“") > claim[:at].count("”")


def _sentences(line: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.;!?])\s+", line) if s.strip()]


def _numbers(text: str) -> list[Quantity]:
    return [q for q in extract(text) if not q.is_label and not q.from_words]


def _region_of(evidence: EvidenceText, page: int, line_index: int) -> str:
    count = len(evidence.pages[page - 1].split("\n"))
    for region in ("top", "middle", "bottom"):
        start, end = region_bounds(count, region)
        if start <= line_index < end:
            return region
    return "n/a"


def derive(path: Path, rng: random.Random) -> list[Case]:
    evidence = read_evidence(path)
    if not isinstance(evidence, EvidenceText):
        print(f"skipped {path}: {evidence.reason}", file=sys.stderr)
        return []
    name = path.name
    cases: list[Case] = []
    for page_number, page in enumerate(evidence.pages, start=1):
        in_code = False
        for index, raw in enumerate(page.split("\n")):
            if raw.lstrip().startswith("```"):
                in_code = not in_code
                continue
            line = _plain(raw)
            if in_code or len(line) < 25 or sum(c.isalpha() for c in line) < len(line) / 2:
                continue
            located = locate(evidence, page_number, _region_of(evidence, page_number, index))
            if not isinstance(located, RegionText):
                continue
            cited = CitedRegion("E1", name, located)
            for sentence in _sentences(line):
                if 20 <= len(sentence) <= 240 and _numbers(sentence):
                    cases.extend(_number_cases(name, sentence, cited, rng))
                    words = sentence.split()
                    q = rng.choice(_numbers(sentence))
                    at = len(sentence[: q.start].split())
                    window = " ".join(words[max(0, at - 6) : at + 7])
                    if window != sentence and _numbers(window):
                        cases.extend(_number_cases(name, window, cited, rng))
            words = [w for w in re.findall(r"[A-Za-z][A-Za-z'-]+", line)]
            if len(words) >= 8 and rng.random() < 0.25:
                cases.extend(_quote_cases(name, line, cited, rng))
    return cases


def _fmt(value: Decimal, decimals: int, thousands: bool) -> str:
    text = f"{value:,.{decimals}f}" if thousands else f"{value:.{decimals}f}"
    return text


def _number_text(q: Quantity, claim: str) -> str:
    return claim[q.start : q.end]


def _replace_number(claim: str, q: Quantity, new_number: str) -> str:
    raw = re.match(r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+", claim[q.start :])
    assert raw is not None
    return claim[: q.start] + new_number + claim[q.start + raw.end() :]


def _number_cases(name: str, claim: str, cited: CitedRegion, rng: random.Random) -> list[Case]:
    out = [Case("control", name, claim, cited, "")]
    numbers = _numbers(claim)
    q = rng.choice(numbers)
    raw = claim[q.start :]
    match = re.match(r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+", raw)
    assert match is not None
    written = match.group()
    thousands = "," in written
    base = Decimal(written.replace(",", ""))
    # An equivalent form, still true (not inside a quote, a path or an address, where the
    # same number written otherwise would be a misquote).
    glued = claim[q.start - 1 : q.start] in (":", "/", ".", "_", "-", "~", "=", "$", "€", "£")
    equivalent = (
        None if glued or _in_quotes(claim, q.start) else _equivalent(claim, q, written, base)
    )
    if equivalent is not None:
        out.append(Case("equivalent", name, equivalent, cited, ""))
    # A changed number.
    for _ in range(5):
        if base == base.to_integral_value() and base < 20:
            new = base + rng.choice([d for d in range(-3, 8) if d and base + d >= 0])
        else:
            new = base * Decimal(str(rng.choice([0.5, 0.7, 1.3, 2, 10])))
        new_text = _fmt(new, q.decimals, thousands)
        mutated = _replace_number(claim, q, new_text)
        changed = _numbers(mutated)
        pick = [m for m in changed if m.start == q.start]
        if pick and compare(pick[0], q)[0] == "differs":
            out.append(Case("number-changed", name, mutated, cited, pick[0].text))
            # The same pair reworded, so no verbatim passage carries the check.
            out.append(Case("reworded", name, _reword(name, claim), cited, ""))
            out.append(Case("reworded-changed", name, _reword(name, mutated), cited, pick[0].text))
            break
    # A swapped unit.
    unit_written = re.match(r"\s?([A-Za-z]+)", claim[q.start + len(written) : q.end])
    if unit_written and unit_written.group(1) in _UNIT_SWAPS and q.dimension in ("time", "size"):
        unit_at = q.start + len(written) + unit_written.start(1)
        word = unit_written.group(1)
        if 0 <= unit_at < q.end:
            mutated = claim[:unit_at] + _UNIT_SWAPS[word] + claim[unit_at + len(word) :]
            pick = [m for m in _numbers(mutated) if m.start == q.start]
            if pick and compare(pick[0], q)[0] == "differs":
                out.append(Case("unit-swapped", name, mutated, cited, pick[0].text))
    # A flipped percentage.
    if q.dimension == "percent" and not q.is_range and base not in (0, 50, 100) and base < 100:
        flipped = _fmt(Decimal(100) - base, q.decimals, False)
        mutated = _replace_number(claim, q, flipped)
        pick = [m for m in _numbers(mutated) if m.start == q.start]
        if pick and compare(pick[0], q)[0] == "differs":
            out.append(Case("percent-flipped", name, mutated, cited, pick[0].text))
    return out


def _reword(source: str, claim: str) -> str:
    """A light rewording that keeps every number and its neighbours: an attribution in
    front, articles dropped."""
    body = re.sub(r"\b(?:the|a|an|The|A|An)\s+", "", claim)
    return f"According to the source, {body}"


def _equivalent(claim: str, q: Quantity, written: str, base: Decimal) -> str | None:
    after = claim[q.start + len(written) :]
    if "," in written:
        return claim[: q.start] + written.replace(",", "") + after
    if base >= 1000 and base == base.to_integral_value():
        return claim[: q.start] + f"{int(base):,}" + after
    if q.dimension == "percent" and after.startswith("%"):
        return claim[: q.start] + written + " percent" + after[1:]
    if q.dimension == "time" and q.unit == "ms" and re.match(r"\s?ms\b", after):
        seconds = base / 1000
        unit_len = re.match(r"\s?ms", after).end()  # type: ignore[union-attr]
        return claim[: q.start] + f"{seconds.normalize():f} s" + after[unit_len:]
    if q.dimension == "ratio" and re.match(r"[x×]", after):
        return claim[: q.start] + written + "-fold" + after[1:]
    if q.bound == "eq" and not q.approx and q.start > 0:
        return claim[: q.start] + "about " + claim[q.start :]
    return None


def _quote_cases(name: str, line: str, cited: CitedRegion, rng: random.Random) -> list[Case]:
    words = line.split()
    size = rng.randint(4, 7)
    if len(words) < size + 1:
        return []
    start = rng.randrange(0, len(words) - size)
    phrase_words = [w.strip('"“”‘’()[],;:') for w in words[start : start + size]]
    if any(not w or '"' in w for w in phrase_words):
        return []
    phrase = " ".join(phrase_words)
    control = Case("quote-control", name, f'The source says "{phrase}".', cited, "")
    content = [i for i, w in enumerate(phrase_words) if len(w) > 3 and w.isalpha()]
    if not content:
        return [control]
    i = rng.choice(content)
    altered = list(phrase_words)
    altered[i] = rng.choice(["never", "rarely", "always", "twice", "nothing", "everyone"])
    if altered[i].lower() == phrase_words[i].lower():
        return [control]
    mutant = Case(
        "quote-altered", name, f'The source says "{" ".join(altered)}".', cited, " ".join(altered)
    )
    return [control, mutant]


def caught(case: Case, result: InternalFactResult) -> bool:
    """A contradicted finding on the mutated element: the number itself, or the quote that
    holds it (a number changed inside a quotation is a misquote)."""
    target = case.target.strip()
    return any(
        f.status == "contradicted"
        and (f.claimed.strip() == target or (f.kind == "quote" and target in f.claimed))
        for f in result.findings
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="at most N cases (0: all)")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--json", type=Path)
    parser.add_argument("-v", "--verbose", action="store_true", help="print misses")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    files = sources()
    cases = [case for path in files for case in derive(path, rng)]
    if args.limit:
        rng.shuffle(cases)
        cases = cases[: args.limit]
    started = time.perf_counter()
    tally: dict[str, Counter[str]] = {k: Counter() for k in (*CONTROL_KINDS, *MUTANT_KINDS)}
    misses: list[str] = []
    for case in cases:
        result = check_claim(case.claim, [case.region])
        row = tally[case.kind]
        row["n"] += 1
        row[result.verdict] += 1
        if case.kind in MUTANT_KINDS:
            hit = caught(case, result)
            row["caught"] += hit
            if not hit:
                misses.append(
                    f"MISS {case.kind} [{case.source}] {case.claim!r} -> {result.verdict}: "
                    + "; ".join(a.message for a in result.attacks)[:300]
                )
        elif result.verdict == "reject":
            misses.append(
                f"FALSE REJECT {case.kind} [{case.source}] {case.claim!r}: "
                + "; ".join(a.message for a in result.attacks)[:300]
            )
    elapsed = time.perf_counter() - started
    seeds = seed_dirs()
    print(
        f"internal-fact bench: {len(cases)} cases from {len(files)} files "
        f"(seeds: {seeds[0] if seeds else 'not found'}), seed {args.seed}, {elapsed:.1f} s"
    )
    print(f"{'kind':16} {'n':>5} {'reject':>7} {'escalate':>9} {'accept':>7} {'caught':>7}")
    for kind, row in tally.items():
        caught_text = f"{row['caught']:>7}" if kind in MUTANT_KINDS else f"{'':>7}"
        print(
            f"{kind:16} {row['n']:>5} {row['reject']:>7} {row['escalate']:>9} "
            f"{row['accept']:>7} {caught_text}"
        )
    numbers_n = sum(tally[k]["n"] for k in NUMBER_KINDS)
    numbers_caught = sum(tally[k]["caught"] for k in NUMBER_KINDS)
    controls_n = sum(tally[k]["n"] for k in CONTROL_KINDS)
    false_rejects = sum(tally[k]["reject"] for k in CONTROL_KINDS)
    escalated = sum(tally[k]["escalate"] for k in CONTROL_KINDS)
    quotes = tally["quote-altered"]
    figures = {
        "cases": len(cases),
        "recall_contradicted_numbers": numbers_caught / numbers_n if numbers_n else None,
        "contradicted_numbers": numbers_n,
        "false_reject_rate_controls": false_rejects / controls_n if controls_n else None,
        "controls": controls_n,
        "escalate_rate_controls": escalated / controls_n if controls_n else None,
        "recall_altered_quotes": quotes["caught"] / quotes["n"] if quotes["n"] else None,
    }
    print(
        f"recall of contradicted numbers: {numbers_caught}/{numbers_n} = "
        f"{100 * (figures['recall_contradicted_numbers'] or 0):.1f}% (target >= 95%)"
    )
    print(
        f"false rejects on controls:      {false_rejects}/{controls_n} = "
        f"{100 * (figures['false_reject_rate_controls'] or 0):.1f}% (target <= 2%)"
    )
    print(
        f"escalations on controls:        {escalated}/{controls_n} = "
        f"{100 * (figures['escalate_rate_controls'] or 0):.1f}%"
    )
    print(
        f"recall of altered quotes:       {quotes['caught']}/{quotes['n']} = "
        f"{100 * (figures['recall_altered_quotes'] or 0):.1f}%"
    )
    if args.verbose:
        print("\n".join(misses))
    if args.json:
        args.json.write_text(json.dumps({"figures": figures, "tally": tally}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
