"""`contend run --batch` cells on a local Ray instance: each slice a Ray task in its own
worktree and branch, the same journal as the local executor."""

from __future__ import annotations

from pathlib import Path

import pytest

from contend.executor import Journal, make_executor, run_grid
from contend.harness.batch import batch_cells, batch_specs
from contend.harness.config import HarnessConfig
from harness_helpers import FIXED, clean, critic, implement, main_repo, script
from review_helpers import git

ray = pytest.importorskip("ray", reason="Ray is the optional extra contend[ray]")
pytestmark = pytest.mark.slow


def test_a_batch_of_slices_on_ray(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    specs = tmp_path / "specs"
    specs.mkdir()
    for name in ("a", "b"):
        (specs / f"{name}.md").write_text(f"Slice {name}: add average(items).\n")
    cells = batch_cells(
        "specs",
        batch_specs(specs),
        repo=repo,
        implementer=script(tmp_path / "impl.json", **implement(FIXED)),
        critics=[script(tmp_path / "crit.json", **critic(clean()))],
        oracle=None,
        gates=[],
        config=HarnessConfig(topology="C", static=False),
    )
    # Started inside the test, so its workers inherit this test's isolated git identity.
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        journal = Journal(tmp_path / "journal.jsonl")
        outcome = run_grid(cells, make_executor("ray"), journal, concurrency=2)
    finally:
        ray.shutdown()
    assert outcome.complete and outcome.errors == 0, journal.records
    assert {r["executor"] for r in journal.records} == {"ray"}
    assert {r["result"]["verdict"] for r in journal.records} == {"pass"}
    branches = sorted(git(repo, "branch", "--list", "contend/run/*").split())
    assert branches == ["contend/run/specs-a", "contend/run/specs-b"]
