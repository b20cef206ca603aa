"""A `contend verify --agent …` run cut off mid-rounds — Ctrl-C in the process, or a real
SIGKILL of a subprocess — goes on with `contend verify --resume DIR --agent …`: the
recorded rounds are replayed from the ledger (no finished turn asked again, no recorded
one lost), the rest runs live, and `contend ledger verify` accepts the ledger."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from contend.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
CARD = ROOT / "examples" / "claims" / "rounds.yaml"
AGENTS = ROOT / "examples" / "claims-agents"


def entries(run: Path) -> list[dict[str, Any]]:
    text = (run / "ledger.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def script(name: str) -> str:
    return f"scripted:{AGENTS / name}.json"


def edited(tmp_path: Path, name: str, role: str, index: int, **extra: Any) -> str:
    """A copy of an example script with `extra` added to one of its turns."""
    data = json.loads((AGENTS / f"{name}.json").read_text(encoding="utf-8"))
    data[role][index].update(extra)
    path = tmp_path / f"{name}-{role}-{index}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return f"scripted:{path}"


@pytest.fixture
def card(tmp_path: Path) -> Path:
    target = tmp_path / "claims"
    target.mkdir()
    shutil.copy(CARD, target / CARD.name)
    shutil.copytree(CARD.parent / "evidence", target / "evidence")
    return target / CARD.name


# The three-round example: internal-logic attacks IL-1, the proponent answers with P1-1,
# internal-logic concedes in round 2, round 3 accepts.
AGENTS_OK = [
    f"--agent={script('quiet')}",
    f"--agent=internal-logic={script('conceding-doubter')}",
    f"--proposer={script('proponent')}",
]


def turns_by_round_and_axis(run: Path) -> Counter[tuple[int, str]]:
    return Counter(
        (e["data"]["round"], e["data"]["axis"]) for e in entries(run) if e["kind"] == "claim_turn"
    )


def check_finished(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = json.loads((run / "report.json").read_text(encoding="utf-8"))
    (claim,) = report["claims"]
    assert claim["verdict"] == "accept"
    assert [len(r["turns"]) for r in claim["rounds_log"]] == [3, 3, 3]
    assert claim["rounds_log"][0]["proponent"]["new_evidence"] == ["P1-1"]
    # Every turn of every round exactly once in the ledger: none repeated, none lost.
    axes = ("internal-logic", "external-fact", "internal-fact")
    assert turns_by_round_and_axis(run) == Counter({(r, a): 1 for r in (1, 2, 3) for a in axes})
    kinds = Counter(e["kind"] for e in entries(run))
    assert kinds["claim_round_started"] == 3
    assert kinds["claim_checkpoint"] == 1
    assert kinds["claim_loaded"] == 1 and kinds["claim_axes"] == 1
    assert kinds["claim_rounds_finished"] == 1
    capsys.readouterr()
    assert main(["ledger", "verify", str(run)]) == 0


def test_ctrl_c_names_the_verify_resume_command_and_the_run_goes_on(
    card: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    quiet = edited(tmp_path, "quiet", "critic", 1, interrupt_once=str(tmp_path / "marker"))
    first = [f"--agent={quiet}", *AGENTS_OK[1:]]
    assert main(["verify", str(card), "--out", str(run), *first]) == 130
    err = capsys.readouterr().err
    assert f"contend verify --resume {run}" in err
    assert "contend review --resume" not in err
    assert [e["kind"] for e in entries(run)].count("claim_round_started") == 2
    # The marker exists now: the same scripts would not interrupt again, but round 1 must
    # come from the ledger, so a different internal-logic script changes nothing.
    again = [f"--agent={script('quiet')}", *AGENTS_OK[1:]]
    assert main(["verify", "--resume", str(run), *again]) == 0
    check_finished(run, capsys)


LAUNCH = "import sys; from contend.cli.main import main; sys.exit(main())"


def _killed_run(card: Path, run: Path, args: list[str], until: str, count: int) -> None:
    """`contend verify` in a subprocess, SIGKILLed once the ledger holds `count` events of
    kind `until` (a sleeping agent holds the run there)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-c", LAUNCH, "verify", str(card), "--out", str(run), *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            ledger = run / "ledger.jsonl"
            if ledger.exists():
                seen = [e["kind"] for e in entries(run)].count(until)
                if seen >= count:
                    break
            time.sleep(0.05)
        else:
            raise AssertionError(f"the run never reached {count} × {until}")
        time.sleep(0.2)  # let it enter the sleeping agent call
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        if proc.stderr is not None:
            proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL


@pytest.mark.parametrize(
    "where",
    ["round 2 turns", "proponent after round 1"],
)
def test_a_sigkilled_run_resumes_without_repeating_or_losing_a_turn(
    where: str, card: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    if where == "round 2 turns":
        slow = [f"--agent={edited(tmp_path, 'quiet', 'critic', 1, sleep=120)}", *AGENTS_OK[1:]]
        _killed_run(card, run, slow, "claim_round_started", 2)
        assert turns_by_round_and_axis(run) == Counter(
            {(1, a): 1 for a in ("internal-logic", "external-fact", "internal-fact")}
        )
    else:
        slow = [
            *AGENTS_OK[:2],
            f"--proposer={edited(tmp_path, 'proponent', 'proposer', 0, sleep=120)}",
        ]
        _killed_run(card, run, slow, "claim_turn", 3)
        assert "claim_checkpoint" not in [e["kind"] for e in entries(run)]
    assert not (run / "report.json").exists()
    capsys.readouterr()
    assert main(["ledger", "verify", str(run)]) == 0
    assert main(["verify", "--resume", str(run), *AGENTS_OK]) == 0
    check_finished(run, capsys)
    # A finished run has nothing left to go on with.
    capsys.readouterr()
    assert main(["verify", "--resume", str(run), *AGENTS_OK]) == 2
    assert "nothing to continue" in capsys.readouterr().err
