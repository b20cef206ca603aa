"""Plain protocol data (protocol/model.py, protocol/events.py): severities, locations,
contention, the event builders — and the names a ledger is written in.

A ledger written today must fold the same tomorrow, so one test folds a ledger spelled
out as literal JSON: a renamed event kind, action or severity breaks it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from contend.protocol import events as ev
from contend.protocol.contention import confidence_rank, headline, ranked
from contend.protocol.events import EventKind, attack_from_raised
from contend.protocol.model import (
    CRITIC_ACTIONS,
    ENGINE_ACTIONS,
    HUMAN_ACTIONS,
    PROPOSER_ACTIONS,
    RESOLVING_ACTIONS,
    Action,
    Location,
    RoundCounter,
    Severity,
)
from contend.protocol.state import fold
from protocol_helpers import make_attack

# (kind, data) in the names the ledger is written in; seq is the position.
GOLDEN: list[tuple[str, dict[str, Any]]] = [
    ("run_started", {"run_id": "r9", "artifact": {"kind": "change"}}),
    ("spec_loaded", {"source": "commit", "text": "add average()"}),
    ("gate_ran", {"name": "pytest", "ok": True}),
    ("file_skipped", {"path": "blob.bin", "reason": "binary"}),
    ("thread_started", {"thread": "C1", "critic": "codex", "family": "openai"}),
    ("topic_declared", {"thread": "C1", "topic": "edge cases"}),
    ("topic_rejected", {"thread": "C1", "topic": "edges"}),
    ("round_started", {"thread": "C1", "round": 1}),
    (
        "agent_call",
        {
            "thread": "C1",
            "role": "critic",
            "tokens_in": 10,
            "tokens_out": 5,
            "cost": 0.5,
            "usable": True,
        },
    ),
    (
        "attack_raised",
        {
            "id": "C1-1",
            "thread": "C1",
            "critic": "codex",
            "family": "openai",
            "topic": "edge cases",
            "severity": "critical",
            "location": {"path": "app.py", "start_line": 11, "end_line": 12},
            "claim": "divides by zero",
            "evidence": "len(items)",
            "round": 1,
        },
    ),
    (
        "attack_raised",
        {
            "id": "C1-2",
            "thread": "C1",
            "critic": "codex",
            "family": "openai",
            "topic": "edge cases",
            "severity": "major",
            "location": {"path": "app.py", "start_line": 3, "end_line": 3},
            "claim": "loses precision",
            "evidence": "int()",
            "round": 1,
            "confidence": "low",
        },
    ),
    (
        "attack_raised",
        {
            "id": "C1-3",
            "thread": "C1",
            "critic": "codex",
            "family": "openai",
            "topic": "edge cases",
            "severity": "minor",
            "location": {"path": "app.py", "start_line": 1, "end_line": 1},
            "claim": "no docstring",
            "evidence": "def",
            "round": 1,
        },
    ),
    ("attack_dropped", {"thread": "C1", "count": 2}),
    (
        "attack_relocated",
        {
            "attack": "C1-2",
            "locations": [
                {"path": "app.py", "start_line": 4, "end_line": 4, "symbol": "parse"},
                {"path": "app.py", "start_line": 9, "end_line": 9},
            ],
            "members": ["fp-a", "fp-b"],
            "claim": "loses precision twice",
            "evidence": "int(raw)",
            "old_evidence": "float(raw)",
        },
    ),
    ("round_closed", {"thread": "C1", "round": 1}),
    ("agent_failed", {"thread": "C1", "role": "proposer", "round": 1}),
    ("attack_transition", {"attack": "C1-1", "action": "defend", "by": "author"}),
    ("attack_transition", {"attack": "C1-2", "action": "fix", "by": "author"}),
    ("attack_transition", {"attack": "C1-3", "action": "concede", "by": "author"}),
    ("round_started", {"thread": "C1", "round": 2}),
    ("attack_transition", {"attack": "C1-1", "action": "re_attack", "by": "codex"}),
    ("attack_transition", {"attack": "C1-2", "action": "accept", "by": "codex"}),
    ("attack_transition", {"attack": "C1-3", "action": "mark_unresolved", "by": "engine"}),
    ("protocol_violation", {"thread": "C1", "detail": "unknown id C1-9"}),
    ("round_closed", {"thread": "C1", "round": 2}),
    ("attack_transition", {"attack": "C1-1", "action": "deadlock", "by": "engine"}),
    ("deadlock_report", {"attack": "C1-1", "cause": "interpretation"}),
    ("attack_transition", {"attack": "C1-1", "action": "uphold", "by": "human"}),
    ("attack_transition", {"attack": "C1-3", "action": "waive", "by": "human"}),
    ("merge", {"ok": True}),
    ("thread_ended", {"thread": "C1", "reason": "round_cap"}),
    ("run_interrupted", {}),
    ("run_resumed", {}),
    ("run_finished", {"verdict": "fail"}),
    ("escape_recorded", {"note": "None leaked into billing", "path": "app.py", "line": 4}),
]


def test_a_ledger_in_the_documented_names_folds() -> None:
    events = [{"seq": i, "kind": kind, "data": data} for i, (kind, data) in enumerate(GOLDEN)]
    assert {e["kind"] for e in events} == {str(k) for k in EventKind}, "every kind once"
    state = fold(events)
    one, two, three = (state.attacks[f"C1-{i}"] for i in (1, 2, 3))
    assert [str(a.severity) for a in (one, two, three)] == ["critical", "major", "minor"]
    assert (str(one.status), one.resolved, one.re_attacked) == ("upheld", False, True)
    assert (str(two.status), two.resolved) == ("fixed", True)
    assert (str(three.status), three.resolved) == ("waived", True)
    assert (two.confidence, one.confidence) == ("low", None)
    assert two.location == Location("app.py", 4, 4, "parse")
    assert two.locations == (Location("app.py", 4, 4, "parse"), Location("app.py", 9, 9))
    assert (two.members, two.claim, two.evidence, two.old_evidence) == (
        ("fp-a", "fp-b"),
        "loses precision twice",
        "int(raw)",
        "float(raw)",
    )
    assert (one.rounds_survived, two.rounds_survived, three.rounds_survived) == (1, 0, 1)
    thread = state.threads["C1"]
    assert (thread.ended, thread.dropped_attacks, thread.closed_rounds) == (
        "round_cap",
        2,
        [1, 2],
    )
    assert (thread.tokens_in, thread.tokens_out, thread.failures) == (10, 5, 1)
    assert state.finished == {"verdict": "fail"} and state.interrupted is False
    assert (len(state.gates), len(state.skipped), len(state.merges)) == (1, 1, 1)
    assert [(e["note"], e["line"]) for e in state.escapes] == [("None leaked into billing", 4)]


def test_action_roles_partition_the_actions() -> None:
    roles = (PROPOSER_ACTIONS, CRITIC_ACTIONS, ENGINE_ACTIONS, HUMAN_ACTIONS)
    assert sum(len(r) for r in roles) == len(Action)
    assert frozenset().union(*roles) == frozenset(Action)
    assert {str(a) for a in PROPOSER_ACTIONS} == {"fix", "concede", "defend"}
    assert {str(a) for a in CRITIC_ACTIONS} == {"accept", "withdraw", "re_attack"}
    assert {str(a) for a in ENGINE_ACTIONS} == {"mark_unresolved", "deadlock"}
    assert {str(a) for a in HUMAN_ACTIONS} == {"uphold", "overrule", "waive"}
    assert {str(a) for a in RESOLVING_ACTIONS} == {"accept", "withdraw", "overrule", "waive"}


def test_severity_ranks_and_blocks() -> None:
    assert Severity.CRITICAL.rank > Severity.MAJOR.rank > Severity.MINOR.rank
    assert [s.blocks for s in (Severity.CRITICAL, Severity.MAJOR, Severity.MINOR)] == [
        True,
        True,
        False,
    ]


def test_location_round_trips_through_json() -> None:
    loc = Location("src/a.py", 3, 9)
    data = loc.to_json()
    assert data == {"path": "src/a.py", "start_line": 3, "end_line": 9}
    assert Location.from_json(json.loads(json.dumps(data))) == loc
    named = Location("src/a.py", 3, 9, "Parser.parse")
    assert named.to_json() == {**data, "symbol": "Parser.parse"}
    assert Location.from_json(named.to_json()) == named
    assert Location.from_json({**data, "symbol": None}) == loc
    assert Location.from_json({"path": 7, "start_line": "3", "end_line": 4.0}) == Location(
        "7", 3, 4
    )


def test_contention_is_rounds_survived_plus_one_if_re_attacked() -> None:
    attack = make_attack("A1")
    attack.counter = RoundCounter(closed=5)
    attack.survived_base = 2
    assert (attack.rounds_survived, attack.contention) == (3, 3)
    attack.re_attacked = True
    assert attack.contention == 4
    attack.freeze_survival()
    attack.counter.closed = 8
    assert (attack.rounds_survived, attack.contention) == (3, 4)


def test_rounds_survived_is_never_negative() -> None:
    attack = make_attack("A1")
    attack.survived_base = 2
    assert attack.rounds_survived == 0
    attack.freeze_survival()
    assert attack.rounds_survived == 0


def test_a_location_must_be_an_object() -> None:
    for raw in (None, "app.py:3", ["app.py", 3, 4]):
        with pytest.raises(TypeError, match="a location is an object"):
            Location.from_json(raw)  # type: ignore[arg-type]


def test_ranking_by_contention_then_severity_then_age() -> None:
    def attack(aid: str, contention: int, severity: Severity, seq: int):  # type: ignore[no-untyped-def]
        a = make_attack(aid, severity=severity, raised_seq=seq)
        a.counter = RoundCounter(closed=contention)
        return a

    a = attack("A", 1, Severity.MINOR, 1)
    b = attack("B", 2, Severity.MINOR, 2)
    c = attack("C", 1, Severity.CRITICAL, 3)
    d = attack("D", 1, Severity.MINOR, 0)
    assert [x.id for x in ranked([a, b, c, d])] == ["B", "C", "D", "A"]
    b.resolved = True
    top = headline([a, b, c, d])
    assert top is not None and top.id == "C"
    assert headline([b]) is None


def test_the_rule_s_confidence_breaks_a_tie_of_contention_and_severity() -> None:
    high = make_attack("H", confidence="high", raised_seq=5)
    medium = make_attack("M", confidence="medium", raised_seq=3)
    unstated = make_attack("U", confidence=None, raised_seq=4)
    low = make_attack("L", confidence="low", raised_seq=1)
    assert [x.id for x in ranked([low, unstated, medium, high])] == ["H", "M", "U", "L"]
    assert confidence_rank(medium) == confidence_rank(unstated), "unstated ranks as medium"
    assert headline([low, high]) is high


def test_attack_raised_event_carries_the_whole_attack() -> None:
    attack = make_attack("A1", rule="R1", fingerprint="fp", ways_out=("fix it",))
    event = ev.attack_raised(attack)
    assert event["kind"] == "attack_raised"
    assert event["data"] == {
        "id": "A1",
        "thread": "t",
        "critic": "critic-t",
        "family": "fam-a",
        "topic": "edge cases",
        "rule": "R1",
        "severity": "major",
        "location": {"path": "app.py", "start_line": 3, "end_line": 4},
        "claim": "claim of A1",
        "evidence": "line 3",
        "round": 1,
        "fingerprint": "fp",
        "ways_out": ["fix it"],
    }
    back = attack_from_raised(json.loads(json.dumps(event["data"])), seq=17)
    assert back.raised_seq == 17
    assert (back.id, back.rule, back.fingerprint, back.ways_out) == ("A1", "R1", "fp", ("fix it",))
    assert (back.confidence, back.old_evidence, back.locations, back.members) == (
        None,
        None,
        (),
        (),
    )


def test_attack_raised_writes_a_grouped_finding_s_optional_fields() -> None:
    places = (Location("a.py", 1, 1), Location("a.py", 7, 8, "f"))
    attack = make_attack(
        "A1",
        confidence="high",
        old_evidence="before",
        locations=places,
        members=("m1", "m2"),
    )
    data = ev.attack_raised(attack)["data"]
    assert data["confidence"] == "high"
    assert data["old_evidence"] == "before"
    assert data["locations"] == [p.to_json() for p in places]
    assert data["members"] == ["m1", "m2"]
    back = attack_from_raised(json.loads(json.dumps(data)), seq=0)
    assert (back.confidence, back.old_evidence, back.locations, back.members) == (
        "high",
        "before",
        places,
        ("m1", "m2"),
    )
    # An empty old_evidence is still evidence (a deleted line): written and read back.
    assert ev.attack_raised(make_attack("A2", old_evidence=""))["data"]["old_evidence"] == ""


@pytest.mark.parametrize("word", ["certain", "HIGH", "", 3])
def test_an_unknown_confidence_is_refused(word: object) -> None:
    data = ev.attack_raised(make_attack("A1"))["data"]
    with pytest.raises(ValueError, match="is not one of"):
        attack_from_raised({**data, "confidence": word}, seq=0)


def test_attack_relocated_event_shape() -> None:
    event = ev.attack_relocated(
        "A1",
        [Location("a.py", 2, 3)],
        ["m1"],
        claim="c",
        evidence="e",
        old_evidence=None,
    )
    assert event == {
        "kind": "attack_relocated",
        "data": {
            "attack": "A1",
            "locations": [{"path": "a.py", "start_line": 2, "end_line": 3}],
            "members": ["m1"],
            "claim": "c",
            "evidence": "e",
            "old_evidence": None,
        },
    }


def test_transition_event_shape() -> None:
    event = ev.transition("A1", Action.DEFEND, by="author", round=2)
    assert event == {
        "kind": "attack_transition",
        "data": {
            "attack": "A1",
            "action": "defend",
            "by": "author",
            "text": "",
            "evidence": "",
            "round": 2,
        },
    }


@pytest.mark.parametrize("severity", ["", "MAJOR", "blocker"])
def test_unknown_severity_is_refused(severity: str) -> None:
    data = ev.attack_raised(make_attack("A1"))["data"]
    with pytest.raises(KeyError):
        attack_from_raised({**data, "severity": severity}, seq=0)
