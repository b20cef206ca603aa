"""`contend run`'s events go through the integrations' writer (`contend.events/v1`): the same
line format as `contend review --events`, the same `contend.hooks` subscribers, and an
unwritable `--events` path refused before any branch exists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contend.cli.main import main
from contend.integrations import events as integration_events
from harness_helpers import FIXED, NAIVE, attack, clean, critic, implement, main_repo, script
from review_helpers import git


def _args(tmp_path: Path) -> list[str]:
    (tmp_path / "SPEC.md").write_text("Add average(items); empty raises ValueError.\n")
    impl = script(tmp_path / "impl.json", **implement(NAIVE, FIXED))
    crit = script(tmp_path / "crit.json", **critic(attack(), clean()))
    spec = str(tmp_path / "SPEC.md")
    return ["run", "--spec", spec, "--implementer", impl, "--critic", crit, "--no-static"]


def test_run_events_use_the_integrations_format_and_reach_hook_subscribers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = main_repo(tmp_path)
    monkeypatch.chdir(repo)
    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(
        integration_events,
        "entry_point_subscribers",
        lambda: [("entry point test", seen.append)],
    )
    events = tmp_path / "events.jsonl"
    assert main([*_args(tmp_path), "--events", str(events)]) == 0
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    assert {e["schema"] for e in lines} == {integration_events.EVENTS_SCHEMA}
    assert all(e["ts"].endswith("Z") and e["run_id"] == lines[0]["run_id"] for e in lines)
    kinds = [e["event"] for e in lines]
    assert kinds == [
        "slice_started",
        "subtask_completed",
        "subtask_failed",
        "subtask_completed",
        "subtask_verified",
        "slice_finished",
    ]
    assert [e["event"] for e in seen] == kinds  # the hooks see the same stream
    capsys.readouterr()


def test_unwritable_events_path_is_refused_before_any_branch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = main_repo(tmp_path)
    monkeypatch.chdir(repo)
    (tmp_path / "adir").mkdir()
    assert main([*_args(tmp_path), "--events", str(tmp_path / "adir")]) == 2
    err = capsys.readouterr().err
    assert "cannot write the events file" in err and "Traceback" not in err
    assert git(repo, "branch", "--list", "contend/run/*") == ""
