"""`contend run` slices end to end with scripted agents through the registry, real git."""

from __future__ import annotations

import json
from pathlib import Path

from contend.harness.config import HarnessConfig
from contend.harness.events import read_events
from contend.ledger.verify import verify
from harness_helpers import FIXED, NAIVE, attack, clean, critic, implement, main_repo, run
from review_helpers import APP_BASE, git


def kinds(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [e["event"] for e in read_events(result.events_path)]


def test_first_pass_ready_branch_and_user_branch_untouched(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    before = git(repo, "rev-parse", "HEAD")
    result = run(tmp_path, repo, implementer=implement(FIXED), critics=[critic(clean())])
    assert result.outcome.verdict == "pass" and result.outcome.ready
    assert result.branch == f"contend/run/{result.slice_id}"
    assert git(repo, "rev-parse", "HEAD") == before  # never merged into the user's branch
    assert git(repo, "branch", "--show-current") == "main"
    assert git(repo, "show", f"{result.branch}:app.py") == FIXED.rstrip("\n")
    assert result.record["first_pass"] is True and result.record["reviews"] == 1
    assert kinds(result) == [
        "slice_started",
        "subtask_completed",
        "subtask_verified",
        "slice_finished",
    ]
    # The worktree is gone, the branch stays.
    assert "contend/run" not in git(repo, "worktree", "list")


def test_rework_then_pass(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    result = run(
        tmp_path,
        repo,
        implementer=implement(NAIVE, FIXED),
        critics=[critic(attack(), clean())],
    )
    assert result.outcome.verdict == "pass"
    assert result.record["fix_rounds"] == 1 and result.record["reviews"] == 2
    # Each review's ledger and reports outlive the slice's worktree, and verify.
    for number, verdict in ((1, "fail"), (2, "pass")):
        kept = result.events_path.parent / "reviews" / str(number)
        assert json.loads((kept / "report.json").read_text())["verdict"] == verdict
        assert verify(kept / "ledger.jsonl").ok
    assert result.record["first_pass"] is False
    assert result.record["rounds_to_resolution"] == 2
    events = read_events(result.events_path)
    assert [e["event"] for e in events].count("subtask_failed") == 1
    failed = next(e for e in events if e["event"] == "subtask_failed")
    assert "divides by zero" in failed["blocking"][0]
    assert git(repo, "show", f"{result.branch}:app.py") == FIXED.rstrip("\n")


def test_cap_then_escalate_without_oracle(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    result = run(
        tmp_path,
        repo,
        implementer=implement(NAIVE, NAIVE + "\n# 1\n", NAIVE + "\n# 2\n"),
        critics=[critic(attack(), attack(), attack())],
        config=HarnessConfig(topology="C", max_attack_rounds=2, static=False),
    )
    assert result.outcome.verdict == "escalate" and not result.outcome.ready
    assert "after 2 fix round(s)" in result.outcome.reason
    assert result.record["reviews"] == 3 and result.record["oracle_used"] is False
    assert kinds(result)[-2:] == ["subtask_failed", "slice_finished"]
    # The escalated slice's branch stays for the person, unmerged.
    assert git(repo, "branch", "--list", result.branch)
    assert git(repo, "show", "main:app.py") == APP_BASE.rstrip("\n")


def test_topology_d_cap_then_oracle_then_pass(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    oracle = {"family": "fam-c", "oracle": [{"output": {"plan": "Raise ValueError first."}}]}
    result = run(
        tmp_path,
        repo,
        implementer=implement(NAIVE, NAIVE + "\n# 1\n", FIXED),
        critics=[critic(attack(), attack(), clean())],
        oracle=oracle,
        config=HarnessConfig(topology="D", max_attack_rounds=1, static=False),
    )
    assert result.outcome.verdict == "pass", result.outcome.reason
    assert result.record["oracle_used"] is True
    assert result.record["reviews"] == 3 and result.record["fix_rounds"] == 1
    events = read_events(result.events_path)
    planned = next(e for e in events if e["event"] == "oracle_planned")
    assert planned["plan"] == "Raise ValueError first."
    assert [e["brief"] for e in events if e["event"] == "subtask_completed"] == [
        "spec",
        "findings",
        "plan",
    ]


def test_topology_d_oracle_plan_still_fails_escalates(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    oracle = {"family": "fam-c", "oracle": [{"output": {"plan": "Try again."}}]}
    result = run(
        tmp_path,
        repo,
        implementer=implement(NAIVE, NAIVE + "\n# 1\n"),
        critics=[critic(attack(), attack())],
        oracle=oracle,
        config=HarnessConfig(topology="D", max_attack_rounds=0, static=False),
    )
    assert result.outcome.verdict == "escalate"
    assert "after the oracle" in result.outcome.reason


def test_minor_findings_pass_as_conditional_with_caveats(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    result = run(
        tmp_path, repo, implementer=implement(FIXED), critics=[critic(attack("minor", line=12))]
    )
    assert result.outcome.verdict == "conditional_pass" and result.outcome.ready
    verified = next(e for e in read_events(result.events_path) if e["event"] == "subtask_verified")
    assert verified["caveats"] and "minor" in verified["caveats"][0]


def test_gates_never_green_fail_with_the_output_sent_back(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    result = run(
        tmp_path,
        repo,
        implementer=implement(NAIVE, NAIVE + "\n# 1\n", NAIVE + "\n# 2\n"),
        critics=[critic(clean())],
        gates=["echo gate-says-no; exit 1"],
        config=HarnessConfig(topology="C", gate_cap=2, static=False),
    )
    assert result.outcome.verdict == "fail" and not result.outcome.ready
    assert "gates stayed red after 3 attempt(s)" in result.outcome.reason
    assert result.record["reviews"] == 0  # no critic was paid for a red tree
    events = read_events(result.events_path)
    assert [e["green"] for e in events if e["event"] == "gates_ran"] == [False, False, False]
    assert [e["brief"] for e in events if e["event"] == "subtask_completed"] == [
        "spec",
        "gates",
        "gates",
    ]


def test_gate_green_after_a_retry(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    result = run(
        tmp_path,
        repo,
        implementer=implement(NAIVE, FIXED),
        critics=[critic(clean())],
        gates=["grep -q ValueError app.py"],
        static=False,
    )
    assert result.outcome.verdict == "pass"
    assert result.record["implementer_passes"] == 2 and result.record["first_pass"] is False


def test_hanging_gate_is_killed_at_its_timeout(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    result = run(
        tmp_path,
        repo,
        implementer=implement(FIXED),
        critics=[critic(clean())],
        gates=["sleep 30"],
        config=HarnessConfig(topology="C", gate_cap=0, gate_timeout_s=0.5, static=False),
    )
    assert result.outcome.verdict == "fail"
    assert "a gate timed out" in result.outcome.reason
    gates = next(e for e in read_events(result.events_path) if e["event"] == "gates_ran")
    assert gates["gates"][0]["timed_out"] is True and gates["gates"][0]["wall_s"] < 10
