"""Step 0 (entry gate) and Step 1 (evidence precheck) of seeds/002, as pure decisions.

Nothing here reads a file: what the I/O edge found about each local evidence item comes in
as `access` (evidence id → `Unreadable`, absent when readable). Every decision carries the
reasons a person reads in the report.

Order, as the seed has it:
  0. A statement the caller declares a self-identical fixed fact, a plan, a question or
     other non-assertive statement, or a caller-internal calculation is accepted with zero
     rounds, saying why — unless verification metadata marks it required or recommended
     (the seed's first admit condition wins over a declaration). A declared question whose
     text asks nothing is admitted, not bypassed. Level 1 runs the precheck only.
  1. Empty evidence list → reject. Inaccessible evidence is removed and listed; when all of
     it is removed → reject — unless contend itself could not read some of it (too big,
     not UTF-8, a PDF that will not parse): then escalate, since a reject would condemn
     evidence nobody looked at. Theoretical, composition and prior-art claims missing
     guarantees, assumptions or non-guarantees → escalate. An unclear abstraction level →
     escalate. Numbers, tables or figures without an exact locator → escalate, naming it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from contend.claims.card import ABSTRACTION_LEVELS, ClaimCard, LocalEvidence, WebEvidence
from contend.claims.evidence import Unreadable
from contend.claims.quantities import needs_exact_locator

GateOutcome = Literal["bypass", "precheck-only", "admit"]
PrecheckOutcome = Literal["pass", "reject", "escalate"]

_BYPASS_WHY = {
    "self-identical-fact": "a self-identical fixed fact",
    "plan": "a plan",
    "question": "a question",
    "non-assertive": "a non-assertive statement",
    "caller-internal-calculation": (
        "a caller-internal calculation, which makes external comparison irrelevant"
    ),
}
_STRUCTURE_TYPES = ("theoretical", "composition", "prior-art")

_LEGAL = re.compile(
    r"\b(shall|liab\w*|contract\w*|statut\w*|regulat\w*|licen[cs]\w*|patent\w*|clause|"
    r"compl(?:y|ies|iance)|lawful|legal\w*)\b",
    re.IGNORECASE,
)
_ASSERTS = {
    "guarantees": re.compile(r"\b(guarantee\w*|ensures?|always|never|proves?|proven)\b", re.I),
    "state-of-the-art status": re.compile(r"\b(state[- ]of[- ]the[- ]art|sota|best)\b", re.I),
    "novelty": re.compile(r"\b(novel\w*|first|the only|unprecedented|first-ever)\b", re.I),
    "component compatibility": re.compile(r"\b(compatib\w*|interoperab\w*|works with)\b", re.I),
    "reproducibility": re.compile(r"\breproduc\w*\b", re.I),
    "experimental effect": re.compile(
        r"\b(improv\w*|outperform\w*|reduc\w*|increas\w*|faster|slower|effect\w*)\b", re.I
    ),
}


@dataclass(frozen=True, slots=True)
class GateDecision:
    outcome: GateOutcome
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RemovedEvidence:
    evidence_id: str
    kind: str  # inaccessible | unreadable
    reason: str


@dataclass(frozen=True, slots=True)
class PrecheckDecision:
    outcome: PrecheckOutcome
    reasons: tuple[str, ...]
    kept: tuple[str, ...]
    removed: tuple[RemovedEvidence, ...]
    missing: tuple[str, ...] = ()


def entry_gate(card: ClaimCard) -> GateDecision:
    """Bypass, precheck only (level 1), or admit to rounds — with the seed's reasons."""
    kind = card.statement_kind
    forced = card.verification in ("required", "recommended")
    if kind in _BYPASS_WHY and not forced:
        if kind == "question" and "?" not in card.claim_text:
            return GateDecision(
                "admit",
                (
                    "declared a question, but the text asks nothing: admitted as an assertion",
                    *admit_reasons(card),
                ),
            )
        return GateDecision(
            "bypass",
            (f"bypassed with zero rounds: the caller declares it {_BYPASS_WHY[kind]}",),
        )
    reasons = admit_reasons(card)
    if forced and kind in _BYPASS_WHY:
        reasons = (
            f"declared {_BYPASS_WHY[kind]}, but verification metadata marks it "
            f"{card.verification}: admitted",
            *reasons,
        )
    if card.verification_complexity == 1:
        return GateDecision(
            "precheck-only", ("level-1-simple: evidence precheck only, no rounds", *reasons)
        )
    return GateDecision("admit", reasons)


def admit_reasons(card: ClaimCard) -> tuple[str, ...]:
    """Which of the seed's admit conditions hold (the caller's submission when none does)."""
    text = card.claim_text
    found: list[str] = []
    if card.verification in ("required", "recommended"):
        found.append(f"verification metadata marked {card.verification}")
    if needs_exact_locator(text):
        found.append("numeric claim (numbers, tables or figures)")
    if _LEGAL.search(text):
        found.append("legal conditions")
    if any(isinstance(item, WebEvidence) for item in card.evidence_list):
        found.append("external documents (web sources)")
    asserted = [name for name, pattern in _ASSERTS.items() if pattern.search(text)]
    if card.claim_type in _STRUCTURE_TYPES:
        asserted.insert(
            0,
            {
                "theoretical": "theory",
                "composition": "composition",
                "prior-art": "prior-art difference",
            }[card.claim_type],
        )
    if asserted:
        found.append("asserts " + ", ".join(dict.fromkeys(asserted)))
    if not found:
        found.append(
            f"submitted by the caller at level {card.verification_complexity} "
            "(the caller decides which claims carry a verification burden)"
        )
    return tuple(found)


def precheck(card: ClaimCard, access: Mapping[str, Unreadable]) -> PrecheckDecision:
    """Step 1 on `card`, given which evidence items could not be had (`access`)."""
    ids = card.evidence_ids()
    if not ids:
        return PrecheckDecision("reject", ("evidence-list is empty",), (), ())
    removed = tuple(
        RemovedEvidence(eid, access[eid].kind, access[eid].reason) for eid in ids if eid in access
    )
    kept = tuple(eid for eid in ids if eid not in access)
    removed_lines = tuple(f"evidence {r.evidence_id} removed: {r.reason}" for r in removed)
    if not kept:
        if all(r.kind == "inaccessible" for r in removed):
            return PrecheckDecision(
                "reject", ("all evidence is inaccessible", *removed_lines), kept, removed
            )
        return PrecheckDecision(
            "escalate",
            ("no evidence contend could read; a person must check it", *removed_lines),
            kept,
            removed,
        )
    reasons: list[str] = []
    missing: list[str] = []
    if card.claim_type in _STRUCTURE_TYPES:
        absent = [
            name
            for name, value in (
                ("guarantees", card.guarantees),
                ("assumptions", card.assumptions),
                ("non-guarantees", card.non_guarantees),
            )
            if not value
        ]
        if absent:
            missing.extend(absent)
            reasons.append(
                f"a {card.claim_type} claim must state {', '.join(absent)} (missing or empty)"
            )
    unclear = _unclear_abstraction(card.abstraction_level)
    if unclear:
        missing.append("abstraction-level")
        reasons.append(unclear)
    if needs_exact_locator(card.claim_text):
        locator_missing = _missing_locators(card, kept)
        missing.extend(locator_missing)
        if locator_missing:
            reasons.append(
                "numbers, tables or figures need an exact locator: " + "; ".join(locator_missing)
            )
    if reasons:
        return PrecheckDecision(
            "escalate", (*reasons, *removed_lines), kept, removed, tuple(missing)
        )
    return PrecheckDecision("pass", ("evidence precheck passed", *removed_lines), kept, removed)


def _unclear_abstraction(level: str | list[str] | None) -> str | None:
    if level is None or level == [] or level == "":
        return "abstraction-level is missing"
    levels = [level] if isinstance(level, str) else list(dict.fromkeys(level))
    unknown = [v for v in levels if v not in ABSTRACTION_LEVELS]
    if unknown:
        return (
            f"abstraction-level {', '.join(map(repr, unknown))} is unclear "
            f"(one of {', '.join(ABSTRACTION_LEVELS)})"
        )
    if len(levels) > 1:
        return (
            f"abstraction-level mixes {' and '.join(levels)}: do not merge levels in one "
            "claim; split it"
        )
    return None


def _missing_locators(card: ClaimCard, kept: tuple[str, ...]) -> list[str]:
    missing: list[str] = []
    located = 0
    for eid, item in zip(card.evidence_ids(), card.evidence_list, strict=True):
        if eid not in kept:
            continue
        if isinstance(item, WebEvidence):
            located += 1
        elif isinstance(item, LocalEvidence):
            gaps = []
            if item.page is None:
                gaps.append("page")
            if item.region is None:
                gaps.append("region")
            elif item.region == "n/a" and not item.locator_note:
                gaps.append("locator_note (region is n/a)")
            if gaps:
                missing.append(f"evidence {eid} ({item.file_path}) has no {', '.join(gaps)}")
            else:
                located += 1
    if located == 0 and not missing:
        missing.append("no web or local source among the evidence (only logical chains)")
    return missing
