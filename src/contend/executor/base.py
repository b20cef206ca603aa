"""The executor interface and what crosses it: a cell, its record, and how a worker runs one.

    Cell(id, task="package.module:function", payload={...})
    task(payload) -> {"result": {...}, "tokens_in": n, "tokens_out": n, "cost": usd}
                     (a plain function or a coroutine function)
    execute_cell(cell) / aexecute_cell(cell) -> the cell's record (a JSON object)

A record is what the journal keeps for a finished cell. A task that raises is still a
finished cell: its record has status "error" and the exception's type and message, so
a grid reports its failures instead of losing them; KeyboardInterrupt and SystemExit are
not caught. Owns no I/O besides importing the task's module.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from contend.errors import UserError

RECORD_SCHEMA = "contend.cell/v1"
CellRecord = dict[str, Any]
# Fields of a record that depend on when and where it ran, not on what it computed.
VOLATILE_FIELDS = frozenset({"wall_s", "finished_at", "executor"})


@dataclass(frozen=True, slots=True)
class Cell:
    """One unit of work: `task` is "module:function", `payload` JSON-serialisable."""

    id: str
    task: str
    payload: Mapping[str, Any] = field(default_factory=dict)


class Executor(Protocol):
    """Runs cells with at most `concurrency` in flight and yields each record as soon as
    its cell finishes, in completion order. It takes the next cell from `cells` only when a
    slot is free, so a caller that stops the iterator stops new work (the cost cap)."""

    name: str

    def stream(self, cells: Iterator[Cell], concurrency: int) -> AsyncIterator[CellRecord]: ...

    def close(self) -> None: ...


def load_task(task: str) -> Callable[[Mapping[str, Any]], Any]:
    """The function a cell's `task` names; UserError when it cannot be imported."""
    module_name, _, attr = task.partition(":")
    if not module_name or not attr:
        raise UserError(f"cell task {task!r} is not of the form module:function")
    try:
        fn: Callable[[Mapping[str, Any]], Any] = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise UserError(f"cell task {task!r} cannot be loaded: {exc}") from exc
    return fn


def is_async_task(task: str) -> bool:
    return inspect.iscoroutinefunction(load_task(task))


def _record(cell: Cell, outcome: Any, error: BaseException | None, started: float) -> CellRecord:
    record: CellRecord = {
        "schema": RECORD_SCHEMA,
        "cell": cell.id,
        "status": "ok" if error is None else "error",
        "result": None,
        "error": None,
        "tokens_in": 0,
        "tokens_out": 0,
        "cost": 0.0,
    }
    if error is not None:
        record["error"] = f"{type(error).__name__}: {error}"
    elif not isinstance(outcome, Mapping):
        record["status"] = "error"
        record["error"] = f"task {cell.task} returned {type(outcome).__name__}, not a mapping"
    else:
        record["result"] = outcome.get("result")
        record["tokens_in"] = int(outcome.get("tokens_in", 0))
        record["tokens_out"] = int(outcome.get("tokens_out", 0))
        record["cost"] = float(outcome.get("cost", 0.0))
    record["wall_s"] = round(time.perf_counter() - started, 4)
    record["finished_at"] = datetime.now(UTC).isoformat(timespec="milliseconds")
    return record


def execute_cell(cell: Cell) -> CellRecord:
    """Run one cell to its record, synchronously (a coroutine task gets its own loop):
    what a thread, a process-pool worker or a Ray task calls."""
    started = time.perf_counter()
    try:
        outcome = load_task(cell.task)(cell.payload)
        if inspect.isawaitable(outcome):
            outcome = asyncio.run(_awaited(outcome))
    except Exception as exc:  # a failed cell is recorded as such, never dropped
        return _record(cell, None, exc, started)
    return _record(cell, outcome, None, started)


async def aexecute_cell(cell: Cell) -> CellRecord:
    """Run one cell in the running loop: a coroutine task is awaited here, a plain one is
    run in a thread so it may start its own event loop."""
    started = time.perf_counter()
    try:
        fn = load_task(cell.task)
        if inspect.iscoroutinefunction(fn):
            outcome = await fn(cell.payload)
        else:
            outcome = await asyncio.to_thread(fn, cell.payload)
    except Exception as exc:  # a failed cell is recorded as such, never dropped
        return _record(cell, None, exc, started)
    return _record(cell, outcome, None, started)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable
