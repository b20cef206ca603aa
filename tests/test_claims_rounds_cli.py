"""`contend verify --agent …` end to end on examples/claims/rounds.yaml with the scripted
agents of examples/claims-agents/: the verdicts examples/claims/README.md promises, the
ledger, report.md, and the refusals of bad agent choices."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from contend.cli.main import main
from contend.ledger.verify import verify

ROOT = Path(__file__).resolve().parents[1]
CARD = ROOT / "examples" / "claims" / "rounds.yaml"
AGENTS = ROOT / "examples" / "claims-agents"


def read_entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def script(name: str) -> str:
    return f"scripted:{AGENTS / name}.json"


@pytest.fixture
def card(tmp_path: Path) -> Path:
    """The card and its evidence, copied outside any git repository."""
    target = tmp_path / "claims"
    target.mkdir()
    shutil.copy(CARD, target / CARD.name)
    shutil.copytree(CARD.parent / "evidence", target / "evidence")
    return target / CARD.name


def run(
    card: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, dict[str, object], Path]:
    out = tmp_path / "run"
    code = main(["verify", str(card), "--out", str(out), "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out), out


CASES = {
    "accept": ([f"--agent={script('quiet')}"], 0, "accept"),
    "escalate-human": (
        [
            f"--agent={script('quiet')}",
            f"--agent=internal-logic={script('doubter')}",
            f"--meta-judge={script('meta-judge')}",
        ],
        3,
        "escalate-human",
    ),
    "escalate without a meta-judge": (
        [f"--agent={script('quiet')}", f"--agent=internal-logic={script('doubter')}"],
        3,
        "escalate",
    ),
    "accept after the proponent's evidence": (
        [
            f"--agent={script('quiet')}",
            f"--agent=internal-logic={script('conceding-doubter')}",
            f"--proposer={script('proponent')}",
        ],
        0,
        "accept",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rounds_examples_give_their_promised_verdicts(
    case: str, card: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args, want_code, want = CASES[case]
    code, report, out = run(card, tmp_path, capsys, *args)
    assert code == want_code
    (claim,) = report["claims"]  # type: ignore[misc]
    assert claim["verdict"] == want
    assert claim["stage"] == "rounds"
    assert claim["axes"]["not_run"] == []
    assert claim["rounds_log"]
    assert verify(out / "ledger.jsonl").ok
    kinds = [e["kind"] for e in read_entries(out / "ledger.jsonl")]
    assert "claim_round_started" in kinds and "claim_rounds_finished" in kinds
    md = (out / "report.md").read_text(encoding="utf-8")
    assert f"## R-median: {want}" in md and "Rounds:" in md


def test_escalate_human_writes_the_deadlock_report(
    card: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = CASES["escalate-human"][0]
    _, report, out = run(card, tmp_path, capsys, *args)
    (claim,) = report["claims"]  # type: ignore[misc]
    deadlock = claim["deadlock_report"]
    assert deadlock["written_by"].endswith("meta-judge.json")
    assert deadlock["unresolved"][0]["cause"] == "value-judgment"
    assert claim["escalation_issues"][0]["decision_needed"].startswith("decide whether")
    # The deterministic internal-fact seat ran: its evidence is checked, its findings shown.
    assert [e["status"] for e in claim["evidence"]] == ["checked"]
    assert {c["status"] for c in claim["checks"]} == {"present"}
    assert "Deadlock report (scripted:" in (out / "report.md").read_text(encoding="utf-8")


def test_proponent_evidence_narrows_nothing_but_adds_an_assumption(
    card: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = CASES["accept after the proponent's evidence"][0]
    _, report, out = run(card, tmp_path, capsys, *args)
    (claim,) = report["claims"]  # type: ignore[misc]
    assert claim["required_assumptions"] == ["the 7 runs were on one 2-core machine"]
    assert len(claim["rounds_log"]) == 3  # attack + evidence, concession, quiet
    assert claim["rounds_log"][0]["proponent"]["new_evidence"] == ["P1-1"]
    entries = read_entries(out / "ledger.jsonl")
    (checkpoint,) = [e["data"] for e in entries if e["kind"] == "claim_checkpoint"]
    assert checkpoint["decision_relevant"] is True


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--agent=internal-logic=scripted:a.json", "--agent=internal-logic=scripted:b.json"],
            "two agents on axis internal-logic",
        ),
        (["--agent=logic=scripted:a.json"], "unknown axis 'logic'"),
        (["--agent=scripted:a.json", "--agent=scripted:b.json"], "a default agent"),
        (["--agent=nosuch"], "unknown critic backend 'nosuch'"),
        (["--meta-judge=claude"], "give --agent too"),
        (["--agent=external-fact=internal-fact"], "speaks on internal-fact"),
    ],
)
def test_bad_agent_choices_are_usage_errors(
    args: list[str],
    message: str,
    card: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "run"
    assert main(["verify", str(card), "--out", str(out), *args]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_an_axis_without_an_agent_is_a_usage_error(
    card: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    code = main(
        ["verify", str(card), "--out", str(out), f"--agent=internal-logic={script('quiet')}"]
    )
    assert code == 2
    assert "no agent for axis external-fact" in capsys.readouterr().err


def test_a_person_decides_an_escalate_human_claim_later(
    card: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, out = run(card, tmp_path, capsys, *CASES["escalate-human"][0])
    assert code == 3
    note = "seven runs on the documented machine are enough for this report"
    code = main(["decide", "R-median", "--overrule", "--note", note, "--run", str(out)])
    assert code == 0
    assert "R-median: accept; run verdict now accept" in capsys.readouterr().out
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    (claim,) = report["claims"]
    assert claim["verdict"] == "accept" and report["exit_code"] == 0
    assert claim["decision"] == {
        "decision": "accept",
        "note": note,
        "by": "human",
        "was": "escalate-human",
    }
    assert claim["deadlock_report"] is not None  # the report that led to it stays
    assert verify(out / "ledger.jsonl").ok
    entries = read_entries(out / "ledger.jsonl")
    assert entries[-1]["kind"] == "claim_decided"
    assert "Decided by human: accept" in (out / "report.md").read_text(encoding="utf-8")
    # Decided once: it no longer waits for a person.
    again = main(["decide", "R-median", "--uphold", "--note", "no", "--run", str(out)])
    assert again == 2
    assert "only an escalated claim waits for a person" in capsys.readouterr().err


def test_decide_refuses_what_a_claim_cannot_be_and_a_tampered_run(
    card: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, out = run(card, tmp_path, capsys, *CASES["escalate-human"][0])
    assert main(["decide", "R-median", "--waive", "--note", "x", "--run", str(out)]) == 2
    assert "--overrule or --uphold" in capsys.readouterr().err
    assert main(["decide", "NOPE", "--uphold", "--note", "x", "--run", str(out)]) == 2
    assert "no claim 'NOPE'" in capsys.readouterr().err
    ledger = out / "ledger.jsonl"
    ledger.write_text(ledger.read_text(encoding="utf-8").replace("IL-1", "IL-9"), encoding="utf-8")
    assert main(["decide", "R-median", "--uphold", "--note", "x", "--run", str(out)]) == 2
    assert "will not continue this run" in capsys.readouterr().err
    assert json.loads((out / "report.json").read_text(encoding="utf-8"))["verdict"] == (
        "escalate-human"
    )


def test_level_3_with_agents_seats_five_and_writes_the_artifact_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "claims"
    shutil.copytree(CARD.parent, target)
    code, report, out = run(target / "level-3.json", tmp_path, capsys, f"--agent={script('quiet')}")
    assert code == 0
    (claim,) = report["claims"]  # type: ignore[misc]
    assert claim["stage"] == "rounds" and len(claim["axes"]["run"]) == 5
    assert claim["controls"] and claim["controls"][0]["verdict"] == "reject"
    artifacts = out / "claims" / "L3-speedup"
    names = sorted(p.name for p in artifacts.iterdir())
    assert names == [
        "candidate-playbook.md",
        "report.json",
        "scenario.json",
        "trace.json",
        "verifier-result.json",
    ]
    trace = json.loads((artifacts / "trace.json").read_text(encoding="utf-8"))
    assert "claim_turn" in json.dumps(trace)


def test_an_interrupted_run_keeps_every_round_so_far_in_the_ledger(
    card: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doubter = json.loads((AGENTS / "doubter.json").read_text(encoding="utf-8"))
    doubter["critic"][1]["interrupt_once"] = str(tmp_path / "interrupted")
    interrupting = tmp_path / "interrupting.json"
    interrupting.write_text(json.dumps(doubter), encoding="utf-8")
    out = tmp_path / "run"
    args = [f"--agent={script('quiet')}", f"--agent=internal-logic=scripted:{interrupting}"]
    assert main(["verify", str(card), "--out", str(out), *args]) == 130
    assert verify(out / "ledger.jsonl").ok
    kinds = [e["kind"] for e in read_entries(out / "ledger.jsonl")]
    # Round 1 is on record (its turns, its convergence); round 2 started and was cut off.
    assert kinds.count("claim_turn") == 3
    assert kinds.count("claim_round_started") == 2
    assert "claim_convergence" in kinds
    assert "claims_run_finished" not in kinds
    assert not (out / "report.json").exists()


def test_a_scripted_agent_past_the_end_of_its_script_is_a_protocol_error_naming_it(
    card: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doubter = json.loads((AGENTS / "doubter.json").read_text(encoding="utf-8"))
    doubter["critic"] = doubter["critic"][:1]  # round 1 only
    short = tmp_path / "short.json"
    short.write_text(json.dumps(doubter), encoding="utf-8")
    code, report, out = run(
        card,
        tmp_path,
        capsys,
        f"--agent={script('quiet')}",
        f"--agent=internal-logic=scripted:{short}",
    )
    assert code == 3
    errors = [
        e["data"] for e in read_entries(out / "ledger.jsonl") if e["kind"] == "claim_protocol_error"
    ]
    assert errors, "an exhausted script must not pass for a turn"
    first = errors[0]
    assert first["axis"] == "internal-logic" and first["round"] == 2
    # No turn at all: silence, a protocol error that names the script and the round.
    assert first["kind"] == "silent"
    assert f"scripted:{short} has no critic turn for round 2" in first["error"]
    claim = report["claims"][0]  # type: ignore[index]
    assert claim["verdict"] == "escalate"
