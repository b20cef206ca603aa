"""Drive a grid of cells through an executor into a journal: skip what is finished, stop
cleanly at the cap, append each record the moment it arrives.

The caps cover the whole grid, earlier sessions included (a resumed grid starts with what
its journal already spent). Reaching one stops *new* cells; cells in flight finish and are
recorded, since they are paid for. The outcome says how many cells were left unrun, so a
stopped grid is never mistaken for a finished one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from contend.errors import UserError
from contend.executor.base import Cell, CellRecord, Executor
from contend.executor.journal import Journal


@dataclass(frozen=True, slots=True)
class Caps:
    """None: no cap. A cap must be positive (a zero cap could run nothing)."""

    max_cost: float | None = None
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        if self.max_cost is not None and not self.max_cost > 0:
            raise UserError(f"the cost cap must be positive, got {self.max_cost:g}")
        if self.max_tokens is not None and self.max_tokens <= 0:
            raise UserError(f"the token cap must be positive, got {self.max_tokens}")


@dataclass(frozen=True, slots=True)
class GridOutcome:
    cells: int  # in the grid
    already_done: int  # finished in an earlier session (skipped)
    ran: int  # finished in this session
    errors: int  # records with status "error", all sessions
    not_run: int  # left unrun (stopped at a cap)
    stopped: str | None  # "max_cost" / "max_tokens" when a cap stopped the grid
    cost: float  # spent, all sessions
    tokens: int
    discarded_torn_bytes: int

    @property
    def complete(self) -> bool:
        return self.not_run == 0


def check_cells(cells: Sequence[Cell]) -> None:
    seen: set[str] = set()
    for cell in cells:
        if cell.id in seen:
            raise UserError(f"the grid names cell {cell.id!r} twice")
        seen.add(cell.id)


def run_grid(
    cells: Sequence[Cell],
    executor: Executor,
    journal: Journal,
    *,
    concurrency: int,
    caps: Caps = Caps(),
    on_record: Callable[[CellRecord], None] | None = None,
) -> GridOutcome:
    """Run every cell of `cells` not yet in `journal`; see the module docstring."""
    if concurrency < 1:
        raise UserError(f"concurrency must be at least 1, got {concurrency}")
    check_cells(cells)
    ids = {c.id for c in cells}
    foreign = sorted(journal.finished() - ids)
    if foreign:
        raise UserError(
            f"{journal.path} records cells this grid does not have (e.g. {foreign[0]!r}): "
            "it belongs to another grid"
        )
    done_before = journal.finished()
    pending = [c for c in cells if c.id not in done_before]
    spent = _Spent(journal.records)
    stopped: list[str] = []

    def feed() -> Iterator[Cell]:
        for cell in pending:
            reason = spent.over(caps)
            if reason is not None:
                stopped.append(reason)
                return
            yield cell

    async def drive() -> int:
        ran = 0
        stream = executor.stream(feed(), concurrency)
        try:
            async for record in stream:
                record["executor"] = executor.name
                journal.append(record)
                spent.add(record)
                ran += 1
                if on_record is not None:
                    on_record(record)
        finally:
            await stream.aclose()  # type: ignore[attr-defined]
        return ran

    try:
        ran = asyncio.run(drive())
    finally:
        executor.close()
    return GridOutcome(
        cells=len(cells),
        already_done=len(done_before),
        ran=ran,
        errors=sum(1 for r in journal.records if r.get("status") == "error"),
        not_run=len(ids - journal.finished()),
        stopped=stopped[0] if stopped else None,
        cost=round(spent.cost, 6),
        tokens=spent.tokens,
        discarded_torn_bytes=journal.discarded_torn_bytes,
    )


class _Spent:
    def __init__(self, records: Sequence[CellRecord]) -> None:
        self.cost = 0.0
        self.tokens = 0
        for record in records:
            self.add(record)

    def add(self, record: CellRecord) -> None:
        self.cost += float(record.get("cost", 0.0))
        self.tokens += int(record.get("tokens_in", 0)) + int(record.get("tokens_out", 0))

    def over(self, caps: Caps) -> str | None:
        if caps.max_cost is not None and self.cost >= caps.max_cost:
            return "max_cost"
        if caps.max_tokens is not None and self.tokens >= caps.max_tokens:
            return "max_tokens"
        return None
