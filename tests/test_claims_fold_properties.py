"""The claims' rounds on the one driver: their state is the fold of their events.

With replies drawn by hypothesis (axis turns of every kind, a proponent's replies through
the checkpoint, a meta-judge's report, refusal or silence), the round planner
(claims/rounds.py) is run step by step, and at every step the fold of every event so far
(claims/fold.py) must equal the state the planner computed. The same claim driven on the
one driver (claims/driver.run_rounds over review/driver.Drive) must write the same events
and end in the same state; cut at any event and resumed with the recorded events, it must
write exactly the rest — or, cut inside a round's turns, refuse to go on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contend.agents.base import AgentRequest
from contend.claims.driver import run_rounds
from contend.claims.events import Event
from contend.claims.fold import fold
from contend.claims.round_state import AgentOutput, Reply, Request, Setup, TurnsReply, start
from contend.claims.rounds import plan
from contend.claims.speakers import Panel
from contend.errors import ProtocolError, UserError

AXES = ("internal-logic", "external-fact", "internal-fact")
TEXTS = ("the sample is small", "the unit is wrong", "the baseline differs")


def _attack(text: str, decisive: bool, narrowing: str) -> dict[str, Any]:
    return {"text": text, "decisive": decisive, "evidence": ["E1"], "narrowing": narrowing}


turn_output = st.builds(
    lambda attacks, metas, position, withdraw, concede, tools, sources, silent: {
        "no_attack_point": not attacks and not silent,
        "position": position,
        "attacks": attacks,
        "meta_attacks": metas,
        "withdrawn": withdraw,
        "concessions": concede,
        "external_tools": tools,
        "community_sources": sources,
    },
    st.lists(
        st.builds(
            _attack,
            st.sampled_from(TEXTS),
            st.booleans(),
            st.sampled_from(["", "a narrower claim"]),
        ),
        max_size=2,
    ),
    st.lists(
        st.builds(
            lambda target, text: {
                "target": target,
                "text": text,
                "decisive": False,
                "evidence": [],
            },
            st.sampled_from(AXES),
            st.sampled_from(TEXTS),
        ),
        max_size=1,
    ),
    st.sampled_from(["accept", "reject", "maybe"]),
    st.lists(st.sampled_from(["IL-1", "EF-1", "IF-1"]), max_size=1),
    st.lists(
        st.builds(
            lambda attack, text: {"attack_id": attack, "text": text},
            st.sampled_from(["IL-1", "EF-1", ""]),
            st.sampled_from(["my evidence E1 was defeated by opposing evidence P1-1", "I give up"]),
        ),
        max_size=1,
    ),
    st.lists(st.sampled_from(["tool-a", "tool-b"]), max_size=2),
    st.lists(st.sampled_from(["https://forum.example/1"]), max_size=1),
    st.booleans(),
)
turn_reply = st.one_of(st.none(), turn_output)

proponent_reply = st.one_of(
    st.none(),
    st.builds(
        lambda evidence, answers, narrowed, assumptions, withdrawn, schema: {
            "evidence": evidence,
            "answers": answers,
            "narrowed_claim": narrowed,
            "added_assumptions": assumptions,
            "withdrawn_evidence": withdrawn,
            "schema_context": schema,
            "note": "",
        },
        st.lists(
            st.sampled_from(
                [
                    {"source_type": "logic", "argument": "it follows"},
                    {"source_type": "web", "accessible_url": "nope", "finding": ""},
                ]
            ),
            max_size=2,
        ),
        st.lists(st.sampled_from(["IL-1", "EF-1", "XX-9"]), max_size=2),
        st.sampled_from(["", "a narrower claim", "the narrowest claim"]),
        st.lists(st.sampled_from(["warm cache", "one core"]), max_size=1),
        st.sampled_from([[], [], ["E1"]]),
        st.sampled_from(["", "", "", "a new schema"]),
    ),
)

ISSUE = {
    "subclaim": "the claim",
    "issue": "the sample size",
    "support_evidence": ["E1"],
    "support_final": "it holds",
    "opposition_attack": "the sample is small",
    "opposition_evidence": [],
    "cause": "missing-evidence",
    "decision_needed": "a larger sample",
}
meta_reply = st.sampled_from(
    [
        None,
        {"agreed_subclaims": [], "unresolved": [ISSUE], "reason": "cap"},
        {"agreed_subclaims": [], "unresolved": [ISSUE], "reason": "cap", "verdict": "accept"},
        {"agreed_subclaims": [], "unresolved": [], "reason": "cap"},
    ]
)


@dataclass(frozen=True)
class Script:
    """The replies of one drawn claim, chosen by request alone (the same on a resume)."""

    rounds: Sequence[Mapping[str, dict[str, Any] | None]]
    proponent: Sequence[dict[str, Any] | None]
    meta: dict[str, Any] | None

    def output(self, who: str, rnd: int) -> AgentOutput:
        if who == "proponent":
            out = self.proponent[min(rnd, len(self.proponent)) - 1]
        elif who == "meta-judge":
            out = self.meta
        else:
            out = self.rounds[min(rnd, len(self.rounds)) - 1][who]
        return AgentOutput(who, out, None if out is not None else "backend failed")

    def reply(self, request: Request) -> Reply:
        if request.kind == "turns":
            by_axis = {a: self.output(a, request.round) for a in request.axes}
            return TurnsReply(request.round, request.context_sha256, by_axis)
        return self.output(request.kind, request.round)


@dataclass
class Speaking:
    who: str
    script: Script
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.who

    async def speak(self, request: AgentRequest, context: Mapping[str, Any]) -> AgentOutput:
        del context
        return self.script.output(self.who, request.round)


claims = st.fixed_dictionaries(
    {
        "axes": st.sampled_from([AXES, AXES[:2], AXES[1:]]),
        "proponent": st.booleans(),
        "meta": st.booleans(),
        "cap": st.integers(min_value=1, max_value=5),
        "rounds": st.lists(
            st.fixed_dictionaries({a: turn_reply for a in AXES}), min_size=1, max_size=6
        ),
        "proponent_replies": st.lists(proponent_reply, min_size=1, max_size=4),
        "meta_reply": meta_reply,
    }
)


def _setup(drawn: Mapping[str, Any]) -> tuple[Setup, Script]:
    axes = tuple(drawn["axes"])
    setup = Setup(
        "C",
        "a claim",
        {"schema-context": ""},
        {"E1": "x"},
        {a: a for a in axes},
        proponent="proponent" if drawn["proponent"] else None,
        meta_judge="meta-judge" if drawn["meta"] else None,
        cap=drawn["cap"],
    )
    return setup, Script(drawn["rounds"], drawn["proponent_replies"], drawn["meta_reply"])


def _panel(setup: Setup, script: Script) -> Panel:
    return Panel(
        {a: Speaking(a, script) for a in setup.seats},
        proponent=Speaking("proponent", script) if setup.proponent else None,
        meta_judge=Speaking("meta-judge", script) if setup.meta_judge else None,
    )


def _planned(setup: Setup, script: Script) -> tuple[list[Event], list[int]]:
    """The planner run to its end: its events, the index after each step's; the fold of
    the events so far equals the planner's state at every step."""
    step = plan(start(setup), None)
    events: list[Event] = list(step.events)
    ends = [len(events)]
    assert fold(start(setup), events) == step.state
    while step.request is not None:
        step = plan(step.state, script.reply(step.request))
        events += step.events
        ends.append(len(events))
        assert fold(start(setup), events) == step.state
    assert step.state.phase == "done"
    return events, ends


@settings(max_examples=120, deadline=None)
@given(claims)
def test_the_fold_of_the_events_is_the_planners_state_at_every_step(
    drawn: Mapping[str, Any],
) -> None:
    setup, script = _setup(drawn)
    events, _ = _planned(setup, script)
    # The same claim on the one driver: the same events, the same end, from the fold.
    state, log = asyncio.run(run_rounds(start(setup), _panel(setup, script)))
    assert log == events
    assert state == fold(start(setup), events)
    assert state.verdict is not None


def _cut_in_turns(recorded: Sequence[Event], seats: int) -> bool:
    """Whether the record stops inside a round's turns (some seats' turns, not all)."""
    turns = 0
    for kind, _ in recorded:
        if kind == "claim_round_started":
            turns = 0
        elif kind == "claim_turn":
            turns += 1
    return 0 < turns < seats


@settings(max_examples=120, deadline=None)
@given(claims, st.data())
def test_a_claim_cut_at_any_event_resumes_to_the_same_ledger_and_state(
    drawn: Mapping[str, Any], data: st.DataObject
) -> None:
    setup, script = _setup(drawn)
    events, _ = _planned(setup, script)
    cut = data.draw(st.integers(min_value=0, max_value=len(events)), label="cut")
    recorded = events[:cut]
    resumed = run_rounds(start(setup), _panel(setup, script), recorded=recorded)
    if _cut_in_turns(recorded, len(setup.seats)):
        with pytest.raises(UserError, match="do not match a replay"):
            asyncio.run(resumed)
        return
    state, new = asyncio.run(resumed)
    assert recorded + new == events
    assert state == fold(start(setup), events)


def test_a_changed_card_does_not_fold() -> None:
    setup = Setup("C", "a claim", {}, {"E1": "x"}, {"internal-logic": "internal-logic"})
    quiet = dict.fromkeys(AXES, None)
    script = Script([quiet], [None], None)
    events, _ = _planned(setup, script)
    changed = Setup("C", "another claim", {}, {"E1": "x"}, setup.seats)
    with pytest.raises(ProtocolError, match="another round context"):
        fold(start(changed), events)
