"""Builders for protocol-level tests: a run's events appended the way the engine appends
them, folded as they go, so tests assert on the state a real ledger would give."""

from __future__ import annotations

from typing import Any

from contend.protocol import events as ev
from contend.protocol.events import EventKind
from contend.protocol.model import Action, Attack, Location, Severity
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
        for action in actions:
            self.emit(ev.transition(attack_id, action, by=by))

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
