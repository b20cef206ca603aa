"""The claim round driver (seeds/002 Steps 2–4.5) with scripted agents: every verdict path,
silence as a protocol error, the 50-round cap, the deadlock report, the proponent's
evidence through the checkpoint, narrowing, refused concessions, the unverified echo."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from contend.agents.base import AgentRequest
from contend.agents.scripted import ScriptedAgent
from contend.claims.axes import Axis
from contend.claims.driver import verify_with_agents
from contend.claims.findings import CitedRegion
from contend.claims.load import LoadedCard, load_card_files
from contend.claims.report import ClaimsReport
from contend.claims.round_state import AgentOutput
from contend.claims.speakers import AgentSpeaker, InternalFactSpeaker, Panel, Speaker
from contend.claims.turns import TURN_SCHEMA
from contend.errors import ProtocolError

EVIDENCE = Path(__file__).resolve().parents[1] / "examples" / "claims" / "evidence"

TRUE_CLAIM = "On the large repository the median parse took 12.5 s over 4,800 files."
FALSE_CLAIM = "The new parser is 2.3x faster than the old one on the large repository."


def turn(
    *,
    attacks: Sequence[dict[str, Any]] = (),
    position: str = "accept",
    withdrawn: Sequence[str] = (),
    concessions: Sequence[dict[str, str]] = (),
    meta: Sequence[dict[str, Any]] = (),
    tools: Sequence[str] = (),
) -> dict[str, Any]:
    return {
        "output": {
            "no_attack_point": not attacks and not meta,
            "position": position,
            "attacks": [
                {"text": "", "decisive": True, "evidence": [], "narrowing": "", **a}
                for a in attacks
            ],
            "meta_attacks": [
                {"target": "", "text": "", "decisive": False, "evidence": [], **m} for m in meta
            ],
            "withdrawn": list(withdrawn),
            "concessions": list(concessions),
            "external_tools": list(tools),
            "community_sources": [],
        }
    }


QUIET = turn()


def card_file(tmp_path: Path, text: str = TRUE_CLAIM, **extra: Any) -> Path:
    shutil.copytree(EVIDENCE, tmp_path / "evidence")
    card = {
        "claim-id": "C1",
        "claim-text": text,
        "claim-type": "empirical",
        "claim-shape": "fact",
        "abstraction-level": "experiment",
        "owner-approval-flag": True,
        "evidence-list": [{"file_path": "evidence/results.txt", "page": 1, "region": "middle"}],
        **extra,
    }
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card))
    return path


class Recording:
    """Wraps a speaker and keeps every prompt it was given."""

    def __init__(self, inner: Speaker) -> None:
        self.inner = inner
        self.name = inner.name
        self.prompts: list[str] = []

    async def speak(self, request: AgentRequest, context: Mapping[str, Any]) -> AgentOutput:
        self.prompts.append(request.prompt)
        return await self.inner.speak(request, context)


def scripted(name: str, role: str, turns: Sequence[dict[str, Any]]) -> AgentSpeaker:
    agent = ScriptedAgent({role: list(turns)}, role=role)  # type: ignore[arg-type]
    return AgentSpeaker(f"scripted:{name}", agent)


def run(
    card: Path,
    scripts: Mapping[str, Sequence[dict[str, Any]]],
    *,
    proponent: Sequence[dict[str, Any]] | None = None,
    meta_judge: Sequence[dict[str, Any]] | None = None,
    cap: int | None = None,
    record: dict[str, Recording] | None = None,
    web_access: frozenset[str] = frozenset(),
) -> tuple[ClaimsReport, list[tuple[str, dict[str, Any]]]]:
    loaded = load_card_files([card])
    assert not loaded.errors, loaded.errors

    def panel_for(
        card: LoadedCard,
        axes: tuple[Axis, ...],
        regions: Sequence[CitedRegion],
        unchecked: Sequence[str],
    ) -> Panel:
        seats: dict[str, Speaker] = {}
        for axis in axes:
            speaker: Speaker
            if axis in scripts:
                speaker = scripted(axis, "critic", scripts[axis])
            else:
                speaker = InternalFactSpeaker(regions, unchecked)
            if record is not None:
                speaker = record.setdefault(axis, Recording(speaker))
            seats[axis] = speaker
        return Panel(
            seats,
            proponent=None if proponent is None else scripted("pro", "proposer", proponent),
            meta_judge=None if meta_judge is None else scripted("judge", "oracle", meta_judge),
            worktree=Path(card.source.file).parent,
            cap=cap,
            web_access=web_access,
        )

    return asyncio.run(verify_with_agents(loaded, panel_for))


def kinds(events: Sequence[tuple[str, dict[str, Any]]], kind: str) -> list[dict[str, Any]]:
    return [data for k, data in events if k == kind]


DEADLOCK_REPORT = {
    "agreed_subclaims": ["the median parse took 12.5 s"],
    "unresolved": [
        {
            "subclaim": "the run is representative",
            "issue": "whether one machine's run generalises",
            "support_evidence": ["E1"],
            "support_final": "the table states the figures",
            "opposition_attack": "a single 2-core run cannot support a general claim",
            "opposition_evidence": ["E1"],
            "cause": "value-judgment",
            "decision_needed": "decide whether a single-machine run suffices",
        }
    ],
    "reason": "positions conflict with no attack point left",
}


def test_accept_after_one_cycle_with_the_deterministic_internal_fact_seat(
    tmp_path: Path,
) -> None:
    rec: dict[str, Recording] = {}
    report, events = run(
        card_file(tmp_path),
        {"internal-logic": [QUIET], "external-fact": [QUIET]},
        record=rec,
    )
    claim = report.claims[0]
    assert (claim.verdict, claim.stage, len(claim.rounds_log)) == ("accept", "rounds", 1)
    assert claim.axes.run == ["internal-logic", "external-fact", "internal-fact"]
    assert claim.axes.not_run == []
    assert report.exit_code == 0
    # The same round context for every agent: one hash in the ledger, the same body in
    # every prompt (only the closing line names the axis).
    (started,) = kinds(events, "claim_round_started")
    bodies = {r.prompts[0].rsplit("\nSpeak now as", 1)[0] for r in rec.values()}
    assert len(bodies) == 1
    assert started["context_sha256"]


def test_reject_when_a_decisive_attack_stands_and_every_agent_rejects(tmp_path: Path) -> None:
    report, events = run(
        card_file(tmp_path, FALSE_CLAIM),
        {
            "internal-logic": [
                turn(attacks=[{"text": "2.3x is not what the table says"}], position="reject")
            ],
            "external-fact": [turn(position="reject")],
        },
    )
    claim = report.claims[0]
    assert claim.verdict == "reject"
    assert report.exit_code == 1
    assert claim.surviving_claim is None
    assert claim.retracted_claims == [FALSE_CLAIM]
    (if_turn,) = [t for t in claim.rounds_log[0].turns if t.axis == "internal-fact"]
    assert "3.2x" in if_turn.attacks[0].text and "2.3x" in if_turn.attacks[0].text
    assert kinds(events, "claim_convergence")[-1]["kind"] == "reject"


def test_silence_twice_escalates_never_accepts(tmp_path: Path) -> None:
    report, events = run(
        card_file(tmp_path),
        {
            "internal-logic": [QUIET, QUIET],
            "external-fact": [{"raw": "I think it is fine"}, {"raw": "{}"}],
        },
    )
    claim = report.claims[0]
    assert claim.verdict == "escalate"
    assert report.exit_code == 3
    errors = kinds(events, "claim_protocol_error")
    assert [(e["axis"], e["round"], e["kind"]) for e in errors] == [
        ("external-fact", 1, "unparseable"),
        ("external-fact", 2, "unparseable"),
    ]
    assert any("protocol error" in r for r in claim.reasons)
    assert claim.escalation_issues


def test_a_turn_that_neither_attacks_nor_declares_no_attack_point_is_silence(
    tmp_path: Path,
) -> None:
    blank = turn()
    blank["output"]["no_attack_point"] = False
    report, events = run(
        card_file(tmp_path), {"internal-logic": [blank, blank], "external-fact": [QUIET, QUIET]}
    )
    assert report.claims[0].verdict == "escalate"
    assert [e["kind"] for e in kinds(events, "claim_protocol_error")] == ["silent", "silent"]


def test_one_silent_round_is_recorded_and_the_agent_speaks_again(tmp_path: Path) -> None:
    report, events = run(
        card_file(tmp_path),
        {"internal-logic": [{"error": "crash"}, QUIET], "external-fact": [QUIET, QUIET]},
    )
    assert report.claims[0].verdict == "accept"
    assert len(report.claims[0].rounds_log) == 2
    (error,) = kinds(events, "claim_protocol_error")
    assert "backend failed" in error["error"]


def test_deadlock_meta_judge_report_and_escalate_human(tmp_path: Path) -> None:
    report, events = run(
        card_file(tmp_path),
        {
            "internal-logic": [
                turn(
                    attacks=[{"text": "one 2-core run cannot support the claim",
                              "evidence": ["E1"]}],
                    position="reject",
                ),
                turn(position="reject"),
            ],
            "external-fact": [QUIET, QUIET],
        },
        meta_judge=[{"output": DEADLOCK_REPORT}],
    )  # fmt: skip
    claim = report.claims[0]
    assert claim.verdict == "escalate-human"
    assert report.verdict == "escalate-human" and report.exit_code == 3
    assert claim.deadlock_report is not None
    assert claim.deadlock_report.written_by == "scripted:judge"
    assert claim.summary.startswith("Issue whether one machine's run generalises is deadlocked.")
    assert claim.escalation_issues[0].decision_needed.startswith("decide whether")
    (written,) = kinds(events, "claim_deadlock_report")
    assert written["sentences"][0].endswith("Human decision required.")


def test_a_meta_judge_that_decides_is_a_protocol_error(tmp_path: Path) -> None:
    deciding = {"raw": json.dumps({**DEADLOCK_REPORT, "verdict": "accept"})}
    report, events = run(
        card_file(tmp_path),
        {
            "internal-logic": [
                turn(attacks=[{"text": "the run is not representative"}], position="reject"),
                turn(position="reject"),
            ],
            "external-fact": [QUIET, QUIET],
        },
        meta_judge=[deciding],
    )
    claim = report.claims[0]
    assert claim.verdict == "escalate"
    assert claim.deadlock_report is not None
    assert claim.deadlock_report.written_by.startswith("contend (mechanical")
    (error,) = kinds(events, "claim_protocol_error")
    assert "no decision authority" in error["error"]


def test_the_fifty_round_cap_deadlocks_and_calls_the_meta_judge(tmp_path: Path) -> None:
    pressing = [
        turn(attacks=[{"text": f"new doubt number {n}", "decisive": False}]) for n in range(60)
    ]
    report, events = run(
        card_file(tmp_path),
        {"internal-logic": pressing, "external-fact": [QUIET] * 60},
        meta_judge=[{"output": DEADLOCK_REPORT}],
    )
    claim = report.claims[0]
    assert len(claim.rounds_log) == 50
    assert claim.verdict == "escalate-human"
    last = kinds(events, "claim_convergence")[-1]
    assert last["kind"] == "judge-deadlock"
    assert "the safety cap of 50 rounds is reached" in last["reasons"]


def test_a_refused_concession_resolves_nothing_and_changes_nothing(tmp_path: Path) -> None:
    attack = turn(
        attacks=[{"text": "12.5 s is a mean, not a median", "evidence": ["E1"]}],
        position="reject",
    )
    giving_up = turn(
        position="accept", concessions=[{"attack_id": "IL-1", "text": "fine, I was wrong"}]
    )
    report, events = run(
        card_file(tmp_path),
        {"internal-logic": [attack, giving_up, QUIET], "external-fact": [QUIET] * 3},
    )
    (refused,) = kinds(events, "claim_concession_refused")
    assert refused["round"] == 2 and "not evidence-bound" in refused["reason"]
    claim = report.claims[0]
    assert claim.rounds_log[1].turns[0].concessions[0].refused is not None
    # The refused concession neither closed IL-1 nor counted as a change of state: the
    # attack stands after a round without delta, so the claim deadlocks (no meta-judge
    # configured: contend's mechanical report, verdict escalate) and is never accepted.
    assert len(claim.rounds_log) == 2
    assert claim.verdict == "escalate"
    assert claim.deadlock_report is not None
    assert claim.deadlock_report.unresolved[0].issue.startswith("IL-1")
    # No meta-judge was configured: that is no agent's protocol error.
    assert kinds(events, "claim_protocol_error") == []
    assert any("no meta-judge is configured" in r for r in claim.reasons)


def test_proponent_evidence_answers_an_attack_and_an_evidence_bound_concession_accepts(
    tmp_path: Path,
) -> None:
    empty = {"evidence": [], "answers": [], "narrowed_claim": "", "added_assumptions": [],
             "withdrawn_evidence": [], "schema_context": "", "note": ""}  # fmt: skip
    new_evidence = {
        **empty,
        "evidence": [
            {"source_type": "local", "accessible_url": "", "finding": "",
             "file_path": "evidence/results.txt", "page": "1", "region": "bottom",
             "locator_note": "", "argument": ""}
        ],
        "answers": ["IL-1"],
    }  # fmt: skip
    report, events = run(
        card_file(tmp_path),
        {
            "internal-logic": [
                turn(attacks=[{"text": "12.5 s may be a mean", "evidence": ["E1"]}],
                     position="reject"),
                turn(concessions=[{"attack_id": "IL-1", "text": "My evidence E1 was "
                                   "specifically defeated by opposing evidence P1-1."}]),
                QUIET,
            ],
            "external-fact": [QUIET] * 3,
        },
        proponent=[{"output": new_evidence}],
    )  # fmt: skip
    (check,) = kinds(events, "claim_checkpoint")
    assert check["decision_relevant"] is True
    assert check["added"][0]["id"] == "P1-1"
    claim = report.claims[0]
    assert claim.rounds_log[0].proponent is not None
    assert claim.rounds_log[0].proponent.answers == ["IL-1"]
    assert claim.verdict == "accept"
    assert not kinds(events, "claim_concession_refused")


def test_proponent_reply_without_relevance_counts_as_no_new_evidence(tmp_path: Path) -> None:
    unlocated = {"evidence": [{"source_type": "web", "accessible_url": "not a url",
                               "finding": "", "file_path": "", "page": "", "region": "",
                               "locator_note": "", "argument": ""}],
                 "answers": ["IL-1"], "narrowed_claim": "", "added_assumptions": [],
                 "withdrawn_evidence": [], "schema_context": "", "note": ""}  # fmt: skip
    report, events = run(
        card_file(tmp_path, FALSE_CLAIM),
        {
            "internal-logic": [turn(attacks=[{"text": "unsupported"}], position="reject")],
            "external-fact": [turn(position="reject")],
        },
        proponent=[{"output": unlocated}],
    )
    (check,) = kinds(events, "claim_checkpoint")
    assert check["decision_relevant"] is False
    assert check["refused"] and check["added"] == []
    assert report.claims[0].verdict == "reject"


def test_evidence_deleted_from_the_ssot_escalates(tmp_path: Path) -> None:
    deleting = {"evidence": [], "answers": [], "narrowed_claim": "", "added_assumptions": [],
                "withdrawn_evidence": ["E1"], "schema_context": "", "note": ""}  # fmt: skip
    report, _ = run(
        card_file(tmp_path),
        {
            "internal-logic": [turn(attacks=[{"text": "unsupported"}], position="reject")],
            "external-fact": [QUIET],
        },
        proponent=[{"output": deleting}],
    )
    claim = report.claims[0]
    assert claim.verdict == "escalate"
    assert any("deleted from the SSOT: E1" in r for r in claim.reasons)


def test_a_repeated_attack_with_a_narrower_claim_narrows_then_escalates_if_pressed(
    tmp_path: Path,
) -> None:
    narrower = "On the large repository the median parse took 12.5 s."
    press = {"text": "4,800 files is not every file", "decisive": False,
             "narrowing": narrower}  # fmt: skip
    report, events = run(
        card_file(tmp_path),
        {
            "internal-logic": [turn(attacks=[press]), turn(attacks=[press]), turn(attacks=[press])],
            "external-fact": [QUIET] * 3,
        },
    )
    (narrowed,) = kinds(events, "claim_narrowed")
    assert narrowed["to"] == narrower
    claim = report.claims[0]
    assert claim.retracted_claims == [TRUE_CLAIM]
    assert claim.surviving_claim == narrower
    # Pressed a third time with the same narrowing: nothing narrower left → escalate.
    assert claim.verdict == "escalate"
    assert "repeated with no narrower claim" in claim.reasons[-1]


def test_meta_attack_on_another_axis_is_recorded_and_an_unknown_target_is_unparseable(
    tmp_path: Path,
) -> None:
    meta = turn(meta=[{"target": "internal-fact", "text": "the checker read the wrong page"}])
    bad = turn(meta=[{"target": "nobody", "text": "x"}])
    report, events = run(
        card_file(tmp_path),
        {"internal-logic": [meta, QUIET], "external-fact": [bad, QUIET]},
    )
    first = report.claims[0].rounds_log[0]
    il = next(t for t in first.turns if t.axis == "internal-logic")
    assert il.meta_attacks[0].target == "internal-fact"
    ef = next(t for t in first.turns if t.axis == "external-fact")
    assert ef.kind == "unparseable"
    assert "no other agent's axis" in kinds(events, "claim_protocol_error")[0]["error"]


def test_external_tool_claim_without_web_access_is_an_unverified_echo(tmp_path: Path) -> None:
    report, _ = run(
        card_file(tmp_path),
        {"internal-logic": [turn(tools=["pytest 8.3"])], "external-fact": [QUIET]},
    )
    claim = report.claims[0]
    assert claim.unverified_echo == ["pytest 8.3"]
    assert "unverified echo (official docs only): pytest 8.3" in claim.reasons


def test_external_tool_declared_by_the_card(tmp_path: Path) -> None:
    report, _ = run(
        card_file(tmp_path, **{"domain-axes": ["external-tool"]}),
        {"internal-logic": [QUIET], "external-fact": [QUIET]},
    )
    assert report.claims[0].unverified_echo == ["the claim's external tool"]


def test_level_three_seats_five_axes_chosen_by_domain(tmp_path: Path) -> None:
    report, _ = run(
        card_file(
            tmp_path,
            **{"verification-complexity": "level-3-high-stakes", "domain-axes": ["patent",
                                                                                 "grant"]},
        ),
        {a: [QUIET] for a in ("internal-logic", "external-fact", "prior-art", "incentive")},
    )  # fmt: skip
    claim = report.claims[0]
    assert claim.axes.run == [
        "internal-logic", "external-fact", "internal-fact", "prior-art", "incentive"
    ]  # fmt: skip
    assert claim.verdict == "accept"


def test_turns_for_another_round_are_refused() -> None:
    from contend.claims.round_state import Setup, TurnsReply, start
    from contend.claims.rounds import plan

    state = start(Setup("C", "x", {}, {}, {"internal-logic": "a"}))
    step = plan(state, None)
    assert step.request is not None
    with pytest.raises(ProtocolError):
        plan(step.state, TurnsReply(2, step.request.context_sha256, {}))


def test_turn_schema_is_strict() -> None:
    assert TURN_SCHEMA["additionalProperties"] is False
    assert set(TURN_SCHEMA["required"]) == set(TURN_SCHEMA["properties"])
