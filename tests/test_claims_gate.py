"""Step 0 entry gate, Step 1 precheck (every rule of seeds/002), Step 2 axes."""

from __future__ import annotations

from typing import Any

import pytest

from contend.claims.axes import BASE_AXES, assign_axes, seat_agents
from contend.claims.card import ClaimCard
from contend.claims.evidence import Unreadable
from contend.claims.gate import entry_gate, precheck
from contend.errors import ProtocolError

LOCATED = {"file_path": "data.txt", "page": 1, "region": "middle"}


def card(**over: Any) -> ClaimCard:
    base: dict[str, Any] = {
        "claim-id": "C1",
        "claim-text": "The parser handles nested lists.",
        "claim-type": "empirical",
        "claim-shape": "fact",
        "abstraction-level": "system",
        "owner-approval-flag": True,
        "evidence-list": [LOCATED],
    }
    base.update(over)
    return ClaimCard.model_validate(base)


@pytest.mark.parametrize(
    ("kind", "why"),
    [
        ("self-identical-fact", "a self-identical fixed fact"),
        ("plan", "a plan"),
        ("non-assertive", "a non-assertive statement"),
        ("caller-internal-calculation", "caller-internal calculation"),
    ],
)
def test_bypassed_items_are_accepted_with_zero_rounds_and_say_why(kind: str, why: str) -> None:
    decision = entry_gate(card(**{"statement-kind": kind, "evidence-list": []}))
    assert decision.outcome == "bypass"
    assert why in decision.reasons[0] and "zero rounds" in decision.reasons[0]


def test_a_question_is_bypassed_only_when_it_asks() -> None:
    asks = entry_gate(card(**{"statement-kind": "question", "claim-text": "Is it 64?"}))
    assert asks.outcome == "bypass"
    asserts = entry_gate(card(**{"statement-kind": "question", "claim-text": "It is 64."}))
    assert asserts.outcome == "admit" and "asks nothing" in asserts.reasons[0]


def test_verification_metadata_overrides_a_declared_bypass() -> None:
    decision = entry_gate(card(**{"statement-kind": "plan", "verification": "required"}))
    assert decision.outcome == "admit"
    assert "verification metadata marks it required" in decision.reasons[0]


def test_level_1_is_precheck_only() -> None:
    decision = entry_gate(card(**{"verification-complexity": "level-1-simple"}))
    assert decision.outcome == "precheck-only"


def test_admit_reasons_name_the_seed_conditions() -> None:
    reasons = entry_gate(
        card(
            **{
                "claim-text": "Our method is the first to guarantee 3x faster parsing.",
                "evidence-list": [
                    LOCATED,
                    {"source_type": "web", "accessible_url": "https://x.org", "finding": "3x"},
                ],
            }
        )
    ).reasons
    joined = " | ".join(reasons)
    assert "numeric claim" in joined and "external documents" in joined
    assert "guarantees" in joined and "novelty" in joined
    plain = entry_gate(card()).reasons
    assert any("submitted by the caller" in r for r in plain)


def test_empty_evidence_rejects() -> None:
    decision = precheck(card(**{"evidence-list": []}), {})
    assert decision.outcome == "reject" and decision.reasons == ("evidence-list is empty",)


def test_inaccessible_evidence_is_removed_and_listed() -> None:
    two = card(**{"evidence-list": [LOCATED, {**LOCATED, "file_path": "gone.txt"}]})
    decision = precheck(two, {"E2": Unreadable("inaccessible", "gone.txt does not exist")})
    assert decision.outcome == "pass"
    assert decision.kept == ("E1",)
    assert [r.evidence_id for r in decision.removed] == ["E2"]
    assert any("E2 removed: gone.txt does not exist" in r for r in decision.reasons)


def test_all_evidence_removed_rejects() -> None:
    decision = precheck(card(), {"E1": Unreadable("inaccessible", "refused: outside the tree")})
    assert decision.outcome == "reject"
    assert decision.reasons[0] == "all evidence is inaccessible"


def test_evidence_contend_could_not_read_escalates_instead() -> None:
    decision = precheck(card(), {"E1": Unreadable("unreadable", "a PDF that will not parse")})
    assert decision.outcome == "escalate"
    assert "no evidence contend could read" in decision.reasons[0]


@pytest.mark.parametrize("claim_type", ["theoretical", "composition", "prior-art"])
def test_structured_claims_need_guarantees_assumptions_non_guarantees(claim_type: str) -> None:
    missing = precheck(card(**{"claim-type": claim_type, "guarantees": ["g"]}), {})
    assert missing.outcome == "escalate"
    assert set(missing.missing) == {"assumptions", "non-guarantees"}
    full = card(
        **{
            "claim-type": claim_type,
            "guarantees": ["g"],
            "assumptions": ["a"],
            "non-guarantees": "n",
        }
    )
    assert precheck(full, {}).outcome == "pass"
    assert precheck(card(**{"claim-type": "empirical"}), {}).outcome == "pass"


@pytest.mark.parametrize(
    ("level", "words"),
    [
        (None, "missing"),
        ("vibes", "'vibes' is unclear"),
        (["theory", "experiment"], "mixes theory and experiment"),
    ],
)
def test_unclear_abstraction_level_escalates(level: Any, words: str) -> None:
    decision = precheck(card(**{"abstraction-level": level}), {})
    assert decision.outcome == "escalate" and "abstraction-level" in decision.missing
    assert any(words in r for r in decision.reasons)


@pytest.mark.parametrize(
    ("item", "missing"),
    [
        ({"file_path": "data.txt"}, "has no page, region"),
        ({"file_path": "data.txt", "page": 2}, "has no region"),
        ({"file_path": "data.txt", "page": 2, "region": "n/a"}, "locator_note (region is n/a)"),
    ],
)
def test_numbers_need_an_exact_locator(item: dict[str, Any], missing: str) -> None:
    numeric = card(**{"claim-text": "Recall was 91%.", "evidence-list": [item]})
    decision = precheck(numeric, {})
    assert decision.outcome == "escalate"
    assert any(missing in r and "E1 (data.txt)" in r for r in decision.reasons)
    words_only = card(**{"evidence-list": [item]})
    assert precheck(words_only, {}).outcome == "pass"


def test_tables_and_figures_need_a_locator_too() -> None:
    decision = precheck(
        card(**{"claim-text": "Table 2 shows the effect.", "evidence-list": [{"file_path": "a"}]}),
        {},
    )
    assert decision.outcome == "escalate"
    noted = card(
        **{
            "claim-text": "Recall was 91%.",
            "evidence-list": [{**LOCATED, "region": "n/a", "locator_note": "the results table"}],
        }
    )
    assert precheck(noted, {}).outcome == "pass"


def test_logic_only_evidence_is_no_locator_for_a_number() -> None:
    decision = precheck(
        card(
            **{
                "claim-text": "It takes 3 steps.",
                "evidence-list": [{"source_type": "logic", "argument": "a, b, c"}],
            }
        ),
        {},
    )
    assert decision.outcome == "escalate"
    assert any("only logical chains" in r for r in decision.reasons)


def test_axes_by_level() -> None:
    assert assign_axes(1).axes == ()
    assert assign_axes(2).axes == BASE_AXES
    three = assign_axes(3, ["patents", "investor-relations", "legal"])
    assert three.axes == (*BASE_AXES, "prior-art", "incentive")
    filled = assign_axes(3, ["astrology"])
    assert filled.axes == (*BASE_AXES, "external-logic", "edge-case")
    assert any("calls for no extra axis" in r for r in filled.reasons)
    custom = assign_axes(3, ["x"], domain_map={"x": "incentive"}, fill_order=["prior-art"])
    assert custom.axes == (*BASE_AXES, "incentive", "prior-art")
    named = assign_axes(3, ["edge-case", "edge-case", "prior-art"])
    assert named.axes == (*BASE_AXES, "edge-case", "prior-art")
    with pytest.raises(ProtocolError):
        assign_axes(4)


def test_never_two_agents_on_one_axis() -> None:
    axes = assign_axes(2).axes
    seats = seat_agents(axes, [(a, "scripted") for a in axes])
    assert [s.axis for s in seats] == list(axes)
    with pytest.raises(ProtocolError, match="two agents on axis internal-fact"):
        seat_agents(axes, [(a, "scripted") for a in axes] + [("internal-fact", "claude")])
    with pytest.raises(ProtocolError, match="not assigned"):
        seat_agents(axes, [(a, "scripted") for a in axes] + [("incentive", "claude")])
    with pytest.raises(ProtocolError, match="no agent for axis external-fact"):
        seat_agents(axes, [("internal-logic", "a"), ("internal-fact", "b")])
