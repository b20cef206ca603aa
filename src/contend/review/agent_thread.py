"""One review thread with an agent critic: its agents and worktree, run on the driver.

What the thread does — rounds, answers, fixes, stops, deadlocks — is planned in the pure
core (protocol/turns.py); this module only hands that planner what it needs besides the
fold (the thread's brief) and runs it on the one I/O loop (review/driver.py) with the
thread's agents and worktree.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from contend.agents.base import Agent
from contend.protocol.event_types import GateRanData
from contend.protocol.termination import Limits
from contend.protocol.turns import AgentTurns, Identity, ThreadBrief
from contend.review.driver import Workspace, drive
from contend.review.recorder import Recorder


@dataclass
class RunContext:
    spec: str | None
    invariants: list[tuple[str, str]]
    limits: Limits
    timeout_s: float
    diff_for: Callable[[Path], str]  # unified diff base..worktree, for prompts
    commit_fix: Callable[[Path, str], str | None]  # commit a worktree's changes
    reset_to: Callable[[Path, str], None]
    head_of: Callable[[Path], str]
    run_gates: Callable[[Path, str], Awaitable[list[GateRanData]]]


@dataclass
class ThreadSetup:
    name: str
    critic_spec: str
    critic: Agent
    proposer: Agent | None
    worktree: Path
    oracle: Agent | None = None


class AgentThread:
    def __init__(self, rec: Recorder, ctx: RunContext, setup: ThreadSetup) -> None:
        self.rec = rec
        self.ctx = ctx
        self.s = setup
        self.name = setup.name

    async def run(self) -> None:
        s, ctx = self.s, self.ctx
        brief = ThreadBrief(
            name=s.name,
            critic_spec=s.critic_spec,
            critic=_identity(s.critic),
            proposer=_identity(s.proposer) if s.proposer is not None else None,
            oracle=s.oracle is not None,
            spec=ctx.spec,
            invariants=tuple(ctx.invariants),
            limits=ctx.limits,
        )
        agents = {"critic": s.critic}
        if s.proposer is not None:
            agents["proposer"] = s.proposer
        if s.oracle is not None:
            agents["oracle"] = s.oracle
        workspace = Workspace(
            agents=agents,
            worktree=s.worktree,
            timeout_s=ctx.timeout_s,
            diff_for=ctx.diff_for,
            head_of=ctx.head_of,
            commit_fix=ctx.commit_fix,
            reset_to=ctx.reset_to,
            run_gates=ctx.run_gates,
        )
        await drive(AgentTurns(brief), self.rec, workspace)


def _identity(agent: Agent) -> Identity:
    return Identity(backend=agent.backend, model=agent.model, family=agent.family)
