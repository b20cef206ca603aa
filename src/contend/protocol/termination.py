"""When a thread stops (DESIGN §2 step 5), and what its end leaves of its attacks. Pure: the
caller passes counts and limits."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from contend.protocol.machine import STANDING, allowed
from contend.protocol.model import Action, Actor, Attack
from contend.protocol.state import RoundTally, ThreadState


class StopReason(StrEnum):
    STEADY_STATE = "steady_state"
    ROUND_CAP = "round_cap"
    COST_CAP = "cost_cap"
    MALFORMED_OUTPUT = "malformed_output"
    INTERRUPT = "interrupt"
    CRASHED = "crashed"
    # Author mode: the thread pauses until the author's next `contend review`.
    AWAITING_AUTHOR = "awaiting_author"


# Liveness failures: a thread that ended this way produced no trustworthy review.
LIVENESS_FAILURES = frozenset({StopReason.MALFORMED_OUTPUT, StopReason.CRASHED})


@dataclass(frozen=True, slots=True)
class Limits:
    max_rounds: int = 3
    max_thread_tokens: int | None = None
    max_thread_cost: float | None = None
    max_run_tokens: int | None = None
    max_run_cost: float | None = None
    malformed_limit: int = 2
    quiet_rounds: int = 2


def should_stop(
    thread: ThreadState,
    limits: Limits,
    *,
    run_tokens: int = 0,
    run_cost: float = 0.0,
    interrupted: bool = False,
) -> StopReason | None:
    """Decide, after a closed round, whether `thread` stops and why. None: go on.

    Order matters: an interrupt is honoured first (the run can resume), then output
    failures (liveness), then spend, then the steady state, then the round cap.
    """
    if interrupted:
        return StopReason.INTERRUPT
    if thread.malformed_streak >= limits.malformed_limit:
        return StopReason.MALFORMED_OUTPUT
    tokens = thread.tokens_in + thread.tokens_out
    if limits.max_thread_tokens is not None and tokens >= limits.max_thread_tokens:
        return StopReason.COST_CAP
    if limits.max_thread_cost is not None and thread.cost >= limits.max_thread_cost:
        return StopReason.COST_CAP
    if limits.max_run_tokens is not None and run_tokens >= limits.max_run_tokens:
        return StopReason.COST_CAP
    if limits.max_run_cost is not None and run_cost >= limits.max_run_cost:
        return StopReason.COST_CAP
    if is_steady(thread, limits.quiet_rounds):
        return StopReason.STEADY_STATE
    # Round 1 raises; rounds 2.. each follow one fix round of the author.
    if len(thread.closed_rounds) >= limits.max_rounds + 1:
        return StopReason.ROUND_CAP
    return None


def is_steady(thread: ThreadState, quiet_rounds: int = 2) -> bool:
    """A full cycle done (raise, answer, judge), then `quiet_rounds` closed rounds in a row
    in which the critic delivered a usable review that raised nothing new and pressed
    nothing again. A round in which the critic crashed or answered garbage is not quiet."""
    closed = thread.closed_rounds
    if len(closed) < quiet_rounds:
        return False
    for rnd in closed[-quiet_rounds:]:
        tally = thread.rounds.get(rnd)
        if tally is None or not _quiet(tally):
            return False
    # Two closed rounds are a full cycle (round 1 raises, the author answers, round 2
    # judges), so quiet rounds at the end imply the cycle is complete.
    return True


def _quiet(tally: RoundTally) -> bool:
    return (
        tally.critic_outputs > 0
        and tally.critic_failures == 0
        and tally.new_attacks == 0
        and tally.re_attacks == 0
    )


# A thread that pauses (for the author, or for an interrupted run to resume) leaves its
# attacks as they are; every other end marks what is still open as unresolved.
PAUSES = frozenset({StopReason.AWAITING_AUTHOR, StopReason.INTERRUPT})


def deadlocks_at(reason: StopReason, attacks: Iterable[Attack]) -> list[Attack]:
    """The attacks a thread that ended at the round cap leaves in deadlock: those the
    author defended and the critic kept pressing until the cap (machine.RULES decides
    which: the engine's deadlock from their status). No other end makes a deadlock."""
    if reason is not StopReason.ROUND_CAP:
        return []
    return [a for a in attacks if allowed(a, Action.DEADLOCK, Actor.ENGINE)]


def left_unresolved(reason: StopReason, attacks: Iterable[Attack]) -> list[Attack]:
    """The attacks the end of a thread marks unresolved: every one still open and not
    already standing as it is (a deadlock, a concession nobody accepted, unresolved)."""
    if reason in PAUSES:
        return []
    return [a for a in attacks if not a.resolved and a.status not in STANDING]
