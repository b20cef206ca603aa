"""The claims report (contend.claims/v1) and the card schema: no drift, built reports
validate; report.md escapes what cards carry; the deadlock report and the evaluator set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from contend.claims.artifacts import ARTIFACT_FILES, evaluator_artifacts, verifier_result
from contend.claims.card import ClaimCard
from contend.claims.deadlock import DeadlockReport, mechanical_report, parse_deadlock_report
from contend.claims.load import load_card_files
from contend.claims.render import render_markdown
from contend.claims.report import build_report, overall_verdict
from contend.claims.run import verify_loaded
from contend.claims.schema import (
    CARD_FILE,
    REPORT_FILE,
    claim_card_schema,
    claims_report_schema,
    default_dir,
    main,
    render,
)
from contend.errors import ProtocolError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "claims"
PUBLISHED = ROOT / "schemas"


def test_published_schemas_match_the_models() -> None:
    assert (PUBLISHED / REPORT_FILE).read_text(encoding="utf-8") == render(
        claims_report_schema()
    ), "schemas/claims.v1.schema.json drifted; regenerate: python -m contend.claims.schema"
    assert (PUBLISHED / CARD_FILE).read_text(encoding="utf-8") == render(claim_card_schema()), (
        "schemas/claim-card.v1.schema.json drifted; regenerate: python -m contend.claims.schema"
    )
    assert default_dir() == PUBLISHED


def test_main_writes_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / REPORT_FILE).read_text(encoding="utf-8") == render(
        claims_report_schema()
    )
    assert len(capsys.readouterr().out.strip().splitlines()) == 2
    assert main(["a", "b"]) == 2


def _example_report(*names: str) -> Any:
    loaded = load_card_files([EXAMPLES / n for n in names])
    report, events = verify_loaded(loaded)
    return report, events


def test_example_reports_validate_against_the_schema() -> None:
    schema = json.loads((PUBLISHED / REPORT_FILE).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["title"] == "contend.claims/v1"
    assert set(schema["properties"]["verdict"]["enum"]) == {
        "accept",
        "reject",
        "escalate",
        "escalate-human",
    }
    report, _ = _example_report(
        "internal-fact.yaml", "precheck.yaml", "bad-cards.yaml", "level-3.json"
    )
    data = json.loads(report.to_json())
    assert list(Draft202012Validator(schema).iter_errors(data)) == []
    data["claims"][0]["votes"] = 2
    assert len(list(Draft202012Validator(schema).iter_errors(data))) == 1


def _example_cards() -> list[tuple[str, dict[str, Any]]]:
    cards: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(EXAMPLES.glob("*.yaml")) + sorted(EXAMPLES.glob("*.json")):
        docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        for doc in docs:
            for card in doc if isinstance(doc, list) else [doc]:
                cards.append((path.name, card))
    return cards


def test_the_card_schema_accepts_what_the_loader_accepts() -> None:
    schema = json.loads((PUBLISHED / CARD_FILE).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    checked = 0
    for name, card in _example_cards():
        loads = True
        try:
            ClaimCard.model_validate(card)
        except ValueError:
            loads = False
        valid = not list(validator.iter_errors(card))
        if name != "bad-cards.yaml":
            assert loads and valid, (name, card.get("claim-id"))
        elif not loads and card.get("claim-type") != "anecdotal":
            assert not valid  # the schema refuses the unknown field too
        checked += 1
    assert checked >= 15
    snake = {
        "claim_id": "S1",
        "claim_text": "x",
        "claim_type": "empirical",
        "claim_shape": "fact",
        "owner_approval_flag": False,
        "evidence_list": [
            {
                "source-locator": {"source_type": "web"},
                "accessible_url": "https://a.b",
                "finding": "f",
            },
            {"filename": "a.txt", "page": 1, "region": "top"},
        ],
    }
    ClaimCard.model_validate(snake)
    assert list(validator.iter_errors(snake)) == []


def test_overall_verdict_and_exit_code() -> None:
    assert overall_verdict(["accept", "reject", "escalate-human"], 0) == "reject"
    assert overall_verdict(["accept", "escalate-human", "escalate"], 0) == "escalate-human"
    assert overall_verdict(["accept"], 1) == "escalate"
    assert overall_verdict([], 0) == "escalate"
    assert build_report([], []).exit_code == 3


def test_markdown_escapes_untrusted_text(tmp_path: Path) -> None:
    (tmp_path / "e.txt").write_text("The | cache holds 64 entries.\n", encoding="utf-8")
    card = {
        "claim-id": "C1",
        "claim-text": "The cache holds 64 entries.\x1b[2J **bold** <script>",
        "claim-type": "empirical",
        "claim-shape": "fact",
        "abstraction-level": "system",
        "owner-approval-flag": True,
        "evidence-list": [{"file_path": "e.txt", "page": 1, "region": "n/a", "locator_note": "x"}],
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    report, _ = verify_loaded(load_card_files([path]))
    page = render_markdown(report)
    assert "\x1b" not in page and "\\x1b" in page
    assert "<script>" not in page and "\\*\\*bold\\*\\*" in page
    table_rows = [line for line in page.splitlines() if line.startswith("| number")]
    assert table_rows and all(row.count(" | ") == 2 for row in table_rows)
    assert "\x1b" not in report.to_json()


def test_deadlock_report_wording_and_no_decision_authority() -> None:
    report = parse_deadlock_report(
        {
            "agreed_subclaims": ["the benchmark ran on 2 cores"],
            "reason": "the safety cap of 50 rounds is reached",
            "unresolved": [
                {
                    "subclaim": "the speed-up holds on other inputs",
                    "issue": "generalisation of the speed-up",
                    "support_evidence": ["E1"],
                    "support_final": "the large repository is typical",
                    "opposition_attack": "one repository is not a distribution",
                    "opposition_evidence": ["A3"],
                    "cause": "missing-evidence",
                    "decision_needed": "whether one repository suffices",
                }
            ],
        },
        written_by="claude",
    )
    assert report.sentences() == [
        "Issue generalisation of the speed-up is deadlocked. Support uses evidence E1. "
        "Opposition attacks with one repository is not a distribution. Cause is "
        "missing-evidence. Human decision required."
    ]
    with pytest.raises(ProtocolError, match="no decision authority"):
        parse_deadlock_report({"verdict": "accept"}, written_by="claude")
    with pytest.raises(ProtocolError, match="unusable deadlock report"):
        parse_deadlock_report(
            {"agreed_subclaims": [], "reason": "x", "unresolved": []}, written_by="claude"
        )
    mechanical = mechanical_report(
        reason="positions conflict",
        open_attacks=[("A1", "62, not 64", ["X1"])],
        support_evidence=["E1"],
    )
    assert mechanical.written_by.startswith("contend (mechanical")
    assert mechanical.unresolved[0].decision_needed == "uphold or dismiss attack A1"
    empty = mechanical_report(reason="conflict", open_attacks=[], support_evidence=[])
    assert isinstance(empty, DeadlockReport) and len(empty.unresolved) == 1


def test_evaluator_artifacts_and_promotion() -> None:
    report, events = _example_report("level-3.json")
    [claim] = report.claims
    card = load_card_files([EXAMPLES / "level-3.json"]).cards[0].card
    files = evaluator_artifacts(card, claim, [{"kind": k, "data": d} for k, d in events])
    assert tuple(files) == ARTIFACT_FILES
    scenario = json.loads(files["scenario.json"])
    assert scenario["level"] == 3 and "incentive" in scenario["axes"]["assigned"]
    assert json.loads(files["report.json"])["claim_id"] == "L3-speedup"
    assert json.loads(files["trace.json"])["events"]
    result = json.loads(files["verifier-result.json"])
    assert result["can_say_no"] and result["promoted"]
    assert "negative control" in files["candidate-playbook.md"]
    # Without a rejected candidate nothing is promoted; without acceptance neither.
    unproven = claim.model_copy(update={"controls": []})
    assert verifier_result(unproven)["promoted"] is False
    refused = claim.model_copy(update={"verdict": "escalate"})
    assert verifier_result(refused)["promoted"] is False
