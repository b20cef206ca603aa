"""The single writer of a run: every event goes to the ledger first, then to the live state.

Applying the event to the live state with the same reducer that `fold` uses is what
makes "replay gives the state the run had" true by construction. An event the reducer
rejects (an illegal transition) was already validated before being written: `emit`
checks it against a scratch copy first, so the ledger never holds an event the fold
would refuse.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from contend.errors import ProtocolError
from contend.ledger.store import Ledger
from contend.protocol.events import Event, EventKind
from contend.protocol.machine import next_status
from contend.protocol.model import Action
from contend.protocol.state import Reducer, RunState


class Recorder:
    def __init__(self, ledger: Ledger, state: RunState | None = None) -> None:
        self.ledger = ledger
        self.reducer = Reducer(state)
        # Told of every written entry (progress display); must not raise.
        self.listener: Callable[[dict[str, Any], RunState], None] | None = None

    @property
    def state(self) -> RunState:
        return self.reducer.state

    def emit(self, ev: Event) -> dict[str, Any]:
        self._precheck(ev)
        entry = self.ledger.append(ev["kind"], ev["data"])
        self.reducer.apply(entry)
        if self.listener is not None:
            self.listener(entry, self.state)
        return entry

    def emit_kind(self, kind: EventKind, **data: Any) -> dict[str, Any]:
        return self.emit({"kind": str(kind), "data": data})

    def checkpoint(self) -> None:
        self.ledger.checkpoint()

    def _precheck(self, ev: Event) -> None:
        # Transitions are the only events whose legality depends on state; raise before
        # writing so an illegal action never reaches the ledger.
        if ev["kind"] == str(EventKind.ATTACK_TRANSITION):
            data = ev["data"]
            attack = self.state.attacks.get(str(data["attack"]))
            if attack is None:
                raise ProtocolError(f"no attack {data['attack']!r} in this run")
            next_status(attack, Action(data["action"]))
