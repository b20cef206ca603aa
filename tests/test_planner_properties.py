"""The agent-thread planner (protocol/turns.py) driven with arbitrary replies, no processes.

A pure driver below stands in for review/driver.py: it folds what the planner returns
(admitting each event as the recorder does, so an illegal transition raises) and answers
each request with whatever hypothesis draws — usable or malformed agent output, failures
of every kind, ids that exist and ids that do not, fixes that commit nothing or break a
gate. Whatever the replies, the protocol's invariants must hold when the thread ends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from contend.errors import Failure
from contend.protocol import events as ev
from contend.protocol.event_types import Event
from contend.protocol.machine import STANDING
from contend.protocol.model import Status
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
    Request,
    ResetTo,
    RunGates,
)
from contend.protocol.state import Reducer, RunState, admit, fold
from contend.protocol.termination import PAUSES, Limits
from contend.protocol.turns import AgentTurns, Identity, ThreadBrief

THREAD = "C1"
MAX_STEPS = 400  # far above what any thread of at most 4 rounds needs
TAKEN_TOPIC = "edge cases"  # declared by another thread already: a duplicate is rejected

ORACLE_REPORT = {
    "agreed": ["a"],
    "disputed_leaf": "b",
    "evidence_for": "c",
    "evidence_against": "d",
    "cause": "missing evidence",
    "human_decision": "e",
    "decisive_check": "f",
}


# --- a pure driver -----------------------------------------------------------------------


@dataclass
class Run:
    reducer: Reducer
    log: list[dict[str, Any]]  # every event as the ledger would hold it, with its seq

    @property
    def state(self) -> RunState:
        return self.reducer.state

    def append(self, event: Event | dict[str, Any]) -> None:
        admitted = admit(self.state, event)  # type: ignore[arg-type]
        entry = {"kind": admitted["kind"], "data": admitted["data"], "seq": len(self.log)}
        self.reducer.apply(entry)
        self.log.append(entry)


def new_run() -> Run:
    run = Run(Reducer(), [])
    run.append(ev.run_started(run_id="r", artifact={"kind": "change", "repo": "/nonexistent"}))
    # Another thread holds a topic, so a critic that declares it is asked again.
    run.append(ev.thread_started(thread="C0", critic="other"))
    run.append(ev.topic_declared(thread="C0", topic=TAKEN_TOPIC))
    return run


def new_session(run: Run) -> None:
    """What the engine writes when a run is interrupted and a later session resumes it."""
    for thread in run.state.threads.values():
        if thread.ended is None:
            run.append(ev.thread_ended(thread=thread.name, reason="interrupt"))
    run.append(ev.run_interrupted(cause="interrupt"))
    run.append(ev.run_resumed())
    run.append(ev.run_started(run_id="r", artifact={"kind": "change", "repo": "/nonexistent"}))


def drive(
    planner: AgentTurns,
    run: Run,
    answer: Callable[[Request, RunState], Reply],
    *,
    stop_after: int | None = None,
) -> list[dict[str, Any]]:
    """Run `planner` on `run`; return the events it wrote. `stop_after`: cut the session
    after that many events (a crash or an interrupt between two appends)."""
    start = len(run.log)
    reply: Reply | None = None
    for _ in range(MAX_STEPS):
        step = planner.plan(run.state, reply)
        # Pure: the same fold and reply plan the same step.
        assert planner.plan(run.state, reply) == step
        for event in step.events:
            if stop_after is not None and len(run.log) - start >= stop_after:
                return run.log[start:]
            run.append(event)
        if step.request is None:
            return run.log[start:]
        reply = answer(step.request, run.state)
    raise AssertionError(f"the planner did not end within {MAX_STEPS} steps")


# --- replies drawn by hypothesis ---------------------------------------------------------


class Answerer:
    """Answers each request with what hypothesis draws; remembers which fixes held."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data
        self.commits = 0
        self.last_commit: str | None = None
        self.held: set[str] = set()  # commits whose gates all passed

    def __call__(self, request: Request, state: RunState) -> Reply:
        data = self.data
        if isinstance(request, Call):
            return data.draw(call_reply(request, state))
        if isinstance(request, ReadDiff | ReadHead):
            return Read(request, "diff --git a/app.py b/app.py\n+x = 1\n")
        if isinstance(request, CommitFix):
            self.commits += 1
            changed = data.draw(st.booleans(), label="fix changed something")
            self.last_commit = f"c{self.commits:039d}" if changed else None
            return Committed(request, self.last_commit)
        if isinstance(request, RunGates):
            oks = data.draw(st.lists(st.booleans(), max_size=2), label="gates ok")
            if all(oks) and self.last_commit is not None:
                self.held.add(self.last_commit)
            gates = tuple(ev.gate_ran(name=f"g{i}", ok=ok)["data"] for i, ok in enumerate(oks))
            return GatesRan(request, gates)
        if isinstance(request, ResetTo | Continue):
            return Done(request)
        raise AssertionError(f"unknown request {request!r}")


def call_reply(call: Call, state: RunState) -> st.SearchStrategy[Reply]:
    failed = st.builds(
        Failed,
        st.just(call),
        backend=st.just("scripted"),
        model=st.just("m"),
        error=st.just("it broke"),
        failure=st.sampled_from(get_args(Failure)),
        status=st.none() | st.sampled_from([429, 500]),
        retryable=st.booleans(),
        timeout=st.booleans(),
    )
    unparsable = st.builds(_answered, st.just(call), st.none(), error=st.just("not JSON"))
    off_schema = st.builds(_answered, st.just(call), st.just({"answers": 3, "topic": 1}))
    usable = st.builds(_answered, st.just(call), _output(call, state))
    return st.one_of(usable, usable, usable, failed, unparsable, off_schema)


def _answered(call: Call, output: dict[str, Any] | None, error: str | None = None) -> Answered:
    return Answered(
        call,
        backend="scripted",
        model="m",
        family=call.agent,
        output=output,
        raw_text="{}",
        error=error,
        tokens_in=10,
        tokens_out=5,
    )


def _output(call: Call, state: RunState) -> st.SearchStrategy[dict[str, Any]]:
    mine = [a.id for a in state.attacks.values() if a.thread == THREAD]
    ids = st.sampled_from([*mine, f"{THREAD}-99", "C0-1"])
    text = st.sampled_from(["", "because", "see line 3"])
    if call.role == "critic":
        objection = st.fixed_dictionaries(
            {
                "severity": st.sampled_from(["critical", "major", "minor"]),
                "path": st.sampled_from(["app.py", "", "lib/x.py"]),
                "start_line": st.integers(0, 40),
                "end_line": st.integers(0, 40),
                "claim": st.sampled_from(["divides by zero", " ", "loses input"]),
                "evidence": text,
                "expected": text,
            }
        )
        judgement = st.fixed_dictionaries(
            {
                "objection_id": ids,
                "action": st.sampled_from(["accept", "withdraw", "re_attack"]),
                "reason": text,
            }
        )
        return st.fixed_dictionaries(
            {
                "topic": st.sampled_from(["silent fallbacks", TAKEN_TOPIC, "", "spec"]),
                "no_defect_found": st.booleans(),
                "objections": st.lists(objection, max_size=3),
                "judgements": st.lists(judgement, max_size=4),
            }
        )
    if call.role == "proposer":
        answer = st.fixed_dictionaries(
            {
                "objection_id": ids,
                "action": st.sampled_from(["fix", "concede", "defend"]),
                "text": text,
                "evidence": text,
            }
        )
        return st.fixed_dictionaries({"answers": st.lists(answer, max_size=4)})
    return st.just(ORACLE_REPORT)


@st.composite
def briefs(draw: st.DrawFn) -> ThreadBrief:
    author_mode = draw(st.booleans(), label="author mode")
    return ThreadBrief(
        name=THREAD,
        critic_spec="scripted:critic",
        critic=Identity("scripted", "m", "fam-critic"),
        proposer=None if author_mode else Identity("scripted", "m", "fam-author"),
        oracle=draw(st.booleans(), label="oracle"),
        spec=None,
        invariants=(),
        limits=Limits(
            max_rounds=draw(st.integers(1, 4), label="max rounds"),
            quiet_rounds=draw(st.integers(1, 2), label="quiet rounds"),
            malformed_limit=2,
        ),
    )


# --- the invariants ----------------------------------------------------------------------


def check_end(
    run: Run, brief: ThreadBrief, session: list[dict[str, Any]], answers: Answerer
) -> None:
    state = run.state
    thread = state.threads[THREAD]
    last = session[-1]
    assert last["kind"] == "thread_ended" and last["data"]["thread"] == THREAD
    reason = last["data"]["reason"]
    assert thread.ended == reason
    mine = [a for a in state.attacks.values() if a.thread == THREAD]

    # Every transition the planner wrote names who acted, and that actor's role.
    transitions = [e["data"] for e in session if e["kind"] == "attack_transition"]
    by_actor = {"critic": "critic", "proposer": "proposer", "engine": "engine"}
    for t in transitions:
        assert t["actor"] == by_actor.get(t["by"], "proposer"), t
    # A proposer's fix is recorded only with a commit that changed something and passed
    # every gate.
    for t in transitions:
        if t["action"] == "fix" and t["by"] == "proposer":
            assert t.get("commit") in answers.held, t

    if reason in PAUSES:
        # Only author mode pauses, and only after a critic turn that was usable.
        assert brief.proposer is None and reason == "awaiting_author"
        critic_calls = [
            e
            for e in session
            if e["kind"] in ("agent_call", "agent_failed") and e["data"].get("role") == "critic"
        ]
        assert critic_calls[-1]["kind"] == "agent_call"
        assert critic_calls[-1]["data"]["usable"] is True
    else:
        # Nothing is left open: every attack is resolved or stands as it ends.
        assert all(a.resolved or a.status in STANDING for a in mine), [
            (a.id, a.status) for a in mine
        ]
    # Deadlock is the round cap's, and only of a defence the critic never accepted
    # (machine.RULES: DEFENDED or RE_ATTACKED, defended at least once). The critic need not
    # have re-attacked: hypothesis found max_rounds=1, a defence, then a malformed critic
    # turn — the defence stands unjudged at the cap, which is a deadlock, not a resolution.
    for a in mine:
        if a.status is Status.DEADLOCKED:
            assert reason == "round_cap" and a.defended_count > 0
            assert not any(t["action"] in ("accept", "withdraw") for t in a.history), a.history
    # Rounds are numbered on, closed in order, and kept to the cap: round 1 raises, each
    # of the `max_rounds` after it follows one turn of the author. A later session past
    # the cap reviews once more (the author may have changed the code), no more.
    assert thread.closed_rounds == list(range(1, len(thread.closed_rounds) + 1))
    cap = max(brief.limits.max_rounds + 1, thread.session_base + 1)
    assert len(thread.closed_rounds) <= cap
    # The ledger's fold is the live state.
    replayed = fold(run.log)
    assert {a.id: (a.status, a.resolved) for a in replayed.attacks.values()} == {
        a.id: (a.status, a.resolved) for a in state.attacks.values()
    }
    assert replayed.threads[THREAD].ended == thread.ended


# No explain phase: replaying a whole thread per explanation takes minutes, not seconds.
_SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink),
)


@_SETTINGS
@given(brief=briefs(), data=st.data())
def test_any_replies_end_the_thread_with_the_protocol_kept(
    brief: ThreadBrief, data: st.DataObject
) -> None:
    run, answers = new_run(), Answerer(data)
    session = drive(AgentTurns(brief), run, answers)
    check_end(run, brief, session, answers)


@_SETTINGS
@given(brief=briefs(), data=st.data(), cut=st.integers(1, 60))
def test_a_thread_cut_anywhere_resumes_from_its_ledger(
    brief: ThreadBrief, data: st.DataObject, cut: int
) -> None:
    run, answers = new_run(), Answerer(data)
    drive(AgentTurns(brief), run, answers, stop_after=cut)
    new_session(run)
    session = drive(AgentTurns(brief), run, answers)
    check_end(run, brief, session, answers)
