"""Run a grid of independent cells: bounded concurrency, results streamed into a resumable
JSONL journal, a cost cap that stops cleanly.

    cells ──> run_grid(cells, executor, journal) ──> journal.jsonl (one record per cell)
                         │
                         └── Executor.stream(cells, concurrency) -> records as they finish
                               LocalExecutor  asyncio in this process (threads, or a
                                              process pool with mode="process")
                               RayExecutor    Ray tasks on `ray.init()`'s cluster
                                              (extra `contend[ray]`, imported lazily)

A cell names its work as "module:function" plus a JSON payload, so any process that can
import contend can run it (a Ray worker on another machine included). The package knows
nothing about experiments: `contend experiment` and `contend run --batch` both use it.
"""

from contend.executor.base import Cell, CellRecord, Executor
from contend.executor.factory import make_executor
from contend.executor.grid import Caps, GridOutcome, run_grid
from contend.executor.journal import Journal

__all__ = [
    "Caps",
    "Cell",
    "CellRecord",
    "Executor",
    "GridOutcome",
    "Journal",
    "make_executor",
    "run_grid",
]
