"""The one I/O loop every workflow runs on (DESIGN §10): it performs, a planner decides.

    reply = None
    repeat: step = planner.plan(state, reply); append step.events; perform step.request

The driver knows no workflow: it appends what the planner returns through the recorder
(checked against the protocol before it is written), then does what the request names —
calls the named agent, reads the workspace's diff or head, commits a fix, runs the gates,
resets the workspace — and hands back what it found, until the planner asks for nothing.
Appending and planning happen with no await between them, so concurrent threads on one
recorder never see each other's half-planned steps.

`Drive` is that loop, generic over the planner's state, events, requests and replies:
the review (`drive`, over the run's fold and a `Workspace`), the claims' rounds
(claims/driver.py, over the fold of a claim's events and its panel) and the harness's
slices (harness/slice.py, over the fold of a slice's steps) run on it. A workflow gives it
a plan function, a `Recording` (the fold so far; append and persist one step's events) and
a `perform` for its requests; `perform` may answer `PAUSE` (a person must answer between
invocations), which stops the drive and hands back the unanswered request so that a later
run resumes by replaying its ledger.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Final, Generic, Protocol, TypeVar, assert_never

from contend.agents.base import Agent, AgentRequest
from contend.errors import AgentError, AgentTimeout
from contend.protocol.event_types import Event, GateRanData
from contend.protocol.plan import (
    Answered,
    Call,
    CommitFix,
    Committed,
    Continue,
    Done,
    Failed,
    GatesRan,
    Planner,
    Read,
    ReadDiff,
    ReadHead,
    Reply,
    Request,
    ResetTo,
    RunGates,
)
from contend.protocol.state import RunState
from contend.review.recorder import Recorder

S_co = TypeVar("S_co", covariant=True)
E = TypeVar("E")
E_co = TypeVar("E_co", covariant=True)
E_contra = TypeVar("E_contra", contravariant=True)
Rq = TypeVar("Rq")
Rq_co = TypeVar("Rq_co", covariant=True)
Rp = TypeVar("Rp")
S = TypeVar("S")


class StepOf(Protocol[E_co, Rq_co]):
    """What a plan function returns: the events to append and the next request (None:
    the planner is done)."""

    @property
    def events(self) -> Sequence[E_co]: ...
    @property
    def request(self) -> Rq_co | None: ...


class Recording(Protocol[S_co, E_contra]):
    """Where a drive's events go: `state` is the fold of every event recorded so far (what
    the planner plans from); `record` appends one step's events and persists them."""

    @property
    def state(self) -> S_co: ...
    def record(self, events: Sequence[E_contra], /) -> None: ...


class Paused:
    """`perform`'s answer to a request only a person can fulfil between invocations."""

    def __repr__(self) -> str:
        return "PAUSE"


PAUSE: Final = Paused()


@dataclass(frozen=True)  # no slots: a subscripted call sets __orig_class__
class Drive(Generic[S, E, Rq, Rp]):
    """One workflow on the one loop: its plan function and where its events go. Typed by
    the workflow (`Drive[RunState, Event, Request, Reply](...)`): the loop itself knows
    none of those types. `run` performs requests with a coroutine (agents called
    concurrently), `run_sync` with a plain function (a workflow whose steps are blocking
    processes, the harness's); both pump the same loop, `steps`."""

    plan: Callable[[S, Rp | None], StepOf[E, Rq]]
    rec: Recording[S, E]

    def steps(self) -> Generator[Rq, Rp | Paused, Rq | None]:
        """The loop: record each step's events, yield its request, plan again from the
        fold with the reply sent back. Returns None at the end, or the request a person
        must answer (`PAUSE` was sent)."""
        step = self.plan(self.rec.state, None)
        while True:
            self.rec.record(step.events)
            request = step.request
            if request is None:
                return None
            reply = yield request
            if isinstance(reply, Paused):
                return request
            step = self.plan(self.rec.state, reply)

    async def run(self, perform: Callable[[Rq], Awaitable[Rp | Paused]]) -> Rq | None:
        loop = self.steps()
        try:
            request = next(loop)
            while True:
                request = loop.send(await perform(request))
        except StopIteration as end:
            paused: Rq | None = end.value
            return paused

    def run_sync(self, perform: Callable[[Rq], Rp | Paused]) -> Rq | None:
        loop = self.steps()
        try:
            request = next(loop)
            while True:
                request = loop.send(perform(request))
        except StopIteration as end:
            paused: Rq | None = end.value
            return paused


@dataclass(frozen=True, slots=True)
class _Appending:
    """The review's recorder as a `Recording`: each event is checked and appended as it
    comes (the ledger persists per append; the run fsyncs at its checkpoints)."""

    rec: Recorder

    @property
    def state(self) -> RunState:
        return self.rec.state

    def record(self, events: Sequence[Event], /) -> None:
        for event in events:
            self.rec.emit(event)


@dataclass(frozen=True)
class Workspace:
    """What a planner's requests act on: its agents by name, and one git worktree with
    the operations the engine provides for it."""

    agents: Mapping[str, Agent]
    worktree: Path
    timeout_s: float
    diff_for: Callable[[Path], str]  # unified diff base..worktree, for prompts
    head_of: Callable[[Path], str]
    commit_fix: Callable[[Path, str], str | None]  # None: nothing to commit
    reset_to: Callable[[Path, str], None]
    run_gates: Callable[[Path, str], Awaitable[list[GateRanData]]]


async def drive(planner: Planner, rec: Recorder, ws: Workspace) -> None:
    """Run a review planner to its end: append its events, perform its requests on `ws`."""
    await Drive[RunState, Event, Request, Reply](planner.plan, _Appending(rec)).run(
        partial(perform, ws=ws)
    )


async def perform(request: Request, ws: Workspace) -> Reply:
    tree = ws.worktree
    if isinstance(request, Call):
        return await _call(request, ws)
    if isinstance(request, ReadDiff):
        return Read(request, await asyncio.to_thread(ws.diff_for, tree))
    if isinstance(request, ReadHead):
        return Read(request, await asyncio.to_thread(ws.head_of, tree))
    if isinstance(request, CommitFix):
        return Committed(request, await asyncio.to_thread(ws.commit_fix, tree, request.message))
    if isinstance(request, RunGates):
        return GatesRan(request, tuple(await ws.run_gates(tree, request.when)))
    if isinstance(request, ResetTo):
        await asyncio.to_thread(ws.reset_to, tree, request.commit)
        return Done(request)
    if isinstance(request, Continue):
        return Done(request)
    assert_never(request)


async def _call(request: Call, ws: Workspace) -> Answered | Failed:
    agent = ws.agents[request.agent]
    try:
        reply = await agent.run(
            AgentRequest(
                role=request.role,
                thread=request.thread,
                round=request.round,
                system=request.system,
                prompt=request.prompt,
                schema=dict(request.schema),
                worktree=ws.worktree,
                timeout_s=ws.timeout_s,
                repo=request.repo,
            )
        )
    except (AgentError, AgentTimeout) as exc:
        return Failed(
            request,
            backend=agent.backend,
            model=agent.model,
            error=str(exc),
            failure=exc.failure,
            status=exc.status,
            retryable=exc.retryable,
            timeout=isinstance(exc, AgentTimeout),
        )
    return Answered(
        request,
        backend=agent.backend,
        model=agent.model,
        family=agent.family,
        output=reply.output,
        raw_text=reply.raw_text,
        error=reply.error,
        tokens_in=reply.usage.tokens_in,
        tokens_out=reply.usage.tokens_out,
        cost=reply.cost,
        wall_s=reply.wall_s,
        bytes_sent=len(request.system.encode()) + len(request.prompt.encode()),
        exchange=reply.exchange,
    )
