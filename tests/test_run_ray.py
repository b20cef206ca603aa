"""`contend run --batch --executor ray` on the session's one local Ray instance (the
`local_ray` fixture of tests/conftest.py, shared with tests/test_executor_ray.py): each
slice is a Ray task with its own worktree and branch, journaled like the local executor's,
and a second run redoes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contend.cli.main import main
from harness_helpers import FIXED, clean, critic, implement, main_repo, script
from review_helpers import git

ray = pytest.importorskip("ray", reason="Ray is the optional extra contend[ray]")

pytestmark = pytest.mark.slow


def test_batch_on_ray_runs_each_slice_as_a_task_and_resumes(
    local_ray: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = main_repo(tmp_path)
    monkeypatch.chdir(repo)
    specs = tmp_path / "specs"
    specs.mkdir()
    for i in range(2):
        (specs / f"s{i:02d}.md").write_text(f"Slice {i}: add average(items).\n")
    impl = script(tmp_path / "impl.json", **implement(FIXED))
    crit = script(tmp_path / "crit.json", **critic(clean()))
    args = ["run", "--batch", str(specs), "--implementer", impl, "--critic", crit, "--no-static"]
    args += ["--executor", "ray", "--concurrency", "2"]
    assert main(args) == 0, capsys.readouterr()
    assert "2/2 slices finished (0 in earlier sessions), 2 ready" in capsys.readouterr().out
    journal = repo / ".contend" / "harness" / "batches" / "specs" / "journal.jsonl"
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    assert sorted(r["cell"] for r in records) == ["s00", "s01"]
    assert {r["executor"] for r in records} == {"ray"}
    branches = git(repo, "branch", "--list", "contend/run/*").split()
    assert sorted(branches) == ["contend/run/specs-s00", "contend/run/specs-s01"]
    assert git(repo, "show", "contend/run/specs-s00:app.py") == FIXED.rstrip("\n")
    assert git(repo, "worktree", "list").count("\n") == 0
    assert main(args) == 0
    assert "2/2 slices finished (2 in earlier sessions)" in capsys.readouterr().out
    assert ray.is_initialized()  # the shared instance is left for the other Ray tests
