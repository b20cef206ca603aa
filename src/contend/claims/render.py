"""report.md of a claims run: a pure renderer of the claims report.

Every string from a card, its evidence or an agent is untrusted: it goes through the
Markdown helpers of contend.report.mdtext (which escape structure and show control
characters as visible escapes), and the whole page passes contend.report.escape.visible
once more. The page leads with the verdict and the exit code, then one section per claim:
verdict and stage, the reasons, what the internal-fact critic found (present, absent,
contradicted, with the evidence line), the evidence that was removed or left unchecked, the
axes that did not run, the guarantee boundary, and the deadlock report when there is one.
"""

from __future__ import annotations

from contend.claims.deadlock import DeadlockReport
from contend.claims.report import ClaimResult, ClaimsReport
from contend.report.escape import visible
from contend.report.mdtext import code, inline, one_line

_MARK = {"present": "present", "absent": "ABSENT", "contradicted": "CONTRADICTED"}


def _cell(text: str) -> str:
    """A code span inside a table cell: GFM reads `\\|` there as a literal pipe."""
    return code(text).replace("|", "\\|")


def render_markdown(report: ClaimsReport) -> str:
    lines = [
        f"# contend verify: {report.verdict} (exit {report.exit_code})",
        "",
        f"{report.stats.claims} claim(s): {report.stats.accepted} accepted, "
        f"{report.stats.rejected} rejected, {report.stats.escalated} escalated, "
        f"{report.stats.escalated_human} waiting for a person; "
        f"{report.stats.card_errors} card error(s).",
        "",
    ]
    if report.card_errors:
        lines += ["## Cards that could not be read", ""]
        for error in report.card_errors:
            where = f"card {error.card}" if error.card else "the file"
            if error.line is not None:
                where += f" (line {error.line})"
            name = f" {code(error.claim_id)}" if error.claim_id else ""
            lines.append(f"- {code(error.file)} {where}{name}: {inline(error.message)}")
        lines.append("")
    for claim in report.claims:
        lines += _claim(claim)
    return visible("\n".join(lines).rstrip() + "\n")


def _claim(claim: ClaimResult) -> list[str]:
    out = [
        f"## {one_line(claim.claim_id)}: {claim.verdict}",
        "",
        f"> {inline(claim.claim_text)}",
        "",
        f"Level {claim.level}; decided at the {claim.stage} step; from {code(claim.source.file)} "
        f"card {claim.source.card}.",
        "",
    ]
    if claim.decision is not None:
        d = claim.decision
        out += [
            f"Decided by {inline(d.by)}: {d.decision} (the rounds ended {d.was}): {inline(d.note)}",
            "",
        ]
    out += ["Reasons:", ""] + [f"- {inline(r)}" for r in claim.reasons] + [""]
    if claim.axes.not_run:
        out += [
            f"Axes not run (they need agents): {', '.join(claim.axes.not_run)}. An accept here "
            "covers the numbers, quotes and names checked below, not the logic of the claim.",
            "",
        ]
    if claim.checks:
        out += ["| element | status | evidence |", "|---|---|---|"]
        for f in claim.checks:
            evidence = inline(f.where)
            if f.evidence_line:
                evidence += f": {_cell(f.evidence_line.strip())}"
            if f.note:
                evidence += f" ({inline(f.note)})"
            out.append(f"| {f.kind} {_cell(f.claimed)} | {_MARK[f.status]} | {evidence} |")
        out.append("")
    skipped = [e for e in claim.evidence if e.status != "checked"]
    if skipped:
        out += ["Evidence not checked:", ""]
        out += [
            f"- {code(e.id)} ({e.kind}, {code(e.locator)}): {e.status}"
            + (f" — {inline(e.reason)}" if e.reason else "")
            for e in skipped
        ]
        out.append("")
    boundary = claim.guarantee_boundary
    if boundary.guarantees or boundary.non_guarantees or claim.required_assumptions:
        out += ["Guarantee boundary:", ""]
        out += [f"- guarantees: {inline(g)}" for g in boundary.guarantees]
        out += [f"- does not guarantee: {inline(g)}" for g in boundary.non_guarantees]
        out += [f"- requires: {inline(a)}" for a in claim.required_assumptions]
        out.append("")
    if claim.unverified_echo:
        out += [
            "Unverified echo (official docs only): no agent with web access checked "
            + ", ".join(code(t) for t in claim.unverified_echo)
            + ".",
            "",
        ]
    if claim.rounds_log:
        out += _rounds(claim)
    if claim.escalation_issues:
        out += ["For a person to decide:", ""]
        out += [
            f"- {inline(i.issue)} → {inline(i.decision_needed)}" for i in claim.escalation_issues
        ]
        out.append("")
    if claim.deadlock_report is not None:
        out += render_deadlock(claim.deadlock_report)
    return out


def _rounds(claim: ClaimResult) -> list[str]:
    out = [f"Rounds: {len(claim.rounds_log)}", ""]
    if claim.surviving_claim is not None and claim.surviving_claim != claim.claim_text:
        out += [f"Surviving (narrowed) claim: {inline(claim.surviving_claim)}", ""]
    if claim.retracted_claims and claim.verdict != "reject":
        out += ["Retracted:", ""] + [f"- {inline(r)}" for r in claim.retracted_claims] + [""]
    for rnd in claim.rounds_log:
        out.append(f"- round {rnd.number}:")
        for t in rnd.turns:
            said = ", ".join(
                [f"{code(a.id)} {inline(a.text)}" for a in t.attacks]
                + [f"{code(a.id)} on {a.target}: {inline(a.text)}" for a in t.meta_attacks]
            )
            extra = "".join(
                [f"; withdraws {', '.join(code(w) for w in t.withdrawn)}" if t.withdrawn else ""]
                + [
                    f"; concession {'refused: ' + inline(c.refused) if c.refused else 'accepted'}"
                    for c in t.concessions
                ]
            )
            out.append(
                f"  - {t.axis} ({code(t.agent)}): {t.kind}"
                + (f", {t.position}" if t.position else "")
                + (f": {said}" if said else "")
                + extra
            )
        if rnd.proponent is not None:
            p = rnd.proponent
            relevance = "decision-relevant" if p.decision_relevant else "no new evidence"
            out.append(
                f"  - proponent: {relevance}"
                + (
                    f", evidence {', '.join(code(e) for e in p.new_evidence)}"
                    if p.new_evidence
                    else ""
                )
                + (f", answers {', '.join(code(a) for a in p.answers)}" if p.answers else "")
            )
    out.append("")
    return out


def render_deadlock(report: DeadlockReport) -> list[str]:
    out = [f"Deadlock report ({inline(report.written_by)}): {inline(report.reason)}", ""]
    out += [f"- {inline(s)}" for s in report.sentences()]
    if report.agreed_subclaims:
        out += ["", "Agreed:", ""] + [f"- {inline(s)}" for s in report.agreed_subclaims]
    for issue in report.unresolved:
        out += [
            "",
            f"Unresolved: {inline(issue.subclaim)}",
            "",
            f"- support: {inline(issue.support_final)} (evidence "
            f"{', '.join(code(e) for e in issue.support_evidence) or 'none'})",
            f"- opposition: {inline(issue.opposition_attack)} (evidence "
            f"{', '.join(code(e) for e in issue.opposition_evidence) or 'none'})",
            f"- cause: {issue.cause}; a person must decide: {inline(issue.decision_needed)}",
        ]
    out.append("")
    return out
