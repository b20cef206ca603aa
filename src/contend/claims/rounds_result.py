"""A claim decided in rounds, as the report tells it: the `ClaimResult` built from the
planner's final state (claims/round_state.py) — verdict, surviving and retracted claims,
the rounds log, the escalation issues — with the deterministic checker's findings and the
negative control added where they apply. Pure: no agent, file or clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from contend.claims.controls import negative_control
from contend.claims.convergence import Attack, check_concession
from contend.claims.findings import CitedRegion
from contend.claims.internal_fact import check_claim
from contend.claims.load import LoadedCard
from contend.claims.report import (
    AttackLog,
    Axes,
    ClaimResult,
    ConcessionLog,
    ControlLog,
    EscalationIssue,
    ProponentLog,
    RoundLog,
    TurnLog,
)
from contend.claims.round_state import State
from contend.claims.run import Prepared
from contend.claims.speakers import InternalFactSpeaker, Panel

AWAITING = (
    "waiting for the proponent (a person): contend respond {cid} --run RUN_DIR --reply FILE, "
    "then contend verify --resume RUN_DIR --agent …"
)


def rounds_result(
    card: LoadedCard,
    prepared: Prepared,
    axis_reasons: tuple[str, ...],
    regions: Sequence[CitedRegion],
    panel: Panel,
    state: State,
) -> ClaimResult:
    checker = panel.seats.get("internal-fact")
    if isinstance(checker, InternalFactSpeaker):
        # The deterministic seat read the kept regions: its findings on the surviving claim
        # go into the report, as they do without agents.
        prepared.base.fact = check_claim(state.surviving, checker.regions, checker.unchecked)
        prepared.base.checked = {r.evidence_id for r in checker.regions}
    if card.card.verification_complexity == 3:
        # The evaluator artifact set needs a candidate the verifier rejects.
        control = negative_control(card.card.claim_text, regions)
        if control is not None:
            prepared.base.controls = [
                ControlLog(
                    candidate=control.candidate, changed=control.changed, verdict=control.verdict
                )
            ]
    if state.phase != "done":
        waiting = AWAITING.format(cid=card.card.claim_id)
        state = replace(state, verdict="escalate", reasons=(*state.reasons, waiting))
    return claim_result(
        prepared.base.build(
            state.verdict or "escalate",
            "rounds",
            (*prepared.reasons, *state.reasons),
            axis_reasons,
            _summary(state),
        ),
        state,
    )


def _summary(state: State) -> str:
    if state.verdict == "escalate-human" and state.deadlock is not None:
        return state.deadlock.sentences()[0]
    return (
        state.reasons[0] if state.reasons else f"{state.verdict} after {len(state.rounds)} rounds"
    )


def claim_result(base: ClaimResult, state: State) -> ClaimResult:
    """The ClaimResult of a claim decided in rounds."""
    verdict = state.verdict or "escalate"
    return base.model_copy(
        update={
            "surviving_claim": None if verdict == "reject" else state.surviving,
            "required_assumptions": list(state.assumptions),
            "rounds_log": rounds_log(state),
            "retracted_claims": [
                *state.retracted,
                *([state.surviving] if verdict == "reject" else []),
            ],
            "escalation_issues": escalation_issues(state),
            "deadlock_report": state.deadlock,
            "axes": Axes(
                assigned=base.axes.assigned,
                run=list(state.setup.seats),
                not_run=[],
                reasons=base.axes.reasons,
            ),
            "unverified_echo": list(state.unverified_echo),
        }
    )


def _attack_log(a: Attack) -> AttackLog:
    return AttackLog(
        id=a.id,
        axis=a.axis,
        text=a.text,
        decisive=a.decisive,
        evidence=list(a.evidence),
        target=a.target,
    )


def rounds_log(state: State) -> list[RoundLog]:
    known = set(state.claim_rounds().evidence_ids)
    out: list[RoundLog] = []
    own: dict[str, set[str]] = {}
    for r in state.rounds:
        turns = []
        for t in r.turns:
            own.setdefault(t.axis, set()).update(
                e for a in (*t.attacks, *t.meta_attacks) for e in a.evidence
            )
            turns.append(
                TurnLog(
                    axis=t.axis,
                    agent=state.setup.seats[t.axis],
                    kind=t.kind,
                    position=t.position,
                    attacks=[_attack_log(a) for a in t.attacks],
                    meta_attacks=[_attack_log(a) for a in t.meta_attacks],
                    withdrawn=list(t.withdrawn),
                    concessions=[
                        ConcessionLog(
                            text=c.text,
                            own_evidence=c.own_evidence,
                            defeated_by=c.defeated_by,
                            refused=check_concession(c, own[t.axis], known),
                        )
                        for c in t.concessions
                    ],
                )
            )
        p = r.proponent
        out.append(
            RoundLog(
                number=r.number,
                turns=turns,
                proponent=None
                if p is None
                else ProponentLog(
                    new_evidence=list(p.new_evidence),
                    answers=list(p.answers),
                    decision_relevant=p.decision_relevant,
                    narrowed_claim=p.narrowed_claim,
                ),
            )
        )
    return out


def escalation_issues(state: State) -> list[EscalationIssue]:
    if state.verdict == "escalate-human" and state.deadlock is not None:
        return [
            EscalationIssue(
                issue=i.issue,
                missing=list(i.opposition_evidence),
                decision_needed=i.decision_needed,
            )
            for i in state.deadlock.unresolved
        ]
    if state.verdict != "escalate":
        return []
    issues = [
        EscalationIssue(
            issue=e,
            missing=[],
            decision_needed="an agent gave no usable "
            "turn: rerun with a working agent or decide the claim",
        )
        for e in state.protocol_errors
    ]
    issues += [
        EscalationIssue(
            issue=r, missing=[], decision_needed="decide the claim, or narrow it and verify again"
        )
        for r in state.reasons[:1]
    ]
    return issues
