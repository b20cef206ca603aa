"""One claims run without agents: gate, precheck, and the deterministic internal-fact critic.

`verify_loaded(result, read=...)` turns loaded cards into the claims report and the events
to append, in order. Reading evidence is injected (`read`), so everything else here is
pure. Per card:

  Step 0   bypass → accept with zero rounds (reasons say why).
  Step 1   local evidence is read and located (page, region); whatever cannot be had is
           removed and listed; the precheck may reject or escalate.
  level 1  precheck only: accept.
  level 2/3  the assigned axes are listed; the internal-fact critic runs on the kept local
           evidence (web sources are not fetched: listed as unchecked). Its verdict is the
           claim's. The other axes need agents: they are listed as not run, on every claim
           and in report.md, so an `accept` here means "every number, quote and named
           entity is confirmed by its cited region", not that the logic axes agreed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from contend.claims import events
from contend.claims.axes import DEFAULT_POLICY, AxisPolicy
from contend.claims.card import ClaimCard, LocalEvidence, LogicEvidence, WebEvidence
from contend.claims.controls import negative_control
from contend.claims.convergence import Verdict
from contend.claims.evidence import EvidenceText, Unreadable, locate, read_evidence
from contend.claims.findings import CitedRegion, InternalFactResult
from contend.claims.gate import entry_gate, precheck
from contend.claims.internal_fact import check_claim
from contend.claims.load import CardError, LoadedCard, LoadResult
from contend.claims.report import (
    Axes,
    CardErrorLog,
    CheckFinding,
    ClaimResult,
    ClaimsReport,
    ControlLog,
    EscalationIssue,
    EvidenceOutcome,
    GuaranteeBoundary,
    Source,
    Stage,
    build_report,
)

Reader = Callable[[Path], EvidenceText | Unreadable]
EvidenceKind = Literal["web", "local", "logic"]
EvidenceStatus = Literal["checked", "removed", "unchecked"]
CRITICS = ("internal-fact",)


def verify_loaded(
    loaded: LoadResult, *, read: Reader = read_evidence, axes: AxisPolicy = DEFAULT_POLICY
) -> tuple[ClaimsReport, list[events.Event]]:
    log: list[events.Event] = [events.card_error(e) for e in loaded.errors]
    cache: dict[Path, EvidenceText | Unreadable] = {}

    def cached(path: Path) -> EvidenceText | Unreadable:
        if path not in cache:
            cache[path] = read(path)
        return cache[path]

    results: list[ClaimResult] = []
    for card in loaded.cards:
        result, card_events = verify_card(card, cached, axes)
        results.append(result)
        log.extend(card_events)
    report = build_report(results, [card_error_log(e) for e in loaded.errors])
    log.append(events.run_finished(report.verdict, report.exit_code))
    return report, log


def card_error_log(error: CardError) -> CardErrorLog:
    return CardErrorLog(
        file=error.source.file,
        card=error.source.index,
        line=error.source.line,
        claim_id=error.claim_id,
        fields=list(error.fields),
        message=error.message,
    )


def _access(
    loaded: LoadedCard, read: Reader
) -> tuple[dict[str, Unreadable], dict[str, CitedRegion]]:
    """Per local evidence item: why it cannot be had, or its located region."""
    card = loaded.card
    refused: dict[str, Unreadable] = {}
    regions: dict[str, CitedRegion] = {}
    for eid, item in zip(card.evidence_ids(), card.evidence_list, strict=True):
        if not isinstance(item, LocalEvidence):
            continue
        ref = loaded.local_evidence[eid]
        if ref.path is None:
            refused[eid] = Unreadable("inaccessible", ref.refused or "refused")
            continue
        text = read(ref.path)
        if isinstance(text, Unreadable):
            # The path as the card wrote it, not where this machine resolved it.
            refused[eid] = Unreadable(text.kind, text.reason.replace(str(ref.path), ref.declared))
            continue
        located = locate(text, item.page, item.region)
        if isinstance(located, Unreadable):
            refused[eid] = Unreadable(located.kind, f"{item.file_path}: {located.reason}")
            continue
        regions[eid] = CitedRegion(eid, item.file_path, located)
    return refused, regions


def _locator(item: WebEvidence | LocalEvidence | LogicEvidence) -> str:
    if isinstance(item, WebEvidence):
        return item.accessible_url
    if isinstance(item, LocalEvidence):
        page = "page n/a" if item.page in (None, "n/a") else f"page {item.page}"
        return f"{item.file_path}, {page}, region {item.region or 'n/a'}"
    return item.argument


def _evidence_outcomes(
    card: ClaimCard, removed: dict[str, Unreadable], checked: set[str]
) -> list[EvidenceOutcome]:
    out: list[EvidenceOutcome] = []
    for eid, item in zip(card.evidence_ids(), card.evidence_list, strict=True):
        kind: EvidenceKind = (
            "web"
            if isinstance(item, WebEvidence)
            else "local"
            if isinstance(item, LocalEvidence)
            else "logic"
        )
        status: EvidenceStatus
        if eid in removed:
            status, reason = "removed", removed[eid].reason
        elif eid in checked:
            status, reason = "checked", None
        elif kind == "web":
            status, reason = "unchecked", "web sources are not fetched offline: unverified"
        elif kind == "logic":
            status, reason = "unchecked", "a logical chain is for the logic axes (not run)"
        else:
            status, reason = "unchecked", "no critic that reads it ran"
        out.append(
            EvidenceOutcome(id=eid, kind=kind, locator=_locator(item), status=status, reason=reason)
        )
    return out


@dataclass(slots=True)
class Prepared:
    """A card through Step 0 and Step 1: either decided (`result`), or admitted to the
    axes with what the precheck kept."""

    log: list[events.Event]
    result: ClaimResult | None
    base: _Result
    reasons: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    regions: dict[str, CitedRegion] = field(default_factory=dict)


def prepare_card(loaded: LoadedCard, read: Reader, axes: AxisPolicy = DEFAULT_POLICY) -> Prepared:
    """Step 0 and Step 1 of one card; `result` is set when they decide it."""
    card = loaded.card
    cid = card.claim_id
    log: list[events.Event] = [events.loaded(loaded)]
    decision = entry_gate(card)
    log.append(events.gate(cid, decision))
    assignment = axes.assign(card.verification_complexity, card.domain_axes)
    base = _Result(loaded, axes)
    if decision.outcome == "bypass":
        result = base.build(
            "accept", "bypass", decision.reasons, assignment.reasons, decision.reasons[0]
        )
        log.append(events.verdict(cid, "accept", decision.reasons))
        return Prepared(log, result, base)
    removed, regions = _access(loaded, read)
    check = precheck(card, removed)
    log.append(events.precheck(cid, check))
    base.removed = removed
    reasons = (*decision.reasons, *check.reasons)
    if check.outcome != "pass":
        verdict: Verdict = check.outcome
        base.missing = list(check.missing)
        base.precheck_issues = [r for r in check.reasons if " removed: " not in r]
        result = base.build(verdict, "precheck", reasons, assignment.reasons, check.reasons[0])
        log.append(events.verdict(cid, verdict, reasons))
        return Prepared(log, result, base)
    if decision.outcome == "precheck-only":
        result = base.build(
            "accept", "precheck", reasons, assignment.reasons, "level 1: evidence precheck passed"
        )
        log.append(events.verdict(cid, "accept", reasons))
        return Prepared(log, result, base)
    return Prepared(log, None, base, reasons, check.kept, regions)


def web_unchecked(card: ClaimCard, kept: tuple[str, ...]) -> list[str]:
    return [
        f"{eid}: {_locator(item)}"
        for eid, item in zip(card.evidence_ids(), card.evidence_list, strict=True)
        if eid in kept and isinstance(item, WebEvidence)
    ]


def verify_card(
    loaded: LoadedCard, read: Reader, axes: AxisPolicy = DEFAULT_POLICY
) -> tuple[ClaimResult, list[events.Event]]:
    prepared = prepare_card(loaded, read, axes)
    if prepared.result is not None:
        return prepared.result, prepared.log
    card = loaded.card
    cid = card.claim_id
    log, base, reasons = prepared.log, prepared.base, prepared.reasons
    assignment = axes.assign(card.verification_complexity, card.domain_axes)
    run = [a for a in assignment.axes if a in CRITICS]
    log.append(events.axes(cid, assignment, run))
    kept_regions = [prepared.regions[eid] for eid in prepared.kept if eid in prepared.regions]
    fact = check_claim(card.claim_text, kept_regions, web_unchecked(card, prepared.kept))
    log.append(events.check(cid, fact))
    base.fact = fact
    base.checked = {r.evidence_id for r in kept_regions}
    base.axes_run = list(run)
    if card.verification_complexity == 3:
        control = negative_control(card.claim_text, kept_regions)
        if control is not None:
            base.controls = [
                ControlLog(
                    candidate=control.candidate,
                    changed=control.changed,
                    verdict=control.verdict,
                )
            ]
    not_run = [a for a in assignment.axes if a not in run]
    reasons = (
        *reasons,
        f"internal-fact: {fact.verdict}",
        *(a.message for a in fact.attacks),
        *([f"axes not run (they need agents): {', '.join(not_run)}"] if not_run else []),
    )
    summary = (
        fact.attacks[0].message
        if fact.attacks
        else "every number, quote and name is confirmed by its cited region"
    )
    result = base.build(fact.verdict, "internal-fact", reasons, assignment.reasons, summary)
    log.append(events.verdict(cid, fact.verdict, reasons))
    return result, log


class _Result:
    """Collects what one claim's steps found, then builds its ClaimResult."""

    def __init__(self, loaded: LoadedCard, axes: AxisPolicy = DEFAULT_POLICY) -> None:
        self.loaded = loaded
        self.axes = axes
        self.removed: dict[str, Unreadable] = {}
        self.missing: list[str] = []
        self.precheck_issues: list[str] = []
        self.fact: InternalFactResult | None = None
        self.checked: set[str] = set()
        self.axes_run: list[str] = []
        self.controls: list[ControlLog] = []

    def build(
        self,
        verdict: Verdict,
        stage: Stage,
        reasons: tuple[str, ...],
        axis_reasons: tuple[str, ...],
        summary: str,
    ) -> ClaimResult:
        card = self.loaded.card
        assignment = self.axes.assign(card.verification_complexity, card.domain_axes)
        ran = self.axes_run
        findings = self.fact.findings if self.fact is not None else ()
        return ClaimResult(
            claim_id=card.claim_id,
            source=Source(
                file=self.loaded.source.file,
                card=self.loaded.source.index,
                line=self.loaded.source.line,
            ),
            claim_text=card.claim_text,
            level=card.verification_complexity,
            verdict=verdict,
            stage=stage,
            summary=summary,
            reasons=list(reasons),
            surviving_claim=card.claim_text if verdict != "reject" else None,
            required_assumptions=list(card.assumptions or []),
            guarantee_boundary=GuaranteeBoundary(
                guarantees=list(card.guarantees or []),
                non_guarantees=list(card.non_guarantees or []),
            ),
            rounds_log=[],
            retracted_claims=[card.claim_text] if verdict == "reject" else [],
            rejection_reasons=list(reasons) if verdict == "reject" else [],
            escalation_issues=self._issues(verdict, stage, reasons),
            axes=Axes(
                assigned=list(assignment.axes),
                run=list(ran),
                not_run=[a for a in assignment.axes if a not in ran]
                if stage == "internal-fact"
                else [],
                reasons=list(axis_reasons),
            ),
            evidence=_evidence_outcomes(card, self.removed, self.checked),
            checks=[
                CheckFinding(
                    kind=f.kind,
                    claimed=f.claimed,
                    status=f.status,
                    evidence_id=f.evidence_id,
                    where=f.where(),
                    evidence_line=f.line.text if f.line is not None else None,
                    evidence_value=f.evidence_value,
                    note=f.note,
                )
                for f in findings
            ],
            controls=self.controls,
        )

    def _issues(
        self, verdict: Verdict, stage: Stage, reasons: tuple[str, ...]
    ) -> list[EscalationIssue]:
        if verdict != "escalate" or stage == "rounds":
            return []  # the round driver writes the issues of a claim decided in rounds
        if stage == "precheck":
            return [
                EscalationIssue(
                    issue=reason,
                    missing=self.missing,
                    decision_needed="complete the card or its evidence, then verify again",
                )
                for reason in self.precheck_issues
            ]
        assert self.fact is not None
        return [
            EscalationIssue(
                issue=attack.message,
                missing=[attack.finding.where()] if attack.finding is not None else [],
                decision_needed="cite the page and region that state it, or narrow the claim",
            )
            for attack in self.fact.attacks
            if attack.verdict == "escalate"
        ]
