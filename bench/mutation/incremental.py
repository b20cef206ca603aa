"""The incremental mode (`--incremental RESULTS`): judge again only what an earlier run's
outcome no longer stands for.

An earlier outcome is carried over, never re-run, when what decided it is unchanged:

- a kill, while the mutated file and the test file of the killing test are byte for byte
  as they were (the same test still fails on the same mutant);
- a survival (or "not covered"), while the mutated file and every test file are as they
  were (no new or changed test could kill it yet).

Everything else is judged again: every mutant of a file changed since RESULTS, a mutant
new since then, and a survivor once any test file changed. Results record the digest of
each mutated file (`sources`) and of each test file (`test_files`) for this check.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import execute

CARRIED_STATES = frozenset({*execute.KILLED_STATES, execute.SURVIVED, execute.NO_TESTS})


class IncrementalError(Exception):
    pass


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_file_digests(root: Path, tests_dir: Path) -> dict[str, str]:
    """Every Python file under the test directory (helpers and conftest too), by its path
    relative to the root."""
    return {
        path.relative_to(root).as_posix(): digest(path.read_text())
        for path in sorted(tests_dir.rglob("*.py"))
        if "__pycache__" not in path.parts
    }


@dataclass(frozen=True, slots=True)
class Carried:
    status: str
    killer: str | None
    tests: int


@dataclass(frozen=True, slots=True)
class Plan:
    carried: dict[str, Carried]  # mutant key → the earlier outcome that still stands
    changed_files: list[str]  # mutated files whose text differs from RESULTS (or new)
    tests_changed: bool  # some test file differs: survivors are judged again


def plan_all(results: list[Path], sources: dict[str, str], tests_now: dict[str, str]) -> Plan:
    """`plan` over several results files (e.g. one per package, run apart): an outcome
    carried from any of them stands; a file is changed if no results file has it as now."""
    plans = [plan(r, sources, tests_now) for r in results]
    carried: dict[str, Carried] = {}
    for p in plans:
        for key, outcome in p.carried.items():
            carried.setdefault(key, outcome)
    changed = set(sources)
    for p in plans:
        changed &= set(p.changed_files)
    return Plan(carried, sorted(changed), any(p.tests_changed for p in plans))


def plan(results: Path, sources: dict[str, str], tests_now: dict[str, str]) -> Plan:
    """What of `results` still stands for the files `sources` (path → text now)."""
    try:
        data = json.loads(results.read_text())
    except (OSError, ValueError) as exc:
        raise IncrementalError(f"--incremental {results}: {exc}") from None
    then_sources: dict[str, str] = data.get("sources", {})
    then_tests: dict[str, str] | None = data.get("test_files")
    unchanged = {p for p, text in sources.items() if then_sources.get(p) == digest(text)}
    # A results file without test digests cannot vouch for any survivor.
    tests_changed = then_tests != tests_now
    carried: dict[str, Carried] = {}
    for m in data.get("mutants", []):
        key, status, killer = m["key"], m["status"], m.get("killer")
        if key.split("::", 1)[0] not in unchanged or status not in CARRIED_STATES:
            continue
        if status in execute.KILLED_STATES:
            test_file = (killer or "").split("::", 1)[0]
            if then_tests is None or then_tests.get(test_file) != tests_now.get(test_file):
                continue
        elif tests_changed:
            continue
        carried[key] = Carried(status, killer, int(m.get("tests", 0)))
    return Plan(carried, sorted(set(sources) - unchanged), tests_changed)
