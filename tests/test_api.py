"""The Python API used as a library: `contend.review(...)`, `contend.verify(...)`, the
in-process event subscribers, and `--events FILE` from the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import contend
from contend.errors import UserError
from contend.report.model import Report
from review_helpers import git

# These tests are about the Python API and its events, not about which static findings may block:
# the change they plant as the one that fails (a broad `except Exception: return 0`) is a
# `swallowing-handler`, which the default earned policy lists as minor. They let static findings
# block at each rule's own severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


BEFORE = "def f(x):\n    return int(x)\n"
FALLBACK = "def f(x):\n    try:\n        return int(x)\n    except Exception:\n        return 0\n"
CLEAN = "def f(x):\n    return int(x)\n\n\ndef g(x):\n    return f(x) + 1\n"


def repo_with(tmp_path: Path, after: str) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.py").write_text(BEFORE)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (repo / "a.py").write_text(after)
    return repo


def test_review_returns_the_report_and_streams_events(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, FALLBACK)
    events: list[dict[str, Any]] = []
    report = contend.review(repo, critics=["static"], on_event=events.append, out=tmp_path / "o")
    assert isinstance(report, Report)
    assert report.verdict == "fail" and report.exit_code == 1
    assert [d.topic for d in report.disputes] == ["silent-fallback"]
    # the same report the CLI contract writes (DESIGN §8)
    on_disk = Report.model_validate_json((tmp_path / "o" / "report.json").read_text())
    assert on_disk.run_id == report.run_id and on_disk.verdict == report.verdict
    kinds = [e["event"] for e in events]
    assert kinds[0] == "subtask_completed" and kinds[1] == "run_started"
    assert kinds[-1] == "subtask_failed" and "run_finished" in kinds
    assert all(e["schema"] == "contend.events/v1" for e in events)
    assert events[-1]["failures"][0]["path"] == "a.py"


def test_a_clean_change_is_verified(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, CLEAN)
    events: list[dict[str, Any]] = []
    report = contend.review(repo, critics=["static"], on_event=events.append)
    assert report.verdict in ("pass", "conditional_pass")
    assert events[-1]["event"] == "subtask_verified"


def test_engine_package_stays_reachable() -> None:
    import contend.review.engine as engine

    assert contend.review.engine is engine
    assert callable(contend.review)


def test_a_failing_subscriber_does_not_lose_the_review(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, FALLBACK)
    calls: list[str] = []

    def broken(event: dict[str, Any]) -> None:
        calls.append(event["event"])
        raise RuntimeError("sink down")

    with pytest.raises(contend.EventDeliveryError, match="sink down") as caught:
        contend.review(repo, critics=["static"], on_event=broken)
    assert caught.value.report.verdict == "fail"
    assert calls == ["subtask_completed"]  # closed after its first failure
    run_dir = repo / ".contend" / "runs" / caught.value.report.run_id
    assert (run_dir / "ledger.jsonl").is_file()


def test_bad_input_raises_user_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError):
        contend.review(tmp_path / "not-a-repo", critics=["static"])
    repo = repo_with(tmp_path, FALLBACK)
    with pytest.raises(UserError, match="not both"):
        contend.review(repo, critics=["static"], spec="x.md", spec_text="task")


def test_verify_returns_the_claims_report(tmp_path: Path) -> None:
    cards = Path(__file__).resolve().parents[1] / "examples" / "claims"
    if not cards.is_dir():
        pytest.skip("issue 12: examples/claims is not in this checkout")
    report = contend.verify([cards], out=tmp_path / "claims-run")
    assert report.claims  # every example card came back with a verdict
    assert (tmp_path / "claims-run" / "report.json").is_file()


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "contend.cli.main", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
    )


def test_events_file_from_the_cli(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, FALLBACK)
    events_file = tmp_path / "events.jsonl"
    done = run_cli("review", "--critic", "static", "--events", str(events_file), "-q", cwd=repo)
    assert done.returncode == 1, done.stderr
    lines = [json.loads(line) for line in events_file.read_text().splitlines()]
    assert lines[0]["event"] == "subtask_completed"
    assert lines[-1]["event"] == "subtask_failed" and lines[-1]["exit_code"] == 1
    ledger = (Path(lines[-1]["reports"]["json"]).parent / "ledger.jsonl").read_text().splitlines()
    assert len([e for e in lines if "seq" in e]) == len(ledger)


def test_events_file_on_a_read_only_path_is_refused_before_review(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        target = tmp_path / "missing-dir" / "events.jsonl"  # root ignores modes: no such dir
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        target = locked / "events.jsonl"
    repo = repo_with(tmp_path, FALLBACK)
    done = run_cli("review", "--critic", "static", "--events", str(target), "-q", cwd=repo)
    assert done.returncode == 2
    assert "cannot write the events file" in done.stderr and "Traceback" not in done.stderr
    assert not (repo / ".contend" / "runs").exists() or not any(
        (repo / ".contend" / "runs").iterdir()
    )
    assert (repo / "a.py").read_text() == FALLBACK


def test_contend_hooks_entry_points_receive_the_cli_events(tmp_path: Path) -> None:
    """An installed package's `contend.hooks` entry point is called with every event of a
    `contend review` run from the command line (a distribution on PYTHONPATH)."""
    site = tmp_path / "site"
    dist = site / "harness_probe-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: harness-probe\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[contend.hooks]\nprobe = harness_probe:on_event\n")
    sink = tmp_path / "probe.jsonl"
    (site / "harness_probe.py").write_text(
        "import json, os\n"
        "def on_event(event):\n"
        "    with open(os.environ['PROBE_SINK'], 'a') as f:\n"
        "        f.write(json.dumps(event['event']) + '\\n')\n"
    )
    repo = repo_with(tmp_path, FALLBACK)
    env = {**os.environ, "PYTHONPATH": str(site), "PROBE_SINK": str(sink)}
    done = subprocess.run(
        [sys.executable, "-m", "contend.cli.main", "review", "--critic", "static", "-q"],
        cwd=repo, capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    kinds = [json.loads(line) for line in sink.read_text().splitlines()]
    assert kinds[0] == "subtask_completed" and kinds[-1] == "subtask_failed"
    assert "run_finished" in kinds
    # a broken entry point is one clear error, before anything is reviewed
    (dist / "entry_points.txt").write_text("[contend.hooks]\nprobe = harness_probe:missing\n")
    broken = subprocess.run(
        [sys.executable, "-m", "contend.cli.main", "review", "--critic", "static", "-q", "--new"],
        cwd=repo, capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert broken.returncode == 2 and "cannot be loaded" in broken.stderr
    assert "Traceback" not in broken.stderr
