"""The standing verdict of a run: what its ledger says now, people's decisions included.

A review session ends with `run_finished` and the verdict it reached. A person's decision
taken afterwards (`contend decide`, the web page) changes what stands without a new
session: the verdict is then recomputed from the fold with `protocol.verdict.decide`, as
`contend decide` itself does when it rewrites the reports. A run whose last session did not
finish has no verdict: it is in progress, or was interrupted.

`contend gate`, `contend status` (through the index), `contend stats` and the web page all
read a run's verdict from here, so they cannot disagree. Pure: events in, a Standing out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from contend.protocol.contention import headline
from contend.protocol.events import EventKind
from contend.protocol.model import HUMAN_ACTIONS, Attack
from contend.protocol.state import Reducer, RunState
from contend.protocol.verdict import Verdict, decide

Phase = Literal["finished", "unfinished", "interrupted"]
_HUMAN = frozenset(str(a) for a in HUMAN_ACTIONS)
_FINISHED = str(EventKind.RUN_FINISHED)
_TRANSITION = str(EventKind.ATTACK_TRANSITION)


@dataclass(frozen=True, slots=True)
class Standing:
    state: RunState
    phase: Phase
    verdict: Verdict | None  # None while the run has not finished
    reasons: tuple[str, ...]
    headline: str | None  # the unresolved attack with the highest contention
    decided_since: int  # people's decisions after the last session finished

    @property
    def exit_code(self) -> int | None:
        return None if self.verdict is None else self.verdict.exit_code


def standing(events: Iterable[Mapping[str, Any]], *, min_families: int) -> Standing:
    """Fold `events` (a verified ledger's entries) and say what verdict stands now."""
    reducer = Reducer()
    decided_since = 0
    for entry in events:
        reducer.apply(entry)
        kind = entry["kind"]
        if kind == _FINISHED:
            decided_since = 0
        elif kind == _TRANSITION and entry.get("data", {}).get("action") in _HUMAN:
            decided_since += 1
    state = reducer.state
    top = headline(state.attacks.values())
    top_id = top.id if top is not None else None
    if state.finished is None:
        phase: Phase = "interrupted" if state.interrupted else "unfinished"
        return Standing(state, phase, None, (), top_id, decided_since)
    if decided_since == 0:
        # What the session decided stands as written (it may rest on facts the fold alone
        # cannot re-derive, such as "nothing to review" or a trivial change).
        recorded = state.finished.get("verdict")
        verdict = Verdict(str(recorded))
        reasons = tuple(str(r) for r in state.finished.get("reasons", ()))
        return Standing(state, "finished", verdict, reasons, top_id, 0)
    outcome = decide(state, min_families=min_families)
    return Standing(
        state, "finished", outcome.verdict, outcome.reasons, outcome.headline, decided_since
    )


def human_decision(attack: Attack) -> dict[str, Any] | None:
    """The latest decision a person took on `attack` (its transition data), or None."""
    for step in reversed(attack.history):
        if step.get("action") in _HUMAN:
            return dict(step)
    return None
