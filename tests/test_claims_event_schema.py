"""Ledgers of real claims runs (`contend verify` with the scripted agents of
examples/claims-agents/: rounds, the proponent, a person between rounds, the meta-judge,
`contend decide`) validate line by line against the published `contend.event/v1` schema,
in which every claims kind has a typed shape of its own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from contend.claims.events import KINDS as CLAIM_KINDS
from contend.cli.main import main
from contend.ledger.verify import verify
from contend.protocol.events import EVENT_TYPES
from test_claims_rounds import QUIET, card_file, run, turn

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = ROOT / "schemas" / "event.v1.schema.json"
CARD = ROOT / "examples" / "claims" / "rounds.yaml"
AGENTS = ROOT / "examples" / "claims-agents"
REPLY = """\
evidence:
  - source_type: local
    file_path: evidence/results.txt
    page: 1
    region: bottom
answers: [IL-1]
added_assumptions: [the 7 runs were on one 2-core machine]
note: the notes say each figure is the median of 7 runs
"""


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


@pytest.fixture
def card(tmp_path: Path) -> Path:
    target = tmp_path / "claims"
    target.mkdir()
    shutil.copy(CARD, target / CARD.name)
    shutil.copytree(CARD.parent / "evidence", target / "evidence")
    return target / CARD.name


def script(name: str) -> str:
    return f"scripted:{AGENTS / name}.json"


def _line(kind: str, data: Any) -> dict[str, Any]:
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


def _checked_kinds(run: Path, validator: Draft202012Validator) -> set[str]:
    checked = verify(run / "ledger.jsonl", keep_entries=True)
    assert checked.ok, checked.message
    kinds = set()
    for entry in checked.entries:
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(entry)]
        assert errors == [], (entry["kind"], errors)
        kinds.add(entry["kind"])
    return kinds


def test_every_claims_kind_has_a_type_in_the_one_table() -> None:
    assert set(CLAIM_KINDS) <= set(EVENT_TYPES)


def test_a_claims_line_of_the_wrong_shape_is_refused(validator: Draft202012Validator) -> None:
    assert not validator.is_valid(_line("claim_turn", {"axis": "numbers", "attacks": []}))
    assert not validator.is_valid(
        _line("claim_convergence", {"claim_id": "C", "round": 1, "kind": "maybe"})
    )
    good = {"claim_id": "C", "decision": "accept", "note": "n", "by": "human", "was": "escalate"}
    assert validator.is_valid(_line("claim_decided", good))
    assert not validator.is_valid(_line("claim_decided", {**good, "decision": "waive"}))
    narrowed = {"claim_id": "C", "round": 2, "attack_id": "IL-1", "to": "t", "reason": "r"}
    assert not validator.is_valid(_line("claim_narrowed", narrowed))  # no `from`
    assert validator.is_valid(_line("claim_narrowed", {**narrowed, "from": "f"}))


def test_ledgers_of_scripted_claims_runs_validate_line_by_line(
    card: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], validator: Draft202012Validator
) -> None:
    kinds: set[str] = set()
    doubted = [f"--agent={script('quiet')}", f"--agent=internal-logic={script('doubter')}"]

    # Rounds to a deadlock, the meta-judge's report, then a person's decision.
    judged = tmp_path / "judged"
    meta = f"--meta-judge={script('meta-judge')}"
    assert main(["verify", str(card), "--out", str(judged), *doubted, meta]) == 3
    assert main(["decide", "R-median", "--overrule", "--note", "ok", "--run", str(judged)]) == 0
    kinds |= _checked_kinds(judged, validator)

    # No meta-judge: contend's own report.
    mechanical = tmp_path / "mechanical"
    assert main(["verify", str(card), "--out", str(mechanical), *doubted]) == 3
    kinds |= _checked_kinds(mechanical, validator)

    # A person answers between rounds; the run goes on to accept.
    paused = tmp_path / "paused"
    assert main(["verify", str(card), "--out", str(paused), "--proposer", "human", *doubted]) == 3
    reply = tmp_path / "reply.yaml"
    reply.write_text(REPLY, encoding="utf-8")
    assert main(["respond", "R-median", "--run", str(paused), "--reply", str(reply)]) == 0
    conceding = [
        f"--agent={script('quiet')}",
        f"--agent=internal-logic={script('conceding-doubter')}",
    ]
    assert main(["verify", "--resume", str(paused), "--proposer", "human", *conceding]) == 0
    kinds |= _checked_kinds(paused, validator)
    capsys.readouterr()

    assert {
        "claims_run_started",
        "claim_loaded",
        "claim_gate",
        "claim_precheck",
        "claim_axes",
        "claim_round_started",
        "claim_turn",
        "claim_checkpoint",
        "claim_convergence",
        "claim_deadlock_report",
        "claim_rounds_finished",
        "claim_awaiting_proponent",
        "claim_proponent_reply",
        "claim_decided",
        "claim_verdict",
        "claims_run_finished",
    } <= kinds


def test_the_planner_kinds_no_cli_example_reaches_validate_too(
    tmp_path: Path, validator: Draft202012Validator
) -> None:
    """Silence, a refused concession, a narrowing, a proponent without an answer: each
    event the planner writes, as the ledger would carry it, is valid against the schema."""
    attack = turn(
        attacks=[{"text": "12.5 s is a mean, not a median", "evidence": ["E1"]}],
        position="reject",
    )
    giving_up = turn(
        position="accept", concessions=[{"attack_id": "IL-1", "text": "fine, I was wrong"}]
    )
    narrower = "On the large repository the median parse took 12.5 s."
    press = {"text": "4,800 files is not every file", "decisive": False, "narrowing": narrower}
    runs = [
        run(
            card_file(tmp_path / "silent"),
            {"internal-logic": [QUIET, QUIET], "external-fact": [{"raw": "fine"}, {"raw": "{}"}]},
        ),
        run(
            card_file(tmp_path / "conceded"),
            {"internal-logic": [attack, giving_up, QUIET], "external-fact": [QUIET] * 3},
        ),
        run(
            card_file(tmp_path / "narrowed"),
            {"internal-logic": [turn(attacks=[press])] * 3, "external-fact": [QUIET] * 3},
        ),
        run(
            card_file(tmp_path / "mute-proponent"),
            {"internal-logic": [attack, QUIET], "external-fact": [QUIET] * 2},
            proponent=[{"error": "the proponent crashed"}],
        ),
    ]
    seen: set[str] = set()
    for _, events in runs:
        for kind, data in events:
            errors = [
                f"{list(e.absolute_path)}: {e.message}"
                for e in validator.iter_errors(_line(kind, data))
            ]
            assert errors == [], (kind, errors)
            seen.add(kind)
    assert {
        "claim_protocol_error",
        "claim_concession_refused",
        "claim_narrowed",
        "claim_proponent",
    } <= seen
