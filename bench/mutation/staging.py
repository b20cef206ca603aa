"""In which order, and in how many children, a mutant's selected tests run. Which tests run
is never changed — only their order and grouping.

Files first by what killed earlier mutants (of the same function or class, then of the
same file), then by how near they are to the mutant (credited with its lines; ran a line
of its file or import its module; the rest), then by cost. Within a file, each test by its
expected cost to the first failure: its seconds over a weight that grows with its earlier
kills (Smith's rule: running the cheapest chance first minimises the expected time to
the first failure). On the slow path a stage is a child that collects its files, so the
files go in stages of 1, 2, 4, 8, … files: a mutant killed by its fourth file collects 7
files, not the whole set (a survivor pays a few more children, which its tests dwarf)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

import execute

# Seconds added to each test's duration: a test measured at 0 s still costs a little.
_FLOOR = 0.002
# How much an earlier kill weighs, by where it was: same function or class, same file.
_SCOPE_WEIGHT, _FILE_WEIGHT = 4.0, 1.0
_CREDITED, _NEAR, _FAR = 0, 1, 2


class Learner:
    """Orders and stages each mutant's tests (module docstring). `near`: per mutated file,
    the test files that ran a line of it or import its module; `credited`: per mutant, the
    test files credited with its own lines (for an import-time mutant, a subprocess that
    imported the module afresh)."""

    def __init__(
        self,
        durations: dict[str, float],
        near: Mapping[str, frozenset[str]] | None = None,
        credited: Mapping[str, frozenset[str]] | None = None,
    ) -> None:
        self.durations = durations
        self.near = near or {}
        self.credited = credited or {}
        # Kills counted per (file, test) and per (file, scope, test), and per test file.
        self.test_kills: dict[tuple[str, str], int] = defaultdict(int)
        self.scope_kills: dict[tuple[str, str, str], int] = defaultdict(int)
        self.file_kills: dict[tuple[str, str], int] = defaultdict(int)
        self.scope_file_kills: dict[tuple[str, str, str], int] = defaultdict(int)
        self.scopes: dict[str, str] = {}  # mutant key → its scope

    def killed(self, path: str, test: str, key: str = "") -> None:
        scope = self.scopes.get(key, "")
        self.test_kills[path, test] += 1
        self.file_kills[path, file_of(test)] += 1
        self.scope_kills[path, scope, test] += 1
        self.scope_file_kills[path, scope, file_of(test)] += 1

    def one_stage(self, job: execute.Job) -> list[list[str]]:
        """The same tests in the same order, in one child: on the fast path a stage saves
        no collection (the host collected once), so a second child would only add a fork
        and the session fixtures' setup again for every mutant that survives the first."""
        return [[t for stage in self.stages(job) for t in stage]]

    def stages(self, job: execute.Job) -> list[list[str]]:
        path = job.path.as_posix()
        scope = self.scopes.get(job.ident, "")
        credited = self.credited.get(job.ident, frozenset())
        near = self.near.get(path, frozenset())
        by_file: dict[str, list[str]] = defaultdict(list)
        for t in job.tests:
            by_file[file_of(t)].append(t)

        def expected_cost(t: str) -> float:
            weight = (
                1.0
                + _SCOPE_WEIGHT * self.scope_kills[path, scope, t]
                + _FILE_WEIGHT * self.test_kills[path, t]
            )
            return (self.durations.get(t, 0.0) + _FLOOR) / weight

        for tests in by_file.values():
            tests.sort(key=lambda t: (expected_cost(t), t))

        def file_key(f: str) -> tuple[int, int, int, float, str]:
            nearness = _CREDITED if f in credited else _NEAR if f in near else _FAR
            cost = sum(self.durations.get(t, 0.0) for t in by_file[f])
            return (
                -self.scope_file_kills[path, scope, f],
                -self.file_kills[path, f],
                nearness,
                cost,
                f,
            )

        files = sorted(by_file, key=file_key)
        stages: list[list[str]] = []
        start, size = 0, 1
        while start < len(files):
            stages.append([t for f in files[start : start + size] for t in by_file[f]])
            start, size = start + size, size * 2
        return stages


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]
