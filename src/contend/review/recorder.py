"""The single writer of a run: every event goes to the ledger first, then to the live state.

Applying the event to the live state with the same reducer that `fold` uses is what
makes "replay gives the state the run had" true by construction. An event the reducer
would reject (an illegal transition, an actor the table forbids) is refused before it is
written: `emit` checks it against the live state first (protocol.state.admit), so the
ledger never holds an event the fold would refuse.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from contend.ledger.store import Ledger
from contend.protocol.events import Event
from contend.protocol.state import Reducer, RunState, admit


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
        # Checked against the live state before writing: the ledger never holds an event
        # the fold would refuse (an illegal transition, an actor the table forbids).
        ev = admit(self.state, ev)
        entry = self.ledger.append(ev["kind"], ev["data"])
        self.reducer.apply(entry)
        if self.listener is not None:
            self.listener(entry, self.state)
        return entry

    def checkpoint(self) -> None:
        self.ledger.checkpoint()
