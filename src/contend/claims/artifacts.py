"""The level-3 evaluator artifact set (seeds/002, Evaluator Artifact Contract), rendered.

`evaluator_artifacts(card, result, trace)` returns file name → content for

    scenario.json          what was verified: the card as read, level, axes, consensus rule
    trace.json             how: the rounds log and the run's events for this claim
    report.json            the claim's result (the `contend.claims/v1` claim entry)
    candidate-playbook.md  the surviving claim as the candidate, its assumptions and
                           boundary, and every rejected candidate (retracted claims)
    verifier-result.json   per candidate accepted or rejected, and whether the surviving
                           candidate may be promoted

Promotion rules from the seed: never without an accepted verifier result, and only when at
least one candidate was rejected — a verifier that never said no has not shown it can.
Pure: the CLI writes the files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from contend.claims.card import ClaimCard
from contend.claims.report import ClaimResult
from contend.report.escape import json_text, visible
from contend.report.mdtext import inline

ARTIFACT_FILES = (
    "scenario.json",
    "trace.json",
    "report.json",
    "candidate-playbook.md",
    "verifier-result.json",
)
SCHEMA_PREFIX = "contend.claims.evaluator"


def verifier_result(result: ClaimResult) -> dict[str, Any]:
    candidates = [
        {"candidate": text, "status": "rejected", "reason": "retracted during verification"}
        for text in result.retracted_claims
    ] + [
        {
            "candidate": control.candidate,
            "status": "rejected" if control.verdict == "reject" else "not-rejected",
            "reason": f"negative control ({control.changed}): verdict {control.verdict}",
        }
        for control in result.controls
    ]
    if result.surviving_claim is not None:
        candidates.append(
            {
                "candidate": result.surviving_claim,
                "status": "accepted" if result.verdict == "accept" else "not-accepted",
                "reason": f"verdict {result.verdict}",
            }
        )
    rejected = any(c["status"] == "rejected" for c in candidates)
    if result.verdict != "accept":
        promoted, why = False, f"the verifier did not accept (verdict {result.verdict})"
    elif not rejected:
        promoted, why = False, "no candidate was rejected: the verifier has not shown it can say no"
    else:
        promoted, why = True, "accepted, and the verifier rejected at least one candidate"
    return {
        "schema": f"{SCHEMA_PREFIX}.verifier-result/v1",
        "claim_id": result.claim_id,
        "verdict": result.verdict,
        "candidates": candidates,
        "can_say_no": rejected,
        "promoted": promoted,
        "reason": why,
    }


def candidate_playbook(result: ClaimResult) -> str:
    lines = [f"# Candidate playbook: {inline(result.claim_id)}", ""]
    if result.surviving_claim is not None:
        lines += ["## Candidate", "", f"> {inline(result.surviving_claim)}", ""]
    else:
        lines += ["## Candidate", "", "None survived.", ""]
    if result.required_assumptions:
        lines += ["## Requires", ""] + [f"- {inline(a)}" for a in result.required_assumptions]
        lines.append("")
    boundary = result.guarantee_boundary
    if boundary.guarantees or boundary.non_guarantees:
        lines += ["## Guarantee boundary", ""]
        lines += [f"- guarantees: {inline(g)}" for g in boundary.guarantees]
        lines += [f"- does not guarantee: {inline(g)}" for g in boundary.non_guarantees]
        lines.append("")
    lines += ["## Rejected candidates", ""]
    rejected = [*result.retracted_claims] + [
        f"{c.candidate} (negative control, {c.changed})"
        for c in result.controls
        if c.verdict == "reject"
    ]
    lines += [f"- {inline(t)}" for t in rejected] or ["- none"]
    verdict = verifier_result(result)
    lines += ["", "## Verifier", "", f"{verdict['verdict']}: {inline(str(verdict['reason']))}."]
    return visible("\n".join(lines) + "\n")


def evaluator_artifacts(
    card: ClaimCard, result: ClaimResult, trace: Sequence[Mapping[str, Any]]
) -> dict[str, str]:
    scenario = {
        "schema": f"{SCHEMA_PREFIX}.scenario/v1",
        "claim_id": card.claim_id,
        "level": card.verification_complexity,
        "axes": result.axes.model_dump(mode="json"),
        "consensus_rule": card.consensus_rule,
        "claim_card": card.model_dump(mode="json", by_alias=True, exclude_none=True),
    }
    trace_doc = {
        "schema": f"{SCHEMA_PREFIX}.trace/v1",
        "claim_id": card.claim_id,
        "rounds_log": [r.model_dump(mode="json") for r in result.rounds_log],
        "events": list(trace),
    }
    return {
        "scenario.json": json_text(scenario) + "\n",
        "trace.json": json_text(trace_doc) + "\n",
        "report.json": json_text(result.model_dump(mode="json")) + "\n",
        "candidate-playbook.md": candidate_playbook(result),
        "verifier-result.json": json_text(verifier_result(result)) + "\n",
    }
