"""One shape for every workflow (DESIGN §10): a pure planner over the fold, one I/O driver.

    planner.plan(state, reply) -> Step(events, request)

The planner decides; the driver (review/driver.py) only performs. Given the fold of the
run and the reply to its last request (None at the start), a planner returns the events to
append and the next request: call an agent, read the workspace's diff or head, commit a
fix, run the gates, reset the workspace — or `Continue` (nothing to do but plan again once
these events are folded). The driver appends the events through the recorder (which
checks each against the protocol's table before writing), performs the request, and hands
the reply back, until the planner returns no request.

A planner keeps no state of its own: what it must remember between two steps that is not
in the ledger rides on the request as `memo` and comes back with the reply. So a planner is
a pure function, tested without processes (tests/test_planner_properties.py), and any
workflow — review threads, claim rounds, harness slices — runs on the same driver.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from contend.errors import Failure
from contend.protocol.event_types import Event, GateRanData, RawExchange, RoleName
from contend.protocol.state import RunState

# --- requests: what the driver is asked to do ------------------------------------------


@dataclass(frozen=True, slots=True)
class Call:
    """Ask an agent. `agent` names it for the driver (its table of agents: "critic",
    "proposer", "oracle", an axis, …); `role` is what the agent is told it plays."""

    agent: str
    role: RoleName
    thread: str
    round: int
    system: str
    prompt: str
    schema: Mapping[str, Any]
    repo: Path | None = None  # the reviewed repository, where a fork finds its author
    memo: object = None


@dataclass(frozen=True, slots=True)
class ReadDiff:
    """The workspace's change against the reviewed base, as unified diff text."""

    memo: object = None


@dataclass(frozen=True, slots=True)
class ReadHead:
    """The commit the workspace stands on."""

    memo: object = None


@dataclass(frozen=True, slots=True)
class CommitFix:
    """Commit what the agent changed in the workspace (None back: nothing changed)."""

    message: str
    memo: object = None


@dataclass(frozen=True, slots=True)
class RunGates:
    """Run the configured gates in the workspace."""

    when: str
    memo: object = None


@dataclass(frozen=True, slots=True)
class ResetTo:
    """Put the workspace back on `commit` (a fix that was no fix)."""

    commit: str
    memo: object = None


@dataclass(frozen=True, slots=True)
class Continue:
    """Nothing to perform: plan again once this step's events are folded."""

    memo: object = None


Request = Call | ReadDiff | ReadHead | CommitFix | RunGates | ResetTo | Continue


# --- replies: what the driver found -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Answered:
    """An agent answered. `output` is None exactly when `error` says why it is unusable."""

    request: Call
    backend: str
    model: str
    family: str
    output: dict[str, Any] | None
    raw_text: str
    error: str | None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    wall_s: float = 0.0
    bytes_sent: int = 0
    exchange: RawExchange = field(default_factory=lambda: RawExchange())


@dataclass(frozen=True, slots=True)
class Failed:
    """The agent failed: crashed, timed out, unreachable, or an HTTP error."""

    request: Call
    backend: str
    model: str
    error: str
    failure: Failure
    status: int | None = None
    retryable: bool = False
    timeout: bool = False


@dataclass(frozen=True, slots=True)
class Read:
    request: ReadDiff | ReadHead
    text: str


@dataclass(frozen=True, slots=True)
class Committed:
    request: CommitFix
    commit: str | None


@dataclass(frozen=True, slots=True)
class GatesRan:
    request: RunGates
    gates: tuple[GateRanData, ...]


@dataclass(frozen=True, slots=True)
class Done:
    request: ResetTo | Continue


Reply = Answered | Failed | Read | Committed | GatesRan | Done


@dataclass(frozen=True, slots=True)
class Step:
    events: Sequence[Event]
    request: Request | None


class Planner(Protocol):
    def plan(self, state: RunState, reply: Reply | None) -> Step: ...
