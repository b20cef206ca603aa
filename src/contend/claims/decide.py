"""A person's decision on an escalated claim of a finished `contend verify` run: the seed's
"the caller relays the report to a human and records the final accept or reject".

    decide_claim(run_dir, claim_id, "accept" | "reject", note) -> ClaimsReport

Only a claim that waits for a person (`escalate-human`, or `escalate`) can be decided; the
decision is appended to the run's ledger (`claim_decided`, after the ledger is verified:
a tampered run is not continued) and report.json and report.md are written again with the
decision and the claim's new verdict. The meta-judge never decides; this is the only way a
deadlocked claim becomes accept or reject.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from contend.claims.events import decided as decided_event
from contend.claims.render import render_markdown
from contend.claims.report import ClaimsReport, HumanDecision, build_report
from contend.errors import UserError
from contend.ledger.runs import LEDGER_FILE
from contend.ledger.store import Ledger, read_head, write_atomic
from contend.redaction import redact_json_text, redact_text

Decision = Literal["accept", "reject"]


def decide_claim(
    run_dir: Path, claim_id: str, decision: Decision, note: str, *, by: str = "human"
) -> ClaimsReport:
    report_path = run_dir / "report.json"
    ledger_path = run_dir / LEDGER_FILE
    if not report_path.is_file() or not ledger_path.is_file():
        raise UserError(f"{run_dir} is no `contend verify` run (no report.json and ledger)")
    try:
        report = ClaimsReport.model_validate_json(report_path.read_text(encoding="utf-8"))
    except (ValidationError, UnicodeDecodeError) as exc:
        raise UserError(f"{report_path} is not a contend.claims/v1 report: {exc}") from exc
    claims = {c.claim_id: c for c in report.claims}
    claim = claims.get(claim_id)
    if claim is None:
        raise UserError(f"no claim {claim_id!r} in {run_dir} ({', '.join(claims) or 'none'})")
    if claim.verdict not in ("escalate-human", "escalate"):
        raise UserError(
            f"claim {claim_id} is {claim.verdict}: only an escalated claim waits for a person"
        )
    if not note.strip():
        raise UserError("--note is empty: say why")
    head = read_head(ledger_path)
    if head is None or head.run is None:
        raise UserError(f"{ledger_path} has no head naming its run")
    with Ledger.open(ledger_path, head.run) as ledger:
        ledger.append(
            *decided_event(
                claim_id=claim_id, decision=decision, note=note, by=by, was=claim.verdict
            )
        )
        ledger.checkpoint()
    decided = claim.model_copy(
        update={
            "verdict": decision,
            "decision": HumanDecision(decision=decision, note=note, by=by, was=claim.verdict),
            "summary": f"decided by a person ({decision}): {note}",
            "surviving_claim": None if decision == "reject" else claim.surviving_claim,
            "retracted_claims": [*claim.retracted_claims, claim.claim_text]
            if decision == "reject"
            else claim.retracted_claims,
        }
    )
    new = build_report(
        [decided if c.claim_id == claim_id else c for c in report.claims], report.card_errors
    )
    write_atomic(report_path, redact_json_text(new.to_json()).encode("utf-8"))
    write_atomic(run_dir / "report.md", redact_text(render_markdown(new)).encode("utf-8"))
    return new
