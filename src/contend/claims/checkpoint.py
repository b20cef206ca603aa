"""The checkpoint of seeds/002 Step 3, run when the proponent answers between rounds: pure.

The proponent (a person or a proposer agent) may add evidence, narrow the claim, add
required assumptions, or withdraw evidence. The checkpoint does not mediate; it decides
only what the reply changes:

- Evidence the proponent withdraws that the card (the SSOT) held, or a schema/SSOT context
  that differs from the card's, switches the claim to `escalate` (the seed: "evidence was
  deleted from the SSOT or the schema changed materially").
- New evidence must carry its locator (web: http(s) URL and the finding; local: file,
  page and region; logic: the argument); an item without one is refused and listed.
- The reply is decision-relevant only when it changes the surviving claim (a narrower
  claim), the required assumptions (new ones), or brings located evidence that answers an
  open attack. Otherwise the round counts as "no new evidence".
- Re-collation: every evidence item kept at the precheck and every guarantee and
  assumption of the card is still on record (nothing here can remove them silently).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from contend.claims.convergence import ProponentReply

_URL = re.compile(r"^https?://\S+$")
_REGIONS = ("top", "middle", "bottom", "n/a")


@dataclass(frozen=True, slots=True)
class Checkpoint:
    outcome: Literal["continue", "escalate"]
    reply: ProponentReply
    added: tuple[tuple[str, str], ...]  # (new evidence id, its locator)
    refused: tuple[str, ...]  # evidence items refused, with why
    ignored_answers: tuple[str, ...]  # answered ids that name no open attack
    new_assumptions: tuple[str, ...]
    reasons: tuple[str, ...]


def _locator(item: Mapping[str, Any]) -> str | None:
    """The item's locator text, or None when it lacks what its kind needs."""
    kind = item.get("source_type")
    if kind == "web":
        url, finding = str(item.get("accessible_url", "")), str(item.get("finding", "")).strip()
        return f"{url} — {finding}" if _URL.match(url) and finding else None
    if kind == "local":
        path, page = str(item.get("file_path", "")).strip(), str(item.get("page", "")).strip()
        region, note = str(item.get("region", "")), str(item.get("locator_note", "")).strip()
        if not path or not page or region not in _REGIONS or (region == "n/a" and not note):
            return None
        return f"{path}, page {page}, region {region}" + (f" ({note})" if note else "")
    if kind == "logic":
        argument = str(item.get("argument", "")).strip()
        return argument or None
    return None


def checkpoint(
    output: Mapping[str, Any],
    *,
    round_number: int,
    surviving_claim: str,
    assumptions: Sequence[str],
    card_evidence: Sequence[str],
    open_attack_ids: Sequence[str],
    schema_context: str | None,
) -> Checkpoint:
    reasons: list[str] = []
    deleted = [e for e in output.get("withdrawn_evidence", []) if e in card_evidence]
    new_context = str(output.get("schema_context", "")).strip()
    changed_schema = bool(new_context) and new_context != (schema_context or "").strip()
    added: list[tuple[str, str]] = []
    refused: list[str] = []
    for i, item in enumerate(output.get("evidence", []), start=1):
        locator = _locator(item) if isinstance(item, Mapping) else None
        if locator is None:
            refused.append(f"item {i}: no complete source locator for its kind")
        else:
            added.append((f"P{round_number}-{len(added) + 1}", locator))
    answers = [a for a in output.get("answers", []) if a in open_attack_ids]
    ignored = tuple(a for a in output.get("answers", []) if a not in open_attack_ids)
    narrowed = str(output.get("narrowed_claim", "")).strip()
    narrowed_claim = narrowed if narrowed and narrowed != surviving_claim.strip() else None
    new_assumptions = tuple(
        a.strip()
        for a in output.get("added_assumptions", [])
        if a.strip() and a.strip() not in assumptions
    )
    relevant = bool(narrowed_claim or new_assumptions or (added and answers))
    reasons.append(
        f"re-collated: {len(card_evidence)} card evidence item(s), guarantees and assumptions "
        "still on record"
    )
    if refused:
        reasons.append(f"{len(refused)} new evidence item(s) refused: no complete locator")
    if ignored:
        reasons.append(f"answers naming no open attack ignored: {', '.join(ignored)}")
    if narrowed_claim:
        reasons.append("the proponent narrows the claim")
    if new_assumptions:
        reasons.append(f"{len(new_assumptions)} required assumption(s) added")
    if added and answers:
        reasons.append(
            f"new evidence {', '.join(e for e, _ in added)} answers {', '.join(answers)}"
        )
    if not relevant:
        reasons.append(
            "the reply changes neither the surviving claim nor the required "
            "assumptions: the round counts as no new evidence"
        )
    outcome: Literal["continue", "escalate"] = "continue"
    if deleted:
        outcome = "escalate"
        reasons.append(f"evidence deleted from the SSOT: {', '.join(deleted)}")
    if changed_schema:
        outcome = "escalate"
        reasons.append("the schema/SSOT context changed materially")
    reply = ProponentReply(
        new_evidence=tuple(e for e, _ in added),
        answers=tuple(answers) if relevant else (),
        decision_relevant=relevant,
        narrowed_claim=narrowed_claim,
    )
    return Checkpoint(
        outcome, reply, tuple(added), tuple(refused), ignored, new_assumptions, tuple(reasons)
    )
