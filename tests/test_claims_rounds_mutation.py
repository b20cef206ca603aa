"""The claim round planner (claims/rounds.py) where the mutation run (bench/mutation/) found
it unguarded: what each step asks for (the seats, web access, the deterministic checker's
axis), the events it writes (exact, as the ledger holds them), the replies it refuses, and
the verdict a claim ends with. Driven through the pure planner, no agent and no file."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest

from contend.claims.events import Event
from contend.claims.round_state import (
    AgentOutput,
    Request,
    Setup,
    State,
    Step,
    TurnsReply,
    start,
)
from contend.claims.rounds import plan
from contend.errors import ProtocolError

AXES = {"internal-logic": "agent-il", "external-fact": "agent-ef"}


def out(
    *,
    attacks: tuple[dict[str, Any], ...] = (),
    meta: tuple[dict[str, Any], ...] = (),
    position: str = "accept",
    withdrawn: tuple[str, ...] = (),
    concessions: tuple[dict[str, str], ...] = (),
    tools: tuple[str, ...] = (),
    sources: tuple[str, ...] = (),
) -> dict[str, Any]:
    """A turn as an axis agent's structured output."""
    return {
        "no_attack_point": not attacks and not meta,
        "position": position,
        "attacks": [
            {"text": "", "decisive": True, "evidence": ["E1"], "narrowing": "", **a}
            for a in attacks
        ],
        "meta_attacks": [
            {"target": "", "text": "", "decisive": False, "evidence": ["E1"], **m} for m in meta
        ],
        "withdrawn": list(withdrawn),
        "concessions": list(concessions),
        "external_tools": list(tools),
        "community_sources": list(sources),
    }


QUIET = out()
ATTACK = out(attacks=({"text": "the sample is small"},), position="reject")


def setup(**kw: Any) -> Setup:
    seats = kw.pop("seats", AXES)
    return Setup("C", "a claim", {"schema-context": ""}, {"E1": "results.txt"}, seats, **kw)


def turns_reply(request: Request, by_axis: Mapping[str, AgentOutput]) -> TurnsReply:
    return TurnsReply(request.round, request.context_sha256, dict(by_axis))


def answer(step: Step, outputs: Mapping[str, Mapping[str, Any] | None]) -> Step:
    """The turns request of `step` answered: each axis's output (None: the backend failed)."""
    assert step.request is not None and step.request.kind == "turns"
    by_axis = {
        a: AgentOutput(f"agent:{a}", o, None if o is not None else "backend failed")
        for a, o in outputs.items()
    }
    return plan(step.state, turns_reply(step.request, by_axis))


def kinds(events: list[Event]) -> list[str]:
    return [k for k, _ in events]


def of_kind(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [d for k, d in events if k == kind]


# --- what the planner refuses, and a decided claim ---------------------------------------------


def test_a_decided_claim_plans_nothing_more() -> None:
    s = setup()
    step = answer(plan(start(s), None), {"internal-logic": QUIET, "external-fact": QUIET})
    assert step.request is None and step.state.phase == "done"
    assert step.state.verdict == "accept"
    again = plan(step.state, None)
    assert again.state is step.state
    assert again.events == [] and again.request is None
    # Whatever reply comes late, a decided claim stays as it was.
    late = plan(step.state, AgentOutput("late", QUIET))
    assert late.state is step.state and late.events == [] and late.request is None


def test_the_turns_phase_refuses_a_single_agents_reply() -> None:
    first = plan(start(setup()), None)
    with pytest.raises(ProtocolError, match="expected the agents' turns"):
        plan(first.state, AgentOutput("agent:internal-logic", QUIET))


def test_the_proponent_and_meta_judge_phases_refuse_a_turns_reply() -> None:
    s = setup(proponent="pro", meta_judge="judge", cap=1)
    first = plan(start(s), None)
    assert first.request is not None
    waiting = answer(first, {"internal-logic": ATTACK, "external-fact": QUIET})
    assert waiting.request is not None and waiting.request.kind == "proponent"
    wrong = turns_reply(first.request, {})
    with pytest.raises(ProtocolError, match="expected the proponent's reply"):
        plan(waiting.state, wrong)
    judged = plan(waiting.state, AgentOutput("pro", None, "backend failed"))
    assert judged.request is not None and judged.request.kind == "meta-judge"
    with pytest.raises(ProtocolError, match="expected the meta-judge's reply"):
        plan(judged.state, wrong)


# --- what a round asks for ------------------------------------------------------------------


def test_a_round_gives_web_access_only_to_seated_axes_that_have_it() -> None:
    s = setup(web_access=frozenset({"external-fact", "prior-art"}))
    request = plan(start(s), None).request
    assert request is not None
    assert request.axes == ("internal-logic", "external-fact")
    assert request.web_access == frozenset({"external-fact"})
    none = plan(start(setup()), None).request
    assert none is not None and none.web_access == frozenset()


def test_only_the_internal_fact_seat_is_answered_by_the_deterministic_checker() -> None:
    seats = {"internal-logic": "agent-il", "internal-fact": "internal-fact"}
    request = plan(start(setup(seats=seats)), None).request
    assert request is not None
    assert request.checks == ("internal-fact",)
    plain = plan(start(setup()), None).request
    assert plain is not None and plain.checks == ()


def test_an_agents_attack_ids_count_its_earlier_attacks_and_meta_attacks() -> None:
    s = setup(cap=3)
    meta = out(
        attacks=({"text": "the sample is small"},),
        meta=({"target": "external-fact", "text": "it ignored the unit"},),
        position="reject",
    )
    step = answer(plan(start(s), None), {"internal-logic": meta, "external-fact": QUIET})
    assert step.request is not None and step.request.kind == "turns"
    again = out(attacks=({"text": "the baseline differs"},), position="reject")
    step = answer(step, {"internal-logic": again, "external-fact": QUIET})
    turns = [d for d in of_kind(step.events, "claim_turn") if d["axis"] == "internal-logic"]
    assert [a["id"] for a in turns[0]["attacks"]] == ["IL-3"]


# --- silence ----------------------------------------------------------------------------------


def test_a_seat_that_gave_no_reply_or_a_silent_one_is_a_silent_turn_and_a_protocol_error() -> None:
    s = setup()
    first = plan(start(s), None)
    assert first.request is not None
    by_axis = {
        "external-fact": AgentOutput("agent:ef", None, "the backend had no turn", silent=True)
    }
    step = plan(first.state, turns_reply(first.request, by_axis))
    turns = {d["axis"]: d for d in of_kind(step.events, "claim_turn")}
    assert turns["internal-logic"]["kind"] == "silent"
    assert turns["internal-logic"]["agent"] == "agent-il"  # the seat's spec: nobody replied
    assert turns["internal-logic"]["reply"] is None
    assert turns["external-fact"]["kind"] == "silent"
    assert turns["external-fact"]["agent"] == "agent:ef"
    errors = {d["axis"]: d for d in of_kind(step.events, "claim_protocol_error")}
    assert errors["internal-logic"]["error"] == "no reply"
    assert errors["external-fact"]["error"] == "the backend had no turn"
    assert step.state.protocol_errors == (
        "round 1: internal-logic (agent-il) silent: no reply",
        "round 1: external-fact (agent:ef) silent: the backend had no turn",
    )
    assert step.state.verdict != "accept"


# --- the proponent --------------------------------------------------------------------------


def test_the_proponent_is_shown_this_rounds_open_attacks_beside_the_round_context() -> None:
    s = setup(proponent="pro")
    first = plan(start(s), None)
    waiting = answer(first, {"internal-logic": ATTACK, "external-fact": QUIET})
    request = waiting.request
    assert request is not None and request.kind == "proponent" and request.round == 1
    assert request.context["this_round"] == [
        {
            "id": "IL-1",
            "axis": "internal-logic",
            "text": "the sample is small",
            "decisive": True,
            "evidence": ["E1"],
        }
    ]
    # The rest is the context of the round the agents saw.
    assert first.request is not None
    assert {k: v for k, v in request.context.items() if k != "this_round"} == dict(
        first.request.context
    )
    assert request.person is False
    person = setup(proponent="alice", person_proponent=True)
    asked = answer(plan(start(person), None), {"internal-logic": ATTACK, "external-fact": QUIET})
    assert asked.request is not None and asked.request.person is True


def test_a_proponent_without_an_answer_is_recorded_and_its_round_closes_on_fixed_evidence() -> None:
    s = setup(proponent="pro")
    waiting = answer(plan(start(s), None), {"internal-logic": ATTACK, "external-fact": QUIET})
    step = plan(waiting.state, AgentOutput("pro", None, "backend failed", raw_text="garbage"))
    assert step.events[0] == (
        "claim_proponent",
        {
            "claim_id": "C",
            "round": 1,
            "agent": "pro",
            "answered": False,
            "error": "backend failed",
            "reply": {"output": None, "error": "backend failed", "raw_text": "garbage"},
        },
    )
    assert kinds(step.events)[1:] == ["claim_convergence", "claim_round_started"]
    assert step.state.pending == () and step.state.phase == "turns"
    [rnd] = step.state.rounds
    assert rnd.proponent is None and [t.axis for t in rnd.turns] == list(AXES)
    assert step.state.added_evidence == () and step.state.surviving == "a claim"
    assert step.request is not None and (step.request.kind, step.request.round) == ("turns", 2)


def proponent_out(**kw: Any) -> dict[str, Any]:
    return {
        "evidence": [],
        "answers": [],
        "narrowed_claim": "",
        "added_assumptions": [],
        "withdrawn_evidence": [],
        "schema_context": "",
        "note": "",
        **kw,
    }


def test_the_cards_schema_context_restated_goes_on_and_a_changed_one_escalates() -> None:
    s = replace(setup(proponent="pro"), card={"schema-context": "rows are v2"})
    waiting = answer(plan(start(s), None), {"internal-logic": ATTACK, "external-fact": QUIET})
    same = plan(waiting.state, AgentOutput("pro", proponent_out(schema_context="rows are v2")))
    [checkpoint] = of_kind(same.events, "claim_checkpoint")
    assert checkpoint["outcome"] == "continue"
    assert same.request is not None and same.request.kind == "turns"

    changed = plan(waiting.state, AgentOutput("pro", proponent_out(schema_context="rows are v3")))
    assert changed.request is None and changed.state.verdict == "escalate"
    assert changed.state.reasons == ("the schema/SSOT context changed materially",)
    assert kinds(changed.events) == ["claim_checkpoint", "claim_rounds_finished"]
    assert changed.events[-1][1] == {
        "claim_id": "C",
        "verdict": "escalate",
        "rounds": 1,
        "reasons": ["the schema/SSOT context changed materially"],
        "surviving_claim": "a claim",
        "unverified_echo": [],
    }
    [rnd] = changed.state.rounds
    assert rnd.proponent is not None and changed.state.pending == ()


def test_a_proponent_deleting_card_evidence_escalates_with_that_reason_only() -> None:
    s = setup(proponent="pro")
    waiting = answer(plan(start(s), None), {"internal-logic": ATTACK, "external-fact": QUIET})
    step = plan(
        waiting.state,
        AgentOutput("pro", proponent_out(withdrawn_evidence=["E1"], added_assumptions=["warm"])),
    )
    assert step.state.verdict == "escalate"
    assert step.state.reasons == ("evidence deleted from the SSOT: E1",)
    assert step.state.assumptions == ("warm",)


def test_a_checkpoint_escalation_gives_only_the_ssot_reasons_whatever_ids_were_named() -> None:
    # An ignored answer id is the proponent's text: naming "schema" or "SSOT" in it must not
    # turn its line into a reason the claim escalated for.
    s = setup(proponent="pro")
    waiting = answer(plan(start(s), None), {"internal-logic": ATTACK, "external-fact": QUIET})
    reply = proponent_out(answers=["schema-7", "SSOT-2"], schema_context="rows are v3")
    step = plan(waiting.state, AgentOutput("pro", reply))
    [checkpoint] = of_kind(step.events, "claim_checkpoint")
    assert "answers naming no open attack ignored: schema-7, SSOT-2" in checkpoint["reasons"]
    assert step.state.verdict == "escalate"
    assert step.state.reasons == ("the schema/SSOT context changed materially",)


# --- convergence, narrowing, the verdict -------------------------------------------------------


def test_a_repeated_attack_with_a_narrower_claim_narrows_the_surviving_claim() -> None:
    narrowing = out(
        attacks=({"text": "the sample is small", "narrowing": "a narrower claim"},),
        position="reject",
    )
    step = answer(
        plan(start(setup(cap=4)), None), {"internal-logic": narrowing, "external-fact": QUIET}
    )
    assert of_kind(step.events, "claim_narrowed") == []
    step = answer(step, {"internal-logic": narrowing, "external-fact": QUIET})
    assert kinds(step.events)[-3:] == ["claim_convergence", "claim_narrowed", "claim_round_started"]
    assert of_kind(step.events, "claim_narrowed") == [
        {
            "claim_id": "C",
            "round": 2,
            "attack_id": "IL-2",
            "from": "a claim",
            "to": "a narrower claim",
            "reason": "attack IL-2 repeated: the claim is narrowed",
        }
    ]
    assert (step.state.surviving, step.state.retracted) == ("a narrower claim", ("a claim",))
    [started] = of_kind(step.events, "claim_round_started")
    assert started["surviving_claim"] == "a narrower claim" and started["round"] == 3


CAP_REASONS = [
    "the safety cap of 1 rounds is reached",
    "the last round changed the state: new attacks",
]


def test_a_deadlock_with_no_meta_judge_seated_gets_contends_report_and_escalates() -> None:
    step = answer(
        plan(start(setup(cap=1)), None), {"internal-logic": ATTACK, "external-fact": QUIET}
    )
    assert step.request is None
    assert kinds(step.events)[2:] == [
        "claim_convergence",
        "claim_deadlock_report",
        "claim_rounds_finished",
    ]  # no protocol error: no meta-judge failed its duty, none was seated
    [report] = of_kind(step.events, "claim_deadlock_report")
    assert report["report"]["written_by"] == "contend (mechanical: no meta-judge report)"
    assert report["report"]["reason"] == "; ".join(CAP_REASONS)
    assert [u["issue"] for u in report["report"]["unresolved"]] == ["IL-1: the sample is small"]
    assert step.state.verdict == "escalate" and step.state.protocol_errors == ()
    assert step.state.reasons == (
        *CAP_REASONS,
        "no meta-judge report: no meta-judge is configured",
    )
    assert step.events[-1][1]["reasons"] == list(step.state.reasons)


def test_the_meta_judge_is_asked_with_the_deadlock_reasons_and_the_positions() -> None:
    step = answer(
        plan(start(setup(cap=1, meta_judge="judge")), None),
        {"internal-logic": ATTACK, "external-fact": QUIET},
    )
    request = step.request
    assert request is not None and (request.kind, request.round) == ("meta-judge", 1)
    assert step.state.phase == "meta-judge" and step.state.verdict is None
    assert request.context["deadlock_reason"] == CAP_REASONS
    assert request.context["positions"] == {"internal-logic": "reject", "external-fact": "accept"}
    assert request.context["round"] == 2 and request.context["open_attacks"][0]["id"] == "IL-1"
    assert kinds(step.events)[-1] == "claim_convergence"


REPORT = {
    "agreed_subclaims": [],
    "unresolved": [
        {
            "subclaim": "the run is representative",
            "issue": "whether one machine's run generalises",
            "support_evidence": ["E1"],
            "support_final": "the table states the figures",
            "opposition_attack": "a single run cannot support a general claim",
            "opposition_evidence": ["E1"],
            "cause": "value-judgment",
            "decision_needed": "decide whether a single-machine run suffices",
        }
    ],
    "reason": "positions conflict",
}
SENTENCE = (
    "Issue whether one machine's run generalises is deadlocked. Support uses evidence E1. "
    "Opposition attacks with a single run cannot support a general claim. Cause is "
    "value-judgment. Human decision required."
)


def deadlocked() -> Step:
    step = answer(
        plan(start(setup(cap=1, meta_judge="judge")), None),
        {"internal-logic": ATTACK, "external-fact": QUIET},
    )
    assert step.request is not None and step.request.kind == "meta-judge"
    return step


def test_a_meta_judges_report_escalates_to_a_person_with_the_reasons_and_its_lines() -> None:
    # The raw text that came with a usable structured report is not read again.
    step = plan(deadlocked().state, AgentOutput("judge", REPORT, raw_text="prose around it"))
    assert step.request is None and step.state.verdict == "escalate-human"
    assert step.state.reasons == (*CAP_REASONS, SENTENCE)
    assert kinds(step.events) == ["claim_deadlock_report", "claim_rounds_finished"]
    [report] = of_kind(step.events, "claim_deadlock_report")
    assert report["report"] == {**REPORT, "written_by": "judge"}
    assert report["sentences"] == [SENTENCE] and report["agent"] == "judge"
    assert report["reply"] == {"output": REPORT, "error": None, "raw_text": None}
    assert step.state.protocol_errors == ()


def test_a_meta_judge_whose_refused_reply_tries_to_decide_is_named_and_overruled() -> None:
    deciding = json.dumps({**REPORT, "verdict": "accept"})
    step = plan(
        deadlocked().state,
        AgentOutput("judge", None, "output does not match the schema", raw_text=deciding),
    )
    assert step.state.verdict == "escalate"
    [error] = of_kind(step.events, "claim_protocol_error")
    assert error["error"].startswith("meta-judge judge tried to decide (verdict)")
    assert error["reply"] == {
        "output": None,
        "error": "output does not match the schema",
        "raw_text": deciding,
    }
    assert step.state.reasons[-1].startswith("no meta-judge report: meta-judge judge tried")


@pytest.mark.parametrize(
    ("raw_text", "error", "why"),
    [
        ("not json at all", "unparseable", "meta-judge judge: unparseable"),
        ('["a", "list"]', None, "meta-judge judge: no report"),
        ("", None, "meta-judge judge: no report"),
    ],
)
def test_a_meta_judge_without_a_usable_report_leaves_contends_report_and_escalate(
    raw_text: str, error: str | None, why: str
) -> None:
    step = plan(deadlocked().state, AgentOutput("judge", None, error, raw_text=raw_text))
    assert step.request is None and step.state.verdict == "escalate"
    assert kinds(step.events) == [
        "claim_protocol_error",
        "claim_deadlock_report",
        "claim_rounds_finished",
    ]
    [problem] = of_kind(step.events, "claim_protocol_error")
    assert problem == {
        "claim_id": "C",
        "round": 1,
        "axis": "meta-judge",
        "agent": "judge",
        "kind": "no-deadlock-report",
        "error": why,
        "reply": {"output": None, "error": error, "raw_text": raw_text},
    }
    [report] = of_kind(step.events, "claim_deadlock_report")
    assert report["report"]["written_by"] == "contend (mechanical: no meta-judge report)"
    assert report["report"]["reason"] == "; ".join(CAP_REASONS)
    assert step.state.protocol_errors == (f"meta-judge: {why}",)
    assert step.state.reasons == (*CAP_REASONS, f"no meta-judge report: {why}")


def test_a_rejected_claim_leaves_no_surviving_claim_and_an_accepted_one_keeps_it() -> None:
    rejecting = out(position="reject")
    step = answer(
        plan(start(setup()), None), {"internal-logic": ATTACK, "external-fact": rejecting}
    )
    assert step.state.verdict == "reject"
    assert step.events[-1][0] == "claim_rounds_finished"
    assert step.events[-1][1]["surviving_claim"] is None
    accepted = answer(plan(start(setup()), None), {"internal-logic": QUIET, "external-fact": QUIET})
    assert accepted.state.verdict == "accept"
    assert accepted.events[-1][1]["surviving_claim"] == "a claim"


# --- the unverified echo --------------------------------------------------------------------


def accepted_with(s: Setup, ef: Mapping[str, Any] = QUIET) -> State:
    step = answer(plan(start(s), None), {"internal-logic": QUIET, "external-fact": ef})
    assert step.request is None and step.state.verdict == "accept"
    assert step.events[-1][1]["reasons"] == list(step.state.reasons)
    return step.state


ECHO = "unverified echo (official docs only): the claim's external tool"


def test_an_external_tool_claim_without_web_access_says_the_result_is_an_unverified_echo() -> None:
    state = accepted_with(setup(external_tool=True))
    assert state.reasons[-1:] == (ECHO,)
    asked = accepted_with(setup(external_tool=True, web_asked=True))
    assert asked.reasons[-2:] == (
        ECHO,
        "web access was asked, but no seated agent's backend can read the web",
    )


def test_seated_agents_with_web_access_that_cite_no_community_report_are_named() -> None:
    state = accepted_with(
        setup(external_tool=True, web_asked=True, web_access=frozenset({"external-fact"}))
    )
    assert state.reasons[-2:] == (ECHO, "the agents with web access cited no community report")
    cited = accepted_with(
        setup(external_tool=True, web_asked=True, web_access=frozenset({"external-fact"})),
        out(sources=("https://forum.example/1",)),
    )
    assert not any("echo" in r or "web" in r for r in cited.reasons)


def test_a_silent_reply_that_says_nothing_of_why_is_recorded_as_no_turn() -> None:
    first = plan(start(setup()), None)
    assert first.request is not None
    by_axis = {
        "internal-logic": AgentOutput("agent:il", QUIET),
        "external-fact": AgentOutput("agent:ef", None, None, silent=True),
    }
    step = plan(first.state, turns_reply(first.request, by_axis))
    [error] = of_kind(step.events, "claim_protocol_error")
    assert (error["axis"], error["kind"], error["error"]) == ("external-fact", "silent", "no turn")
