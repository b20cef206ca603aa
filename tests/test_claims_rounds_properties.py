"""Properties of the pure round planner (claims/rounds.py) over generated agent replies:
it always ends within the safety cap with a verdict; it never accepts while a decisive
attack is open, after an agent gave no usable turn in its last round, or without every
agent's last turn being "no attack point"; and the ledger's events replay to the same end."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from contend.claims.convergence import open_attacks
from contend.claims.replay import replay
from contend.claims.round_state import AgentOutput, Setup, State, TurnsReply, start
from contend.claims.rounds import plan

AXES = ("internal-logic", "external-fact", "internal-fact")
TEXTS = ("the sample is small", "the unit is wrong", "the baseline differs", "the run is old")


def _attack(text: str, decisive: bool, narrowing: str) -> dict[str, Any]:
    return {"text": text, "decisive": decisive, "evidence": ["E1"], "narrowing": narrowing}


reply = st.one_of(
    st.just(None),  # the backend failed
    st.builds(
        lambda attacks, position, withdraw: {
            "no_attack_point": not attacks,
            "position": position,
            "attacks": attacks,
            "meta_attacks": [],
            "withdrawn": withdraw,
            "concessions": [],
            "external_tools": [],
            "community_sources": [],
        },
        st.lists(
            st.builds(
                _attack,
                st.sampled_from(TEXTS),
                st.booleans(),
                st.sampled_from(["", "a narrower claim", "an even narrower claim"]),
            ),
            max_size=2,
        ),
        st.sampled_from(["accept", "reject"]),
        st.lists(st.sampled_from(["IL-1", "EF-1", "IF-1", "IL-2"]), max_size=1),
    ),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.fixed_dictionaries({a: reply for a in AXES}), min_size=1, max_size=12),
       st.integers(min_value=1, max_value=8))  # fmt: skip
def test_the_planner_ends_within_the_cap_and_never_accepts_unsafely(
    rounds: list[dict[str, dict[str, Any] | None]], cap: int
) -> None:
    setup = Setup("C", "a claim", {}, {"E1": "x"}, {a: a for a in AXES}, cap=cap)
    step = plan(start(setup), None)
    events = list(step.events)
    last: dict[str, dict[str, Any] | None] = {}
    calls = 0
    while step.request is not None:
        assert step.request.kind == "turns"  # no proponent, no meta-judge seated
        last = rounds[min(calls, len(rounds) - 1)]
        calls += 1
        by_axis = {
            a: AgentOutput(a, out, None if out is not None else "backend failed")
            for a, out in last.items()
        }
        step = plan(step.state, TurnsReply(step.request.round, step.request.context_sha256,
                                           by_axis))  # fmt: skip
        events += step.events
    state: State = step.state
    assert state.phase == "done" and state.verdict is not None
    assert 1 <= len(state.rounds) <= cap
    if state.verdict == "accept":
        assert not [a for a in open_attacks(state.claim_rounds()) if a.decisive]
        assert all(out is not None and out["no_attack_point"] for out in last.values())
    assert state.verdict != "escalate-human"  # no meta-judge seated: never without its report
    again = replay(start(setup), events)
    assert again.request is None and again.state.verdict == state.verdict
