"""The fold (protocol/state.py): what each event does to the run's state, and which
ledgers it refuses. Unknown or out-of-order events are protocol errors, never skipped."""

from __future__ import annotations

from typing import Any

import pytest

from contend.errors import IllegalTransition, ProtocolError
from contend.protocol import events as ev
from contend.protocol.events import EventKind
from contend.protocol.model import Action, Location, Severity, Status
from contend.protocol.state import Reducer, RunState, ThreadState, fold
from protocol_helpers import RunBuilder, make_attack

# -- threads and rounds ---------------------------------------------------------------


def test_thread_started_records_who_reviews() -> None:
    run = RunBuilder()
    run.add(
        EventKind.THREAD_STARTED,
        thread="C1",
        critic="codex:gpt",
        family="openai",
        model="gpt",
        backend="codex",
        same_family_as_proposer=True,
    )
    run.add(EventKind.THREAD_STARTED, thread="C2", critic="static")
    one, two = run.state.threads["C1"], run.state.threads["C2"]
    assert (one.name, one.critic, one.family, one.model, one.backend) == (
        "C1",
        "codex:gpt",
        "openai",
        "gpt",
        "codex",
    )
    assert one.same_family_as_proposer is True
    assert (two.family, two.model, two.backend, two.same_family_as_proposer) == (
        "",
        "",
        "",
        False,
    )
    assert (one.ended, one.round, one.failures, one.usable_outputs) == (None, 0, 0, 0)


def test_a_thread_started_again_is_live_again_and_keeps_its_history() -> None:
    run = RunBuilder().thread()
    run.critic_round(raises=("A1",))
    run.critic_round(outcome="crashed")
    run.end("t", "awaiting_author")
    run.add(EventKind.THREAD_STARTED, thread="t", critic="other", family="other")
    thread = run.thread_state()
    assert thread.ended is None
    assert thread.malformed_streak == 0
    assert (thread.critic, thread.family, thread.round, thread.failures) == (
        "critic-t",
        "fam-a",
        2,
        1,
    )


def test_rounds_must_start_in_order() -> None:
    run = RunBuilder().thread()
    run.add(EventKind.ROUND_STARTED, thread="t", round=2)
    with pytest.raises(ProtocolError, match="round 2 started after round 2"):
        run.add(EventKind.ROUND_STARTED, thread="t", round=2)
    with pytest.raises(ProtocolError, match="round 1 started after round 2"):
        run.add(EventKind.ROUND_STARTED, thread="t", round=1)
    run.add(EventKind.ROUND_STARTED, thread="t", round=3)
    assert run.thread_state().round == 3


def test_a_round_closed_twice_is_refused() -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.close_round()
    with pytest.raises(ProtocolError, match="round 1 closed out of order"):
        run.close_round()
    assert run.thread_state().closed_rounds == [1]


def test_only_the_open_round_can_be_closed() -> None:
    run = RunBuilder().thread()
    run.open_round()
    with pytest.raises(ProtocolError, match="round 2 closed out of order"):
        run.add(EventKind.ROUND_CLOSED, thread="t", round=2)
    with pytest.raises(ProtocolError, match="round 0 closed out of order"):
        run.add(EventKind.ROUND_CLOSED, thread="t", round=0)
    run.close_round()
    run.open_round()
    run.close_round()
    assert run.thread_state().closed_rounds == [1, 2]


def test_round_tallies_count_new_attacks_and_re_attacks_per_round() -> None:
    run = RunBuilder().thread()
    run.critic_round(raises=("A1", "A2"))
    run.act("A1", Action.DEFEND)
    run.act("A2", Action.FIX)
    run.critic_round(raises=("A3",), re_attacks=("A1", "A2"))
    tallies = {
        rnd: (t.new_attacks, t.re_attacks, t.critic_outputs, t.critic_failures)
        for rnd, t in run.thread_state().rounds.items()
    }
    assert tallies == {1: (2, 0, 1, 0), 2: (1, 2, 1, 0)}
    run.critic_round(outcome="crashed")
    run.critic_round(outcome="malformed")
    run.open_round()
    run.add(EventKind.AGENT_FAILED, thread="t", role="proposer")
    run.critic_output()
    run.critic_output()
    run.add(EventKind.AGENT_FAILED, thread="t")
    rounds = run.thread_state().rounds
    assert [(rounds[r].critic_outputs, rounds[r].critic_failures) for r in (3, 4, 5)] == [
        (0, 1),
        (0, 1),
        (2, 1),
    ]


# -- agent calls and failures ---------------------------------------------------------


def test_agent_calls_add_up_spend() -> None:
    run = RunBuilder().thread()
    run.open_round()
    for _ in range(2):
        run.add(
            EventKind.AGENT_CALL,
            thread="t",
            role="critic",
            tokens_in=100,
            tokens_out=20,
            cost=0.25,
            bytes_sent=1000,
        )
    run.add(EventKind.AGENT_CALL, thread="t", role="critic")
    thread = run.thread_state()
    assert (thread.calls, thread.tokens_in, thread.tokens_out, thread.bytes_sent) == (
        3,
        200,
        40,
        2000,
    )
    assert thread.cost == pytest.approx(0.5)
    assert thread.usable_outputs == 3, "an agent_call is usable unless it says otherwise"
    run.thread("u")
    run.add(EventKind.AGENT_CALL, thread="u", tokens_in=7, tokens_out=3, cost=1.0)
    assert (run.state.tokens_in, run.state.tokens_out) == (207, 43)
    assert run.state.cost == pytest.approx(1.5)


def test_an_unusable_output_counts_as_a_call_but_not_as_output() -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.critic_failure(how="malformed")
    thread = run.thread_state()
    assert (thread.calls, thread.usable_outputs, thread.failures) == (1, 0, 1)
    assert thread.malformed_streak == 1


def test_the_malformed_streak_counts_consecutive_critic_failures() -> None:
    run = RunBuilder().thread()
    run.critic_round(outcome="crashed")
    run.critic_round(outcome="malformed")
    assert run.thread_state().malformed_streak == 2
    run.critic_round()
    assert run.thread_state().malformed_streak == 0, "a usable critic output resets it"
    run.critic_round(outcome="crashed")
    assert run.thread_state().malformed_streak == 1


def test_the_proposer_neither_breaks_nor_extends_the_critic_streak() -> None:
    run = RunBuilder().thread()
    run.critic_round(outcome="crashed")
    run.add(EventKind.AGENT_CALL, thread="t", role="proposer", round=1)
    assert run.thread_state().malformed_streak == 1
    run.add(EventKind.AGENT_FAILED, thread="t", role="proposer", round=1)
    thread = run.thread_state()
    assert thread.malformed_streak == 1
    assert thread.failures == 2
    assert thread.usable_outputs == 1
    assert thread.proposer_rounds == [1, 1]


def test_proposer_rounds_are_the_rounds_the_proposer_answered_in() -> None:
    run = RunBuilder().thread()
    for _ in range(3):
        run.open_round()
    run.add(EventKind.AGENT_CALL, thread="t", role="proposer", round=1)
    run.add(EventKind.AGENT_FAILED, thread="t", role="proposer", round=2)
    assert run.thread_state().proposer_rounds == [1, 2]


def test_proposer_rounds_default_to_the_current_round() -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.open_round()
    run.add(EventKind.AGENT_CALL, thread="t", role="proposer")
    run.add(EventKind.AGENT_FAILED, thread="t", role="proposer")
    run.add(EventKind.AGENT_CALL, thread="t", role="critic")
    assert run.thread_state().proposer_rounds == [2, 2]


def test_a_failure_without_a_role_is_the_critic_s() -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.add(EventKind.AGENT_FAILED, thread="t")
    run.add(EventKind.AGENT_FAILED, thread="t")
    assert run.thread_state().malformed_streak == 2
    run.add(EventKind.AGENT_CALL, thread="t")
    assert run.thread_state().malformed_streak == 0


@pytest.mark.parametrize(
    ("ended", "failed"),
    [
        ("malformed_output", True),
        ("crashed", True),
        ("steady_state", False),
        ("interrupt", False),
        (None, False),
    ],
)
def test_a_thread_failed_only_when_it_ended_on_its_output(ended: str | None, failed: bool) -> None:
    run = RunBuilder().thread()
    run.critic_round()  # one usable output first: a failure after it is still a failure
    if ended is not None:
        run.end("t", ended)
    assert run.thread_state().failed is failed


def test_families_count_only_threads_with_usable_output() -> None:
    run = RunBuilder().thread("a", family="f1").thread("b", family="f2").thread("c", family="f1")
    run.critic_round("a")
    run.critic_round("c")
    run.critic_round("b", outcome="crashed")
    assert run.state.families() == {"f1"}


# -- run-level events -----------------------------------------------------------------


def test_run_interrupted_and_resumed() -> None:
    run = RunBuilder()
    assert run.state.interrupted is False
    run.add(EventKind.RUN_INTERRUPTED)
    assert run.state.interrupted is True
    run.add(EventKind.RUN_RESUMED)
    assert run.state.interrupted is False


def test_a_new_session_forgets_the_last_session_s_gates_and_skips() -> None:
    run = RunBuilder()
    run.add(EventKind.SPEC_LOADED, source="file", text="do it")
    run.add(EventKind.GATE_RAN, name="pytest", ok=False)
    run.add(EventKind.FILE_SKIPPED, path="big.bin", reason="binary")
    run.add(EventKind.RUN_FINISHED, verdict="fail", wall_s=1.5)
    assert run.state.finished == {"verdict": "fail", "wall_s": 1.5}
    assert len(run.state.gates) == 1 and len(run.state.skipped) == 1
    run.add(EventKind.RUN_STARTED, run_id="r1", artifact={"kind": "change", "head": "abc"})
    state = run.state
    assert (state.gates, state.skipped, state.finished, state.sessions) == ([], [], None, 2)
    assert state.run_id == "r1"
    assert state.artifact == {"kind": "change", "head": "abc"}
    assert state.spec == {"source": "file", "text": "do it"}


def test_run_started_without_a_run_id_keeps_the_one_it_had() -> None:
    run = RunBuilder()
    run.add(EventKind.RUN_STARTED)
    assert (run.state.run_id, run.state.artifact) == ("r1", {})


def test_records_are_kept_as_given() -> None:
    run = RunBuilder().thread()
    run.add(EventKind.TOPIC_DECLARED, thread="t", topic="security")
    run.add(EventKind.TOPIC_REJECTED, thread="t", topic="sec", duplicates="security")
    run.add(EventKind.DEADLOCK_REPORT, attack="A1", cause="interpretation")
    run.add(EventKind.MERGE, ok=False, conflicts=["app.py"])
    run.add(EventKind.PROTOCOL_VIOLATION, thread="t", detail="unknown id C9")
    run.add(EventKind.PROTOCOL_VIOLATION, thread="t")
    run.add(EventKind.ATTACK_DROPPED, thread="t", count=3)
    run.add(EventKind.ATTACK_DROPPED, thread="t")
    state = run.state
    assert state.threads["t"].topic == "security"
    assert state.topic_rejections == [{"thread": "t", "topic": "sec", "duplicates": "security"}]
    assert state.deadlock_reports == [{"attack": "A1", "cause": "interpretation"}]
    assert state.merges == [{"ok": False, "conflicts": ["app.py"]}]
    assert state.threads["t"].violations == ["unknown id C9", ""]
    assert state.threads["t"].dropped_attacks == 4


def test_events_and_sequence_numbers_are_counted() -> None:
    reducer = Reducer()
    reducer.apply(ev.event(EventKind.RUN_STARTED, run_id="r"))
    reducer.apply(ev.event(EventKind.RUN_INTERRUPTED))
    assert (reducer.state.events, reducer.state.last_seq) == (2, 1)
    reducer.apply({**ev.event(EventKind.RUN_RESUMED), "seq": 10})
    assert (reducer.state.events, reducer.state.last_seq) == (3, 10)
    reducer.apply({"kind": "run_interrupted"})  # no data at all
    assert reducer.state.last_seq == 11
    assert reducer.state.interrupted is True


def test_fold_gives_the_state_of_applying_each_event() -> None:
    run = RunBuilder().thread()
    run.critic_round(raises=("A1",))
    run.act("A1", Action.DEFEND)
    folded = fold(run.log)
    assert folded.events == len(run.log)
    assert folded.attacks["A1"].status is Status.DEFENDED
    assert folded.threads["t"].closed_rounds == [1]


# -- attacks --------------------------------------------------------------------------


def test_an_attack_is_folded_with_everything_it_was_raised_with() -> None:
    run = RunBuilder().thread()
    run.open_round()
    raised = make_attack(
        "A1",
        severity=Severity.CRITICAL,
        rule="SF001",
        fingerprint="fp1",
        ways_out=("fix it", "waive it"),
    )
    run.emit(ev.attack_raised(raised))
    attack = run.state.attacks["A1"]
    for name in (
        "id",
        "thread",
        "critic",
        "family",
        "topic",
        "rule",
        "severity",
        "location",
        "claim",
        "evidence",
        "raised_round",
        "fingerprint",
        "ways_out",
    ):
        assert getattr(attack, name) == getattr(raised, name), name
    assert attack.raised_seq == len(run.log) - 1
    assert (attack.status, attack.resolved, attack.re_attacked) == (Status.OPEN, False, False)


def test_an_attack_event_from_an_older_ledger_gets_defaults() -> None:
    run = RunBuilder().thread()
    run.open_round()
    data = ev.attack_raised(make_attack("A1"))["data"]
    for optional in ("rule", "fingerprint", "ways_out"):
        del data[optional]
    run.add(EventKind.ATTACK_RAISED, **data)
    attack = run.state.attacks["A1"]
    assert (attack.rule, attack.fingerprint, attack.ways_out) == ("", None, ())


def test_an_attack_raised_twice_is_refused() -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.raise_attack("A1")
    with pytest.raises(ProtocolError, match="A1 raised twice"):
        run.raise_attack("A1")


@pytest.mark.parametrize(
    "broken",
    [
        {"severity": "catastrophic"},
        {"location": {"path": "a.py"}},
        {"round": "one"},
        {"location": None},
    ],
)
def test_a_malformed_attack_is_a_protocol_error(broken: dict[str, Any]) -> None:
    run = RunBuilder().thread()
    run.open_round()
    data = {**ev.attack_raised(make_attack("A1"))["data"], **broken}
    with pytest.raises(ProtocolError, match="malformed attack_raised at seq"):
        run.add(EventKind.ATTACK_RAISED, **data)
    assert run.state.attacks == {}


def test_an_attack_missing_a_field_is_a_protocol_error() -> None:
    run = RunBuilder().thread()
    run.open_round()
    data = ev.attack_raised(make_attack("A1"))["data"]
    del data["claim"]
    with pytest.raises(ProtocolError, match="malformed attack_raised"):
        run.add(EventKind.ATTACK_RAISED, **data)


def test_transitions_are_recorded_in_the_attack_history() -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.raise_attack("A1")
    run.emit(ev.transition("A1", Action.DEFEND, by="author", text="it is fine", evidence="t.py"))
    attack = run.state.attacks["A1"]
    assert attack.status is Status.DEFENDED
    assert attack.history == [
        {
            "seq": len(run.log) - 1,
            "attack": "A1",
            "action": "defend",
            "by": "author",
            # derived from `by` (a ledger written before transitions named their actor)
            "actor": "proposer",
            "text": "it is fine",
            "evidence": "t.py",
        }
    ]


def test_a_transition_on_an_unknown_attack_or_with_an_unknown_action_is_refused() -> None:
    run = RunBuilder().thread()
    run.open_round()
    with pytest.raises(ProtocolError, match="names attack A9, which was never raised"):
        run.act("A9", Action.FIX)
    run.raise_attack("A1")
    with pytest.raises(ProtocolError, match="unknown action 'shrug'"):
        run.add(EventKind.ATTACK_TRANSITION, attack="A1", action="shrug", by="x")
    assert run.state.attacks["A1"].history == []


def test_an_illegal_transition_in_a_ledger_is_refused() -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.raise_attack("A1")
    with pytest.raises(IllegalTransition):
        run.act("A1", Action.ACCEPT)
    assert run.state.attacks["A1"].status is Status.OPEN


def test_unresolved_and_resolved_partition_the_attacks() -> None:
    run = RunBuilder().thread()
    run.open_round()
    for attack_id in ("A1", "A2", "A3"):
        run.raise_attack(attack_id)
    run.act("A2", Action.WITHDRAW)
    assert [a.id for a in run.state.unresolved()] == ["A1", "A3"]
    assert [a.id for a in run.state.resolved()] == ["A2"]


def test_an_attack_raised_in_an_open_round_does_not_survive_its_own_close() -> None:
    run = RunBuilder().thread()
    run.critic_round(raises=("A1",))
    assert run.state.attacks["A1"].rounds_survived == 0
    run.critic_round()
    assert run.state.attacks["A1"].rounds_survived == 1


def test_an_attack_raised_after_its_round_closed_survives_the_next_close() -> None:
    """Between rounds (e.g. a later static session raising into a closed round), the
    next close is the first one the attack lives through."""
    run = RunBuilder().thread()
    run.critic_round()
    run.raise_attack("A1")  # its raising round (1) is already closed
    assert run.state.attacks["A1"].rounds_survived == 0
    run.critic_round()
    assert run.state.attacks["A1"].rounds_survived == 1


# -- unknown names --------------------------------------------------------------------


def test_an_unknown_event_kind_is_refused() -> None:
    with pytest.raises(ProtocolError, match="unknown event kind 'vote' at seq 0"):
        Reducer().apply({"kind": "vote", "seq": 0, "data": {}})


THREAD_EVENTS: list[tuple[EventKind, dict[str, Any]]] = [
    (EventKind.TOPIC_DECLARED, {"topic": "x"}),
    (EventKind.ROUND_STARTED, {"round": 1}),
    (EventKind.ROUND_CLOSED, {"round": 1}),
    (EventKind.ATTACK_DROPPED, {}),
    (EventKind.AGENT_CALL, {}),
    (EventKind.AGENT_FAILED, {}),
    (EventKind.PROTOCOL_VIOLATION, {}),
    (EventKind.THREAD_ENDED, {"reason": "crashed"}),
]


@pytest.mark.parametrize(("kind", "data"), THREAD_EVENTS, ids=[str(k) for k, _ in THREAD_EVENTS])
def test_an_event_naming_an_unknown_thread_is_a_protocol_error(
    kind: EventKind, data: dict[str, Any]
) -> None:
    run = RunBuilder().thread("known")
    with pytest.raises(ProtocolError, match="thread 'ghost', which was never started"):
        run.add(kind, thread="ghost", **data)


def test_an_attack_of_an_unknown_thread_is_a_protocol_error() -> None:
    run = RunBuilder()
    with pytest.raises(ProtocolError, match="thread 't', which was never started"):
        run.emit(ev.attack_raised(make_attack("A1")))
    assert run.state.attacks == {}


def test_reducer_thread_lookup() -> None:
    run = RunBuilder().thread()
    assert isinstance(run.reducer.thread("t"), ThreadState)
    with pytest.raises(ProtocolError, match="never started"):
        run.reducer.thread("ghost")


def test_a_reducer_can_continue_a_given_state() -> None:
    state = RunState(run_id="kept")
    reducer = Reducer(state)
    reducer.apply(ev.event(EventKind.RUN_INTERRUPTED))
    assert reducer.state is state and state.interrupted


# -- relocation of a grouped finding --------------------------------------------------


def relocated(**data: Any) -> dict[str, Any]:
    return (
        ev.attack_relocated(
            "A1",
            [Location("app.py", 9, 9, "g"), Location("app.py", 20, 21)],
            ["m1", "m2"],
            claim="moved claim",
            evidence="moved evidence",
            old_evidence="old",
        )["data"]
        | data
    )


def test_a_relocated_attack_follows_the_code_and_keeps_its_history() -> None:
    run = RunBuilder().thread()
    run.critic_round(raises=("A1",))
    run.act("A1", Action.DEFEND)
    run.add(EventKind.ATTACK_RELOCATED, **relocated())
    attack = run.state.attacks["A1"]
    assert attack.location == Location("app.py", 9, 9, "g")
    assert attack.locations == (Location("app.py", 9, 9, "g"), Location("app.py", 20, 21))
    assert (attack.members, attack.claim, attack.evidence, attack.old_evidence) == (
        ("m1", "m2"),
        "moved claim",
        "moved evidence",
        "old",
    )
    assert attack.status is Status.DEFENDED and len(attack.history) == 1


def test_a_relocation_without_words_keeps_the_claim_and_clears_old_evidence() -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.emit(ev.attack_raised(make_attack("A1", old_evidence="before")))
    data = relocated()
    for key in ("claim", "evidence", "old_evidence", "members"):
        del data[key]
    run.add(EventKind.ATTACK_RELOCATED, **data)
    attack = run.state.attacks["A1"]
    assert (attack.claim, attack.evidence, attack.old_evidence, attack.members) == (
        "claim of A1",
        "line 3",
        None,
        (),
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"attack": "A9"}, "relocation names attack A9, which was never raised"),
        ({"locations": []}, "gives no location"),
        ({"locations": [{"path": "a.py"}]}, "malformed attack_relocated at seq"),
        ({"locations": [None]}, "malformed attack_relocated at seq"),
        ({"locations": None}, "malformed attack_relocated at seq"),
        ({"locations": "app.py:3"}, "malformed attack_relocated at seq"),
    ],
)
def test_a_bad_relocation_is_refused(change: dict[str, Any], message: str) -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.raise_attack("A1")
    data = relocated(**change)
    with pytest.raises(ProtocolError, match=message):
        run.add(EventKind.ATTACK_RELOCATED, **data)
    assert run.state.attacks["A1"].location == Location("app.py", 3, 4)


def test_every_agent_failure_is_logged_with_its_data() -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.add(EventKind.AGENT_FAILED, thread="t", role="critic", error="timeout", timeout=True)
    run.add(EventKind.AGENT_FAILED, thread="t", role="proposer", error="http-500")
    assert run.thread_state().failure_log == [
        {"thread": "t", "role": "critic", "error": "timeout", "timeout": True},
        {"thread": "t", "role": "proposer", "error": "http-500"},
    ]
