"""A slice of `contend run` as a pure planner on the one driver (harness/plan.py), driven
without git or agents by replies drawn by hypothesis: planning is pure, every request is
what the slice's state names next, the state is the fold of the recorded facts at every
step (also resumed from any cut), the slice always ends with an outcome, is ready only
after a passing review, and asks the oracle at most once and only when one is cast."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from contend.harness import core
from contend.harness.plan import (
    AskOracle,
    Gates,
    GatesDone,
    Implement,
    Implemented,
    NestedReview,
    OraclePlanned,
    Reviewed,
    SliceAsk,
    SliceFact,
    SliceRecording,
    fold,
    plan,
)
from contend.review.driver import Drive

implemented = st.builds(
    Implemented,
    st.booleans(),
    st.sampled_from([(), (), ("../outside.txt",)]),
    st.sampled_from([None, None, "backend failed"]),
)
gates = st.builds(GatesDone, st.booleans(), st.booleans())
reviewed = st.builds(
    Reviewed, st.sampled_from(["pass", "conditional_pass", "fail", "fail", "escalate"])
)
oracle = st.builds(OraclePlanned, st.sampled_from([None, "", "a plan"]), st.just(""))


def _start(has_gates: bool, has_oracle: bool, rounds: int, cap: int) -> core.SliceState:
    return core.SliceState(
        max_attack_rounds=rounds, gate_cap=cap, has_gates=has_gates, has_oracle=has_oracle
    )


def _reply(request: SliceAsk, data: st.DataObject) -> SliceFact:
    if isinstance(request, Implement):
        return data.draw(implemented)
    if isinstance(request, Gates):
        return data.draw(gates)
    if isinstance(request, NestedReview):
        return data.draw(reviewed)
    assert isinstance(request, AskOracle)
    return data.draw(oracle)


@settings(max_examples=200, deadline=None)
@given(
    st.booleans(),
    st.booleans(),
    st.integers(min_value=0, max_value=3),
    st.integers(min_value=0, max_value=3),
    st.data(),
)
def test_a_slice_planned_from_its_fold_ends_and_is_ready_only_after_a_passing_review(
    has_gates: bool, has_oracle: bool, rounds: int, cap: int, data: st.DataObject
) -> None:
    first = _start(has_gates, has_oracle, rounds, cap)
    rec = SliceRecording(replace(first))
    asked: list[SliceAsk] = []

    def perform(request: SliceAsk) -> SliceFact:
        state = rec.state
        assert fold(first, rec.facts) == state  # the state is the fold of the facts
        assert plan(state, None).request == request  # what the state names next
        if isinstance(request, Implement):
            assert request.number == state.passes + 1
        if isinstance(request, NestedReview):
            assert request.number == state.reviews + 1
        if isinstance(request, AskOracle):
            assert has_oracle
        asked.append(request)
        reply = _reply(request, data)
        before = replace(state)
        assert plan(state, reply) == plan(state, reply)  # pure
        assert state == before  # and leaves the state it was given as it was
        return reply

    end = Drive[core.SliceState, SliceFact, SliceAsk, SliceFact](plan, rec).run_sync(perform)
    assert end is None
    state = rec.state
    assert state.outcome is not None and state.next.kind == "done"
    assert sum(isinstance(r, AskOracle) for r in asked) <= 1
    reviews = [f for f in rec.facts if isinstance(f, Reviewed)]
    if state.outcome.ready:
        assert reviews and reviews[-1].verdict in ("pass", "conditional_pass")
        assert rec.facts[-1] is reviews[-1]
    # Bounded: one pass per gate retry and fix round, plus the spec's and the oracle's.
    assert state.passes <= (1 + rounds + 1) * (cap + 1)
    # Resumed from any cut: the fold of the recorded facts plans the same rest.
    cut = data.draw(st.integers(min_value=0, max_value=len(rec.facts)), label="cut")
    _resumes_to_the_same_end(first, rec.facts, cut)


def _resumes_to_the_same_end(first: core.SliceState, facts: Sequence[SliceFact], cut: int) -> None:
    again = SliceRecording(fold(first, facts[:cut]))
    rest = iter(facts[cut:])
    Drive[core.SliceState, SliceFact, SliceAsk, SliceFact](plan, again).run_sync(
        lambda _request: next(rest)
    )
    assert again.facts == list(facts[cut:])
    assert again.state == fold(first, facts)


def test_the_implementer_failing_escalates_and_counts_its_pass() -> None:
    state = fold(_start(True, False, 1, 1), [Implemented(False, (), "backend failed")])
    assert state.outcome == core.Outcome(
        "escalate", "the implementer failed: backend failed", False
    )
    assert state.passes == 1 and plan(state, None).request is None


def test_writes_outside_the_worktree_fail_the_slice_even_when_the_implementer_failed() -> None:
    state = fold(_start(True, False, 1, 1), [Implemented(False, ("../x",), "backend failed")])
    assert state.outcome is not None and state.outcome.verdict == "fail"
    assert "wrote outside its worktree (../x)" in state.outcome.reason
