"""One thread of the protocol with an agent critic: one critic, one proposer, one worktree.

The loop is driven by the run state, not by local counters, so an interrupted thread
resumes where its ledger stops: a round that was started but not closed is redone from
its critic turn; a closed round whose proposer turn is not recorded gets that turn.

Round r: critic turn (raise objections, judge answers) → round closed → stop check →
proposer turn (fix / concede / defend) → round r+1.

A critic that fails is recorded as `agent_failed` with its `error` text, the `failure` kind
(crashed, timeout, malformed, http_status, unreachable) and the HTTP `status` when there is
one. A thread whose critic keeps failing ends as failed: `malformed_output` when its last
failure was unusable output, `crashed` for any other kind. In author mode (no proposer)
there is no later round in this session, so a critic that failed ends the thread at once —
never as `awaiting_author`, which would present a review that did not happen as one
waiting for the author.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contend.agents.base import Agent, AgentReply, AgentRequest, Role
from contend.agents.prompts import (
    CRITIC_SYSTEM,
    ORACLE_SYSTEM,
    PROPOSER_SYSTEM,
    critic_first_turn,
    critic_next_turn,
    fence,
)
from contend.agents.schemas import CRITIC_SCHEMA, ORACLE_SCHEMA, PROPOSER_SCHEMA
from contend.errors import AgentError, AgentTimeout, Failure, IllegalTransition
from contend.protocol import events as ev
from contend.protocol.events import EventKind
from contend.protocol.model import Action, Attack, Location, Severity, Status
from contend.protocol.state import ThreadState
from contend.protocol.termination import Limits, StopReason, should_stop
from contend.review.recorder import Recorder
from contend.review.topics import near_duplicate

AWAITING_ANSWER = frozenset(
    {Status.OPEN, Status.RE_ATTACKED, Status.UNRESOLVED, Status.UPHELD, Status.DEADLOCKED}
)
AWAITING_JUDGEMENT = frozenset({Status.FIXED, Status.CONCEDED, Status.DEFENDED})
TOPIC_RETRIES = 2


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
    run_gates: Callable[[Path, str], Awaitable[list[dict[str, Any]]]]
    taken_topics: list[str] = field(default_factory=list)


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
        self.last_critic_text = ""
        # How this session's last critic turn failed; None when it gave usable output.
        self.critic_failure: Failure | None = None

    @property
    def thread(self) -> ThreadState:
        return self.rec.state.threads[self.name]

    def _attacks(self) -> list[Attack]:
        return [a for a in self.rec.state.attacks.values() if a.thread == self.name]

    async def run(self) -> None:
        critic = self.s.critic
        self.rec.emit(
            ev.event(
                EventKind.THREAD_STARTED,
                thread=self.name,
                critic=self.s.critic_spec,
                family=critic.family,
                model=critic.model,
                backend=critic.backend,
                same_family_as_proposer=(
                    self.s.proposer is not None and self.s.proposer.family == critic.family
                ),
            )
        )
        session_rounds = 0
        while True:
            t = self.thread
            round_open = t.round > 0 and (not t.closed_rounds or t.closed_rounds[-1] != t.round)
            if not round_open:
                if t.round > 0 and session_rounds > 0:
                    stop = self._failed_stop() or should_stop(
                        t,
                        self.ctx.limits,
                        run_tokens=self._run_tokens(),
                        run_cost=self.rec.state.cost,
                    )
                    if stop is StopReason.MALFORMED_OUTPUT and self.critic_failure not in (
                        None,
                        "malformed",
                    ):
                        stop = StopReason.CRASHED
                    if stop is not None:
                        await self._finish(stop)
                        return
                    if self.s.proposer is None:
                        await self._finish(StopReason.AWAITING_AUTHOR)
                        return
                    if t.round not in t.proposer_rounds and self._awaiting_answer():
                        await self._proposer_turn(t.round)
                        continue
                self.rec.emit(
                    ev.event(EventKind.ROUND_STARTED, thread=self.name, round=t.round + 1)
                )
            await self._critic_turn(self.thread.round)
            self.rec.emit(
                ev.event(EventKind.ROUND_CLOSED, thread=self.name, round=self.thread.round)
            )
            session_rounds += 1

    def _failed_stop(self) -> StopReason | None:
        """In author mode a critic that failed this session ends the thread as failed;
        with a proposer the next round retries it (should_stop counts the streak)."""
        if self.s.proposer is not None or self.critic_failure is None:
            return None
        if self.critic_failure == "malformed":
            return StopReason.MALFORMED_OUTPUT
        return StopReason.CRASHED

    def _run_tokens(self) -> int:
        return self.rec.state.tokens_in + self.rec.state.tokens_out

    def _awaiting_answer(self) -> list[Attack]:
        return [a for a in self._attacks() if not a.resolved and a.status in AWAITING_ANSWER]

    # --- critic -------------------------------------------------------------------------

    async def _critic_turn(self, rnd: int) -> None:
        first = self.thread.topic is None
        rejected: str | None = None
        for _attempt in range(TOPIC_RETRIES + 1):
            prompt = await self._critic_prompt(first, rejected)
            reply = await self._call(
                self.s.critic, "critic", rnd, CRITIC_SYSTEM, prompt, CRITIC_SCHEMA
            )
            if reply is None or reply.output is None:
                return
            self.critic_failure = None
            output = reply.output
            self.last_critic_text = reply.raw_text
            if first:
                topic = str(output.get("topic", "")).strip() or self.s.critic_spec
                dup = near_duplicate(topic, self.ctx.taken_topics)
                if dup is not None:
                    self.rec.emit(
                        ev.event(
                            EventKind.TOPIC_REJECTED, thread=self.name, topic=topic, duplicates=dup
                        )
                    )
                    rejected = topic
                    continue
                self.ctx.taken_topics.append(topic)
                self.rec.emit(ev.event(EventKind.TOPIC_DECLARED, thread=self.name, topic=topic))
            self._apply_judgements(output.get("judgements", []))
            self._raise_objections(output.get("objections", []), rnd)
            return
        self._violation("critic", f"topic still duplicated after {TOPIC_RETRIES} retries")
        self.critic_failure = "malformed"
        self.rec.emit(
            ev.event(
                EventKind.AGENT_FAILED,
                thread=self.name,
                role="critic",
                round=rnd,
                error="no distinct topic",
                failure="malformed",
            )
        )

    async def _critic_prompt(self, first: bool, rejected: str | None) -> str:
        diff = await asyncio.to_thread(self.ctx.diff_for, self.s.worktree)
        if first:
            return critic_first_turn(
                spec=self.ctx.spec,
                diff=diff,
                invariants=self.ctx.invariants,
                taken_topics=self.ctx.taken_topics,
                rejected_topic=rejected,
            )
        return critic_next_turn(
            spec=self.ctx.spec, diff=diff, topic=self.thread.topic or "", exchange=self._exchange()
        )

    def _exchange(self) -> str:
        """This thread's objections and every answer and judgement on them, compactly."""
        blocks = []
        for a in self._attacks():
            lines = [
                f"### {a.id} [{a.severity}] {a.location.path}:{a.location.start_line}-"
                f"{a.location.end_line} — status: {a.status}",
                a.claim,
            ]
            for h in a.history:
                said = h.get("text", "")
                evidence = h.get("evidence", "")
                lines.append(f"- {h.get('by')}: {h.get('action')}: {said}")
                if evidence:
                    lines.append(fence(str(evidence)))
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks) or "(no objections yet)"

    def _apply_judgements(self, judgements: list[dict[str, Any]]) -> None:
        mine = {a.id: a for a in self._attacks()}
        for j in judgements:
            attack_id = str(j.get("objection_id", ""))
            attack = mine.get(attack_id)
            if attack is None:
                self._violation("critic", f"judgement names unknown objection {attack_id!r}")
                continue
            action = Action(j["action"])
            reason = str(j.get("reason", ""))
            if attack.resolved:
                self._violation("critic", f"judgement on resolved objection {attack_id}")
                continue
            if attack.status in AWAITING_ANSWER:
                # Unanswered: in author mode the author may have changed the code between
                # sessions; "accept" means the critic sees it fixed.
                if self.s.proposer is None and action is Action.ACCEPT:
                    self.rec.emit(
                        ev.transition(
                            attack_id,
                            Action.FIX,
                            by="author",
                            text="changed the code between reviews",
                        )
                    )
                elif action is Action.WITHDRAW:
                    pass
                else:
                    if action is Action.ACCEPT:
                        self._violation("critic", f"accept of unanswered objection {attack_id}")
                    continue  # re_attack of an unanswered objection: it simply stands
            try:
                self.rec.emit(ev.transition(attack_id, action, by="critic", text=reason))
            except IllegalTransition as exc:
                self._violation("critic", str(exc))

    def _raise_objections(self, objections: list[dict[str, Any]], rnd: int) -> None:
        dropped = 0
        count = len(self._attacks())
        for o in objections:
            path = str(o.get("path", "")).strip()
            claim = str(o.get("claim", "")).strip()
            evidence = str(o.get("evidence", "")).strip()
            if not path or not claim or not evidence:
                dropped += 1
                continue
            count += 1
            start = int(o.get("start_line", 0))
            end = max(start, int(o.get("end_line", start)))
            attack = Attack(
                id=f"{self.name}-{count}",
                thread=self.name,
                critic=self.s.critic_spec,
                family=self.s.critic.family,
                topic=self.thread.topic or "",
                rule=str(o.get("rule", "")) or "objection",
                severity=Severity(o["severity"]),
                location=Location(path, start, end),
                claim=claim,
                evidence=evidence,
                raised_round=rnd,
                raised_seq=0,
                ways_out=_ways_out(str(o.get("expected", "")), f"{self.name}-{count}"),
            )
            self.rec.emit(ev.attack_raised(attack))
        if dropped:
            self.rec.emit(
                ev.event(
                    EventKind.ATTACK_DROPPED,
                    thread=self.name,
                    count=dropped,
                    reason="objection without a location or evidence",
                )
            )

    # --- proposer -----------------------------------------------------------------------

    async def _proposer_turn(self, rnd: int) -> None:
        proposer = self.s.proposer
        assert proposer is not None
        waiting = self._awaiting_answer()
        ids = "\n".join(
            f"- {a.id}: {a.location.path}:{a.location.start_line} {a.claim}" for a in waiting
        )
        # The critic's words reach the proposer verbatim; only the ids it must answer
        # are listed after them, untouched.
        prompt = f"{self.last_critic_text or self._exchange()}\n\nObjection ids to answer:\n{ids}"
        before = await asyncio.to_thread(self.ctx.head_of, self.s.worktree)
        reply = await self._call(
            proposer,
            "proposer",
            rnd,
            PROPOSER_SYSTEM,
            prompt,
            PROPOSER_SCHEMA,
        )
        if reply is None or reply.output is None:
            await asyncio.to_thread(self.ctx.reset_to, self.s.worktree, before)
            return
        answers = {str(a.get("objection_id")): a for a in reply.output.get("answers", [])}
        waiting_ids = {a.id for a in waiting}
        fixes = [i for i, a in answers.items() if a.get("action") == "fix" and i in waiting_ids]
        fix_commit: str | None = None
        fix_ok = True
        if fixes:
            fix_commit = await asyncio.to_thread(
                self.ctx.commit_fix,
                self.s.worktree,
                f"contend: fix {', '.join(fixes)} ({self.name})",
            )
            if fix_commit is None:
                fix_ok = False
                self._violation(
                    "proposer", f"claimed a fix of {', '.join(fixes)} but changed nothing"
                )
            else:
                for gate in await self.ctx.run_gates(self.s.worktree, "after-fix"):
                    self.rec.emit(ev.event(EventKind.GATE_RAN, **{**gate, "thread": self.name}))
                    if not gate["ok"]:
                        fix_ok = False
                if not fix_ok and fix_commit is not None:
                    # A fix that breaks a gate is not a fix: undo it, the objections stand.
                    await asyncio.to_thread(self.ctx.reset_to, self.s.worktree, before)
                    self._violation("proposer", f"fix {fix_commit[:12]} broke a gate; reverted")
        for attack_id, answer in answers.items():
            if attack_id not in waiting_ids:
                self._violation("proposer", f"answer names {attack_id!r}, not awaiting answer")
                continue
            action = Action(answer["action"])
            if action is Action.FIX and not fix_ok:
                continue
            extra = {"commit": fix_commit} if action is Action.FIX else {}
            self.rec.emit(
                ev.transition(
                    attack_id,
                    action,
                    by="proposer",
                    text=str(answer.get("text", "")),
                    evidence=str(answer.get("evidence", "")),
                    **extra,
                )
            )

    # --- end of thread ------------------------------------------------------------------

    async def _finish(self, reason: StopReason) -> None:
        if reason is StopReason.ROUND_CAP:
            for a in self._attacks():
                if (
                    not a.resolved
                    and a.defended_count > 0
                    and a.status in (Status.DEFENDED, Status.RE_ATTACKED)
                ):
                    self.rec.emit(
                        ev.transition(
                            a.id,
                            Action.DEADLOCK,
                            by="engine",
                            text="defended and re-attacked until the cap",
                        )
                    )
                    await self._oracle(a)
        if reason not in (StopReason.AWAITING_AUTHOR, StopReason.INTERRUPT):
            for a in self._attacks():
                if not a.resolved and a.status not in (
                    Status.DEADLOCKED,
                    Status.CONCEDED,
                    Status.UNRESOLVED,
                ):
                    self.rec.emit(
                        ev.transition(
                            a.id,
                            Action.MARK_UNRESOLVED,
                            by="engine",
                            text=f"thread ended: {reason}",
                        )
                    )
        self.rec.emit(ev.event(EventKind.THREAD_ENDED, thread=self.name, reason=str(reason)))

    async def _oracle(self, attack: Attack) -> None:
        oracle = self.s.oracle
        if oracle is None:
            return
        diff = await asyncio.to_thread(self.ctx.diff_for, self.s.worktree)
        history = "\n".join(
            f"- {h.get('by')}: {h.get('action')}: {h.get('text', '')}" for h in attack.history
        )
        prompt = (
            f"## Spec\n{fence(self.ctx.spec or '(none)')}\n\n## Disputed objection "
            f"{attack.id}\n{attack.claim}\n{fence(attack.evidence)}\n\n## Exchange\n"
            f"{history}\n\n## The change now\n{fence(diff)}"
        )
        reply = await self._call(
            oracle, "oracle", self.thread.round, ORACLE_SYSTEM, prompt, ORACLE_SCHEMA
        )
        if reply is not None and reply.output is not None:
            self.rec.emit(
                ev.event(
                    EventKind.DEADLOCK_REPORT,
                    thread=self.name,
                    attack=attack.id,
                    report=reply.output,
                )
            )

    # --- calls --------------------------------------------------------------------------

    async def _call(
        self,
        agent: Agent,
        role: Role,
        rnd: int,
        system: str,
        prompt: str,
        schema: dict[str, Any],
    ) -> AgentReply | None:
        request = AgentRequest(
            role=role,
            thread=self.name,
            round=rnd,
            system=system,
            prompt=prompt,
            schema=schema,
            worktree=self.s.worktree,
            timeout_s=self.ctx.timeout_s,
            repo=self._reviewed_repo(),
        )
        try:
            reply = await agent.run(request)
        except (AgentError, AgentTimeout) as exc:
            status = {"status": exc.status} if exc.status is not None else {}
            if role == "critic":
                self.critic_failure = exc.failure
            self.rec.emit(
                ev.event(
                    EventKind.AGENT_FAILED,
                    thread=self.name,
                    role=role,
                    round=rnd,
                    backend=agent.backend,
                    model=agent.model,
                    error=str(exc),
                    failure=exc.failure,
                    **status,
                    retryable=exc.retryable,
                    timeout=isinstance(exc, AgentTimeout),
                )
            )
            return None
        self.rec.emit(
            ev.event(
                EventKind.AGENT_CALL,
                thread=self.name,
                role=role,
                round=rnd,
                backend=agent.backend,
                model=agent.model,
                family=agent.family,
                tokens_in=reply.usage.tokens_in,
                tokens_out=reply.usage.tokens_out,
                cost=reply.cost,
                wall_s=round(reply.wall_s, 6),
                bytes_sent=len(system.encode()) + len(prompt.encode()),
                usable=reply.error is None,
                exchange=_bounded(reply.exchange),
            )
        )
        if reply.error is not None:
            if role == "critic":
                self.critic_failure = "malformed"
            self.rec.emit(
                ev.event(
                    EventKind.AGENT_FAILED,
                    thread=self.name,
                    role=role,
                    round=rnd,
                    backend=agent.backend,
                    model=agent.model,
                    error=reply.error,
                    failure="malformed",
                    malformed=True,
                )
            )
        return reply

    def _reviewed_repo(self) -> Path | None:
        """The reviewed repository, as the run recorded it: where a fork finds the author."""
        repo = self.rec.state.artifact.get("repo")
        return Path(repo) if isinstance(repo, str) and repo else None

    def _violation(self, role: str, detail: str) -> None:
        self.rec.emit(
            ev.event(EventKind.PROTOCOL_VIOLATION, thread=self.name, role=role, detail=detail)
        )


RAW_LIMIT = 256_000


def _ways_out(expected: str, attack_id: str) -> tuple[str, ...]:
    fix = f"fix it: {expected.strip()}" if expected.strip() else "fix it"
    return (
        fix,
        f"or answer with evidence: `contend respond {attack_id} --defend TEXT` "
        "(a test, a line, a spec clause)",
    )


def _bounded(exchange: dict[str, Any]) -> dict[str, Any]:
    """Keep the raw exchange in the ledger, but a 10 MB reply must not bloat every fold."""
    text = json.dumps(exchange, ensure_ascii=False, default=str)
    if len(text) <= RAW_LIMIT:
        return exchange
    return {"truncated": True, "bytes": len(text), "head": text[:RAW_LIMIT]}
