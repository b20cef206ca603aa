"""The Ray executor: each cell is a Ray task on the cluster `ray.init()` connects to.

    RayExecutor(address=None)          a local Ray instance, started here and shut down
                                       by close() (num_cpus: how many CPUs it may use)
    RayExecutor(address="ray://h:10001" | "auto")   an existing cluster; left running

Ray is an optional extra (`pip install 'contend[ray]'`), imported only when this executor
starts, and a missing install is one clear error naming the extra. Every node must have
contend (and the agent clients the cells call) installed: a task is
`contend.executor.base.execute_cell`, imported by name on the worker. Records stream back
as tasks finish, at most `concurrency` in flight, exactly as with the local executor.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Iterator
from typing import Any

from contend.errors import UserError
from contend.executor.base import Cell, CellRecord, execute_cell
from contend.executor.local import bounded

MISSING = "the Ray executor needs Ray: pip install 'contend[ray]'"


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise UserError(f"{MISSING} ({exc})") from exc
    return ray


class RayExecutor:
    name = "ray"

    def __init__(self, *, address: str | None = None, num_cpus: int | None = None) -> None:
        self.address = address
        self.num_cpus = num_cpus
        self._ray: Any = None
        self._started_here = False
        self._remote: Any = None

    def _start(self) -> Any:
        if self._ray is not None:
            return self._ray
        ray = import_ray()
        if not ray.is_initialized():
            options: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,
                "configure_logging": False,
            }
            if self.address is not None:
                options["address"] = self.address
            else:
                options["num_cpus"] = self.num_cpus or os.cpu_count() or 1
            try:
                ray.init(**options)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = self.address or "a local Ray instance"
                raise UserError(f"cannot start or reach Ray at {where}: {exc}") from exc
            self._started_here = True
        self._ray = ray
        self._remote = ray.remote(execute_cell)
        return ray

    def stream(self, cells: Iterator[Cell], concurrency: int) -> AsyncIterator[CellRecord]:
        self._start()
        remote = self._remote

        def submit(cell: Cell) -> Awaitable[CellRecord]:
            return asyncio.wrap_future(remote.remote(cell).future())

        return bounded(cells, concurrency, submit)

    def close(self) -> None:
        if self._ray is not None and self._started_here:
            self._ray.shutdown()
        self._ray = None
        self._started_here = False
