"""When a thread stops (DESIGN §2 step 5), decided on threads folded from real events.

Each cap is checked at its edge (one below: go on; at the cap: stop), each reason against
the one ranked next to it, and the steady state against the rounds a critic really spent.
"""

from __future__ import annotations

import pytest

from contend.protocol.events import EventKind
from contend.protocol.model import Action
from contend.protocol.state import ThreadState
from contend.protocol.termination import (
    LIVENESS_FAILURES,
    Limits,
    StopReason,
    is_steady,
    should_stop,
)
from protocol_helpers import RunBuilder


def quiet_rounds(n: int) -> ThreadState:
    run = RunBuilder().thread()
    for _ in range(n):
        run.critic_round()
    return run.thread_state()


def busy_rounds(n: int) -> ThreadState:
    """n closed rounds, each raising a new attack: never steady."""
    run = RunBuilder().thread()
    for i in range(n):
        run.critic_round(raises=(f"A{i}",))
    return run.thread_state()


def spent(tokens_in: int = 0, tokens_out: int = 0, cost: float = 0.0) -> ThreadState:
    run = RunBuilder().thread()
    run.open_round()
    run.critic_output(tokens_in=tokens_in, tokens_out=tokens_out, cost=cost)
    run.raise_attack("A1")
    run.close_round()
    return run.thread_state()


# -- steady state ---------------------------------------------------------------------


def test_two_quiet_rounds_are_steady_and_one_is_not() -> None:
    assert should_stop(quiet_rounds(1), Limits()) is None
    assert should_stop(quiet_rounds(2), Limits()) is StopReason.STEADY_STATE
    assert is_steady(quiet_rounds(1)) is False
    # No third model call is spent before the steady state is recognised.
    assert is_steady(quiet_rounds(2)) is True


def test_quiet_rounds_is_configurable() -> None:
    assert should_stop(quiet_rounds(2), Limits(quiet_rounds=3)) is None
    assert should_stop(quiet_rounds(3), Limits(quiet_rounds=3)) is StopReason.STEADY_STATE
    assert is_steady(quiet_rounds(1), 1) is True


def test_a_round_with_a_new_attack_or_a_re_attack_is_not_quiet() -> None:
    run = RunBuilder().thread()
    run.critic_round(raises=("A1",))
    run.act("A1", Action.DEFEND)
    run.critic_round(re_attacks=("A1",))
    assert not is_steady(run.thread_state())
    run.critic_round()
    assert not is_steady(run.thread_state()), "the re-attack round is one of the last two"
    run.critic_round()
    assert is_steady(run.thread_state())


def test_a_new_attack_in_the_last_round_alone_breaks_the_steady_state() -> None:
    run = RunBuilder().thread()
    run.critic_round()
    run.critic_round(raises=("A1",))
    assert not is_steady(run.thread_state())


@pytest.mark.parametrize("failure", ["crashed", "malformed"])
def test_a_round_in_which_the_critic_failed_is_not_quiet(failure: str) -> None:
    """A critic that said nothing because it crashed has not found nothing: the round
    does not count toward the steady state (else one clean round and a crash would pass)."""
    run = RunBuilder().thread()
    run.critic_round()
    run.critic_round(outcome=failure)
    thread = run.thread_state()
    assert not is_steady(thread)
    assert should_stop(thread, Limits()) is None
    run.critic_round(outcome=failure)
    assert should_stop(run.thread_state(), Limits()) is StopReason.MALFORMED_OUTPUT


def test_a_round_with_output_and_then_a_failure_is_not_quiet() -> None:
    """E.g. a critic that answered, but only with a topic already taken, until the
    retries ran out: it delivered no review of its own in that round."""
    run = RunBuilder().thread()
    run.critic_round()
    run.open_round()
    run.critic_output()
    run.add(EventKind.AGENT_FAILED, thread="t", role="critic", error="no distinct topic")
    run.close_round()
    assert not is_steady(run.thread_state())
    run.critic_round()
    assert not is_steady(run.thread_state())
    run.critic_round()
    assert is_steady(run.thread_state())


def test_steady_state_needs_closed_rounds_not_open_ones() -> None:
    run = RunBuilder().thread()
    run.critic_round()
    run.open_round()
    run.critic_output()
    assert not is_steady(run.thread_state())


# -- round cap ------------------------------------------------------------------------


def test_round_cap_counts_round_one_plus_max_rounds_fix_rounds() -> None:
    assert Limits().max_rounds == 3
    assert should_stop(busy_rounds(3), Limits()) is None
    assert should_stop(busy_rounds(4), Limits()) is StopReason.ROUND_CAP
    assert should_stop(busy_rounds(1), Limits(max_rounds=1)) is None
    assert should_stop(busy_rounds(2), Limits(max_rounds=1)) is StopReason.ROUND_CAP


def test_steady_state_is_named_before_the_round_cap() -> None:
    assert should_stop(quiet_rounds(4), Limits()) is StopReason.STEADY_STATE


# -- malformed output -----------------------------------------------------------------


def test_two_failures_in_a_row_end_the_thread_one_does_not() -> None:
    run = RunBuilder().thread()
    run.critic_round(raises=("A1",))
    run.critic_round(outcome="crashed")
    assert should_stop(run.thread_state(), Limits()) is None
    run.critic_round(outcome="malformed")
    assert should_stop(run.thread_state(), Limits()) is StopReason.MALFORMED_OUTPUT


def test_a_usable_output_between_two_failures_resets_the_streak() -> None:
    run = RunBuilder().thread()
    run.critic_round(outcome="crashed")
    run.critic_round(raises=("A1",))
    run.critic_round(outcome="crashed")
    thread = run.thread_state()
    assert thread.failures == 2
    assert should_stop(thread, Limits()) is None


def test_malformed_limit_is_configurable() -> None:
    run = RunBuilder().thread()
    run.critic_round(outcome="crashed")
    assert should_stop(run.thread_state(), Limits(malformed_limit=1)) is (
        StopReason.MALFORMED_OUTPUT
    )


# -- spend ----------------------------------------------------------------------------


def test_thread_token_cap_counts_input_and_output_tokens() -> None:
    limits = Limits(max_thread_tokens=100)
    assert should_stop(spent(tokens_in=40, tokens_out=59), limits) is None
    assert should_stop(spent(tokens_in=40, tokens_out=60), limits) is StopReason.COST_CAP
    # Output tokens alone reach the cap too.
    assert should_stop(spent(tokens_in=0, tokens_out=100), limits) is StopReason.COST_CAP


def test_thread_cost_cap_stops_at_the_cap() -> None:
    limits = Limits(max_thread_cost=0.5)
    assert should_stop(spent(cost=0.49), limits) is None
    assert should_stop(spent(cost=0.5), limits) is StopReason.COST_CAP


def test_run_token_cap_stops_every_thread_at_the_cap() -> None:
    thread = spent(tokens_in=1)
    limits = Limits(max_run_tokens=1000)
    assert should_stop(thread, limits, run_tokens=999) is None
    assert should_stop(thread, limits, run_tokens=1000) is StopReason.COST_CAP


def test_run_cost_cap_stops_every_thread_at_the_cap() -> None:
    thread = spent(cost=0.01)
    limits = Limits(max_run_cost=2.0)
    assert should_stop(thread, limits, run_cost=1.99) is None
    assert should_stop(thread, limits, run_cost=2.0) is StopReason.COST_CAP


def test_without_caps_spend_never_stops_a_thread() -> None:
    thread = spent(tokens_in=10**9, tokens_out=10**9, cost=10**6)
    assert should_stop(thread, Limits(), run_tokens=10**12, run_cost=10**9) is None


def test_run_totals_default_to_nothing_spent() -> None:
    thread = spent()
    assert should_stop(thread, Limits(max_run_tokens=1, max_run_cost=0.001)) is None


# -- interrupt and order --------------------------------------------------------------


def test_interrupt_is_honoured_first_and_only_when_asked() -> None:
    assert should_stop(busy_rounds(1), Limits()) is None
    assert should_stop(busy_rounds(1), Limits(), interrupted=True) is StopReason.INTERRUPT
    failing = RunBuilder().thread()
    failing.critic_round(outcome="crashed")
    failing.critic_round(outcome="crashed")
    assert should_stop(failing.thread_state(), Limits(), interrupted=True) is (StopReason.INTERRUPT)


def test_a_failing_critic_is_named_before_spend() -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.critic_output(tokens_in=500)
    run.close_round()
    run.critic_round(outcome="crashed")
    run.critic_round(outcome="crashed")
    limits = Limits(max_thread_tokens=10)
    assert should_stop(run.thread_state(), limits) is StopReason.MALFORMED_OUTPUT


def test_spend_is_named_before_the_steady_state() -> None:
    run = RunBuilder().thread()
    run.critic_round()
    run.open_round()
    run.critic_output(tokens_in=500)
    run.close_round()
    thread = run.thread_state()
    assert should_stop(thread, Limits()) is StopReason.STEADY_STATE
    assert should_stop(thread, Limits(max_thread_tokens=10)) is StopReason.COST_CAP
    assert should_stop(thread, Limits(max_thread_cost=0.0)) is StopReason.COST_CAP
    assert should_stop(thread, Limits(max_run_tokens=0)) is StopReason.COST_CAP
    assert should_stop(thread, Limits(max_run_cost=0.0)) is StopReason.COST_CAP


# -- what the ledger says -------------------------------------------------------------


def test_stop_reasons_keep_their_ledger_names() -> None:
    """The reason is written into `thread_ended` and read back by every later fold."""
    assert {str(r) for r in StopReason} == {
        "steady_state",
        "round_cap",
        "cost_cap",
        "malformed_output",
        "interrupt",
        "crashed",
        "awaiting_author",
    }


def test_the_liveness_failures_are_exactly_the_reasons_a_fold_calls_failed() -> None:
    failed = set()
    for reason in StopReason:
        run = RunBuilder().thread()
        run.end("t", str(reason))
        if run.thread_state().failed:
            failed.add(reason)
    assert failed == LIVENESS_FAILURES == {StopReason.MALFORMED_OUTPUT, StopReason.CRASHED}
