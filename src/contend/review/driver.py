"""The one I/O loop every workflow runs on (DESIGN §10): it performs, a planner decides.

    reply = None
    repeat: step = planner.plan(state, reply); append step.events; perform step.request

The driver knows no workflow: it appends what the planner returns through the recorder
(checked against the protocol before it is written), then does what the request names —
calls the named agent, reads the workspace's diff or head, commits a fix, runs the gates,
resets the workspace — and hands back what it found, until the planner asks for nothing.
Appending and planning happen with no await between them, so concurrent threads on one
recorder never see each other's half-planned steps.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import assert_never

from contend.agents.base import Agent, AgentRequest
from contend.errors import AgentError, AgentTimeout
from contend.protocol.event_types import GateRanData
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
from contend.review.recorder import Recorder


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
    """Run `planner` to its end: append its events, perform its requests."""
    reply: Reply | None = None
    while True:
        step = planner.plan(rec.state, reply)
        for event in step.events:
            rec.emit(event)
        if step.request is None:
            return
        reply = await perform(step.request, ws)


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
