"""The local executor: cells run in this machine's processes, at most `concurrency` at once.

mode "thread": one asyncio loop; a coroutine task is awaited in it, a plain task runs in a
worker thread. mode "process": every cell runs in a process pool of `concurrency` workers
(for CPU-bound tasks, or tasks that must not share an interpreter).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Literal

from contend.executor.base import Cell, CellRecord, aexecute_cell, execute_cell


class LocalExecutor:
    def __init__(self, mode: Literal["thread", "process"] = "thread") -> None:
        self.mode = mode
        self.name = "local" if mode == "thread" else "process"
        self._pool: ProcessPoolExecutor | None = None

    def stream(self, cells: Iterator[Cell], concurrency: int) -> AsyncIterator[CellRecord]:
        if self.mode == "process":
            self._pool = ProcessPoolExecutor(max_workers=concurrency)
            pool = self._pool

            def submit(cell: Cell) -> Awaitable[CellRecord]:
                return asyncio.get_running_loop().run_in_executor(pool, execute_cell, cell)

            return bounded(cells, concurrency, submit)
        return bounded(cells, concurrency, aexecute_cell)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


async def bounded(
    cells: Iterator[Cell],
    concurrency: int,
    submit: Callable[[Cell], Awaitable[CellRecord]],
) -> AsyncIterator[CellRecord]:
    """Keep at most `concurrency` cells in flight; yield records in completion order. The
    next cell is taken from `cells` only when a slot is free."""
    running: set[asyncio.Future[CellRecord]] = set()
    exhausted = False
    try:
        while True:
            while not exhausted and len(running) < concurrency:
                cell = next(cells, None)
                if cell is None:
                    exhausted = True
                else:
                    running.add(asyncio.ensure_future(submit(cell)))
            if not running:
                return
            done, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for future in done:
                yield future.result()
    finally:
        # Cancelled or abandoned: in-flight cells are not recorded, so a resume reruns them.
        for future in running:
            future.cancel()
