"""Builders for protocol-level tests: a run's events appended the way the engine appends
them, folded as they go, so tests assert on the state a real ledger would give."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from contend.protocol import events as ev
from contend.protocol.events import EventKind
from contend.protocol.model import Action, Actor, Attack, Location, Severity, Status
from contend.protocol.state import Reducer, RunState, ThreadState


class RunBuilder:
    def __init__(self) -> None:
        self.reducer = Reducer()
        self.log: list[dict[str, Any]] = []
        self.add(EventKind.RUN_STARTED, run_id="r1", artifact={"kind": "change"})

    @property
    def state(self) -> RunState:
        return self.reducer.state

    def thread_state(self, name: str = "t") -> ThreadState:
        return self.state.threads[name]

    def add(self, kind: EventKind, **data: Any) -> None:
        self.emit(ev.event(kind, **data))

    def emit(self, event: dict[str, Any]) -> None:
        event = {**event, "seq": len(self.log)}
        self.reducer.apply(event)
        self.log.append(event)

    def thread(self, name: str = "t", family: str = "fam-a") -> RunBuilder:
        self.add(EventKind.THREAD_STARTED, thread=name, critic=f"critic-{name}", family=family)
        return self

    def open_round(self, thread: str = "t") -> int:
        rnd = self.state.threads[thread].round + 1
        self.add(EventKind.ROUND_STARTED, thread=thread, round=rnd)
        return rnd

    def close_round(self, thread: str = "t") -> None:
        self.add(EventKind.ROUND_CLOSED, thread=thread, round=self.state.threads[thread].round)

    def critic_output(self, thread: str = "t", **usage: Any) -> None:
        self.add(EventKind.AGENT_CALL, thread=thread, role="critic", usable=True, **usage)

    def critic_failure(self, thread: str = "t", how: str = "crashed") -> None:
        if how == "malformed":
            self.add(EventKind.AGENT_CALL, thread=thread, role="critic", usable=False)
            self.add(
                EventKind.AGENT_FAILED,
                thread=thread,
                role="critic",
                error="not JSON",
                malformed=True,
            )
        else:
            self.add(EventKind.AGENT_FAILED, thread=thread, role="critic", error="crash")

    def raise_attack(
        self, attack_id: str, thread: str = "t", severity: Severity = Severity.MAJOR
    ) -> None:
        self.emit(ev.attack_raised(make_attack(attack_id, thread, severity, self)))

    def act(self, attack_id: str, *actions: Action, by: str = "x") -> None:
        """Each action taken by the actor the independent table below gives it."""
        for action in actions:
            self.emit(ev.transition(attack_id, action, by=by, actor=ACTOR_OF[action]))

    def critic_round(
        self,
        thread: str = "t",
        *,
        outcome: str = "usable",
        raises: tuple[str, ...] = (),
        re_attacks: tuple[str, ...] = (),
    ) -> None:
        """One whole critic round: open, the critic's call, its attacks, close."""
        self.open_round(thread)
        if outcome == "usable":
            self.critic_output(thread)
        else:
            self.critic_failure(thread, outcome)
        for attack_id in raises:
            self.raise_attack(attack_id, thread)
        for attack_id in re_attacks:
            self.act(attack_id, Action.RE_ATTACK)
        self.close_round(thread)

    def end(self, thread: str, reason: str) -> None:
        self.add(EventKind.THREAD_ENDED, thread=thread, reason=reason)


def make_attack(
    attack_id: str,
    thread: str = "t",
    severity: Severity = Severity.MAJOR,
    run: RunBuilder | None = None,
    **overrides: Any,
) -> Attack:
    rnd = run.state.threads[thread].round if run is not None else 1
    fields: dict[str, Any] = {
        "id": attack_id,
        "thread": thread,
        "critic": f"critic-{thread}",
        "family": "fam-a",
        "topic": "edge cases",
        "rule": "",
        "severity": severity,
        "location": Location("app.py", 3, 4),
        "claim": f"claim of {attack_id}",
        "evidence": "line 3",
        "raised_round": rnd,
        "raised_seq": len(run.log) if run is not None else 0,
    }
    fields.update(overrides)
    return Attack(**fields)


# The attack transition table of DESIGN §2, written out here independently of
# protocol/machine.py so tests can check the machine against it (not against itself).
# (status, action) → new status. Unlisted pairs are illegal; every action on a resolved
# attack is illegal; DEADLOCK also needs a defence made at some point.
_S, _A = Status, Action
_TABLE: dict[tuple[Status, Action], Status] = {
    # the author answers an attack that waits for an answer …
    **{
        (s, a): to
        for s in (_S.OPEN, _S.RE_ATTACKED, _S.UNRESOLVED, _S.UPHELD, _S.DEADLOCKED)
        for a, to in ((_A.FIX, _S.FIXED), (_A.CONCEDE, _S.CONCEDED), (_A.DEFEND, _S.DEFENDED))
    },
    # … the critic judges an answer …
    (_S.FIXED, _A.ACCEPT): _S.FIXED,
    (_S.CONCEDED, _A.ACCEPT): _S.CONCEDED,
    (_S.DEFENDED, _A.ACCEPT): _S.ACCEPTED,
    (_S.FIXED, _A.RE_ATTACK): _S.RE_ATTACKED,
    (_S.CONCEDED, _A.RE_ATTACK): _S.RE_ATTACKED,
    (_S.DEFENDED, _A.RE_ATTACK): _S.RE_ATTACKED,
    # … the engine closes a thread with what is left open …
    (_S.OPEN, _A.MARK_UNRESOLVED): _S.UNRESOLVED,
    (_S.RE_ATTACKED, _A.MARK_UNRESOLVED): _S.UNRESOLVED,
    (_S.UNRESOLVED, _A.MARK_UNRESOLVED): _S.UNRESOLVED,
    (_S.UPHELD, _A.MARK_UNRESOLVED): _S.UNRESOLVED,
    (_S.DEADLOCKED, _A.MARK_UNRESOLVED): _S.UNRESOLVED,
    (_S.FIXED, _A.MARK_UNRESOLVED): _S.UNRESOLVED,
    (_S.DEFENDED, _A.MARK_UNRESOLVED): _S.UNRESOLVED,
    (_S.CONCEDED, _A.MARK_UNRESOLVED): _S.CONCEDED,  # conceded-unfixed stands
    (_S.DEFENDED, _A.DEADLOCK): _S.DEADLOCKED,
    (_S.RE_ATTACKED, _A.DEADLOCK): _S.DEADLOCKED,
}
_ANYTIME = {  # the critic may withdraw and a human may decide at any point
    _A.WITHDRAW: _S.WITHDRAWN,
    _A.UPHOLD: _S.UPHELD,
    _A.OVERRULE: _S.OVERRULED,
    _A.WAIVE: _S.WAIVED,
}
_RESOLVES = {_A.ACCEPT, _A.WITHDRAW, _A.OVERRULE, _A.WAIVE}
# Who takes each action (DESIGN §2, §10), written out independently of machine.RULES.
_P, _C, _E, _H = Actor.PROPOSER, Actor.CRITIC, Actor.ENGINE, Actor.HUMAN
ACTOR_OF: dict[Action, Actor] = {
    _A.FIX: _P,
    _A.CONCEDE: _P,
    _A.DEFEND: _P,
    _A.ACCEPT: _C,
    _A.WITHDRAW: _C,
    _A.RE_ATTACK: _C,
    _A.MARK_UNRESOLVED: _E,
    _A.DEADLOCK: _E,
    _A.UPHOLD: _H,
    _A.OVERRULE: _H,
    _A.WAIVE: _H,
}
# Every (actor, action) pair the table allows: each action's own actor, and the engine's
# withdrawal of a change the author withdrew (an empty diff).
MAY: frozenset[tuple[Actor, Action]] = frozenset(
    {(actor, action) for action, actor in ACTOR_OF.items()} | {(_E, _A.WITHDRAW)}
)


@dataclass(frozen=True)
class ModelAttack:
    status: Status = Status.OPEN
    resolved: bool = False
    defended: bool = False


def model_step(attack: ModelAttack, action: Action) -> ModelAttack | None:
    """The attack after `action`, or None where the action is illegal."""
    if attack.resolved:
        return None
    if action in _ANYTIME:
        to = _ANYTIME[action]
    elif (attack.status, action) in _TABLE:
        to = _TABLE[attack.status, action]
    else:
        return None
    if action is _A.DEADLOCK and not attack.defended:
        return None
    return ModelAttack(to, action in _RESOLVES, attack.defended or action is _A.DEFEND)
