"""The agent-thread planner (protocol/turns.py) driven through scripted threads (issue 18).

Each test scripts what the critic, the proposer, the oracle, the workspace and the gates
answer, drives the planner to its end with the pure driver of
tests/test_planner_properties.py, and asserts on what the planner did: the events it
wrote (what the ledger holds: exact), the requests it made, the prompt each agent got
(the facts it must carry, not its wording) and how the thread ended.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from contend.errors import ProtocolError
from contend.protocol import events as ev
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
from contend.protocol.state import RunState
from contend.protocol.termination import Limits
from contend.protocol.turns import AgentTurns, Identity, Memo, ThreadBrief
from test_planner_properties import ORACLE_REPORT, TAKEN_TOPIC, Run, drive, new_run, new_session

THREAD = "C1"
HEAD = "h" * 40  # the workspace's head before the proposer's turn
FIX = "f" * 40  # the commit of a fix


def brief(*, author: bool = False, oracle: bool = False, **limits: Any) -> ThreadBrief:
    return ThreadBrief(
        name=THREAD,
        critic_spec="scripted:critic",
        critic=Identity("scripted", "m", "fam-critic"),
        proposer=None if author else Identity("scripted", "m", "fam-author"),
        oracle=oracle,
        spec=None,
        invariants=(),
        limits=Limits(**{"max_rounds": 3, "quiet_rounds": 2, "malformed_limit": 2, **limits}),
    )


def objection(
    claim: str = "divides by zero",
    *,
    path: str = "app.py",
    start: int = 3,
    end: int = 5,
    evidence: str = "x / n",
    expected: str = "",
    severity: str = "major",
) -> dict[str, Any]:
    return {
        "severity": severity,
        "path": path,
        "start_line": start,
        "end_line": end,
        "claim": claim,
        "evidence": evidence,
        "expected": expected,
    }


def critic(
    *objections: dict[str, Any],
    judge: tuple[tuple[str, str], ...] = (),
    topic: str = "arithmetic",
) -> dict[str, Any]:
    return {
        "topic": topic,
        "no_defect_found": not objections,
        "objections": list(objections),
        "judgements": [
            {"objection_id": i, "action": action, "reason": f"{action} {i}"} for i, action in judge
        ],
    }


def answers(*answered: tuple[str, str]) -> dict[str, Any]:
    return {
        "answers": [
            {"objection_id": i, "action": action, "text": f"{action}s {i}", "evidence": ""}
            for i, action in answered
        ]
    }


class Cut(Exception):
    """The session is cut here (an interrupt between two requests)."""


class Script:
    """Answers each request from a script, one entry per call of each role; remembers
    every request. An entry "crash" is a crashed agent, "garbage" unparsable output, "cut"
    the session stopped before the agent answers."""

    def __init__(
        self,
        *,
        critic: list[Any] = (),  # type: ignore[assignment]
        proposer: list[Any] = (),  # type: ignore[assignment]
        oracle: list[Any] = (),  # type: ignore[assignment]
        commits: list[str | None] = (),  # type: ignore[assignment]
        gates: list[tuple[dict[str, Any], ...]] = (),  # type: ignore[assignment]
        cost: float = 0.0,  # USD each agent call reports
    ) -> None:
        self.cost = cost
        self.queues = {"critic": list(critic), "proposer": list(proposer), "oracle": list(oracle)}
        self.commits = list(commits)
        self.gates = list(gates)
        self.requests: list[Request] = []

    def calls(self, role: str) -> list[Call]:
        return [r for r in self.requests if isinstance(r, Call) and r.role == role]

    def __call__(self, request: Request, state: RunState) -> Reply:
        self.requests.append(request)
        if isinstance(request, Call):
            out = self.queues[request.role].pop(0)
            if out == "cut":
                raise Cut
            if out == "crash":
                return Failed(
                    request, backend="scripted", model="m", error="boom", failure="crashed"
                )
            return Answered(
                request,
                backend="scripted",
                model="m",
                family=request.role,
                output=None if out == "garbage" else out,
                raw_text=json.dumps(out),
                error="not JSON" if out == "garbage" else None,
                tokens_in=10,
                tokens_out=5,
                cost=self.cost,
            )
        if isinstance(request, ReadDiff):
            return Read(request, "diff --git a/app.py b/app.py\n+x = 1\n")
        if isinstance(request, ReadHead):
            return Read(request, HEAD)
        if isinstance(request, CommitFix):
            return Committed(request, self.commits.pop(0))
        if isinstance(request, RunGates):
            return GatesRan(request, self.gates.pop(0))
        return Done(request)


def run_thread(b: ThreadBrief, script: Script, run: Run | None = None) -> tuple[Run, list[Any]]:
    run = run or new_run()
    session = drive(AgentTurns(b), run, script)
    return run, session


def of(session: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e["data"] for e in session if e["kind"] == kind]


def moves(session: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [(t["attack"], t["action"], t["by"]) for t in of(session, "attack_transition")]


def ended(session: list[dict[str, Any]]) -> str:
    (end,) = of(session, "thread_ended")
    return str(end["reason"])


def violations(session: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(v["role"], v["detail"]) for v in of(session, "protocol_violation")]


# --- the thread's start and its rounds -------------------------------------------------


def test_a_thread_starts_then_opens_round_one_before_the_critic_reads_the_change() -> None:
    planner, run = AgentTurns(brief()), new_run()
    first = planner.plan(run.state, None)
    (started,) = first.events
    assert started["kind"] == "thread_started"
    assert started["data"]["same_family_as_proposer"] is False
    assert isinstance(first.request, Continue)
    run.append(started)
    second = planner.plan(run.state, Done(first.request))
    assert [(e["kind"], e["data"]["round"]) for e in second.events] == [("round_started", 1)]
    assert isinstance(second.request, ReadDiff)


def test_a_critic_that_keeps_declaring_a_taken_topic_is_asked_three_times_then_fails() -> None:
    """Two retries, each told which axis was refused; then a violation and a malformed
    failure end the round (in author mode, the thread)."""
    script = Script(critic=[critic(objection(), topic=TAKEN_TOPIC)] * 3)
    _, session = run_thread(brief(author=True), script)
    prompts = [c.prompt for c in script.calls("critic")]
    assert len(prompts) == 3
    assert repr(TAKEN_TOPIC) not in prompts[0]
    assert all(repr(TAKEN_TOPIC) in p for p in prompts[1:])
    assert all(c.round == 1 for c in script.calls("critic"))
    assert len(of(session, "topic_rejected")) == 3
    assert of(session, "attack_raised") == []
    assert violations(session) == [("critic", "topic still duplicated after 2 retries")]
    (failed,) = of(session, "agent_failed")
    assert (failed["role"], failed["error"], failed["failure"], failed["round"]) == (
        "critic",
        "no distinct topic",
        "malformed",
        1,
    )
    assert ended(session) == "malformed_output"


def test_a_taken_topic_declared_once_is_retried_and_the_second_axis_holds() -> None:
    script = Script(critic=[critic(topic=TAKEN_TOPIC), critic(objection(), topic="units")])
    run, session = run_thread(brief(author=True), script)
    assert len(script.calls("critic")) == 2
    assert of(session, "topic_declared") == [{"thread": THREAD, "topic": "units"}]
    assert run.state.attacks["C1-1"].topic == "units"
    assert ended(session) == "awaiting_author"


def test_the_run_token_cap_counts_output_tokens() -> None:
    """One critic call spends 10 tokens in and 5 out: a run cap of 15 is reached."""
    script = Script(critic=[critic(objection())])
    _, session = run_thread(brief(max_run_tokens=15), script)
    assert len(script.calls("critic")) == 1
    assert ended(session) == "cost_cap"


# --- what the critic raises ------------------------------------------------------------


def test_an_objection_without_a_location_is_dropped_and_counted_and_the_rest_numbered_on() -> None:
    script = Script(
        critic=[
            critic(
                objection("no path", path="  "),
                objection("loses input", expected=" add a guard "),
                objection("off by one", start=7, end=2),
            )
        ]
    )
    run, session = run_thread(brief(author=True), script)
    raised = of(session, "attack_raised")
    assert [a["id"] for a in raised] == ["C1-1", "C1-2"]
    assert [a["claim"] for a in raised] == ["loses input", "off by one"]
    assert {a["rule"] for a in raised} == {"objection"}
    assert raised[0]["ways_out"] == [
        "fix it: add a guard",
        "or answer with evidence: `contend respond C1-1 --defend TEXT` "
        "(a test, a line, a spec clause)",
    ]
    assert raised[1]["ways_out"][0] == "fix it"
    assert raised[1]["location"]["end_line"] == 7  # never before its start
    assert of(session, "attack_dropped") == [
        {"thread": THREAD, "count": 1, "reason": "objection without a location or evidence"}
    ]
    assert run.state.attacks["C1-2"].raised_round == 1


# --- the critic's prompts --------------------------------------------------------------


def test_the_critic_of_a_later_round_is_told_its_objections_and_every_answer() -> None:
    """A critic that is not told what it objected and what the author answered cannot
    press or withdraw: round 2's prompt carries each objection, its place, its status and
    every answer with its evidence, each on its own line."""
    defend = answers(("C1-1", "defend"), ("C1-2", "concede"))
    defend["answers"][0]["evidence"] = "tests/test_app.py::test_zero"
    script = Script(
        critic=[
            critic(objection("divides by zero"), objection("loses input", start=9, end=9)),
            critic(judge=(("C1-1", "accept"), ("C1-2", "accept"))),
        ],
        proposer=[defend],
    )
    _, session = run_thread(brief(max_rounds=1), script)
    first, second = (c.prompt for c in script.calls("critic"))
    assert "divides by zero" not in first
    assert "## Your axis\narithmetic" in second
    lines = second.splitlines()
    assert "### C1-1 [major] app.py:3-5 — status: defended" in lines
    assert "### C1-2 [major] app.py:9-9 — status: conceded" in lines
    assert "divides by zero" in lines and "loses input" in lines
    assert "- proposer: defend: defends C1-1" in lines
    assert "- proposer: concede: concedes C1-2" in lines
    assert "tests/test_app.py::test_zero" in lines
    # The evidence follows its own answer, fenced; the other answer has none.
    assert lines.index("tests/test_app.py::test_zero") > lines.index(
        "- proposer: defend: defends C1-1"
    )
    assert second.count("```") == second.count("```", 0, second.index("## Your axis")) + 2
    assert lines.index("### C1-2 [major] app.py:9-9 — status: conceded") > lines.index(
        "tests/test_app.py::test_zero"
    )
    assert moves(session)[-2:] == [("C1-1", "accept", "critic"), ("C1-2", "accept", "critic")]


def test_a_critic_after_a_round_without_objections_is_told_there_are_none() -> None:
    script = Script(critic=[critic(), critic(), critic()])
    _, session = run_thread(brief(max_rounds=1), script)
    second = script.calls("critic")[1].prompt
    exchange = second.split("## The exchange so far on your objections\n", 1)[1]
    assert exchange.split("\n\n", 1)[0] == "(no objections yet)"
    assert ended(session) in ("steady_state", "round_cap")


def test_a_resumed_thread_whose_critic_fails_asks_the_proposer_from_the_ledger() -> None:
    """The critic's verbatim reply lives only in the session that got it: in a later
    session whose critic crashed, the proposer is asked from the exchange in the ledger."""
    run = new_run()
    first = Script(critic=[critic(objection("divides by zero"))], proposer=["cut"])
    with pytest.raises(Cut):  # the session stops before the proposer answers
        drive(AgentTurns(brief()), run, first)
    assert run.state.threads[THREAD].closed_rounds == [1]
    new_session(run)
    script = Script(critic=["crash", critic()], proposer=[answers(("C1-1", "concede"))])
    session = drive(AgentTurns(brief(max_rounds=2)), run, script)
    (asked,) = script.calls("proposer")
    lines = asked.prompt.splitlines()
    assert "### C1-1 [major] app.py:3-5 — status: open" in lines
    assert "divides by zero" in lines
    assert "- C1-1: app.py:3 divides by zero" in lines
    assert ("C1-1", "concede", "proposer") in moves(session)


def test_the_proposer_gets_the_critics_words_and_only_the_ids_awaiting_an_answer() -> None:
    script = Script(
        critic=[
            critic(objection("divides by zero"), objection("loses input", start=9, end=9)),
            # C1-1's defence is left unjudged; C1-2 is pressed again.
            critic(judge=(("C1-2", "re_attack"),)),
            critic(),
        ],
        proposer=[answers(("C1-1", "defend"), ("C1-2", "defend")), answers()],
    )
    run_thread(brief(max_rounds=2), script)
    first, second = (c.prompt for c in script.calls("proposer"))
    assert first.startswith(
        json.dumps(critic(objection("divides by zero"), objection("loses input", start=9, end=9)))
    )
    ids = first.split("Objection ids to answer:\n", 1)[1].splitlines()
    assert ids == ["- C1-1: app.py:3 divides by zero", "- C1-2: app.py:9 loses input"]
    assert second.split("Objection ids to answer:\n", 1)[1].splitlines() == [
        "- C1-2: app.py:9 loses input"
    ]


def test_no_proposer_turn_when_nothing_awaits_an_answer() -> None:
    """A defence the critic left unjudged and a withdrawn objection await no answer: the
    next round is the critic's again."""
    script = Script(
        critic=[
            critic(objection("divides by zero"), objection("loses input")),
            critic(judge=(("C1-2", "withdraw"),)),
            critic(),
        ],
        proposer=[answers(("C1-1", "defend"), ("C1-2", "defend"))],
    )
    run_thread(brief(max_rounds=2), script)
    assert len(script.calls("proposer")) == 1
    assert [c.round for c in script.calls("critic")] == [1, 2, 3]


# --- the critic's judgements -----------------------------------------------------------


def test_judgements_on_unknown_resolved_and_unanswered_objections() -> None:
    script = Script(
        critic=[
            critic(objection("a"), objection("b"), objection("c"), objection("d")),
            critic(
                judge=(
                    ("C1-9", "accept"),  # no such objection
                    ("C1-1", "accept"),  # defended, then accepted ...
                    ("C1-1", "withdraw"),  # ... so already resolved
                    ("C1-2", "withdraw"),  # unanswered: a critic may withdraw it
                    ("C1-3", "accept"),  # unanswered: nothing to accept
                    ("C1-4", "re_attack"),  # unanswered: it simply stands
                )
            ),
            critic(judge=(("C1-2", "accept"),)),
        ],
        proposer=[answers(("C1-1", "defend")), answers()],
    )
    run, session = run_thread(brief(max_rounds=2), script)
    assert violations(session) == [
        ("critic", "judgement names unknown objection 'C1-9'"),
        ("critic", "judgement on resolved objection C1-1"),
        ("critic", "accept of unanswered objection C1-3"),
        ("critic", "judgement on resolved objection C1-2"),
    ]
    assert moves(session)[:3] == [
        ("C1-1", "defend", "proposer"),
        ("C1-1", "accept", "critic"),
        ("C1-2", "withdraw", "critic"),
    ]
    assert not any(m[0] == "C1-4" and m[1] == "re_attack" for m in moves(session))
    assert run.state.attacks["C1-1"].status.value == "accepted"
    assert run.state.attacks["C1-2"].status.value == "withdrawn"


def test_in_author_mode_an_accept_of_an_unanswered_objection_is_the_authors_fix() -> None:
    """Between two reviews the author changes the code; the critic seeing it fixed
    accepts: the ledger says the author fixed it and the critic accepted the fix."""
    run = new_run()
    _, first = run_thread(brief(author=True), Script(critic=[critic(objection())]), run)
    assert ended(first) == "awaiting_author"
    new_session(run)
    script = Script(critic=[critic(judge=(("C1-1", "accept"),))])
    _, session = run_thread(brief(author=True), script, run)
    transitions = of(session, "attack_transition")
    assert [(t["action"], t["by"], t["actor"], t["text"]) for t in transitions] == [
        ("fix", "author", "proposer", "changed the code between reviews"),
        ("accept", "critic", "critic", "accept C1-1"),
    ]
    assert violations(session) == []
    assert run.state.attacks["C1-1"].resolved


# --- the proposer's turn ---------------------------------------------------------------


def test_a_defence_and_a_concession_commit_nothing() -> None:
    script = Script(
        critic=[critic(objection("a"), objection("b")), critic(judge=(("C1-1", "accept"),))],
        proposer=[answers(("C1-1", "defend"), ("C1-2", "concede"))],
    )
    _, session = run_thread(brief(max_rounds=1), script)
    assert not any(isinstance(r, CommitFix | RunGates) for r in script.requests)
    answered = [t for t in of(session, "attack_transition") if t["by"] == "proposer"]
    assert [(t["attack"], t["action"], t["text"]) for t in answered] == [
        ("C1-1", "defend", "defends C1-1"),
        ("C1-2", "concede", "concedes C1-2"),
    ]
    assert all("commit" not in t for t in answered)


def test_a_fix_that_passes_the_gates_is_recorded_with_its_commit() -> None:
    script = Script(
        critic=[critic(objection("a"), objection("b")), critic(judge=(("C1-1", "accept"),))],
        proposer=[answers(("C1-1", "fix"), ("C1-2", "defend"))],
        commits=[FIX],
        gates=[(ev.gate_ran(name="tests", ok=True)["data"],)],
    )
    run, session = run_thread(brief(max_rounds=1), script)
    (commit,) = [r for r in script.requests if isinstance(r, CommitFix)]
    assert commit.message == "contend: fix C1-1 (C1)"
    (gates,) = [r for r in script.requests if isinstance(r, RunGates)]
    assert gates.when == "after-fix"
    assert [(g["name"], g["ok"], g["thread"]) for g in of(session, "gate_ran")] == [
        ("tests", True, THREAD)
    ]
    answered = [t for t in of(session, "attack_transition") if t["by"] == "proposer"]
    assert [(t["attack"], t["action"], t["actor"], t.get("commit")) for t in answered] == [
        ("C1-1", "fix", "proposer", FIX),
        ("C1-2", "defend", "proposer", None),
    ]
    assert not any(isinstance(r, ResetTo) for r in script.requests)
    assert run.state.attacks["C1-1"].resolved


@pytest.mark.parametrize(
    "gate",
    [
        pytest.param({"name": "tests", "ok": False}, id="failed"),
        pytest.param({"name": "tests"}, id="without-ok"),
    ],
)
def test_a_fix_that_breaks_a_gate_is_reverted_and_not_recorded(gate: dict[str, Any]) -> None:
    script = Script(
        critic=[critic(objection("a"), objection("b")), critic()],
        proposer=[answers(("C1-1", "fix"), ("C1-2", "defend"))],
        commits=[FIX],
        gates=[(gate,)],
    )
    run, session = run_thread(brief(max_rounds=1), script)
    (reset,) = [r for r in script.requests if isinstance(r, ResetTo)]
    assert reset.commit == HEAD
    assert ("proposer", f"fix {FIX[:12]} broke a gate; reverted") in violations(session)
    answered = [(t["attack"], t["action"]) for t in of(session, "attack_transition")]
    assert ("C1-1", "fix") not in answered
    assert ("C1-2", "defend") in answered
    assert not run.state.attacks["C1-1"].resolved


def test_a_fix_that_changed_nothing_is_a_violation_and_the_other_answers_stand() -> None:
    script = Script(
        critic=[critic(objection("a"), objection("b"), objection("c")), critic()],
        proposer=[answers(("C1-1", "fix"), ("C1-2", "fix"), ("C1-3", "defend"))],
        commits=[None],
    )
    _, session = run_thread(brief(max_rounds=1), script)
    (commit,) = [r for r in script.requests if isinstance(r, CommitFix)]
    assert commit.message == "contend: fix C1-1, C1-2 (C1)"
    assert not any(isinstance(r, RunGates) for r in script.requests)
    assert ("proposer", "claimed a fix of C1-1, C1-2 but changed nothing") in violations(session)
    answered = [(t["attack"], t["action"]) for t in of(session, "attack_transition")]
    assert ("C1-1", "fix") not in answered and ("C1-2", "fix") not in answered
    assert ("C1-3", "defend") in answered


def test_an_unusable_proposer_reply_undoes_its_changes_and_ends_its_turn_quietly() -> None:
    script = Script(
        critic=[critic(objection("a")), critic(), critic()],
        proposer=["garbage", answers(("C1-1", "concede"))],
    )
    _, session = run_thread(brief(max_rounds=2), script)
    resets = [r for r in script.requests if isinstance(r, ResetTo)]
    assert [r.commit for r in resets] == [HEAD]
    assert violations(session) == []  # nothing was reverted for breaking a gate
    assert [c.round for c in script.calls("proposer")] == [1, 2]
    assert [c.round for c in script.calls("critic")] == [1, 2, 3]


def test_an_answer_to_an_objection_not_awaiting_one_is_a_violation() -> None:
    script = Script(
        critic=[critic(objection("a")), critic()],
        proposer=[answers(("C1-9", "fix"), ("C1-1", "defend"))],
    )
    _, session = run_thread(brief(max_rounds=1), script)
    assert not any(isinstance(r, CommitFix) for r in script.requests)
    assert violations(session) == [("proposer", "answer names 'C1-9', not awaiting answer")]
    assert ("C1-1", "defend", "proposer") in moves(session)


# --- the end of the thread -------------------------------------------------------------


def test_a_defence_pressed_until_the_cap_deadlocks_and_the_rest_is_left_unresolved() -> None:
    script = Script(
        critic=[
            critic(objection("a"), objection("b")),
            critic(judge=(("C1-1", "re_attack"),)),
        ],
        proposer=[answers(("C1-1", "defend"))],
    )
    run, session = run_thread(brief(max_rounds=1), script)
    engine = [
        (t["attack"], t["action"], t["actor"], t["text"])
        for t in of(session, "attack_transition")
        if t["by"] == "engine"
    ]
    assert engine == [
        ("C1-1", "deadlock", "engine", "defended and re-attacked until the cap"),
        ("C1-2", "mark_unresolved", "engine", "thread ended: round_cap"),
    ]
    assert run.state.attacks["C1-1"].status.value == "deadlocked"
    assert ended(session) == "round_cap"


def test_the_oracle_reports_on_a_deadlock_reading_its_whole_history() -> None:
    script = Script(
        critic=[critic(objection("a")), critic(judge=(("C1-1", "re_attack"),))],
        proposer=[answers(("C1-1", "defend"))],
        oracle=[ORACLE_REPORT],
    )
    _, session = run_thread(brief(max_rounds=1, oracle=True), script)
    (asked,) = script.calls("oracle")
    lines = asked.prompt.splitlines()
    assert "- proposer: defend: defends C1-1" in lines
    assert "- critic: re_attack: re_attack C1-1" in lines
    assert "- engine: deadlock: defended and re-attacked until the cap" in lines
    (report,) = of(session, "deadlock_report")
    assert report["attack"] == "C1-1"
    assert ended(session) == "round_cap"


# --- replies the planner did not ask for -----------------------------------------------


def _at(planner: AgentTurns, run: Run, script: Script, kind: type) -> Request:
    """Drive until the planner makes a request of `kind`; return it unanswered."""
    reply: Reply | None = None
    for _ in range(100):
        step = planner.plan(run.state, reply)
        for event in step.events:
            run.append(event)
        assert step.request is not None
        if isinstance(step.request, kind):
            return step.request
        reply = script(step.request, run.state)
    raise AssertionError(f"no {kind.__name__} request")


def test_a_reply_to_a_request_the_planner_did_not_make_is_a_protocol_error() -> None:
    planner, run = AgentTurns(brief()), new_run()
    planner.plan(run.state, None)
    with pytest.raises(ProtocolError, match="did not make"):
        planner.plan(run.state, Done(Continue(memo="not a memo")))


def test_a_critic_turn_answered_with_a_commit_is_a_protocol_error() -> None:
    planner, run = AgentTurns(brief()), new_run()
    call = _at(planner, run, Script(), Call)
    assert isinstance(call, Call) and isinstance(call.memo, Memo)
    with pytest.raises(ProtocolError, match="unexpected Done"):
        planner.plan(run.state, Done(Continue(call.memo)))


def test_a_proposer_turn_answered_with_a_plain_done_is_a_protocol_error() -> None:
    planner, run = AgentTurns(brief()), new_run()
    script = Script(critic=[critic(objection())])
    head = _at(planner, run, script, ReadHead)
    with pytest.raises(ProtocolError, match="unexpected Done"):
        planner.plan(run.state, Done(Continue(head.memo)))


def test_an_oracle_turn_answered_with_a_commit_is_a_protocol_error() -> None:
    planner, run = AgentTurns(brief(max_rounds=1, oracle=True)), new_run()
    script = Script(
        critic=[critic(objection("a")), critic(judge=(("C1-1", "re_attack"),))],
        proposer=[answers(("C1-1", "defend"))],
    )
    oracle = _oracle_call(planner, run, script)
    with pytest.raises(ProtocolError, match="unexpected Committed"):
        planner.plan(run.state, Committed(CommitFix("m", oracle.memo), None))


def _oracle_call(planner: AgentTurns, run: Run, script: Script) -> Call:
    reply: Reply | None = None
    for _ in range(100):
        step = planner.plan(run.state, reply)
        for event in step.events:
            run.append(event)
        request = step.request
        assert request is not None
        if isinstance(request, Call) and request.role == "oracle":
            return request
        reply = script(request, run.state)
    raise AssertionError("no oracle call")


def test_an_answer_recorded_without_evidence_adds_no_evidence_block() -> None:
    """A ledger may hold a transition with no `evidence` key (a person's decision written
    by an older contend): the critic is told the decision, and no empty evidence block."""
    run = new_run()
    run_thread(brief(author=True), Script(critic=[critic(objection())]), run)
    run.append(
        {
            "kind": "attack_transition",
            "data": {
                "attack": "C1-1",
                "action": "uphold",
                "by": "human",
                "actor": "human",
                "text": "it stands",
            },
        }
    )
    new_session(run)
    script = Script(critic=[critic()])
    run_thread(brief(author=True), script, run)
    (prompt,) = (c.prompt for c in script.calls("critic"))
    exchange = prompt.split("## The exchange so far on your objections\n", 1)[1]
    lines = exchange.splitlines()
    assert "- human: uphold: it stands" in lines
    assert "```" not in exchange.split("\n\n", 1)[0]
