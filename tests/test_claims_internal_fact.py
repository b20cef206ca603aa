"""The deterministic internal-fact critic on real text with numbers (this repository's docs
and a seed-like passage), its precision rules, quotes, entities and regions."""

from __future__ import annotations

from pathlib import Path

import pytest

from contend.claims.evidence import EvidenceText, RegionText, locate, read_evidence
from contend.claims.findings import CitedRegion
from contend.claims.internal_fact import check_claim
from contend.claims.phrases import extract_entities
from contend.claims.quantities import compare, extract, needs_exact_locator

ROOT = Path(__file__).resolve().parents[1]

# A passage in the shape of seeds/001 (a results table and prose), kept here so the test
# does not depend on shared/ being present.
PASSAGE = """\
Category Claude self-review Same-model review Cross-model review Cross-model + oracle
Silent fallback / "anti-slop" caught 14% 52% 89% 94%
Weakened test assertions caught 9% 45% 86% 91%
Concurrency / race conditions 11% 38% 71% 83%

The read-only cross-model reviewer flagged weakened assertions 86% to 91% of the time.
Round 3 (2nd fix cycle) 5 / 60 (8.3%) 93.3% +$0.39 Edge-case cleanup on complex state
A static pass takes 1,250 ms on 2 cores, a 3.5x speed-up over the old 4.4 s.
"""


def region(text: str = PASSAGE, page: int | str = 1, where: str = "n/a") -> list[CitedRegion]:
    located = locate(EvidenceText(tuple(text.split("\f"))), page, where)
    assert isinstance(located, RegionText)
    return [CitedRegion("E1", "results.txt", located)]


@pytest.mark.parametrize(
    "claim",
    [
        "Cross-model review caught 89% of silent fallbacks.",
        "Weakened test assertions were caught 86% of the time by cross-model review.",
        "Round 3 cost +$0.39.",
        "A static pass takes 1.25 s on 2 cores.",
        "A static pass takes about 1.3 s.",
        "It is a 350% speed-up.",
        "The speed-up is 3.5-fold.",
        "The old run took 4,400 ms.",
        'The reviewer flagged "weakened assertions 86% to 91% of the time".',
        "Silent fallback / anti-slop was caught 14% of the time by Claude self-review.",
    ],
)
def test_true_claims_are_accepted(claim: str) -> None:
    result = check_claim(claim, region())
    assert result.verdict == "accept", [a.message for a in result.attacks]
    assert all(f.status == "present" for f in result.findings)


@pytest.mark.parametrize(
    ("claim", "claimed", "evidence"),
    [
        ("Cross-model review caught 98% of silent fallbacks.", "98%", "89%"),
        ("A static pass takes 1,250 s on 2 cores.", "1,250 s", "1,250 ms"),
        ("Silent fallback / anti-slop caught 86% 52% 89% 94%", "86%", "14%"),
        (
            "The read-only cross-model reviewer flagged weakened assertions 68% to 91% "
            "of the time.",
            "68%",
            "86%",
        ),
        ("A static pass takes 1,250 ms on 2 cores, a 5.3x speed-up.", "5.3x", "3.5x"),
    ],
)
def test_a_contradicted_number_is_a_reject_naming_both(
    claim: str, claimed: str, evidence: str
) -> None:
    result = check_claim(claim, region())
    assert result.verdict == "reject"
    [attack] = [a for a in result.attacks if a.verdict == "reject"]
    assert claimed in attack.message and evidence in attack.message
    assert "results.txt" in attack.message and "line" in attack.message


def test_a_number_absent_from_the_region_escalates_naming_the_locator() -> None:
    text = "top line with nothing\n" * 30 + "tail\n" * 20 + "there are 42 apples\n" * 10
    result = check_claim("There are 42 apples.", region(text, 1, "top"))
    assert result.verdict == "escalate"
    [attack] = result.attacks
    assert "'42'" in attack.message and "page 1, top third" in attack.message
    assert check_claim("There are 42 apples.", region(text, 1, "bottom")).verdict == "accept"


def test_less_precise_evidence_or_a_bound_is_no_confirmation_and_no_contradiction() -> None:
    assert check_claim("The old one took 4.43 s.", region()).verdict == "escalate"
    bounded = region("Startup takes under 2 s on a laptop.")
    assert check_claim("Startup takes 1.7 s on a laptop.", bounded).verdict == "escalate"
    assert check_claim("Startup takes 3 s on a laptop.", bounded).verdict != "accept"


def test_ambiguous_attachment_never_rejects_a_true_claim() -> None:
    text = region("latency 10 ms at p50 and 20 ms at p99")
    assert check_claim("p99 latency is 20 ms", text).verdict == "accept"


def test_quotes_present_altered_absent() -> None:
    assert (
        check_claim(
            'The seed says "easy convergence is suspicious".',
            region("1. Easy convergence is suspicious, so every agent ..."),
        ).verdict
        == "accept"
    )
    altered = check_claim(
        'It says "easy convergence is reassuring".',
        region("Easy convergence is suspicious, so every agent attacks."),
    )
    assert (
        altered.verdict == "reject"
        and "easy convergence is suspicious" in altered.attacks[0].message
    )
    numbers = check_claim(
        'It says "Python 2.18+ standard library".',
        region('compatibility:\n  - "Python 3.11+ standard library"'),
    )
    assert numbers.verdict == "reject" and "3.11+" in numbers.attacks[0].message
    elided = check_claim(
        '"Easy convergence ... every agent"',
        region("Easy convergence is suspicious, so every agent attacks."),
    )
    assert elided.verdict == "accept"
    assert check_claim('"nothing like it"', region("Something else.")).verdict == "escalate"


def test_named_entities_must_be_named_in_the_region() -> None:
    assert extract_entities("Claude Code and GPT-4 call plan_static_round in Python.") == [
        "Claude Code",
        "GPT-4",
        "plan_static_round",
        "Python",
    ]
    assert (
        check_claim("The run used Claude Code.", region("claude code ran it")).verdict == "accept"
    )
    missing = check_claim("The run used Gemini.", region("claude code ran it"))
    assert missing.verdict == "escalate" and "entity 'Gemini'" in missing.attacks[0].message


def test_nothing_to_check_or_no_local_evidence_escalates() -> None:
    nothing = check_claim("it works well", region())
    assert (
        nothing.verdict == "escalate"
        and "nothing the internal-fact critic" in nothing.attacks[0].message
    )
    offline = check_claim("It is 64.", [], unchecked=["E2: web source"])
    assert offline.verdict == "escalate" and "not fetched offline" in offline.attacks[0].message


def test_form_feed_pages() -> None:
    text = "page one says 10 widgets\fpage two says 20 widgets"
    assert check_claim("Page two says 20 widgets.", region(text, 2)).verdict == "accept"
    assert check_claim("Page two says 20 widgets.", region(text, 1)).verdict != "accept"


def test_quantity_reading() -> None:
    values = {
        q.text: (str(q.low), q.dimension)
        for q in extract(
            "between 3 and 5 agents, 1.2k rows, $1.2M, 10-20 MB, ~2 min, more than 40 rounds"
        )
    }
    assert values["3 and 5"] == ("3", "count:agent")
    assert values["1.2k"] == ("1200.0", "count:row")
    assert values["1.2M"][1] == "currency:USD"
    assert values["10-20 MB"] == ("10", "size")
    assert extract("GPT-4 on UTF-8, sha256 e2ebb91 v1.2.3 at 2026-11-30 14:25") == []
    assert [q.dimension for q in extract("Step 4 of Table 2")] == ["label:step", "label:table"]
    assert needs_exact_locator("see Table 2") and not needs_exact_locator("see Step 4")

    def q(text: str) -> object:
        return extract(text)[0]

    assert compare(q("3.5x"), q("350%"))[0] == "equal"  # type: ignore[arg-type]
    assert compare(q("1 GiB"), q("1073741824 bytes"))[0] == "equal"  # type: ignore[arg-type]
    assert compare(q("10 ms"), q("10 s"))[0] == "differs"  # type: ignore[arg-type]
    assert compare(q("95%"), q("5%"))[0] == "differs"  # type: ignore[arg-type]
    assert compare(q("15 ms"), q("10-20 ms"))[0] == "unconfirmed"  # type: ignore[arg-type]


@pytest.mark.parametrize("doc", ["docs/configuration.md", "docs/static-critics-benchmark.md"])
def test_on_this_repositorys_own_docs(doc: str) -> None:
    """Every sentence of a real doc that states a number checks as true against itself,
    and one changed number in it is rejected."""
    evidence = read_evidence(ROOT / doc)
    assert isinstance(evidence, EvidenceText)
    whole = locate(evidence, 1, "n/a")
    assert isinstance(whole, RegionText)
    cited = [CitedRegion("E1", doc, whole)]
    checked = rejected = 0
    for line in evidence.pages[0].split("\n"):
        numbers = [
            n
            for n in extract(line)
            if not n.is_label and n.bound == "eq" and not n.approx and not n.is_range
        ]
        if not line.strip() or line.startswith(("```", "|")) or not numbers:
            continue
        assert check_claim(line, cited).verdict != "reject", line
        number = numbers[0]
        raw = line[number.start : number.end]
        digits = "".join(c for c in raw if c.isdigit())
        if not digits or number.low > 10**6:
            continue
        changed = (
            line[: number.start]
            + raw.replace(digits[0], str((int(digits[0]) + 3) % 10), 1)
            + line[number.end :]
        )
        checked += 1
        rejected += check_claim(changed, cited).verdict == "reject"
    assert checked >= 5
    assert rejected / checked >= 0.8, (rejected, checked)


def test_a_number_whose_unit_the_claim_cut_off_is_not_contradicted() -> None:
    row = region(
        "| fold + verify a 100,000-event ledger (43.6 MB) | < 1 s | 0.76 s median of 5 "
        "(verify 0.46 s, fold 0.29 s) |"
    )
    result = check_claim("ledger (43.6 MB) < 1 s 0.76 s median of 5 (verify 0.46", row)
    assert result.verdict == "accept", [a.message for a in result.attacks]


def test_a_quote_of_a_markdown_links_text_is_present() -> None:
    text = region("diversity into `escalate`. Details: [`docs/agents.md`](docs/agents.md) (CLIs)")
    result = check_claim('The source says "escalate. Details: docs/agents.md (CLIs)".', text)
    assert result.verdict == "accept", [a.message for a in result.attacks]
