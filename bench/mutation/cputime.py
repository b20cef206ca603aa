"""CPU time a run spends, per phase: what the same run would take on dedicated cores.

Wall time on a shared machine says more about the other jobs than about this one. The
user+system seconds of this process and of every child it has waited for (mutant children,
the line map's pytest session, the subprocesses the tests start and their children when
waited for) do not depend on the load: on N dedicated cores the run cannot take less wall
time than its CPU seconds / N, so that figure is a lower bound, not a promise (a run that
leaves a core idle, waiting on one slow mutant, takes longer).
"""

from __future__ import annotations

import resource
from collections.abc import Iterator
from contextlib import contextmanager


def spent() -> float:
    """User+system seconds so far of this process and its waited-for children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Meter:
    """CPU seconds per named phase. A phase may be entered more than once (it adds up);
    phases must not nest."""

    def __init__(self) -> None:
        self.phases: dict[str, float] = {}

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = spent()
        try:
            yield
        finally:
            self.phases[name] = self.phases.get(name, 0.0) + spent() - start

    def get(self, name: str) -> float:
        return self.phases.get(name, 0.0)
