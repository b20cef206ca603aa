"""`contend run` slices end to end with scripted agents through the registry, real git."""

from __future__ import annotations

from pathlib import Path

from contend.harness.events import read_events
from harness_helpers import FIXED, NAIVE, attack, clean, critic, implement, main_repo, run
from review_helpers import git


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
    assert result.record["first_pass"] is False
    assert result.record["rounds_to_resolution"] == 2
    events = read_events(result.events_path)
    assert [e["event"] for e in events].count("subtask_failed") == 1
    failed = next(e for e in events if e["event"] == "subtask_failed")
    assert "divides by zero" in failed["blocking"][0]
    assert git(repo, "show", f"{result.branch}:app.py") == FIXED.rstrip("\n")
