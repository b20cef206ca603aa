"""The ledger events of a claims run (`contend verify`), as (kind, data) pairs.

The shape of every kind's data is a TypedDict in protocol/claims_event_types.py, part of
the one event table (protocol/events.EVENT_TYPES) and of the published schema
`contend.event/v1`; the builders of the rounds' kinds take that TypedDict's fields, so mypy
checks every event against its kind. Every builder returns plain JSON-ready data;
the ledger (contend.ledger.store.Ledger) adds the envelope, the hash chain and the fsync.

    claims_run_started    the card files and the critics that will run
    claim_card_error      one card (or file) that could not be read: file, card, field
    claim_loaded          a card as read (kebab-case fields) and where it came from
    claim_gate            Step 0: bypass, precheck-only or admit, with reasons
    claim_precheck        Step 1: pass, reject or escalate, kept and removed evidence
    claim_axes            Step 2: assigned axes, those that ran, those that did not
    claim_check           the internal-fact critic's findings and attacks
    claim_round_started   a round: its number, the hash of the one context every agent got
    claim_turn            one axis agent's parsed turn (attacks, meta-attacks, withdrawals,
                          concessions, position; the raw text when it was unusable)
    claim_protocol_error  a silent or unparseable turn, or a meta-judge without a report
    claim_concession_refused  a concession that is not evidence-bound, and why
    claim_proponent       the proponent gave no answer (the evidence stays fixed)
    claim_checkpoint      the proponent's reply through the checkpoint
    claim_convergence     Step 4 after a round: kind, reasons, open attacks, positions
    claim_narrowed        a repeated attack narrowed the surviving claim
    claim_deadlock_report the meta-judge's report (or contend's mechanical one)
    claim_rounds_finished the rounds' verdict, the surviving claim, the unverified echo
    claim_awaiting_proponent  the rounds paused for a person (`--proposer human`)
    claim_proponent_reply the person's answer (`contend respond CLAIM --run DIR --reply F`)
    claim_decided         a person's later ruling on an escalated claim (`contend decide`)
    claim_verdict         the claim's verdict and reasons
    claims_run_finished   the overall verdict and exit code
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from typing_extensions import Unpack

from contend.claims.axes import AxisAssignment
from contend.claims.findings import InternalFactResult
from contend.claims.gate import GateDecision, PrecheckDecision
from contend.claims.load import CardError, LoadedCard
from contend.protocol import claims_event_types as ct

Event = tuple[str, dict[str, Any]]

# The events the round planner writes (claims/rounds.py, each a step's output); a run's
# ledger holds a prefix of the sequence a replay of its recorded replies produces.
PLANNER_KINDS = frozenset(
    {
        "claim_round_started",
        "claim_turn",
        "claim_protocol_error",
        "claim_concession_refused",
        "claim_proponent",
        "claim_checkpoint",
        "claim_convergence",
        "claim_narrowed",
        "claim_deadlock_report",
        "claim_rounds_finished",
    }
)

KINDS = PLANNER_KINDS | frozenset(
    {
        "claims_run_started",
        "claim_card_error",
        "claim_loaded",
        "claim_gate",
        "claim_precheck",
        "claim_axes",
        "claim_check",
        "claim_awaiting_proponent",
        "claim_proponent_reply",
        "claim_decided",
        "claim_verdict",
        "claims_run_finished",
    }
)


def run_started(files: Sequence[str], critics: Sequence[str]) -> Event:
    return "claims_run_started", {"files": list(files), "critics": list(critics)}


def card_error(error: CardError) -> Event:
    return "claim_card_error", {
        "file": error.source.file,
        "card": error.source.index,
        "line": error.source.line,
        "claim_id": error.claim_id,
        "fields": list(error.fields),
        "message": error.message,
    }


def loaded(card: LoadedCard) -> Event:
    return "claim_loaded", {
        "claim_id": card.card.claim_id,
        "file": card.source.file,
        "card": card.source.index,
        "line": card.source.line,
        "claim_card": card.card.model_dump(mode="json", by_alias=True, exclude_none=True),
    }


def gate(claim_id: str, decision: GateDecision) -> Event:
    return "claim_gate", {
        "claim_id": claim_id,
        "outcome": decision.outcome,
        "reasons": list(decision.reasons),
    }


def precheck(claim_id: str, decision: PrecheckDecision) -> Event:
    return "claim_precheck", {
        "claim_id": claim_id,
        "outcome": decision.outcome,
        "reasons": list(decision.reasons),
        "kept": list(decision.kept),
        "removed": [
            {"evidence_id": r.evidence_id, "kind": r.kind, "reason": r.reason}
            for r in decision.removed
        ],
        "missing": list(decision.missing),
    }


def axes(
    claim_id: str,
    assignment: AxisAssignment,
    run: Sequence[str],
    web_access: Collection[str] = (),
) -> Event:
    return "claim_axes", {
        "claim_id": claim_id,
        "assigned": list(assignment.axes),
        "run": list(run),
        "not_run": [a for a in assignment.axes if a not in run],
        "reasons": list(assignment.reasons),
        "web_access": sorted(web_access),  # axes whose agent could read the web
    }


def check(claim_id: str, result: InternalFactResult) -> Event:
    return "claim_check", {
        "claim_id": claim_id,
        "axis": "internal-fact",
        "verdict": result.verdict,
        "findings": [
            {
                "kind": f.kind,
                "claimed": f.claimed,
                "status": f.status,
                "evidence_id": f.evidence_id,
                "where": f.where(),
                "evidence_line": f.line.text if f.line is not None else None,
                "evidence_value": f.evidence_value,
                "note": f.note,
            }
            for f in result.findings
        ],
        "attacks": [{"verdict": a.verdict, "message": a.message} for a in result.attacks],
        "unchecked": list(result.unchecked),
    }


def verdict(claim_id: str, value: str, reasons: Sequence[str]) -> Event:
    return "claim_verdict", {"claim_id": claim_id, "verdict": value, "reasons": list(reasons)}


def run_finished(value: str, code: int) -> Event:
    return "claims_run_finished", {"verdict": value, "exit_code": code}


# --- the rounds' kinds, typed by protocol/claims_event_types.py ------------------------------


def _typed(kind: str, data: Mapping[str, Any]) -> Event:
    return kind, dict(data)


def round_started(**data: Unpack[ct.ClaimRoundStartedData]) -> Event:
    return _typed("claim_round_started", data)


def turn(**data: Unpack[ct.ClaimTurnData]) -> Event:
    return _typed("claim_turn", data)


def protocol_error(**data: Unpack[ct.ClaimProtocolErrorData]) -> Event:
    return _typed("claim_protocol_error", data)


def concession_refused(**data: Unpack[ct.ClaimConcessionRefusedData]) -> Event:
    return _typed("claim_concession_refused", data)


def proponent(**data: Unpack[ct.ClaimProponentData]) -> Event:
    return _typed("claim_proponent", data)


def checkpoint(**data: Unpack[ct.ClaimCheckpointData]) -> Event:
    return _typed("claim_checkpoint", data)


def convergence(**data: Unpack[ct.ClaimConvergenceData]) -> Event:
    return _typed("claim_convergence", data)


def deadlock_report(**data: Unpack[ct.ClaimDeadlockReportData]) -> Event:
    return _typed("claim_deadlock_report", data)


def rounds_finished(**data: Unpack[ct.ClaimRoundsFinishedData]) -> Event:
    return _typed("claim_rounds_finished", data)


def awaiting_proponent(**data: Unpack[ct.ClaimAwaitingProponentData]) -> Event:
    return _typed("claim_awaiting_proponent", data)


def proponent_reply(**data: Unpack[ct.ClaimProponentReplyData]) -> Event:
    return _typed("claim_proponent_reply", data)


def decided(**data: Unpack[ct.ClaimDecidedData]) -> Event:
    return _typed("claim_decided", data)


def narrowed(data: ct.ClaimNarrowedData) -> Event:
    """Positional: its `from` key is a keyword of Python."""
    return _typed("claim_narrowed", data)
