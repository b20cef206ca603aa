"""A slice of `contend run` as a pure planner on the one driver (review/driver.Drive):

    plan(state, reply) -> SliceStep(events, request)

The state is `core.SliceState`, and it is the fold of the slice's steps: each reply the
driver brings back (an implementer pass, a gate run, a nested review, the oracle's plan) is
the one event the planner returns for it, and `apply` folds it with core's transitions
(`on_implemented`, `on_gates`, …). The request is what `state.next` names: an implementer
pass with its brief (the driver fingerprints the main tree around it and refuses writes
outside the worktree), the gates, a nested review of the slice's branch by the review
engine, or the oracle. No request: the slice has its outcome.

The facts stay in memory: a slice's record is its events file (`subtask_*`, `gates_ran`,
…), which the driver writes while it performs, exactly as before the slice ran here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from contend.harness import core

# --- requests --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Implement:
    """One implementer pass (`number`, from 1), handed `brief`."""

    brief: core.Brief
    number: int


@dataclass(frozen=True, slots=True)
class Gates:
    """The slice's gates, in its worktree."""


@dataclass(frozen=True, slots=True)
class NestedReview:
    """A review of the slice's head by the review engine (`number`, from 1)."""

    number: int


@dataclass(frozen=True, slots=True)
class AskOracle:
    """The oracle's plan, after the fix rounds ran out (topology D)."""


SliceAsk = Implement | Gates | NestedReview | AskOracle

# --- replies: the facts the state folds ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Implemented:
    """A pass ended: it changed the branch or not; it wrote outside the worktree (those
    paths, reverted); or the implementer failed (`error`)."""

    changed: bool
    outside: tuple[str, ...] = ()
    error: str | None = None


@dataclass(frozen=True, slots=True)
class GatesDone:
    green: bool
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class Reviewed:
    verdict: core.Verdict
    reason: str = ""


@dataclass(frozen=True, slots=True)
class OraclePlanned:
    plan: str | None
    error: str = ""


SliceFact = Implemented | GatesDone | Reviewed | OraclePlanned


@dataclass(frozen=True, slots=True)
class SliceStep:
    events: Sequence[SliceFact]
    request: SliceAsk | None


def apply(state: core.SliceState, fact: SliceFact) -> core.SliceState:
    """The state after one fact (a new state: the one given is left as it was)."""
    s = replace(state)
    if isinstance(fact, Implemented):
        if fact.outside:
            core.on_implemented(s, changed=False, outside=list(fact.outside))
        elif fact.error is not None:
            core.on_implementer_failed(s, fact.error)
        else:
            core.on_implemented(s, changed=fact.changed, outside=[])
    elif isinstance(fact, GatesDone):
        core.on_gates(s, green=fact.green, timed_out=fact.timed_out)
    elif isinstance(fact, Reviewed):
        core.on_review(s, fact.verdict, fact.reason)
    else:
        core.on_oracle(s, plan=fact.plan, error=fact.error)
    return s


def fold(state: core.SliceState, facts: Sequence[SliceFact]) -> core.SliceState:
    for fact in facts:
        state = apply(state, fact)
    return state


def request_for(state: core.SliceState) -> SliceAsk | None:
    step = state.next
    if state.outcome is not None or step.kind == "done":
        return None
    if step.kind == "implement":
        assert step.brief is not None
        return Implement(step.brief, state.passes + 1)
    if step.kind == "gates":
        return Gates()
    if step.kind == "review":
        return NestedReview(state.reviews + 1)
    return AskOracle()


def plan(state: core.SliceState, reply: SliceFact | None) -> SliceStep:
    if reply is None:
        return SliceStep((), request_for(state))
    return SliceStep((reply,), request_for(apply(state, reply)))


class SliceRecording:
    """The slice's state as the fold of the facts recorded so far."""

    def __init__(self, state: core.SliceState) -> None:
        self._state = state
        self.facts: list[SliceFact] = []

    @property
    def state(self) -> core.SliceState:
        return self._state

    def record(self, events: Sequence[SliceFact], /) -> None:
        self._state = fold(self._state, events)
        self.facts.extend(events)
