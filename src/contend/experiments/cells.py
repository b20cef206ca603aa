"""The one cell task of every experiment: `contend.experiments.cells:run_cell`.

A worker (a thread here, a process, a Ray task elsewhere) gets the cell's payload, makes a
scratch directory, and hands both to the experiment's own `run_cell`. Everything the cell
needs travels in the payload (item, agents, settings), so a worker on another machine
needs contend and the agent clients, not the bank file or the user's config.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contend.experiments.agents import Context, scratch
from contend.experiments.catalogue import experiment


async def run_cell(payload: dict[str, Any]) -> dict[str, Any]:
    module = experiment(str(payload["experiment"])).module
    with scratch() as folder:
        ctx = Context.from_payload(payload, Path(folder))
        result: dict[str, Any] = await module.run_cell(payload, ctx)
        return result
