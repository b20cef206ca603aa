"""Which executor a name means: the one place that knows every executor class, so that
base.py (the interface every executor imports) imports none of them."""

from __future__ import annotations

from typing import Literal

from contend.errors import UserError
from contend.executor.base import Executor

ExecutorKind = Literal["local", "process", "ray"]
EXECUTORS: tuple[ExecutorKind, ...] = ("local", "process", "ray")


def make_executor(
    kind: str, *, ray_address: str | None = None, ray_num_cpus: int | None = None
) -> Executor:
    """The executor called `kind`: "local" (asyncio in this process), "process" (a local
    process pool) or "ray" (needs the extra contend[ray])."""
    if kind == "local":
        from contend.executor.local import LocalExecutor

        return LocalExecutor(mode="thread")
    if kind == "process":
        from contend.executor.local import LocalExecutor

        return LocalExecutor(mode="process")
    if kind == "ray":
        from contend.executor.ray_executor import RayExecutor

        return RayExecutor(address=ray_address, num_cpus=ray_num_cpus)
    raise UserError(f"unknown executor {kind!r}; executors: {', '.join(EXECUTORS)}")
