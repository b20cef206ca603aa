"""Property tests of the protocol core (DESIGN §2).

- An attack leaves the unresolved set only through a resolution event on that very attack
  (verified fix, accepted defense, withdrawal, human decision) — never because of counts,
  other critics, or votes.
- Replay: folding the ledger of a run gives the state the run had.
- Contention = rounds survived open + 1 if re-attacked, checked against a naive model.
- Every transition's legality and result agree with an independent model of the table
  (tests/protocol_helpers.py), never with the machine as its own oracle.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contend.errors import IllegalTransition
from contend.ledger.store import Ledger
from contend.ledger.verify import verify
from contend.protocol import events as ev
from contend.protocol.events import EventKind
from contend.protocol.model import RESOLVING_ACTIONS, Action, Attack, Location, Severity
from contend.protocol.state import Reducer, RunState, fold
from protocol_helpers import ACTOR_OF, ModelAttack, model_step

THREADS = ("t0", "t1", "t2")

op = st.one_of(
    st.tuples(st.just("raise"), st.sampled_from(THREADS), st.sampled_from(list(Severity))),
    st.tuples(st.just("act"), st.integers(0, 30), st.sampled_from(list(Action))),
    st.tuples(st.just("close"), st.sampled_from(THREADS)),
    # Noise that must never resolve anything: agent calls and "votes" as agreeing critics.
    st.tuples(st.just("call"), st.sampled_from(THREADS)),
)


def start_events() -> list[dict[str, Any]]:
    out = [ev.event(EventKind.RUN_STARTED, run_id="r", artifact={"kind": "change"})]
    for t in THREADS:
        out.append(ev.event(EventKind.THREAD_STARTED, thread=t, critic=t, family=f"fam-{t}"))
        out.append(ev.event(EventKind.ROUND_STARTED, thread=t, round=1))
    return out


class Driver:
    """Plays operations like the engine would: legal events go to the reducer and the
    ledger; an illegal action must raise and change nothing."""

    def __init__(self, ledger: Ledger | None = None) -> None:
        self.reducer = Reducer()
        self.ledger = ledger
        self.log: list[dict[str, Any]] = []
        self.n = 0
        self.resolutions: list[tuple[str, str]] = []  # (attack id, action) that resolved
        self.models: dict[str, ModelAttack] = {}
        for e in start_events():
            self.emit(e)

    def emit(self, e: dict[str, Any]) -> None:
        e = {**e, "seq": len(self.log)}
        self.reducer.apply(e)
        self.log.append(e)
        if self.ledger is not None:
            self.ledger.append(e["kind"], e["data"])

    @property
    def state(self) -> RunState:
        return self.reducer.state

    def play(self, operation: tuple[Any, ...]) -> None:
        kind = operation[0]
        state = self.state
        if kind == "raise":
            _, thread, severity = operation
            self.n += 1
            attack = Attack(
                id=f"A{self.n}",
                thread=thread,
                critic=thread,
                family=f"fam-{thread}",
                topic="t",
                rule="r",
                severity=severity,
                location=Location("x.py", 1, 2),
                claim="c",
                evidence="e",
                raised_round=state.threads[thread].round,
                raised_seq=len(self.log),
            )
            self.emit(ev.attack_raised(attack))
            self.models[attack.id] = ModelAttack()
        elif kind == "act":
            _, index, action = operation
            if not state.attacks:
                return
            attack = list(state.attacks.values())[index % len(state.attacks)]
            before = {a.id: a.resolved for a in state.attacks.values()}
            # Legality comes from the independent table of the tests, not from the machine.
            expected = model_step(self.models[attack.id], action)
            if expected is None:
                snapshot = (attack.status, attack.resolved)
                try:
                    self.emit(ev.transition(attack.id, action, by="x", actor=ACTOR_OF[action]))
                except IllegalTransition:
                    assert (attack.status, attack.resolved) == snapshot
                    return
                raise AssertionError("an illegal transition was accepted")
            self.emit(ev.transition(attack.id, action, by="x", actor=ACTOR_OF[action]))
            assert (attack.status, attack.resolved) == (expected.status, expected.resolved)
            self.models[attack.id] = expected
            after = {a.id: a.resolved for a in state.attacks.values()}
            changed = [aid for aid in before if before[aid] != after[aid]]
            if changed:
                assert changed == [attack.id]
                self.resolutions.append((attack.id, str(action)))
        elif kind == "close":
            _, thread = operation
            rnd = state.threads[thread].round
            before = {a.id: a.resolved for a in state.attacks.values()}
            self.emit(ev.event(EventKind.ROUND_CLOSED, thread=thread, round=rnd))
            self.emit(ev.event(EventKind.ROUND_STARTED, thread=thread, round=rnd + 1))
            assert before == {a.id: a.resolved for a in state.attacks.values()}
        elif kind == "call":
            _, thread = operation
            before = {a.id: a.resolved for a in state.attacks.values()}
            self.emit(
                ev.event(
                    EventKind.AGENT_CALL,
                    thread=thread,
                    role="critic",
                    tokens_in=5,
                    tokens_out=1,
                    cost=0.001,
                    usable=True,
                    verdict="no defect",
                )
            )
            assert before == {a.id: a.resolved for a in state.attacks.values()}


def snapshot(state: RunState) -> dict[str, Any]:
    return {
        "attacks": {
            a.id: (
                a.status,
                a.resolved,
                a.re_attacked,
                a.rounds_survived,
                a.contention,
                len(a.history),
            )
            for a in state.attacks.values()
        },
        "threads": {
            t.name: (
                t.round,
                list(t.closed_rounds),
                t.tokens_in,
                t.calls,
                {r: (x.new_attacks, x.re_attacks) for r, x in t.rounds.items()},
            )
            for t in state.threads.values()
        },
        "events": state.events,
    }


@settings(max_examples=200, deadline=None)
@given(st.lists(op, max_size=80))
def test_unresolved_set_shrinks_only_by_resolution_events(ops: list[tuple[Any, ...]]) -> None:
    driver = Driver()
    ever_resolved: set[str] = set()
    for operation in ops:
        driver.play(operation)
        resolved_now = {a.id for a in driver.state.attacks.values() if a.resolved}
        assert ever_resolved <= resolved_now, "a resolved attack came back"
        ever_resolved = resolved_now
    assert {aid for aid, _ in driver.resolutions} == ever_resolved
    assert all(Action(action) in RESOLVING_ACTIONS for _, action in driver.resolutions)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(op, max_size=60))
def test_replay_of_the_ledger_gives_the_state_the_run_had(
    tmp_path_factory: Any, ops: list[tuple[Any, ...]]
) -> None:
    path = Path(tmp_path_factory.mktemp("replay")) / "ledger.jsonl"
    # One run id per example: a run id names one history (and one anchor) per user.
    with Ledger(path, path.parent.name) as ledger:
        driver = Driver(ledger)
        for operation in ops:
            driver.play(operation)
    result = verify(path, keep_entries=True)
    assert result.ok and result.count == len(driver.log)
    assert snapshot(fold(result.entries)) == snapshot(driver.state)


@settings(max_examples=200, deadline=None)
@given(st.lists(op, max_size=80))
def test_contention_matches_a_naive_count(ops: list[tuple[Any, ...]]) -> None:
    driver = Driver()
    for operation in ops:
        driver.play(operation)
    # Naive model: walk the log; a close of round r of thread T adds one to every attack of
    # T raised in an earlier round and unresolved at that moment.
    naive: dict[str, int] = {}
    reducer = Reducer()
    for e in driver.log:
        if e["kind"] == str(EventKind.ROUND_CLOSED):
            thread, rnd = e["data"]["thread"], e["data"]["round"]
            for a in reducer.state.attacks.values():
                if a.thread == thread and not a.resolved and a.raised_round < rnd:
                    naive[a.id] = naive.get(a.id, 0) + 1
        reducer.apply(e)
    for a in driver.state.attacks.values():
        assert a.rounds_survived == naive.get(a.id, 0)
        assert a.contention == naive.get(a.id, 0) + (1 if a.re_attacked else 0)
