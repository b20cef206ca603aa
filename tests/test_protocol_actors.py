"""Who may act (DESIGN §10): the actor is part of every transition, checked by the fold
and before every append, against one table (protocol/machine.RULES).

The expectations come from the independent tables of tests/protocol_helpers.py (which
status an action may leave, and which actor may take it), never from the machine itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contend.errors import IllegalTransition, ProtocolError
from contend.ledger.store import Ledger
from contend.ledger.verify import verify
from contend.protocol import events as ev
from contend.protocol.machine import RULES, actor_of, may_take, next_status
from contend.protocol.model import RESOLVING_ACTIONS, Action, Actor, Status
from contend.protocol.state import admit, fold
from contend.review.recorder import Recorder
from protocol_helpers import ACTOR_OF, MAY, ModelAttack, RunBuilder, make_attack, model_step


def _reachable() -> dict[ModelAttack, tuple[Action, ...]]:
    paths: dict[ModelAttack, tuple[Action, ...]] = {ModelAttack(): ()}
    frontier = [ModelAttack()]
    while frontier:
        state = frontier.pop()
        for action in Action:
            after = model_step(state, action)
            if after is not None and after not in paths:
                paths[after] = (*paths[state], action)
                frontier.append(after)
    return paths


REACHABLE = sorted(_reachable().items(), key=lambda kv: [str(a) for a in kv[1]])


def test_the_table_names_an_actor_for_every_action_and_the_oracle_for_none() -> None:
    assert set(RULES) == set(Action)
    assert {(actor, action) for action in Action for actor in Actor if may_take(actor, action)} == (
        MAY
    )
    assert not any(may_take(Actor.ORACLE, action) for action in Action)


@pytest.mark.parametrize(("model", "path"), REACHABLE, ids=[str(p) for _, p in REACHABLE])
def test_every_actor_and_action_from_every_reachable_state(
    model: ModelAttack, path: tuple[Action, ...]
) -> None:
    for action in Action:
        for actor in Actor:
            run = RunBuilder().thread()
            run.open_round()
            run.raise_attack("A1")
            run.act("A1", *path)
            legal = model_step(model, action) is not None and (actor, action) in MAY
            if legal:
                run.emit(ev.transition("A1", action, by="x", actor=actor))
                assert run.state.attacks["A1"].history[-1]["actor"] == actor
            else:
                before = (run.state.attacks["A1"].status, run.state.attacks["A1"].resolved)
                with pytest.raises(IllegalTransition):
                    run.emit(ev.transition("A1", action, by="x", actor=actor))
                after = run.state.attacks["A1"]
                assert (after.status, after.resolved) == before


def test_a_ledger_in_which_the_author_withdraws_a_critics_objection_is_refused() -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.raise_attack("A1")
    events = [
        *run.log,
        {
            "seq": len(run.log),
            "kind": "attack_transition",
            "data": {"attack": "A1", "action": "withdraw", "by": "author", "text": "not a bug"},
        },
    ]
    with pytest.raises(IllegalTransition, match="proposer may not withdraw"):
        fold(events)
    events[-1]["data"] = {**events[-1]["data"], "by": "someone", "actor": "proposer"}
    with pytest.raises(IllegalTransition, match="proposer may not withdraw"):
        fold(events)


@pytest.mark.parametrize(
    ("data", "actor"),
    [
        ({"by": "author"}, Actor.PROPOSER),
        ({"by": "proposer"}, Actor.PROPOSER),
        ({"by": "critic"}, Actor.CRITIC),
        ({"by": "static"}, Actor.CRITIC),
        ({"by": "critic-t"}, Actor.CRITIC),  # the attack's own critic, by name
        ({"by": "engine"}, Actor.ENGINE),
        ({"by": "human"}, Actor.HUMAN),
        ({"by": "Ada", "person": {"name": "Ada", "source": "git config"}}, Actor.HUMAN),
        ({"by": "x", "actor": "critic"}, Actor.CRITIC),
        ({"by": "critic", "actor": "critic"}, Actor.CRITIC),
    ],
)
def test_the_actor_of_an_old_ledger_line_is_derived_from_by(
    data: dict[str, Any], actor: Actor
) -> None:
    assert actor_of(data, make_attack("A1")) is actor


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"by": "x"}, "cannot tell who acted"),
        ({"by": ""}, "cannot tell who acted"),
        ({}, "cannot tell who acted"),
        ({"by": "Ada", "person": {"name": "Bob"}}, "cannot tell who acted"),
        ({"by": "x", "actor": "referee"}, "unknown actor 'referee'"),
        ({"by": "x", "actor": 3}, "unknown actor 3"),
        ({"by": "author", "actor": "critic"}, "contradicts"),
        ({"by": "critic-t", "actor": "human"}, "contradicts"),
    ],
)
def test_a_transition_whose_actor_cannot_be_told_is_refused(
    data: dict[str, Any], message: str
) -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.raise_attack("A1")
    with pytest.raises(ProtocolError, match=message):
        run.emit({"kind": "attack_transition", "data": {"attack": "A1", "action": "fix", **data}})
    assert run.state.attacks["A1"].history == []


def test_admit_fills_in_the_actor_and_leaves_a_named_one_alone() -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.raise_attack("A1")
    plain = ev.transition("A1", Action.DEFEND, by="author")
    assert "actor" not in plain["data"]
    assert admit(run.state, plain)["data"]["actor"] == "proposer"
    named = ev.transition("A1", Action.DEFEND, by="someone", actor=Actor.PROPOSER)
    assert admit(run.state, named) is named
    with pytest.raises(ProtocolError, match="no attack 'A9'"):
        admit(run.state, ev.transition("A9", Action.DEFEND, by="author"))
    with pytest.raises(ProtocolError, match="unknown action 'shrug'"):
        admit(run.state, {"kind": "attack_transition", "data": {"attack": "A1", "action": "shrug"}})


def test_the_recorder_refuses_an_illegal_actor_before_writing(tmp_path: Path) -> None:
    path = tmp_path / "run" / "ledger.jsonl"
    with Ledger(path, "run-actors") as ledger:
        rec = Recorder(ledger)
        run = RunBuilder()
        run.thread()
        run.open_round()
        run.raise_attack("A1")
        for event in run.log:
            rec.emit({"kind": event["kind"], "data": event["data"]})
        written = ledger.next_seq
        with pytest.raises(IllegalTransition, match="critic may not fix"):
            rec.emit(ev.transition("A1", Action.FIX, by="critic-t", actor=Actor.CRITIC))
        with pytest.raises(IllegalTransition, match="proposer may not accept"):
            rec.emit(ev.transition("A1", Action.ACCEPT, by="author"))
        assert ledger.next_seq == written
        entry = rec.emit(ev.transition("A1", Action.DEFEND, by="author"))
        assert entry["data"]["actor"] == "proposer"
    entries = verify(path, keep_entries=True).entries
    assert entries[-1]["data"]["actor"] == "proposer"
    assert fold(entries).attacks["A1"].status is Status.DEFENDED


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(list(Action)), st.sampled_from(list(Actor)))))
def test_only_a_resolving_action_of_an_allowed_actor_resolves(
    steps: list[tuple[Action, Actor]],
) -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.raise_attack("A1")
    model = ModelAttack()
    for action, actor in steps:
        attack = run.state.attacks["A1"]
        expected = model_step(model, action)
        if expected is None or (actor, action) not in MAY:
            with pytest.raises(IllegalTransition):
                next_status(attack, action, actor)
            continue
        was_resolved = attack.resolved
        run.emit(ev.transition("A1", action, by="x", actor=actor))
        model = expected
        assert (attack.status, attack.resolved) == (model.status, model.resolved)
        if attack.resolved and not was_resolved:
            assert action in RESOLVING_ACTIONS
            assert ACTOR_OF[action] is actor or (action, actor) == (Action.WITHDRAW, Actor.ENGINE)


@pytest.mark.parametrize("key", ["by", "text", "evidence"])
@pytest.mark.parametrize("value", [3, None, ["a"]])
def test_a_transition_whose_words_are_not_text_is_refused(key: str, value: object) -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.raise_attack("A1")
    data: dict[str, Any] = {"attack": "A1", "action": "concede", "by": "author", "text": "t"}
    if key == "by":
        data["actor"] = "proposer"  # who acted is named: only the words are wrong
    data[key] = value
    with pytest.raises(ProtocolError, match=f"attack A1 at seq 4: {key} "):
        run.emit({"kind": "attack_transition", "data": data})
    # The same words as text fold.
    run.emit({"kind": "attack_transition", "data": {**data, key: "words"}})
    assert run.state.attacks["A1"].status is Status.CONCEDED


def test_a_transition_whose_words_are_not_text_is_refused_before_it_is_written() -> None:
    run = RunBuilder().thread()
    run.open_round()
    run.raise_attack("A1")
    bad = ev.transition("A1", Action.CONCEDE, by="author", text="t")
    bad["data"]["evidence"] = 7  # type: ignore[typeddict-item]
    with pytest.raises(ProtocolError, match="evidence 7"):
        admit(run.state, bad)
    assert run.state.attacks["A1"].status is Status.OPEN
