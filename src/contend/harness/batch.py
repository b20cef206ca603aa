"""`contend run --batch`: many slices through the executor interface of `contend experiment`
(local threads, a local process pool, or Ray), resumable through the same JSONL journal.

A batch is a folder of specs (`*.md`, `*.txt`, one slice each, named by file stem) or a
YAML list (`- SPEC_PATH` or `- {spec: PATH, id: NAME}`, paths relative to the list). Each
cell runs one slice in its own worktree, with the slice id `<batch>-<cell>`; the journal
is `<state>/harness/batches/<batch>/journal.jsonl`. A finished slice is never redone; a
slice cut off by a crash (no record) is cleaned up and started again. The cost cap covers
the whole batch, earlier sessions included.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

import yaml

from contend.errors import UserError
from contend.executor.base import Cell
from contend.harness.config import HarnessConfig

TASK = "contend.harness.batch:slice_cell"
_CELL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def batch_specs(source: Path) -> list[tuple[str, Path]]:
    """(cell id, spec path) of every slice of the batch, in order."""
    if source.is_dir():
        found = sorted(p for p in source.iterdir() if p.suffix in (".md", ".txt") and p.is_file())
        if not found:
            raise UserError(f"batch folder {source} holds no spec (*.md, *.txt)")
        entries: list[tuple[str, Path]] = [(p.stem, p) for p in found]
    elif source.is_file():
        try:
            data = yaml.safe_load(source.read_text(encoding="utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise UserError(f"batch list {source} is not valid YAML: {exc}") from None
        if not isinstance(data, list) or not data:
            raise UserError(f"batch list {source} must be a non-empty YAML list of specs")
        entries = []
        for number, item in enumerate(data, start=1):
            if isinstance(item, str):
                path = source.parent / item
                entries.append((path.stem, path))
            elif isinstance(item, dict) and isinstance(item.get("spec"), str):
                path = source.parent / item["spec"]
                entries.append((str(item.get("id", path.stem)), path))
            else:
                raise UserError(f"{source}: item {number} must be a path or {{spec: PATH}}")
    else:
        raise UserError(f"batch {source} does not exist")
    seen: set[str] = set()
    for cell_id, _path in entries:
        if not _CELL_ID.fullmatch(cell_id):
            raise UserError(f"batch slice name {cell_id!r} must match {_CELL_ID.pattern}")
        if cell_id in seen:
            raise UserError(f"batch {source} names slice {cell_id!r} twice")
        seen.add(cell_id)
    return entries


def batch_cells(
    batch_id: str,
    specs: list[tuple[str, Path]],
    *,
    repo: Path,
    implementer: str,
    critics: list[str],
    oracle: str | None,
    gates: list[str],
    config: HarnessConfig,
    agent_timeout_s: float | None = None,
) -> list[Cell]:
    common = {
        "repo": str(repo),
        "implementer": implementer,
        "critics": critics,
        "oracle": oracle,
        "gates": gates,
        "config": {k: v for k, v in asdict(config).items()},
        "agent_timeout_s": agent_timeout_s,
    }
    return [
        Cell(
            cell_id,
            TASK,
            {**common, "spec": str(path.resolve()), "slice_id": f"{batch_id}-{cell_id}"},
        )
        for cell_id, path in specs
    ]


def slice_cell(payload: Mapping[str, Any]) -> dict[str, Any]:
    """One cell: one slice. What the executor's worker calls."""
    from contend.harness.slice import SliceRequest, run_slice

    raw = dict(payload["config"])
    raw["focus_areas"] = tuple(raw["focus_areas"])
    raw["risky"] = {k: tuple(v) for k, v in raw.get("risky", {}).items()}
    result = run_slice(
        SliceRequest(
            repo=Path(payload["repo"]),
            spec_path=Path(payload["spec"]),
            implementer=str(payload["implementer"]),
            critics=list(payload["critics"]),
            oracle=payload.get("oracle"),
            gates=list(payload["gates"]),
            config=HarnessConfig(**raw),
            slice_id=str(payload["slice_id"]),
            agent_timeout_s=payload.get("agent_timeout_s"),
            restart_unfinished=True,
        )
    )
    spend = result.record["spend"]
    return {
        "result": {
            "slice": result.slice_id,
            "branch": result.branch,
            "verdict": result.outcome.verdict,
            "ready": result.outcome.ready,
            "reason": result.outcome.reason,
            "wall_s": result.record["wall_s"],
        },
        "tokens_in": sum(int(v["tokens_in"]) for v in spend.values()),
        "tokens_out": sum(int(v["tokens_out"]) for v in spend.values()),
        "cost": float(result.record["cost"]),
    }
