"""Run one experiment's grid into its directory, resumably, and write its report.

    <suite>/<id>-<slug>/grid.json       what the grid is (bank, agents, parameters)
    <suite>/<id>-<slug>/records.jsonl   one record per finished cell (the journal)
    <suite>/<id>-<slug>/report/         tables, plots, JSON (report.write_report)
    <suite>/report.md                   the one-page summary of every experiment there

A directory that already holds a grid is continued only with `resume`, and only when the
grid is the same one (same bank digest, agents, parameters): otherwise the records would
mix two experiments. The I/O edge of the experiments; the metrics stay in each module.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contend.errors import UserError
from contend.executor import Caps, CellRecord, GridOutcome, Journal, make_executor, run_grid
from contend.experiments.bank import Bank
from contend.experiments.catalogue import Experiment
from contend.experiments.framework import RunConfig
from contend.experiments.report import write_atomic, write_report, write_summary

GRID_SCHEMA = "contend.grid/v1"
RECORDS = "records.jsonl"
GRID = "grid.json"


@dataclass(frozen=True, slots=True)
class RunOptions:
    suite: Path
    executor: str = "local"
    ray_address: str | None = None
    ray_num_cpus: int | None = None
    concurrency: int = 4
    caps: Caps = field(default_factory=Caps)
    resume: bool = False


@dataclass(frozen=True, slots=True)
class RunSummary:
    folder: Path
    outcome: GridOutcome
    finding: str
    summary: Path


def grid_manifest(exp: Experiment, bank: Bank, cfg: RunConfig, cells: int) -> dict[str, Any]:
    return {
        "schema": GRID_SCHEMA,
        "experiment": exp.id,
        "bank": {"id": bank.id, "version": bank.version, "digest": bank.digest, "path": bank.path},
        "config": cfg.manifest(),
        "cells": cells,
    }


def _check_resume(folder: Path, manifest: dict[str, Any], resume: bool) -> None:
    grid_file, records = folder / GRID, folder / RECORDS
    if not resume:
        if records.exists() and records.stat().st_size > 0:
            raise UserError(
                f"{folder} already holds a grid's records: continue it with --resume, or "
                "choose another --dir"
            )
        return
    if not grid_file.is_file():
        raise UserError(f"nothing to resume in {folder}: no {GRID}")
    old = json.loads(grid_file.read_text(encoding="utf-8"))
    for key in ("experiment", "bank", "config", "cells"):
        before, now = old.get(key), manifest.get(key)
        if key == "bank":  # the same bank may be read from another path
            before = {k: v for k, v in dict(before or {}).items() if k != "path"}
            now = {k: v for k, v in dict(now or {}).items() if k != "path"}
        if before != now:
            raise UserError(
                f"--resume: {folder} holds a different grid ({key} was {json.dumps(before)}, "
                f"now {json.dumps(now)}); resume with the same options or use another --dir"
            )


def run_experiment(
    exp: Experiment,
    bank: Bank,
    cfg: RunConfig,
    opts: RunOptions,
    *,
    on_record: Callable[[CellRecord], None] | None = None,
) -> RunSummary:
    module = exp.module
    cells = module.plan(bank, cfg)
    folder = opts.suite / exp.dirname
    manifest = grid_manifest(exp, bank, cfg, len(cells))
    _check_resume(folder, manifest, opts.resume)
    folder.mkdir(parents=True, exist_ok=True)
    if not opts.resume:
        write_atomic(folder / GRID, json.dumps(manifest, indent=1) + "\n")
    journal = Journal(folder / RECORDS)
    executor = make_executor(
        opts.executor, ray_address=opts.ray_address, ray_num_cpus=opts.ray_num_cpus
    )
    outcome = run_grid(
        cells,
        executor,
        journal,
        concurrency=opts.concurrency,
        caps=opts.caps,
        on_record=on_record,
    )
    analysis = module.analyse(bank, journal.records, cfg)
    status = {
        "cells": outcome.cells,
        "finished": outcome.cells - outcome.not_run,
        "complete": outcome.complete,
        "stopped": outcome.stopped,
        "errors": outcome.errors,
        "tokens": outcome.tokens,
        "cost": outcome.cost,
        "bank": f"{bank.id} v{bank.version}",
        "agents": list(cfg.agents),
        "executor": opts.executor,
    }
    write_report(folder, f"{exp.id} {exp.title}", analysis, status)
    return RunSummary(folder, outcome, analysis.finding, write_summary(opts.suite))


def report_again(exp: Experiment, bank: Bank, cfg: RunConfig, folder: Path) -> str:
    """Rebuild an experiment's report from its records (no agent is called)."""
    journal = Journal(folder / RECORDS)
    cells = exp.module.plan(bank, cfg)
    finished = journal.finished()
    analysis = exp.module.analyse(bank, journal.records, cfg)
    errors = sum(1 for r in journal.records if r.get("status") == "error")
    status = {
        "cells": len(cells),
        "finished": len(finished),
        "complete": len(finished) >= len(cells),
        "stopped": None if len(finished) >= len(cells) else "not finished",
        "errors": errors,
        "tokens": sum(
            int(r.get("tokens_in", 0)) + int(r.get("tokens_out", 0)) for r in journal.records
        ),
        "cost": round(sum(float(r.get("cost", 0.0)) for r in journal.records), 6),
        "bank": f"{bank.id} v{bank.version}",
        "agents": list(cfg.agents),
        "executor": "(report only)",
    }
    write_report(folder, f"{exp.id} {exp.title}", analysis, status)
    return str(analysis.finding)
