"""In which order, and in how many children, a mutant's selected tests run: what killed
earlier mutants of the same function or class first, then of the same file, then the
fastest. Which tests run is never changed — only their order and grouping."""

from __future__ import annotations

from collections import defaultdict

import execute


class Learner:
    """Orders each mutant's tests by what killed earlier mutants — of the same function or
    class first, then of the same file — and stages them: the test file most likely to
    kill it first, everything else only if it survives that. Which tests run is never
    changed — only their order and grouping."""

    def __init__(self, durations: dict[str, float]) -> None:
        self.durations = durations
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
        by_file: dict[str, list[str]] = defaultdict(list)
        for t in job.tests:
            by_file[file_of(t)].append(t)
        for tests in by_file.values():
            tests.sort(
                key=lambda t: (
                    -self.scope_kills[path, scope, t],
                    -self.test_kills[path, t],
                    self.durations.get(t, 0.0),
                    t,
                )
            )

        def file_key(f: str) -> tuple[int, int, float, str]:
            cost = sum(self.durations.get(t, 0.0) for t in by_file[f])
            return (-self.scope_file_kills[path, scope, f], -self.file_kills[path, f], cost, f)

        files = sorted(by_file, key=file_key)
        first, rest = by_file[files[0]], [t for f in files[1:] for t in by_file[f]]
        return [first, rest] if rest else [first]


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]
