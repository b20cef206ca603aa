"""The Ray executor on a local Ray instance (2 CPUs, no dashboard) writes the same records
as the local executor — for plain tasks and for a real experiment grid with scripted
agents."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from contend.executor import Cell, Journal, make_executor, run_grid
from contend.executor.base import VOLATILE_FIELDS

ray = pytest.importorskip("ray", reason="Ray is the optional extra contend[ray]")

sys.path.insert(0, str(Path(__file__).parent))
from experiment_helpers import script_for  # noqa: E402

# `local_ray`: the session's one local Ray instance (tests/conftest.py).


def stable(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        str(r["cell"]): {k: v for k, v in r.items() if k not in VOLATILE_FIELDS} for r in records
    }


def test_ray_runs_plain_tasks_like_the_local_executor(local_ray: None, tmp_path: Path) -> None:
    grid = [
        Cell(f"c{i}", "contend.executor.testing:square", {"x": i, "cost": 0.5}) for i in range(6)
    ]
    grid.append(Cell("bad", "contend.executor.testing:square", {"x": 1, "fail": True}))
    on_ray, local = Journal(tmp_path / "ray.jsonl"), Journal(tmp_path / "local.jsonl")
    outcome = run_grid(grid, make_executor("ray"), on_ray, concurrency=2)
    run_grid(grid, make_executor("local"), local, concurrency=2)
    assert outcome.complete and outcome.ran == 7 and outcome.errors == 1
    assert {r["executor"] for r in on_ray.records} == {"ray"}
    assert stable(on_ray.records) == stable(local.records)
    assert ray.is_initialized()  # a cluster the executor did not start is left running


def test_ray_runs_an_experiment_grid_with_the_same_records(local_ray: None, tmp_path: Path) -> None:
    from contend.experiments.catalogue import experiment
    from contend.experiments.framework import RunConfig
    from contend.experiments.questions import Question, truth
    from contend.experiments.runner import RunOptions, run_experiment

    right = script_for(
        tmp_path / "right.json",
        "01",
        lambda item, step: {"answer": truth(Question.model_validate(item))},
    )
    wrong = script_for(
        tmp_path / "wrong.json", "01", lambda item, step: {"answer": "7"}, family="other"
    )
    exp = experiment("01")
    bank = exp.bank()
    cfg = RunConfig(agents=(right, wrong), params={"ensemble_sizes": [3]})
    folders = {}
    for kind in ("ray", "local"):
        done = run_experiment(
            exp, bank, cfg, RunOptions(suite=tmp_path / kind, executor=kind, concurrency=2)
        )
        assert done.outcome.complete and done.outcome.errors == 0
        folders[kind] = done.folder
    records = {k: stable(Journal(f / "records.jsonl").records) for k, f in folders.items()}
    assert len(records["ray"]) == 2 * len(bank.items)
    assert records["ray"] == records["local"]
    ray_report = (folders["ray"] / "report" / "analysis.json").read_text()
    local_report = (folders["local"] / "report" / "analysis.json").read_text()
    assert ray_report.replace('"ray"', '"local"') == local_report
