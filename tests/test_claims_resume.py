"""A person as the proponent between rounds (`--proposer human`): the rounds pause, the
person answers with `contend respond CLAIM --run DIR --reply FILE`, and
`contend verify --resume DIR --agent …` replays the recorded rounds and goes on. Also the
planner's replay on its own: a finished claim replays to the same end, and a changed
round context is refused."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from contend.claims.driver import run_rounds
from contend.claims.replay import replay, replay_events
from contend.claims.round_state import Setup, start
from contend.claims.speakers import Panel
from contend.cli.main import main
from contend.errors import ProtocolError
from contend.ledger.verify import verify
from test_claims_rounds import DEADLOCK_REPORT, QUIET, scripted, turn

ROOT = Path(__file__).resolve().parents[1]
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


def script(name: str) -> str:
    return f"scripted:{AGENTS / name}.json"


def entries(run: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def card(tmp_path: Path) -> Path:
    target = tmp_path / "claims"
    target.mkdir()
    shutil.copy(CARD, target / CARD.name)
    shutil.copytree(CARD.parent / "evidence", target / "evidence")
    return target / CARD.name


def test_a_person_answers_between_rounds_and_the_run_goes_on(
    card: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    first = [f"--agent={script('quiet')}", f"--agent=internal-logic={script('doubter')}"]
    assert main(["verify", str(card), "--out", str(run), "--proposer", "human", *first]) == 3
    capsys.readouterr()
    report = json.loads((run / "report.json").read_text(encoding="utf-8"))
    (claim,) = report["claims"]
    assert claim["verdict"] == "escalate"
    assert "waiting for the proponent (a person)" in claim["summary"]
    assert entries(run)[-3]["kind"] == "claim_awaiting_proponent"
    # Nothing answered yet: nothing to go on with.
    assert main(["verify", "--resume", str(run), f"--agent={script('quiet')}"]) == 2
    assert "nothing to continue" in capsys.readouterr().err

    reply = tmp_path / "reply.yaml"
    reply.write_text(REPLY, encoding="utf-8")
    assert main(["respond", "R-median", "--run", str(run), "--reply", str(reply)]) == 0
    assert "answer for round 1 is recorded" in capsys.readouterr().out
    # One answer per pause.
    assert main(["respond", "R-median", "--run", str(run), "--reply", str(reply)]) == 2
    assert "already" in capsys.readouterr().err

    # Round 1 is replayed from the ledger (whatever script now sits on internal-logic);
    # the person's evidence P1-1 answers IL-1; round 2 is live: internal-logic concedes,
    # evidence-bound, and round 3 accepts.
    again = [f"--agent={script('quiet')}", f"--agent=internal-logic={script('conceding-doubter')}"]
    code = main(["verify", "--resume", str(run), "--proposer", "human", "--format", "json", *again])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    (claim,) = out["claims"]
    assert claim["verdict"] == "accept"
    assert [len(r["turns"]) for r in claim["rounds_log"]] == [3, 3, 3]
    assert claim["rounds_log"][0]["turns"][0]["attacks"][0]["text"].startswith("One run on")
    assert claim["rounds_log"][0]["proponent"]["new_evidence"] == ["P1-1"]
    assert claim["required_assumptions"] == ["the 7 runs were on one 2-core machine"]
    assert json.loads((run / "report.json").read_text(encoding="utf-8")) == out
    assert verify(run / "ledger.jsonl").ok
    kinds = [e["kind"] for e in entries(run)]
    assert kinds.count("claim_round_started") == 3  # round 1 is not written twice
    assert kinds.count("claims_run_finished") == 2
    (checkpoint,) = [e["data"] for e in entries(run) if e["kind"] == "claim_checkpoint"]
    assert checkpoint["agent"] == "human" and checkpoint["decision_relevant"] is True


def test_resume_refuses_a_card_changed_since_the_run(
    card: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    first = [f"--agent={script('quiet')}", f"--agent=internal-logic={script('doubter')}"]
    main(["verify", str(card), "--out", str(run), "--proposer", "human", *first])
    reply = tmp_path / "reply.yaml"
    reply.write_text(REPLY, encoding="utf-8")
    main(["respond", "R-median", "--run", str(run), "--reply", str(reply)])
    capsys.readouterr()
    card.write_text(card.read_text(encoding="utf-8").replace("12.5 s", "12.6 s"))
    code = main(["verify", "--resume", str(run), "--proposer", "human", *first])
    assert code == 2
    assert "changed since the run" in capsys.readouterr().err


def test_respond_refuses_a_bad_reply_and_a_claim_that_does_not_wait(
    card: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    main(["verify", str(card), "--out", str(run), f"--agent={script('quiet')}"])
    reply = tmp_path / "reply.yaml"
    reply.write_text(REPLY, encoding="utf-8")
    capsys.readouterr()
    assert main(["respond", "R-median", "--run", str(run), "--reply", str(reply)]) == 2
    assert "does not wait for the proponent" in capsys.readouterr().err
    run2 = tmp_path / "run2"
    first = [f"--agent={script('quiet')}", f"--agent=internal-logic={script('doubter')}"]
    main(["verify", str(card), "--out", str(run2), "--proposer", "human", *first])
    reply.write_text("evidence: []\nverdict: accept\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["respond", "R-median", "--run", str(run2), "--reply", str(reply)]) == 2
    err = capsys.readouterr().err
    assert "Additional properties are not allowed ('verdict'" in err
    assert len(err.strip().splitlines()) == 1


def test_a_finished_claim_replays_to_the_same_end_and_a_changed_context_is_refused() -> None:
    il = scripted("il", "critic", [turn(attacks=[{"text": "doubt"}], position="reject"), QUIET])
    ef = scripted("ef", "critic", [QUIET, QUIET])
    setup = Setup("C", "a claim", {}, {"E1": "x"}, {"internal-logic": il.name,
                                                     "external-fact": ef.name})  # fmt: skip
    panel = Panel({"internal-logic": il, "external-fact": ef})
    state, log = asyncio.run(run_rounds(start(setup), panel))
    assert state.phase == "done" and len(state.rounds) == 2
    again = replay(start(setup), log)
    assert again.request is None and again.state.verdict == state.verdict
    assert again.state.rounds == state.rounds
    changed = Setup("C", "another claim", {}, {"E1": "x"}, setup.seats)
    with pytest.raises(ProtocolError, match="another round or context"):
        replay(start(changed), log)


@pytest.mark.parametrize("usable", [True, False])
def test_a_claim_ended_by_the_meta_judge_replays_without_asking_it_again(usable: bool) -> None:
    il = scripted(
        "il", "critic", [turn(attacks=[{"text": "doubt"}], position="reject"),
                         turn(position="reject")]
    )  # fmt: skip
    ef = scripted("ef", "critic", [QUIET, QUIET])
    judged = {"output": DEADLOCK_REPORT} if usable else {"raw": '{"verdict": "accept"}'}
    judge = scripted("judge", "oracle", [judged])
    setup = Setup("C", "a claim", {}, {"E1": "x"}, {"internal-logic": il.name,
                                                     "external-fact": ef.name},
                  meta_judge=judge.name)  # fmt: skip
    panel = Panel({"internal-logic": il, "external-fact": ef}, meta_judge=judge)
    state, log = asyncio.run(run_rounds(start(setup), panel))
    assert state.verdict == ("escalate-human" if usable else "escalate")
    again, produced = replay_events(start(setup), log)
    # No request is left: the meta-judge's recorded reply stood in for it.
    assert again.request is None
    assert again.state.verdict == state.verdict and again.state.deadlock == state.deadlock
    assert produced == log
