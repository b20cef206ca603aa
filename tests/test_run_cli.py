"""`contend run`, `contend run note`, `contend run stats --by topology` and `--batch` through the
CLI, with scripted agents and real git repositories."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contend.cli.main import main
from contend.harness.events import read_events
from harness_helpers import FIXED, NAIVE, attack, clean, critic, implement, main_repo, script
from review_helpers import git


def test_run_ready_then_note_then_stats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = main_repo(tmp_path)
    monkeypatch.chdir(repo)
    (tmp_path / "SPEC.md").write_text("Add average(items); empty raises ValueError.\n")
    (tmp_path / "harness.json").write_text(
        '{"critics": {"focus_areas": ["correctness", "spec_compliance"], "max_attack_rounds": 2}}'
    )
    impl = script(tmp_path / "impl.json", **implement(NAIVE, FIXED))
    crit = script(tmp_path / "crit.json", **critic(attack(), clean()))
    events = tmp_path / "events.jsonl"
    code = main(
        [
            "run",
            "--spec", str(tmp_path / "SPEC.md"),
            "--implementer", impl,
            "--critic", crit,
            "--topology", "C",
            "--harness-config", str(tmp_path / "harness.json"),
            "--events", str(events),
            "--format", "json",
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    record = json.loads(out)
    assert record["verdict"] == "pass" and record["fix_rounds"] == 1
    kinds = [e["event"] for e in read_events(events)]
    assert kinds.count("subtask_completed") == 2 and "subtask_verified" in kinds
    assert main(["run", "note", record["slice"], "--review-minutes", "4.5"]) == 0
    assert main(["run", "note", record["slice"], "--defect-escape"]) == 0
    assert "a defect escaped recorded" in capsys.readouterr().out
    assert main(["run", "stats", "--by", "topology", "--format", "json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert table == [
        {
            "topology": "C",
            "slices": 1,
            "defect_escape_rate": 1.0,
            "silent_fallbacks_caught": 0,
            "weakened_assertions_caught": 0,
            "first_pass_merge_rate": 0.0,
            "cost_per_slice": 0.0,
            "human_review_minutes": 4.5,
        }
    ]
    assert git(repo, "branch", "--show-current") == "main"


def test_run_escalation_exit_3_and_bad_input_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = main_repo(tmp_path)
    monkeypatch.chdir(repo)
    (tmp_path / "SPEC.md").write_text("Add average(items).\n")
    impl = script(tmp_path / "impl.json", **implement(NAIVE, NAIVE + "# 1\n"))
    crit = script(tmp_path / "crit.json", **critic(attack(), attack()))
    args = ["run", "--spec", str(tmp_path / "SPEC.md"), "--implementer", impl, "--critic", crit]
    assert main([*args, "--max-attack-rounds", "1", "--no-static"]) == 3
    out = capsys.readouterr().out
    assert "escalate — not ready" in out and "nothing merged" in out
    (tmp_path / "empty.md").write_text("")
    assert main(["run", "--spec", str(tmp_path / "empty.md"), "--implementer", impl]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is empty" in err and "Traceback" not in err
    assert main(["run", "note", "nope", "--review-minutes", "3"]) == 2
    assert "no slice 'nope'" in capsys.readouterr().err
    assert main(["run", "note", "nope"]) == 2
    assert "--review-minutes" in capsys.readouterr().err


def _batch_setup(tmp_path: Path, n: int, latency: float) -> tuple[Path, list[str]]:
    repo = main_repo(tmp_path)
    specs = tmp_path / "specs"
    specs.mkdir()
    for i in range(n):
        (specs / f"s{i:02d}.md").write_text(f"Slice {i}: add average(items).\n")
    impl = script(tmp_path / "impl.json", **implement(FIXED), latency_s=latency)
    crit = script(tmp_path / "crit.json", **critic(clean()), latency_s=latency)
    args = ["run", "--batch", str(specs), "--implementer", impl, "--critic", crit, "--no-static"]
    return repo, args


def test_batch_runs_each_slice_in_its_own_branch_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, args = _batch_setup(tmp_path, 3, 0.0)
    monkeypatch.chdir(repo)
    assert main([*args, "--concurrency", "2"]) == 0
    out = capsys.readouterr().out
    assert "3/3 slices finished (0 in earlier sessions), 3 ready" in out
    branches = git(repo, "branch", "--list", "contend/run/*").split()
    assert sorted(branches) == [f"contend/run/specs-s0{i}" for i in range(3)]
    assert main([*args, "--concurrency", "2"]) == 0
    assert "3/3 slices finished (3 in earlier sessions)" in capsys.readouterr().out


def test_batch_resumes_after_sigkill_without_redoing_a_finished_slice(tmp_path: Path) -> None:
    repo, args = _batch_setup(tmp_path, 4, 0.6)
    command = [sys.executable, "-m", "contend.cli.main", *args, "--concurrency", "1"]
    journal = repo / ".contend" / "harness" / "batches" / "specs" / "journal.jsonl"
    proc = subprocess.Popen(command, cwd=repo, start_new_session=True, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if journal.exists() and journal.read_text().count("\n") >= 1:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished_before = [json.loads(line)["cell"] for line in journal.read_text().splitlines()]
    assert 1 <= len(finished_before) < 4
    done = subprocess.run(command, cwd=repo, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"({len(finished_before)} in earlier sessions), 4 ready" in done.stdout
    cells = [json.loads(line)["cell"] for line in journal.read_text().splitlines()]
    assert sorted(cells) == ["s00", "s01", "s02", "s03"]  # each exactly once
    assert git(repo, "worktree", "list").count("\n") == 0  # no slice worktree left behind
    assert len(git(repo, "branch", "--list", "contend/run/*").split()) == 4


def test_batch_on_the_process_executor_stops_at_its_token_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, args = _batch_setup(tmp_path, 3, 0.0)
    monkeypatch.chdir(repo)
    code = main([*args, "--executor", "process", "--concurrency", "1", "--max-tokens", "1"])
    out = capsys.readouterr().out
    assert code == 3
    assert "1/3 slices finished" in out and "stopped at max_tokens, 2 not run" in out
    assert len(git(repo, "branch", "--list", "contend/run/*").split()) == 1
