"""The incremental mode (`--incremental RESULTS`): judge again only what an earlier run's
outcome no longer stands for.

An earlier outcome is carried over, never re-run, when what decided it is unchanged:

- a kill, while the mutated file and the test file of the killing test are byte for byte
  as they were (the same test still fails on the same mutant);
- a survival (or "not covered"), while the mutated file is as it was and no test file
  that could kill it changed: once test files changed (or were added), a survivor is
  judged again only if one of them holds a test the line map now selects for it — a test
  that runs none of its lines cannot kill it, which is what the selection of every run
  rests on. A changed test support file (a conftest, a helper, a fake: anything under
  the test directory that is not a test file) may change any test: then every survivor
  is judged again.

Everything else is judged again: every mutant of a file changed since RESULTS and a
mutant new since then. Results record the digest of
each mutated file (`sources`) and of each test file (`test_files`) for this check.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
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
    tests_changed: bool  # some test file differs: survivors are judged again, unless
    # …only test files changed and none of them is selected for the survivor:
    survivors: dict[str, Carried] = field(default_factory=dict)  # key → stands if so
    changed_tests: frozenset[str] = frozenset()  # test files changed or new since

    def still_survives(self, key: str, selected_files: set[str]) -> Carried | None:
        """A survivor's earlier outcome, if none of the test files selected for it now
        changed since."""
        if key in self.survivors and not (selected_files & self.changed_tests):
            return self.survivors[key]
        return None


def _is_test_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.startswith("test_") or name.endswith("_test.py")


def plan_all(results: list[Path], sources: dict[str, str], tests_now: dict[str, str]) -> Plan:
    """`plan` over several results files (e.g. one per package, run apart): an outcome
    carried from any of them stands; a file is changed if no results file has it as now."""
    plans = [plan(r, sources, tests_now) for r in results]
    carried: dict[str, Carried] = {}
    survivors: dict[str, Carried] = {}
    for p in plans:
        for key, outcome in p.carried.items():
            carried.setdefault(key, outcome)
    # A conditional survivor from one results file is checked against what changed since
    # that file; the same key judged unconditionally elsewhere needs no condition.
    changed_tests: set[str] = set()
    for p in plans:
        changed_tests |= p.changed_tests
        for key, outcome in p.survivors.items():
            if key not in carried:
                survivors.setdefault(key, outcome)
    changed = set(sources)
    for p in plans:
        changed &= set(p.changed_files)
    return Plan(
        carried,
        sorted(changed),
        any(p.tests_changed for p in plans),
        survivors,
        frozenset(changed_tests),
    )


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
    changed_tests: set[str] = set()
    only_test_files = False
    if then_tests is not None:
        changed_tests = {
            f for f in {*then_tests, *tests_now} if then_tests.get(f) != tests_now.get(f)
        }
        only_test_files = all(_is_test_file(f) for f in changed_tests)
    carried: dict[str, Carried] = {}
    survivors: dict[str, Carried] = {}
    for m in data.get("mutants", []):
        key, status, killer = m["key"], m["status"], m.get("killer")
        if key.split("::", 1)[0] not in unchanged or status not in CARRIED_STATES:
            continue
        if status in execute.KILLED_STATES:
            test_file = (killer or "").split("::", 1)[0]
            if then_tests is None or then_tests.get(test_file) != tests_now.get(test_file):
                continue
        elif tests_changed:
            if only_test_files:
                survivors[key] = Carried(status, killer, int(m.get("tests", 0)))
            continue
        carried[key] = Carried(status, killer, int(m.get("tests", 0)))
    return Plan(
        carried,
        sorted(set(sources) - unchanged),
        tests_changed,
        survivors,
        frozenset(changed_tests),
    )


def earlier_kills(results: Path, sources: dict[Path, str]) -> dict[str, tuple[str, str]]:
    """key → (status, killer) of the mutants an earlier run killed, if it ran on the same
    source: a kill stands while the mutated file is unchanged (new tests can only add kills)."""
    try:
        data = json.loads(results.read_text())
    except (OSError, ValueError) as exc:
        raise IncrementalError(f"--rerun {results}: {exc}") from None
    then = data.get("sources", {})
    for path, text in sources.items():
        if then.get(path.as_posix()) not in (None, digest(text)):
            raise IncrementalError(f"--rerun: {path} changed since {results}; run it whole")
    return {
        m["key"]: (m["status"], m["killer"])
        for m in data.get("mutants", [])
        if m["status"] in execute.KILLED_STATES and m["key"].split("::", 1)[0] in then
    }
