"""The published schema of a ledger line (`contend.event/v1`): no drift from the event
TypedDicts, every kind in it, real ledgers valid, and malformed lines refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from contend.claims.events import KINDS as CLAIM_KINDS
from contend.ledger.verify import verify
from contend.protocol.events import EVENT_TYPES, EventKind
from contend.protocol.schema import default_path, main, render_schema
from review_helpers import answer, critic_turn, judge, make_repo, objection, run, write_script

PUBLISHED = Path(__file__).resolve().parents[1] / "schemas" / "event.v1.schema.json"


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def test_published_schema_matches_the_event_types() -> None:
    assert PUBLISHED.read_text(encoding="utf-8") == render_schema(), (
        "schemas/event.v1.schema.json drifted from contend.protocol.event_types; "
        "regenerate it with `python -m contend.protocol.schema`"
    )


def test_default_output_path_is_the_published_file() -> None:
    assert default_path() == PUBLISHED


def test_main_writes_the_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "nested" / "event.schema.json"
    assert main([str(out)]) == 0
    assert out.read_text(encoding="utf-8") == render_schema()
    assert capsys.readouterr().out.strip() == str(out)
    assert main(["a", "b"]) == 2


def test_every_kind_a_ledger_may_hold_is_typed() -> None:
    assert {str(k) for k in EventKind} <= set(EVENT_TYPES)
    assert set(CLAIM_KINDS) == {k for k in EVENT_TYPES if k.startswith("claim")}


def _line(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "schema": "contend.event/v1",
        "seq": 0,
        "id": "x",
        "ts": "2026-01-01T00:00:00Z",
        "run": "r",
        "kind": kind,
        "data": data,
        "prev": "0" * 64,
        "alg": "sha256",
        "hash": "a" * 64,
    }


def test_a_malformed_line_is_refused(validator: Draft202012Validator) -> None:
    good = {"attack": "C1-1", "action": "fix", "by": "proposer", "actor": "proposer"}
    assert validator.is_valid(_line("attack_transition", good))
    assert not validator.is_valid(_line("attack_transition", {**good, "action": "pardon"}))
    assert not validator.is_valid(_line("attack_transition", {**good, "actor": "bystander"}))
    missing_by = {k: v for k, v in good.items() if k != "by"}
    assert not validator.is_valid(_line("attack_transition", missing_by))
    assert not validator.is_valid(_line("no_such_kind", good))
    assert not validator.is_valid({**_line("attack_transition", good), "schema": "other/v9"})
    # A key no type names is allowed: a versioned log's reader must tolerate it.
    assert validator.is_valid(_line("attack_transition", {**good, "later": 1}))


def test_a_scripted_review_ledger_validates_line_by_line(
    tmp_path: Path, validator: Draft202012Validator
) -> None:
    repo = make_repo(tmp_path)
    critic = write_script(
        tmp_path / "critic.json",
        critic=[
            critic_turn(objections=[objection(), objection(claim="second", severity="minor")]),
            critic_turn(judgements=[judge("C1-1", "re_attack"), judge("C1-2", "accept")]),
            critic_turn(judgements=[judge("C1-1", "re_attack")]),
        ],
    )
    proposer = write_script(
        tmp_path / "proposer.json",
        family="fam-author",
        proposer=[
            {"output": {"answers": [answer("C1-1", "defend"), answer("C1-2", "concede")]}},
            {"output": {"answers": [answer("C1-1", "defend", "still", "a line")]}},
        ],
    )
    oracle = write_script(
        tmp_path / "oracle.json",
        oracle=[
            {
                "output": {
                    "agreed": ["average divides by len"],
                    "disputed_leaf": "can items be empty?",
                    "evidence_for": "spec is silent",
                    "evidence_against": "callers filter",
                    "cause": "missing evidence",
                    "human_decision": "is [] a valid input?",
                    "decisive_check": "average([])",
                }
            }
        ]
        * 3,  # the script is read by round: the deadlock comes at round 3
    )
    result = run(repo, critics=[critic], proposer=proposer, oracle=oracle, max_rounds=2)
    checked = verify(result.run_dir / "ledger.jsonl", keep_entries=True)
    assert checked.ok, checked.message
    kinds = set()
    for entry in checked.entries:
        errors = [e.message for e in validator.iter_errors(entry)]
        assert errors == [], (entry["kind"], errors)
        kinds.add(entry["kind"])
    assert {
        "run_started",
        "thread_started",
        "topic_declared",
        "round_started",
        "agent_call",
        "attack_raised",
        "attack_transition",
        "deadlock_report",
        "thread_ended",
        "run_finished",
    } <= kinds
