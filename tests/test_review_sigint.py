"""Ctrl-C (a real SIGINT) during `contend review` leaves a resumable run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contend.ledger.verify import verify
from contend.protocol.state import fold
from review_helpers import answer, critic_turn, git, judge, make_repo, objection, write_script

pytestmark = pytest.mark.slow


def test_sigint_mid_review_then_resume(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    gate = tmp_path / "gate"
    critic = write_script(
        tmp_path / "critic.json",
        family="fam-critic",
        critic=[
            critic_turn(objections=[objection()]),
            {
                **critic_turn(judgements=[judge("C1-1", "accept")]),
                # Held until the test opens the gate, so the signal lands mid-call however
                # loaded the machine is (a fixed sleep let a slow poller miss it).
                "hold_until": str(gate),
            },
        ],
    )
    proposer = write_script(
        tmp_path / "proposer.json",
        family="fam-author",
        proposer=[{"output": {"answers": [answer("C1-1", "defend", "callers filter")]}}],
    )
    cmd = [
        sys.executable,
        "-m",
        "contend.cli.main",
        "review",
        "--critic",
        critic,
        "--proposer",
        proposer,
        "--format",
        "json",
    ]
    proc = subprocess.Popen(
        cmd, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ}
    )
    runs = repo / ".contend" / "runs"
    deadline = time.monotonic() + 60
    ledger = None
    while time.monotonic() < deadline:
        found = list(runs.glob("*/ledger.jsonl")) if runs.exists() else []
        if found and b'"round":2' in found[0].read_bytes():
            ledger = found[0]
            break
        time.sleep(0.05)
    assert ledger is not None, "the review never reached round 2"
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    checked = verify(ledger, keep_entries=True)
    assert checked.ok and fold(checked.entries).interrupted

    gate.touch()
    resumed = subprocess.run(
        [*cmd, "--resume"], cwd=repo, capture_output=True, text=True, timeout=120
    )
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(resumed.stdout)
    assert data["verdict"] == "pass" and data["resolved"][0]["status"] == "accepted"
    assert data["run_id"] == ledger.parent.name


def test_resume_after_sigint_keeps_the_proposers_fix_and_applies_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    original = (repo / "app.py").read_text()
    gate = tmp_path / "gate"
    guard = '    if not items:\n        raise ValueError("empty")\n'
    fixed = original.replace(
        "    return total(items) / len(items)", guard + "    return total(items) / len(items)"
    )
    critic = write_script(
        tmp_path / "critic.json",
        family="fam-critic",
        critic=[
            critic_turn(objections=[objection()]),
            {
                **critic_turn(judgements=[judge("C1-1", "accept")]),
                # Held until the test opens the gate, so the signal lands mid-call however
                # loaded the machine is (a fixed sleep let a slow poller miss it).
                "hold_until": str(gate),
            },
        ],
    )
    proposer = write_script(
        tmp_path / "proposer.json",
        family="fam-author",
        proposer=[
            {"output": {"answers": [answer("C1-1", "fix", "guarded")]}, "edits": {"app.py": fixed}}
        ],
    )
    cmd = [
        sys.executable,
        "-m",
        "contend.cli.main",
        "review",
        "--critic",
        critic,
        "--proposer",
        proposer,
        "--format",
        "json",
    ]
    proc = subprocess.Popen(
        cmd, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ}
    )
    runs = repo / ".contend" / "runs"
    deadline = time.monotonic() + 60
    ledger = None
    while time.monotonic() < deadline:
        found = list(runs.glob("*/ledger.jsonl")) if runs.exists() else []
        if found and b'"round":2' in found[0].read_bytes():
            ledger = found[0]
            break
        time.sleep(0.05)
    assert ledger is not None, "the review never reached round 2"
    assert b'"action":"fix"' in ledger.read_bytes(), "the fix of round 1 was not recorded"
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert (repo / "app.py").read_text() == original  # nothing applied without --apply
    # Resumable: the snapshot and the thread's fix are kept under the run's refs.
    run_id = ledger.parent.name
    refs = git(repo, "for-each-ref", "--format=%(refname)", "refs/contend/").splitlines()
    assert f"refs/contend/threads/{run_id}/C1" in refs
    assert any(r.startswith(f"refs/contend/snapshots/{run_id}/") for r in refs)

    gate.touch()
    resumed = subprocess.run(
        [*cmd, "--resume", "--apply"], cwd=repo, capture_output=True, text=True, timeout=120
    )
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(resumed.stdout)
    assert data["verdict"] == "pass" and data["run_id"] == ledger.parent.name
    [resolved] = data["resolved"]
    assert resolved["id"] == "C1-1" and resolved["status"] == "fixed"
    assert data["merges"] and data["merges"][-1]["threads"] == ["C1"]
    assert (repo / "app.py").read_text() == fixed
    assert git(repo, "for-each-ref", "refs/contend/") == ""  # the run ended: refs gone
