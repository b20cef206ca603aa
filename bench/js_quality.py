"""Measured quality of the JS/TS static critics: recall per topic and false alarms on
real-refactor benign controls, on a corpus of mutants of real JavaScript and TypeScript.

    nice -n 10 .venv/bin/python bench/js_quality.py [REPO ...] [--per-operator 25] [--seed N]

Nothing from the repositories is stored here: every run reads the JS/TS files at HEAD of the
given git repositories (bare mirrors are fine; with none, every repository under
/work/.mirror/*/repo that holds JS/TS), keeps ordinary source and test files (no fixtures,
no minified or generated files, no declaration files, under 60 KB), applies the defect
operators and the benign controls of `js_operators.py` and scores `run_static` (all topics)
on each (old, new) pair. Sampling is deterministic for a seed and the repositories' HEADs.

Scoring, as `static_quality.py` does for Python. A mutant is caught when a non-waived finding
of its topic lies on the changed file and touches the mutated lines (widened by one line each
way); for a pure deletion (an assertion, a test, a guard removed) any finding of that topic in
the file counts. A benign control is a false alarm when any finding at all is raised on it
(the critics are diff-aware by design). That is recall as *raised*, at any severity (the
figures the README quotes); the second table counts only findings that keep a blocking
severity (critical or major) after calibration. A mutant whose mutated file no longer parses is not
counted (it is a broken mutation, not a miss); those are listed.

Targets (issue 17): recall >= 90% per topic; false alarms <= 2%.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from contend.critics.static import treesitter
from contend.critics.static.base import Finding, language_of
from contend.critics.static.calibration import may_block
from contend.critics.static.js_tests_model import is_fixture_path, is_test_code
from contend.critics.static.runner import run_static
from contend.critics.static.testing import change_from_texts
from contend.protocol.model import Severity
from js_operators import BENIGN, DEFECTS, Edit, Source
from js_operators_fourth import BENIGN_FOURTH
from js_operators_moves import BENIGN_MOVES
from js_operators_refactors import BENIGN_REFACTORS
from js_operators_third import BENIGN_THIRD, DEFECTS_THIRD

SEED = 20261201
MAX_BYTES = 60_000
TOPICS = ("silent-fallback", "test-weakening", "boundary-typing", "concurrency")
TOLERANCE = 1


@dataclass(slots=True)
class Result:
    kind: str  # topic, or "benign"
    operator: str
    path: str
    caught: bool
    findings: list[str] = field(default_factory=list)
    blocking: bool = False  # caught (or, on a control, alarmed) by a blocking finding
    earned: bool = False  # the same, counting only findings the earned policy lets block
    # The rules of the findings that make `caught` true (of the mutant's topic, on its lines;
    # on a control, every finding), so recall without some rules can be recomputed.
    caught_by: list[str] = field(default_factory=list)


def _git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", "-C", str(repo), *args], input=data, capture_output=True, check=True
    ).stdout


def load_sources(repos: list[Path]) -> list[Source]:
    sources: list[Source] = []
    for repo in repos:
        listing = _git(repo, "ls-tree", "-r", "-l", "HEAD").decode("utf-8", errors="replace")
        wanted: list[tuple[str, str]] = []
        for line in listing.splitlines():
            meta, _, path = line.partition("\t")
            mode, kind, sha, size = meta.split()
            if mode == "120000" or kind != "blob" or not size.isdigit():
                continue
            if int(size) > MAX_BYTES or path.endswith(".d.ts") or ".min." in path:
                continue
            if language_of(path) not in ("javascript", "typescript", "tsx"):
                continue
            if is_fixture_path(path) or "/dist/" in f"/{path}" or "examples/" in path:
                continue
            wanted.append((f"{repo.parent.name}/{path}", sha))
        batch = _git(repo, "cat-file", "--batch", data="\n".join(s for _p, s in wanted).encode())
        pos = 0
        for path, _sha in wanted:
            header_end = batch.index(b"\n", pos)
            size = int(batch[pos:header_end].split()[2])
            blob = batch[header_end + 1 : header_end + 1 + size]
            pos = header_end + 1 + size + 1
            try:
                text = blob.decode("utf-8")
            except UnicodeDecodeError:
                continue
            if not text.endswith("\n") or max(map(len, text.split("\n"))) > 300:
                continue  # generated or minified
            language = treesitter.js_language(language_of(path))
            assert language is not None
            root = treesitter.parse(text, language)
            if treesitter.syntax_error_line(root) is not None:
                continue
            change = change_from_texts(path, None, text)
            sources.append(Source(path, text, root, language, is_test_code(change, None, root)))
    return sources


def _touches(finding: Finding, lines: frozenset[int]) -> bool:
    return any(
        finding.start_line - TOLERANCE <= line <= finding.end_line + TOLERANCE for line in lines
    )


def score(kind: str, name: str, src: Source, edit: Edit) -> Result | None:
    language = treesitter.js_language(language_of(src.path))
    assert language is not None
    if not edit.deleted and treesitter.syntax_error_line(treesitter.parse(edit.new_text, language)):
        return None
    changes = [change_from_texts(src.path, src.text, None if edit.deleted else edit.new_text)]
    changes += [change_from_texts(path, old, new) for path, old, new in edit.extra]
    # Each rule's own severity (`static.blocking = "rule"`): both blocking columns from one run.
    result = run_static(changes, blocking="rule")
    findings = [f for f in result.findings if not f.waived]
    shown = [f"{f.path.rsplit('/', 1)[-1]}:{f.rule}@{f.start_line}" for f in findings]
    blockers = [f for f in findings if f.severity is not Severity.MINOR]
    # The earned policy only ever lowers a finding of a rule it does not let block to minor,
    # so this is exact from the findings at their "rule" severity.
    earners = [f for f in blockers if may_block(f.rule)]
    if kind == "benign":
        return Result(
            kind,
            name,
            src.path,
            bool(findings),
            shown,
            bool(blockers),
            bool(earners),
            sorted({f.rule for f in findings}),
        )
    mine = [f for f in findings if f.topic.value == kind and f.path == src.path]

    def hit(chosen: list[Finding]) -> bool:
        return bool(chosen) if not edit.lines else any(_touches(f, edit.lines) for f in chosen)

    return Result(
        kind,
        name,
        src.path,
        hit(mine),
        shown,
        hit([f for f in mine if f in blockers]),
        hit([f for f in mine if f in earners]),
        sorted({f.rule for f in mine if hit([f])}),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repos", nargs="*", type=Path)
    parser.add_argument("--per-operator", type=int, default=25)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--show", type=int, default=3, help="misses/false alarms shown each")
    parser.add_argument(
        "--only", action="append", default=[], help="only this operator or control (repeatable)"
    )
    parser.add_argument("--json", type=Path, help="write every item's result to this file")
    args = parser.parse_args()
    repos = args.repos or sorted(Path("/work/.mirror").glob("*/repo"))
    started = time.perf_counter()
    sources = load_sources(repos)
    tests = [s for s in sources if s.is_test]
    code = [s for s in sources if not s.is_test]
    print(
        f"sources: {len(sources)} files from {len(repos)} repositories "
        f"({len(code)} source, {len(tests)} test), read in {time.perf_counter() - started:.1f}s"
    )
    rng = random.Random(args.seed)
    results: list[Result] = []
    broken: Counter[str] = Counter()
    plans = [(topic, name, op, need) for name, (topic, op, need) in DEFECTS.items()]
    benign = {**BENIGN, **BENIGN_MOVES, **BENIGN_REFACTORS, **BENIGN_THIRD}
    plans += [("benign", name, op, need) for name, (op, need) in benign.items()]
    plans += [(topic, name, op, need) for name, (topic, op, need) in DEFECTS_THIRD.items()]
    plans += [("benign", name, op, need) for name, (op, need) in BENIGN_FOURTH.items()]
    if args.only:
        plans = [plan for plan in plans if plan[1] in args.only]
    for kind, name, operator, need in plans:
        pool = tests if need is True else code if need is False else sources
        order = list(pool)
        rng.shuffle(order)
        taken = 0
        for src in order:
            if taken >= args.per_operator:
                break
            edits = operator(src)
            if not edits:
                continue
            edit = rng.choice(edits)
            if edit.new_text == src.text:
                continue
            outcome = score(kind, name, src, edit)
            if outcome is None:
                broken[name] += 1
                continue
            results.append(outcome)
            taken += 1
    _report(results, broken, args.show)
    if args.json is not None:
        rows = [dataclasses.asdict(r) for r in results]
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print(f"\nwhole benchmark: {time.perf_counter() - started:.1f}s")


def _report(results: list[Result], broken: Counter[str], show: int) -> None:
    by_kind: dict[str, list[Result]] = defaultdict(list)
    for result in results:
        by_kind[result.kind].append(result)
    print(f"\n{'':<34} {'n':>4} {'result':>16}")
    for topic in TOPICS:
        items = by_kind[topic]
        caught = sum(r.caught for r in items)
        rate = 100 * caught / len(items) if items else 0.0
        print(f"{'recall: ' + topic:<34} {len(items):>4} {rate:>6.1f}% ({caught}/{len(items)})")
    benign = by_kind["benign"]
    alarms = sum(r.caught for r in benign)
    rate = 100 * alarms / len(benign) if benign else 0.0
    print(
        f"{'false alarms: benign controls':<34} {len(benign):>4} "
        f"{rate:>6.1f}% ({alarms}/{len(benign)})"
    )
    print('\ncounting only blocking (critical / major) findings: static.blocking = "rule" |')
    print('"earned" (the default, calibration.POLICY)')
    for kind in (*TOPICS, "benign"):
        items = by_kind[kind]
        name = "false alarms: benign controls" if kind == "benign" else f"recall: {kind}"
        cells = []
        for hits in (sum(r.blocking for r in items), sum(r.earned for r in items)):
            rate = 100 * hits / len(items) if items else 0.0
            cells.append(f"{rate:>6.1f}% ({hits}/{len(items)})")
        print(f"{name:<34} {len(items):>4} {cells[0]} | {cells[1]}")
    print("\nper operator (caught or alarmed / n):")
    per_op: dict[tuple[str, str], list[Result]] = defaultdict(list)
    for result in results:
        per_op[(result.kind, result.operator)].append(result)
    for (kind, name), items in sorted(per_op.items()):
        hits = sum(r.caught for r in items)
        print(f"  {kind:<16} {name:<24} {hits:>3}/{len(items):<3}")
        wrong = [r for r in items if (not r.caught) != (kind == "benign")]
        for r in wrong[:show]:
            label = "missed" if kind != "benign" else "alarm"
            print(f"      {label}: {r.path} {r.findings[:4]}")
    if broken:
        print("\nmutations that did not parse (not counted):", dict(broken))


if __name__ == "__main__":
    sys.setrecursionlimit(10_000)
    main()
