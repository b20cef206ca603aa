"""The run state and the fold that rebuilds it from events.

`Reducer.apply` is the only place state changes. The engine applies each event to its
live state as it appends it to the ledger, and `fold` applies the same events from the
file, so replay gives the state the run had by construction (and a property test checks it).

The fold is where a ledger's JSON is read, once: the records it keeps (gates, skips,
failures, the spec, the end of a run, every transition on its attack) are checked against
their TypedDicts (protocol/event_types.py), so whoever reads the state reads them typed.
Records the reports only show (topic rejections, deadlock reports, merges) are kept as
given. Hot kinds (rounds, calls, attacks, transitions) are parsed field by field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from contend.errors import ProtocolError
from contend.gcpause import gc_paused
from contend.protocol.event_types import (
    AgentFailedData,
    ArtifactData,
    FileSkippedData,
    GateRanData,
    HistoryEntry,
    RunFinishedData,
    SpecLoadedData,
)
from contend.protocol.events import Event, EventKind, TransitionExtras, attack_from_raised
from contend.protocol.machine import actor_of, apply_action, next_status
from contend.protocol.model import Action, Attack, Location, RoundCounter
from contend.protocol.shapes import shape_of


@dataclass(slots=True)
class RoundTally:
    new_attacks: int = 0
    re_attacks: int = 0
    # What the critic itself delivered in the round: a round counts as quiet only if the
    # critic looked (a usable output) and did not fail; silence after a crash is no review.
    critic_outputs: int = 0
    critic_failures: int = 0


@dataclass(slots=True)
class ThreadState:
    name: str
    critic: str
    family: str
    model: str = ""
    backend: str = ""
    topic: str | None = None
    round: int = 0
    rounds: dict[int, RoundTally] = field(default_factory=dict)
    closed_rounds: list[int] = field(default_factory=list)
    counter: RoundCounter = field(default_factory=RoundCounter)
    ended: str | None = None
    malformed_streak: int = 0
    failures: int = 0
    failure_log: list[AgentFailedData] = field(default_factory=list)
    usable_outputs: int = 0
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    bytes_sent: int = 0
    dropped_attacks: int = 0
    violations: list[str] = field(default_factory=list)
    same_family_as_proposer: bool = False
    proposer_rounds: list[int] = field(default_factory=list)
    # Closed rounds when this session's thread_started was folded: a thread resumed by a
    # later review session counts its rounds in this session from there.
    session_base: int = 0
    # How the critic's latest turn failed (agent_failed `failure`); None after usable output.
    critic_failure: str | None = None

    @property
    def session_rounds(self) -> int:
        return len(self.closed_rounds) - self.session_base

    @property
    def failed(self) -> bool:
        return self.ended in ("malformed_output", "crashed")


@dataclass(slots=True)
class RunState:
    run_id: str = ""
    artifact: ArtifactData = field(default_factory=ArtifactData)
    spec: SpecLoadedData | None = None
    attacks: dict[str, Attack] = field(default_factory=dict)
    threads: dict[str, ThreadState] = field(default_factory=dict)
    gates: list[GateRanData] = field(default_factory=list)
    skipped: list[FileSkippedData] = field(default_factory=list)
    # Every topic declared, in order: what a later critic is told is taken.
    declared_topics: list[str] = field(default_factory=list)
    topic_rejections: list[dict[str, Any]] = field(default_factory=list)
    deadlock_reports: list[dict[str, Any]] = field(default_factory=list)
    merges: list[dict[str, Any]] = field(default_factory=list)
    escapes: list[dict[str, Any]] = field(default_factory=list)  # escape_recorded data
    sessions: int = 0
    interrupted: bool = False
    finished: RunFinishedData | None = None
    events: int = 0
    last_seq: int = -1

    def unresolved(self) -> list[Attack]:
        return [a for a in self.attacks.values() if not a.resolved]

    def resolved(self) -> list[Attack]:
        return [a for a in self.attacks.values() if a.resolved]

    @property
    def tokens_in(self) -> int:
        return sum(t.tokens_in for t in self.threads.values())

    @property
    def tokens_out(self) -> int:
        return sum(t.tokens_out for t in self.threads.values())

    @property
    def cost(self) -> float:
        return sum(t.cost for t in self.threads.values())

    def families(self) -> set[str]:
        return {t.family for t in self.threads.values() if t.usable_outputs > 0}


class Reducer:
    """Applies events to one RunState. Unknown kinds are a protocol error, never skipped."""

    def __init__(self, state: RunState | None = None) -> None:
        self.state = state if state is not None else RunState()

    def apply(self, ev: Mapping[str, Any]) -> None:
        kind = ev["kind"]
        data: Mapping[str, Any] = ev.get("data", {})
        seq = int(ev.get("seq", self.state.last_seq + 1))
        handler = _HANDLERS.get(kind)
        if handler is None:
            raise ProtocolError(f"unknown event kind {kind!r} at seq {seq}")
        handler(self.state, data, seq)
        self.state.events += 1
        self.state.last_seq = seq

    def thread(self, name: str) -> ThreadState:
        return _thread(self.state, name)


def _thread(state: RunState, name: str) -> ThreadState:
    try:
        return state.threads[name]
    except KeyError:
        raise ProtocolError(f"event names thread {name!r}, which was never started") from None


def _tally(thread: ThreadState) -> RoundTally:
    return thread.rounds.setdefault(thread.round, RoundTally())


_ARTIFACT = shape_of(ArtifactData)
_SPEC = shape_of(SpecLoadedData)
_GATE = shape_of(GateRanData)
_SKIP = shape_of(FileSkippedData)
_FAILURE = shape_of(AgentFailedData)
_FINISHED = shape_of(RunFinishedData)


def _run_started(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    state.run_id = str(data.get("run_id", state.run_id))
    state.artifact = _ARTIFACT.check(data.get("artifact", {}), f"run_started at seq {seq}")
    state.sessions += 1
    # Each review session re-runs gates and re-reads files: what the last one saw is history.
    state.gates = []
    state.skipped = []
    state.finished = None


def _spec_loaded(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    state.spec = _SPEC.check(dict(data), f"spec_loaded at seq {seq}")


def _gate_ran(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    state.gates.append(_GATE.check(dict(data), f"gate_ran at seq {seq}"))


def _thread_started(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    name = str(data["thread"])
    existing = state.threads.get(name)
    if existing is not None:
        # A later review session continues the same thread: it is live again.
        existing.ended = None
        existing.malformed_streak = 0
        existing.session_base = len(existing.closed_rounds)
        return
    state.threads[name] = ThreadState(
        name=name,
        critic=str(data["critic"]),
        family=str(data.get("family", "")),
        model=str(data.get("model", "")),
        backend=str(data.get("backend", "")),
        same_family_as_proposer=bool(data.get("same_family_as_proposer", False)),
    )


def _topic_declared(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    topic = str(data["topic"])
    _thread(state, str(data["thread"])).topic = topic
    state.declared_topics.append(topic)


def _topic_rejected(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    state.topic_rejections.append(dict(data))


def _round_started(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    thread = _thread(state, str(data["thread"]))
    rnd = int(data["round"])
    if rnd <= thread.round:
        raise ProtocolError(f"thread {thread.name}: round {rnd} started after round {thread.round}")
    thread.round = rnd
    thread.rounds[rnd] = RoundTally()


def _attack_raised(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    try:
        attack = attack_from_raised(dict(data), seq)
    except (KeyError, TypeError, ValueError) as exc:
        raise ProtocolError(f"malformed attack_raised at seq {seq}: {exc!r}") from exc
    if attack.id in state.attacks:
        raise ProtocolError(f"attack id {attack.id} raised twice")
    thread = _thread(state, attack.thread)
    attack.counter = thread.counter
    # The close of the raising round itself does not count as surviving a round.
    closed = thread.closed_rounds
    raising_round_open = not closed or closed[-1] < attack.raised_round
    attack.survived_base = thread.counter.closed + (1 if raising_round_open else 0)
    state.attacks[attack.id] = attack
    _tally(thread).new_attacks += 1


def _attack_dropped(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    _thread(state, str(data["thread"])).dropped_attacks += int(data.get("count", 1))


def _attack_transition(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    attack_id = str(data["attack"])
    attack = state.attacks.get(attack_id)
    if attack is None:
        raise ProtocolError(f"transition names attack {attack_id}, which was never raised")
    try:
        action = _ACTIONS[data["action"]]
    except KeyError:
        raise ProtocolError(f"unknown action {data['action']!r} at seq {seq}") from None
    actor = actor_of(data, attack)
    # Checked whole before the attack moves: a refused line leaves the attack as it was.
    entry = _history_entry(data, seq, actor.value, attack_id)
    apply_action(attack, action, actor)
    attack.history.append(entry)
    if action is Action.RE_ATTACK:
        _tally(_thread(state, attack.thread)).re_attacks += 1


_TRANSITION_EXTRAS = shape_of(TransitionExtras)


def _history_entry(data: Mapping[str, Any], seq: int, actor: str, attack_id: str) -> HistoryEntry:
    get = data.get
    # Unrolled: this runs once per transition of a 100,000-event fold.
    if not (
        type(get("by", "")) is str
        and type(get("text", "")) is str
        and type(get("evidence", "")) is str
    ):
        _bad_text(data, seq, attack_id)
    if len(data) > _COMMON_KEYS:  # a fix's commit, a person, a waiver, a round: check them
        _TRANSITION_EXTRAS.check(dict(data), f"transition on attack {attack_id} at seq {seq}")
    return cast(HistoryEntry, {"seq": seq, **data, "actor": actor})


def _bad_text(data: Mapping[str, Any], seq: int, attack_id: str) -> None:
    for key in ("by", "text", "evidence"):
        value = data.get(key, "")
        if type(value) is not str:
            raise ProtocolError(f"transition on attack {attack_id} at seq {seq}: {key} {value!r}")


# attack, action, by, actor, text, evidence: what most transitions hold and is checked above
_COMMON_KEYS = 6


def failure_kind(failed: AgentFailedData) -> str:
    """How an agent failed: its `failure`, or — in ledgers written before that field — what
    its flags say (timeout, malformed), else an error of no recorded kind."""
    if "failure" in failed:
        return failed["failure"]
    if failed.get("timeout"):
        return "timeout"
    if failed.get("malformed"):
        return "malformed"
    return "error"


def _attack_relocated(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    attack_id = str(data["attack"])
    attack = state.attacks.get(attack_id)
    if attack is None:
        raise ProtocolError(f"relocation names attack {attack_id}, which was never raised")
    try:
        locations = tuple(Location.from_json(loc) for loc in data["locations"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ProtocolError(f"malformed attack_relocated at seq {seq}: {exc!r}") from exc
    if not locations:
        raise ProtocolError(f"attack_relocated at seq {seq} gives no location")
    attack.location = locations[0]
    attack.locations = locations
    attack.members = tuple(str(m) for m in data.get("members", ()))
    attack.claim = str(data.get("claim", attack.claim))
    attack.evidence = str(data.get("evidence", attack.evidence))
    old = data.get("old_evidence")
    attack.old_evidence = str(old) if old is not None else None


def _round_closed(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    thread = _thread(state, str(data["thread"]))
    rnd = int(data["round"])
    if rnd != thread.round or (thread.closed_rounds and thread.closed_rounds[-1] == rnd):
        raise ProtocolError(f"thread {thread.name}: round {rnd} closed out of order")
    thread.closed_rounds.append(rnd)
    thread.counter.closed += 1


def _agent_call(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    thread = _thread(state, str(data["thread"]))
    thread.calls += 1
    thread.tokens_in += int(data.get("tokens_in", 0))
    thread.tokens_out += int(data.get("tokens_out", 0))
    thread.cost += float(data.get("cost", 0.0))
    thread.bytes_sent += int(data.get("bytes_sent", 0))
    if data.get("role") == "proposer":
        thread.proposer_rounds.append(int(data.get("round", thread.round)))
    if data.get("usable", True):
        if data.get("role", "critic") == "critic":
            thread.malformed_streak = 0
            thread.critic_failure = None
            _tally(thread).critic_outputs += 1
        thread.usable_outputs += 1


def _agent_failed(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    thread = _thread(state, str(data["thread"]))
    failed = _FAILURE.check(dict(data), f"agent_failed at seq {seq}")
    thread.failures += 1
    thread.failure_log.append(failed)
    if data.get("role") == "proposer":
        thread.proposer_rounds.append(int(data.get("round", thread.round)))
    if data.get("role", "critic") == "critic":
        thread.critic_failure = failure_kind(failed)
        thread.malformed_streak += 1
        _tally(thread).critic_failures += 1


def _protocol_violation(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    _thread(state, str(data["thread"])).violations.append(str(data.get("detail", "")))


def _file_skipped(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    state.skipped.append(_SKIP.check(dict(data), f"file_skipped at seq {seq}"))


def _deadlock_report(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    state.deadlock_reports.append(dict(data))


def _merge(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    state.merges.append(dict(data))


def _thread_ended(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    _thread(state, str(data["thread"])).ended = str(data["reason"])


def _run_interrupted(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    state.interrupted = True


def _run_resumed(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    state.interrupted = False


def _run_finished(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    state.finished = _FINISHED.check(dict(data), f"run_finished at seq {seq}")


def _escape_recorded(state: RunState, data: Mapping[str, Any], seq: int) -> None:
    if not str(data.get("note", "")).strip():
        raise ProtocolError(f"escape_recorded at seq {seq} has no note")
    state.escapes.append({"seq": seq, **data})


_HANDLERS = {
    str(EventKind.RUN_STARTED): _run_started,
    str(EventKind.SPEC_LOADED): _spec_loaded,
    str(EventKind.GATE_RAN): _gate_ran,
    str(EventKind.THREAD_STARTED): _thread_started,
    str(EventKind.TOPIC_DECLARED): _topic_declared,
    str(EventKind.TOPIC_REJECTED): _topic_rejected,
    str(EventKind.ROUND_STARTED): _round_started,
    str(EventKind.ATTACK_RAISED): _attack_raised,
    str(EventKind.ATTACK_DROPPED): _attack_dropped,
    str(EventKind.ATTACK_TRANSITION): _attack_transition,
    str(EventKind.ATTACK_RELOCATED): _attack_relocated,
    str(EventKind.ROUND_CLOSED): _round_closed,
    str(EventKind.AGENT_CALL): _agent_call,
    str(EventKind.AGENT_FAILED): _agent_failed,
    str(EventKind.FILE_SKIPPED): _file_skipped,
    str(EventKind.PROTOCOL_VIOLATION): _protocol_violation,
    str(EventKind.DEADLOCK_REPORT): _deadlock_report,
    str(EventKind.MERGE): _merge,
    str(EventKind.THREAD_ENDED): _thread_ended,
    str(EventKind.RUN_INTERRUPTED): _run_interrupted,
    str(EventKind.RUN_RESUMED): _run_resumed,
    str(EventKind.RUN_FINISHED): _run_finished,
    str(EventKind.ESCAPE_RECORDED): _escape_recorded,
}


_ACTIONS = {str(a): a for a in Action}


def admit(state: RunState, event: Event) -> Event:
    """`event` as it may be appended to a run in `state`, or raise before anything is
    written: a transition must name a raised attack and an action its actor may take from
    the attack's status (machine.RULES), with its words as text and its extras of their
    types, as the fold will check them. A transition whose writer left the actor out
    gets the one its `by` names, so every new ledger line records who acted."""
    if event["kind"] != "attack_transition":
        return event
    data = event["data"]
    attack = state.attacks.get(str(data["attack"]))
    if attack is None:
        raise ProtocolError(f"no attack {data['attack']!r} in this run")
    action = _ACTIONS.get(data["action"])
    if action is None:
        raise ProtocolError(f"unknown action {data['action']!r}")
    actor = actor_of(data, attack)
    next_status(attack, action, actor)
    _history_entry(data, state.last_seq + 1, actor.value, attack.id)  # what the fold checks
    if "actor" in data:
        return event
    return {"kind": "attack_transition", "data": {**data, "actor": actor.value}}


def fold(events: Iterable[Mapping[str, Any]]) -> RunState:
    reducer = Reducer()
    with gc_paused():
        for ev in events:
            reducer.apply(ev)
    return reducer.state
