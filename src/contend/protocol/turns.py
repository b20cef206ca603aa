"""One review thread with an agent critic, as a pure planner (protocol/plan.py).

One critic, one proposer (or none: author mode), one workspace. Round r: the critic's turn
(raise objections, judge answers) → round closed → stop check → the proposer's turn (fix,
concede, defend; a fix is committed and must pass the gates) → round r+1. At the end:
deadlocks at the round cap (the oracle, if any, reports on each), what is still open
marked unresolved, thread ended.

Everything is read from the fold, so an interrupted thread resumes where its ledger stops:
a round that was started but not closed is redone from its critic turn; a session counts
its own rounds from its `thread_started`. The only thing a session carries that the ledger
does not hold is the critic's last reply verbatim (the proposer reads it); it rides on
every request as the memo.

A critic that fails is recorded as `agent_failed` with its `error` text, the `failure` kind
(crashed, timeout, malformed, http_status, unreachable) and the HTTP `status` when there is
one. A thread whose critic keeps failing ends as failed: `malformed_output` when its last
failure was unusable output, `crashed` for any other kind. In author mode there is no later
round in this session, so a critic that failed ends the thread at once — never as
`awaiting_author`, which would present a review that did not happen as one waiting for the
author.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from pathlib import Path

from contend.errors import IllegalTransition, ProtocolError
from contend.protocol import events as ev
from contend.protocol.calls import record_call
from contend.protocol.event_types import (
    Event,
    GateRanData,
    RoleName,
)
from contend.protocol.machine import AWAITING_ANSWER, apply_action
from contend.protocol.model import Action, Actor, Attack, Location
from contend.protocol.plan import (
    Answered,
    Call,
    CommitFix,
    Committed,
    Continue,
    Done,
    Failed,
    GatesRan,
    Read,
    ReadDiff,
    ReadHead,
    Reply,
    ResetTo,
    RunGates,
    Step,
)
from contend.protocol.prompts import (
    CRITIC_SYSTEM,
    ORACLE_SYSTEM,
    PROPOSER_SYSTEM,
    critic_first_turn,
    critic_next_turn,
    fence,
)
from contend.protocol.replies import (
    Answer,
    Judgement,
    Objection,
    parse_critic,
    parse_oracle,
    parse_proposer,
)
from contend.protocol.reply_schemas import CRITIC_SCHEMA, ORACLE_SCHEMA, PROPOSER_SCHEMA
from contend.protocol.state import RunState, ThreadState
from contend.protocol.termination import (
    Limits,
    StopReason,
    deadlocks_at,
    left_unresolved,
    should_stop,
)
from contend.protocol.topics import near_duplicate

TOPIC_RETRIES = 2


@dataclass(frozen=True, slots=True)
class Identity:
    """An agent as the ledger names it."""

    backend: str
    model: str
    family: str


@dataclass(frozen=True, slots=True)
class ThreadBrief:
    """What the planner of one thread knows besides the fold."""

    name: str
    critic_spec: str
    critic: Identity
    proposer: Identity | None  # None: author mode, the author answers between reviews
    oracle: bool
    spec: str | None
    invariants: tuple[tuple[str, str], ...]
    limits: Limits


# --- memos: where the planner is, carried on its requests ------------------------------------


@dataclass(frozen=True, slots=True)
class _Next:
    """Decide from the fold what comes next."""


@dataclass(frozen=True, slots=True)
class _Critic:
    round: int
    attempt: int = 0
    rejected: str | None = None  # the topic the last attempt declared, taken already


@dataclass(frozen=True, slots=True)
class _Proposer:
    round: int
    waiting: tuple[str, ...] = ()  # the ids it was asked to answer
    before: str = ""  # the workspace's head before the turn
    answers: tuple[Answer, ...] = ()  # one per objection id, in the order first named
    commit: str | None = None  # the fix's commit, once committed
    reverting: bool = False  # the fix broke a gate: its commit is being undone


@dataclass(frozen=True, slots=True)
class _Finish:
    reason: StopReason
    oracle_for: str | None = None  # the deadlocked attack the oracle reports on


_Phase = _Next | _Critic | _Proposer | _Finish


@dataclass(frozen=True, slots=True)
class Memo:
    phase: _Phase
    critic_text: str = ""  # the critic's last usable reply, verbatim: the proposer reads it


class AgentTurns:
    """The planner of one agent thread (protocol/plan.py Planner)."""

    def __init__(self, brief: ThreadBrief) -> None:
        self.b = brief
        self.name = brief.name

    def plan(self, state: RunState, reply: Reply | None) -> Step:
        if reply is None:
            return Step([self._thread_started()], Continue(Memo(_Next())))
        memo = reply.request.memo
        if not isinstance(memo, Memo):
            raise ProtocolError(f"thread {self.name}: a reply to a request it did not make")
        phase = memo.phase
        if isinstance(phase, _Next):
            return self._next(state, memo)
        if isinstance(phase, _Critic):
            return self._critic(state, memo, phase, reply)
        if isinstance(phase, _Proposer):
            return self._proposer(state, memo, phase, reply)
        return self._finish(state, memo, phase, reply)

    # --- the loop ------------------------------------------------------------------------

    def _next(self, state: RunState, memo: Memo) -> Step:
        t = state.threads[self.name]
        round_open = t.round > 0 and (not t.closed_rounds or t.closed_rounds[-1] != t.round)
        if round_open:
            return Step([], ReadDiff(_with(memo, _Critic(t.round))))
        if t.round > 0 and t.session_rounds > 0:
            stop = self._stop(state, t)
            if stop is not None:
                return self._finish(state, memo, _Finish(stop), None)
            if self.b.proposer is None:
                return self._finish(state, memo, _Finish(StopReason.AWAITING_AUTHOR), None)
            if t.round not in t.proposer_rounds and self._awaiting(state):
                return Step([], ReadHead(_with(memo, _Proposer(t.round))))
        rnd = t.round + 1
        return Step(
            [ev.round_started(thread=self.name, round=rnd)], ReadDiff(_with(memo, _Critic(rnd)))
        )

    def _stop(self, state: RunState, t: ThreadState) -> StopReason | None:
        failed = t.critic_failure
        if self.b.proposer is None and failed is not None:
            # Author mode: no later round in this session would retry the critic.
            return StopReason.MALFORMED_OUTPUT if failed == "malformed" else StopReason.CRASHED
        stop = should_stop(
            t,
            self.b.limits,
            run_tokens=state.tokens_in + state.tokens_out,
            run_cost=state.cost,
        )
        if stop is StopReason.MALFORMED_OUTPUT and failed not in (None, "malformed"):
            return StopReason.CRASHED
        return stop

    # --- the critic ----------------------------------------------------------------------

    def _critic(self, state: RunState, memo: Memo, phase: _Critic, reply: Reply) -> Step:
        thread = state.threads[self.name]
        if isinstance(reply, Read):
            if thread.topic is None:
                prompt = critic_first_turn(
                    spec=self.b.spec,
                    diff=reply.text,
                    invariants=self.b.invariants,
                    taken_topics=state.declared_topics,
                    rejected_topic=phase.rejected,
                )
            else:
                prompt = critic_next_turn(
                    spec=self.b.spec,
                    diff=reply.text,
                    topic=thread.topic,
                    exchange=self._exchange(state),
                )
            return Step([], self._call(state, memo, "critic", phase.round, prompt))
        if not isinstance(reply, Answered | Failed):
            raise _unexpected(self.name, reply)
        parsed, events = record_call(self.name, reply, parse_critic)
        if parsed is None or not isinstance(reply, Answered):
            return self._close(events, phase.round, memo)
        memo = dataclasses.replace(memo, critic_text=reply.raw_text)
        topic = thread.topic
        if topic is None:
            topic = parsed.topic.strip() or self.b.critic_spec
            dup = near_duplicate(topic, state.declared_topics)
            if dup is not None:
                events.append(ev.topic_rejected(thread=self.name, topic=topic, duplicates=dup))
                if phase.attempt < TOPIC_RETRIES:
                    retry = _Critic(phase.round, phase.attempt + 1, topic)
                    return Step(events, ReadDiff(_with(memo, retry)))
                events += self._no_distinct_topic(phase.round)
                return self._close(events, phase.round, memo)
            events.append(ev.topic_declared(thread=self.name, topic=topic))
        events += self._judge(state, parsed.judgements)
        events += self._raise(state, parsed.objections, phase.round, topic)
        return self._close(events, phase.round, memo)

    def _close(self, events: list[Event], rnd: int, memo: Memo) -> Step:
        events.append(ev.round_closed(thread=self.name, round=rnd))
        return Step(events, Continue(_with(memo, _Next())))

    def _no_distinct_topic(self, rnd: int) -> list[Event]:
        return [
            self._violation("critic", f"topic still duplicated after {TOPIC_RETRIES} retries"),
            ev.agent_failed(
                thread=self.name,
                role="critic",
                round=rnd,
                error="no distinct topic",
                failure="malformed",
            ),
        ]

    def _judge(self, state: RunState, judgements: tuple[Judgement, ...]) -> list[Event]:
        """The critic's judgements, each checked against the attack as the judgements
        before it in this reply leave it: an illegal one is a protocol violation, never
        an event."""
        now = {a.id: a for a in self._attacks(state)}
        out: list[Event] = []
        for j in judgements:
            attack = now.get(j.objection_id)
            if attack is None:
                out.append(
                    self._violation(
                        "critic", f"judgement names unknown objection {j.objection_id!r}"
                    )
                )
                continue
            if attack.resolved:
                out.append(
                    self._violation("critic", f"judgement on resolved objection {attack.id}")
                )
                continue
            if attack.status in AWAITING_ANSWER:
                # Unanswered: in author mode the author may have changed the code between
                # sessions; "accept" means the critic sees it fixed.
                if self.b.proposer is None and j.action is Action.ACCEPT:
                    attack = _after(attack, Action.FIX, Actor.PROPOSER)
                    now[attack.id] = attack
                    out.append(
                        ev.transition(
                            attack.id,
                            Action.FIX,
                            by="author",
                            actor=Actor.PROPOSER,
                            text="changed the code between reviews",
                        )
                    )
                elif j.action is not Action.WITHDRAW:
                    if j.action is Action.ACCEPT:
                        out.append(
                            self._violation("critic", f"accept of unanswered objection {attack.id}")
                        )
                    continue  # re_attack of an unanswered objection: it simply stands
            try:
                now[attack.id] = _after(attack, j.action, Actor.CRITIC)
            except IllegalTransition as exc:
                out.append(self._violation("critic", str(exc)))
                continue
            out.append(
                ev.transition(attack.id, j.action, by="critic", actor=Actor.CRITIC, text=j.reason)
            )
        return out

    def _raise(
        self, state: RunState, objections: tuple[Objection, ...], rnd: int, topic: str
    ) -> list[Event]:
        out: list[Event] = []
        dropped = 0
        count = len(self._attacks(state))
        for o in objections:
            path, claim, evidence = o.path.strip(), o.claim.strip(), o.evidence.strip()
            if not path or not claim or not evidence:
                dropped += 1
                continue
            count += 1
            attack_id = f"{self.name}-{count}"
            attack = Attack(
                id=attack_id,
                thread=self.name,
                critic=self.b.critic_spec,
                family=self.b.critic.family,
                topic=topic,
                rule="objection",
                severity=o.severity,
                location=Location(path, o.start_line, max(o.start_line, o.end_line)),
                claim=claim,
                evidence=evidence,
                raised_round=rnd,
                raised_seq=0,
                ways_out=_ways_out(o.expected, attack_id),
            )
            out.append(ev.attack_raised(attack))
        if dropped:
            out.append(
                ev.attack_dropped(
                    thread=self.name,
                    count=dropped,
                    reason="objection without a location or evidence",
                )
            )
        return out

    # --- the proposer --------------------------------------------------------------------

    def _proposer(self, state: RunState, memo: Memo, phase: _Proposer, reply: Reply) -> Step:
        if isinstance(reply, Read):  # the head before the turn: now ask
            waiting = self._awaiting(state)
            ids = "\n".join(
                f"- {a.id}: {a.location.path}:{a.location.start_line} {a.claim}" for a in waiting
            )
            # The critic's words reach the proposer verbatim; only the ids it must answer
            # are listed after them, untouched.
            prompt = (
                f"{memo.critic_text or self._exchange(state)}\n\nObjection ids to answer:\n{ids}"
            )
            asked = dataclasses.replace(
                phase, waiting=tuple(a.id for a in waiting), before=reply.text
            )
            return Step([], self._call(state, _with(memo, asked), "proposer", phase.round, prompt))
        if isinstance(reply, Answered | Failed):
            parsed, events = record_call(self.name, reply, parse_proposer)
            if parsed is None:  # nothing it did counts: undo whatever it changed
                return Step(events, ResetTo(phase.before, _with(memo, phase)))
            # One answer per id: a later answer to the same id replaces the earlier one.
            answers = tuple({a.objection_id: a for a in parsed.answers}.values())
            phase = dataclasses.replace(phase, answers=answers)
            fixes = [a.objection_id for a in answers if _is_fix(a, phase)]
            if not fixes:
                return self._answered(events, memo, phase, fix_ok=True)
            message = f"contend: fix {', '.join(fixes)} ({self.name})"
            return Step(events, CommitFix(message, _with(memo, phase)))
        if isinstance(reply, Committed):
            if reply.commit is None:
                claimed = ", ".join(a.objection_id for a in phase.answers if _is_fix(a, phase))
                nothing = self._violation(
                    "proposer", f"claimed a fix of {claimed} but changed nothing"
                )
                return self._answered([nothing], memo, phase, fix_ok=False)
            committed = dataclasses.replace(phase, commit=reply.commit)
            return Step([], RunGates("after-fix", _with(memo, committed)))
        if isinstance(reply, GatesRan):
            ran: list[Event] = [ev.gate_ran(**self._gate(gate)) for gate in reply.gates]
            if all(gate.get("ok", False) for gate in reply.gates):
                return self._answered(ran, memo, phase, fix_ok=True)
            # A fix that breaks a gate is not a fix: undo it, the objections stand.
            undo = dataclasses.replace(phase, reverting=True)
            return Step(ran, ResetTo(phase.before, _with(memo, undo)))
        if isinstance(reply, Done) and isinstance(reply.request, ResetTo):
            if not phase.reverting:  # the reply was unusable: the turn is over
                return self._next(state, memo)
            commit = (phase.commit or "")[:12]
            broke = self._violation("proposer", f"fix {commit} broke a gate; reverted")
            return self._answered([broke], memo, phase, fix_ok=False)
        raise _unexpected(self.name, reply)

    def _answered(self, events: list[Event], memo: Memo, phase: _Proposer, *, fix_ok: bool) -> Step:
        """The proposer's answers as transitions (a fix only when it held), checked as the
        judgements are: an answer to an objection not awaiting one is a violation."""
        waiting = set(phase.waiting)
        for answer in phase.answers:
            if answer.objection_id not in waiting:
                events.append(
                    self._violation(
                        "proposer", f"answer names {answer.objection_id!r}, not awaiting answer"
                    )
                )
                continue
            if answer.action is Action.FIX and not fix_ok:
                continue
            commit: ev.TransitionExtras = (
                {"commit": phase.commit} if answer.action is Action.FIX else {}
            )
            events.append(
                ev.transition(
                    answer.objection_id,
                    answer.action,
                    by="proposer",
                    actor=Actor.PROPOSER,
                    text=answer.text,
                    evidence=answer.evidence,
                    **commit,
                )
            )
        return Step(events, Continue(_with(memo, _Next())))

    # --- the end of the thread -----------------------------------------------------------

    def _finish(self, state: RunState, memo: Memo, phase: _Finish, reply: Reply | None) -> Step:
        """Deadlocks at the round cap one by one (the oracle reports on each), then every
        attack still open marked unresolved, then the thread ended."""
        events: list[Event] = []
        if phase.oracle_for is not None:
            if isinstance(reply, Read):
                rnd = state.threads[self.name].round
                prompt = self._oracle_prompt(state.attacks[phase.oracle_for], reply.text)
                return Step([], self._call(state, memo, "oracle", rnd, prompt))
            if not isinstance(reply, Answered | Failed):
                raise _unexpected(self.name, reply)
            report, events = record_call(self.name, reply, parse_oracle)
            if report is not None:
                events.append(
                    ev.deadlock_report(thread=self.name, attack=phase.oracle_for, report=report)
                )
        mine = self._attacks(state)
        deadlocked: set[str] = set()
        for attack in deadlocks_at(phase.reason, mine):
            events.append(
                ev.transition(
                    attack.id,
                    Action.DEADLOCK,
                    by="engine",
                    actor=Actor.ENGINE,
                    text="defended and re-attacked until the cap",
                )
            )
            if self.b.oracle:  # its report reads the history with the deadlock folded in
                asked = dataclasses.replace(phase, oracle_for=attack.id)
                return Step(events, ReadDiff(_with(memo, asked)))
            deadlocked.add(attack.id)
        settled = [
            _after(a, Action.DEADLOCK, Actor.ENGINE) if a.id in deadlocked else a for a in mine
        ]
        for attack in left_unresolved(phase.reason, settled):
            events.append(
                ev.transition(
                    attack.id,
                    Action.MARK_UNRESOLVED,
                    by="engine",
                    actor=Actor.ENGINE,
                    text=f"thread ended: {phase.reason}",
                )
            )
        events.append(ev.thread_ended(thread=self.name, reason=str(phase.reason)))
        return Step(events, None)

    def _oracle_prompt(self, attack: Attack, diff: str) -> str:
        history = "\n".join(
            f"- {h['by']}: {h['action']}: {h.get('text', '')}" for h in attack.history
        )
        return (
            f"## Spec\n{fence(self.b.spec or '(none)')}\n\n## Disputed objection "
            f"{attack.id}\n{attack.claim}\n{fence(attack.evidence)}\n\n## Exchange\n"
            f"{history}\n\n## The change now\n{fence(diff)}"
        )

    # --- calls and what they leave in the ledger -------------------------------------------

    def _call(self, state: RunState, memo: Memo, role: RoleName, rnd: int, prompt: str) -> Call:
        system, schema = {
            "critic": (CRITIC_SYSTEM, CRITIC_SCHEMA),
            "proposer": (PROPOSER_SYSTEM, PROPOSER_SCHEMA),
            "oracle": (ORACLE_SYSTEM, ORACLE_SCHEMA),
        }[role]
        repo = state.artifact.get("repo")
        return Call(
            agent=role,
            role=role,
            thread=self.name,
            round=rnd,
            system=system,
            prompt=prompt,
            schema=schema,
            repo=Path(repo) if repo else None,
            memo=memo,
        )

    # --- reading the fold ----------------------------------------------------------------

    def _thread_started(self) -> Event:
        critic, proposer = self.b.critic, self.b.proposer
        return ev.thread_started(
            thread=self.name,
            critic=self.b.critic_spec,
            family=critic.family,
            model=critic.model,
            backend=critic.backend,
            same_family_as_proposer=proposer is not None and proposer.family == critic.family,
        )

    def _attacks(self, state: RunState) -> list[Attack]:
        return [a for a in state.attacks.values() if a.thread == self.name]

    def _awaiting(self, state: RunState) -> list[Attack]:
        return [a for a in self._attacks(state) if not a.resolved and a.status in AWAITING_ANSWER]

    def _exchange(self, state: RunState) -> str:
        """This thread's objections and every answer and judgement on them, compactly."""
        blocks = []
        for a in self._attacks(state):
            lines = [
                f"### {a.id} [{a.severity}] {a.location.path}:{a.location.start_line}-"
                f"{a.location.end_line} — status: {a.status}",
                a.claim,
            ]
            for h in a.history:
                lines.append(f"- {h['by']}: {h['action']}: {h.get('text', '')}")
                evidence = h.get("evidence", "")
                if evidence:
                    lines.append(fence(evidence))
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks) or "(no objections yet)"

    def _gate(self, gate: GateRanData) -> GateRanData:
        return {**gate, "thread": self.name}

    def _violation(self, role: RoleName, detail: str) -> Event:
        return ev.protocol_violation(thread=self.name, role=role, detail=detail)


def _with(memo: Memo, phase: _Phase) -> Memo:
    return dataclasses.replace(memo, phase=phase)


def _after(attack: Attack, action: Action, actor: Actor) -> Attack:
    """`attack` as `action` would leave it (raises IllegalTransition), the fold untouched."""
    moved = copy.copy(attack)
    apply_action(moved, action, actor)
    return moved


def _is_fix(answer: Answer, phase: _Proposer) -> bool:
    return answer.action is Action.FIX and answer.objection_id in phase.waiting


def _unexpected(thread: str, reply: Reply | None) -> ProtocolError:
    return ProtocolError(f"thread {thread}: unexpected {type(reply).__name__}")


def _ways_out(expected: str, attack_id: str) -> tuple[str, ...]:
    fix = f"fix it: {expected.strip()}" if expected.strip() else "fix it"
    return (
        fix,
        f"or answer with evidence: `contend respond {attack_id} --defend TEXT` "
        "(a test, a line, a spec clause)",
    )
