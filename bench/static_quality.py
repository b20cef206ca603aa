"""Measured quality of the static critics: recall per topic and false alarms on benign
controls, contend side by side with ruff and bandit, on a corpus built at run time.

    .venv/bin/python bench/static_quality.py [--keep DIR [--reuse]] [--json F] [--markdown F]

Builds the corpus (`static_corpus.py`) in a temporary directory, runs contend's static
critics (collect_changes + run_static, all topics) on every item, ruff and bandit on every
item's base and change versions, and prints one table plus a per-operator breakdown.

Scoring. A mutant counts as caught by contend when a non-waived finding of the mutant's
topic lies on the changed file and touches the mutated lines (its line span, widened by one
line each way, meets a line the change added or modified); for a pure deletion — an
assertion, a guard or a test removed — any finding of that topic in the file counts. That is
recall as *raised*, at any severity (the figures the README quotes); recall as *blocking*
counts only findings that keep a blocking severity (critical or major) after calibration, and
a benign control is a blocking false alarm when any such finding is raised on it. A
baseline counts a mutant as caught when a diagnostic it introduced (see `baselines.py`)
touches the mutated lines the same way; baselines have no topics, so any rule counts. A
benign control is a false alarm for contend when contend reports any finding at all (it is
diff-aware by design), and for a baseline when it introduced a diagnostic on a changed line.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from baselines import RUFF_IGNORE, RUFF_SELECT, Diagnostic, Job, introduced
from benign import LOOKALIKE
from contend.critics.static.base import Finding
from contend.critics.static.calibration import may_block
from contend.critics.static.runner import run_static
from contend.gitio.diff import collect_changes
from contend.protocol.model import Severity
from static_corpus import SEED, Item, build_corpus, stdlib_pools

TOPICS = (
    "silent-fallback",
    "test-weakening",
    "boundary-typing",
    "concurrency",
    "security",
    "secrets",
)
TOLERANCE = 1  # lines either side of the mutated lines a report may sit on
TOOLS = ("contend", "ruff", "bandit")


@dataclass(slots=True)
class Outcome:
    item: Item
    hits: dict[str, bool] = field(default_factory=dict)  # tool -> caught / false alarm
    any_topic: bool = False  # contend reported something of any topic on the mutated lines
    blocking: bool = False  # caught (or, on a control, alarmed) by a blocking finding
    earned: bool = False  # the same, counting only findings the earned policy lets block
    strict: bool = False  # caught with no line tolerance (the finding meets a changed line)
    findings: list[str] = field(default_factory=list)  # contend "topic:rule@line"
    # The rules of the findings that make `hits["contend"]` true (of the mutant's topic, on its
    # lines; on a control, every finding), so recall without some rules can be recomputed.
    caught_by: list[str] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None  # contend raised on this item: counted as a miss, reported


def crash_site(exc: BaseException) -> str:
    """The innermost contend frame of a traceback, where a critic bug is to be fixed."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/contend/" in f.filename]
    where = f"{frames[-1].filename.split('/contend/')[-1]}:{frames[-1].lineno}" if frames else "?"
    return f"{type(exc).__name__} at contend/{where}: {str(exc)[:120]}"


def touches(item: Item, start: int, end: int, tolerance: int = TOLERANCE) -> bool:
    if item.deletion:
        return True
    return any(start - tolerance <= line <= end + tolerance for line in item.added_lines)


def _earns(finding: Finding) -> bool:
    """Would the finding block under the earned policy (`calibration.POLICY`)? Exact from a
    finding at its `"rule"` severity: the policy only ever lowers a finding of a rule it does
    not let block to minor."""
    return finding.severity is not Severity.MINOR and may_block(finding.rule)


def score_contend(item: Item) -> Outcome:
    outcome = Outcome(item)
    started = time.perf_counter()
    try:
        changes, skipped = collect_changes(Path(item.repo), "HEAD~1", "HEAD")
        # Each rule's own severity (`static.blocking = "rule"`), so that both blocking columns
        # come from one run: the earned policy only lowers severities (`_earns`).
        result = run_static(changes, skipped=skipped, blocking="rule")
    except Exception as exc:
        # One crashing item must not hide the other 500 results: it is scored as a miss
        # (or, on a control, as a false alarm), printed, and counted in the summary.
        outcome.error = crash_site(exc)
        outcome.hits["contend"] = item.label == "benign"
        print(f"  {item.id}: contend raised {outcome.error}", file=sys.stderr)
        return outcome
    outcome.seconds = time.perf_counter() - started
    if result.skipped:
        reasons = "; ".join(f"{s.path}: {s.reason}" for s in result.skipped)
        print(f"  {item.id}: skipped {reasons}", file=sys.stderr)
    live = [f for f in result.findings if not f.waived and f.path == item.path]
    outcome.findings = [f"{f.topic}:{f.rule}@{f.start_line}" for f in result.findings]
    on_lines = [f for f in live if touches(item, f.start_line, f.end_line)]
    outcome.any_topic = bool(on_lines)
    if item.label == "benign":
        outcome.hits["contend"] = bool(result.findings)
        outcome.caught_by = sorted({f.rule for f in result.findings})
        outcome.blocking = any(f.severity is not Severity.MINOR for f in result.findings)
        outcome.earned = any(_earns(f) for f in result.findings)
    else:
        outcome.hits["contend"] = any(str(f.topic) == item.label for f in on_lines)
        outcome.caught_by = sorted({f.rule for f in on_lines if str(f.topic) == item.label})
        outcome.blocking = any(
            str(f.topic) == item.label and f.severity is not Severity.MINOR for f in on_lines
        )
        outcome.earned = any(str(f.topic) == item.label and _earns(f) for f in on_lines)
        outcome.strict = any(
            str(f.topic) == item.label and touches(item, f.start_line, f.end_line, tolerance=0)
            for f in live
        )
    return outcome


def score_baseline(
    item: Item, old_text: str, new_text: str, old: list[Diagnostic], new: list[Diagnostic]
) -> bool:
    fresh = introduced(old_text, new_text, old, new)
    if item.label == "benign":
        return any(touches(item, d.start_line, d.end_line, tolerance=0) for d in fresh)
    return any(touches(item, d.start_line, d.end_line) for d in fresh)


def base_text(item: Item) -> str:
    out = subprocess.run(
        ["git", "-C", item.repo, "show", f"HEAD~1:{item.path}"],
        check=True,
        capture_output=True,
    )
    return out.stdout.decode("utf-8")


def rate(outcomes: list[Outcome], tool: str) -> str:
    if not outcomes:
        return "-"
    hits = sum(o.hits[tool] for o in outcomes)
    return f"{100 * hits / len(outcomes):5.1f}% ({hits}/{len(outcomes)})"


def markdown_tables(outcomes: list[Outcome]) -> str:
    """The summary and per-operator tables as Markdown, for docs/static-critics-benchmark.md."""
    by_label: dict[str, list[Outcome]] = defaultdict(list)
    by_op: dict[tuple[str, str], list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_label[o.item.label].append(o)
        by_op[(o.item.label, o.item.operator)].append(o)
    lookalike = [o for o in by_label.get("benign", []) if o.item.operator in LOOKALIKE]
    lines = ["| | n | contend | ruff | bandit |", "|---|---:|---:|---:|---:|"]
    for name, rows in [
        *((f"recall: {label}", by_label.get(label, [])) for label in TOPICS),
        ("false alarms: benign controls", by_label.get("benign", [])),
        ("… of which look-alike controls", lookalike),
    ]:
        lines.append(
            f"| {name} | {len(rows)} | " + " | ".join(rate(rows, t).strip() for t in TOOLS) + " |"
        )
    lines += [
        "",
        "| label | operator | n | contend | ruff | bandit |",
        "|---|---|---:|---:|---:|---:|",
    ]
    order = {label: i for i, label in enumerate((*TOPICS, "benign"))}
    for (label, op), rows in sorted(by_op.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
        cells = " | ".join(f"{sum(o.hits[t] for o in rows)}/{len(rows)}" for t in TOOLS)
        lines.append(f"| {label} | {op} | {len(rows)} | {cells} |")
    return "\n".join(lines) + "\n"


def print_tables(outcomes: list[Outcome]) -> None:
    by_label: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_label[o.item.label].append(o)
    header = f"{'':26} {'n':>4}  {'contend':>17}  {'ruff':>17}  {'bandit':>17}"
    print("\nRecall per topic (share of mutants caught) and false alarms on benign controls")
    print(header)
    lookalike = [o for o in by_label.get("benign", []) if o.item.operator in LOOKALIKE]
    for name, rows in [
        *((label, by_label.get(label, [])) for label in TOPICS),
        ("benign false alarms", by_label.get("benign", [])),
        ("  of which look-alikes", lookalike),
    ]:
        cells = "  ".join(f"{rate(rows, tool):>17}" for tool in TOOLS)
        print(f"{name:26} {len(rows):>4}  {cells}")

    print("\ncontend counting only blocking (critical / major) findings: under")
    print('static.blocking = "rule", and under "earned" (the default, calibration.POLICY)')
    for name, rows in [
        *((label, by_label.get(label, [])) for label in TOPICS),
        ("benign false alarms", by_label.get("benign", [])),
    ]:
        cells = []
        for hits in (sum(o.blocking for o in rows), sum(o.earned for o in rows)):
            cells.append(f"{100 * hits / len(rows):5.1f}% ({hits}/{len(rows)})" if rows else "-")
        print(f"{name:26} {len(rows):>4}  {cells[0]:>17}  {cells[1]:>17}")

    print("\nPer operator (recall for mutants, false-alarm rate for benign controls)")
    print(
        f"{'label / operator':48} {'n':>3}  {'contend':>7}  {'ruff':>7}  {'bandit':>7}  any-topic"
    )
    by_op: dict[tuple[str, str], list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_op[(o.item.label, o.item.operator)].append(o)
    order = {label: i for i, label in enumerate((*TOPICS, "benign"))}
    for (label, op), rows in sorted(by_op.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
        cells = "  ".join(f"{100 * sum(o.hits[t] for o in rows) / len(rows):6.0f}%" for t in TOOLS)
        anyt = f"{100 * sum(o.any_topic for o in rows) / len(rows):6.0f}%"
        print(f"{label + ' / ' + op:48} {len(rows):>3}  {cells}  {anyt}")

    mutants = [o for o in outcomes if o.item.label != "benign"]
    strict = sum(o.strict for o in mutants)
    print(
        f"\ncontend recall over all mutants with no line tolerance: {strict}/{len(mutants)}"
        f" (with the one-line tolerance: {sum(o.hits['contend'] for o in mutants)})"
    )
    misses = Counter(
        (o.item.label, o.item.operator)
        for o in outcomes
        if o.item.label != "benign" and not o.hits["contend"]
    )
    print("\ncontend misses by operator (count of mutants not caught)")
    for (label, op), n in sorted(misses.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {label:18} {op:32} {n}")
    errors = Counter((o.item.label, o.item.operator, o.error) for o in outcomes if o.error)
    if errors:
        print("\ncontend raised on these items (scored as misses / false alarms)")
        for (label, op, error), n in sorted(errors.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {label:18} {op:28} {n}  {error}")
    alarms = Counter(
        (o.item.operator, f.split("@")[0])
        for o in outcomes
        if o.item.label == "benign"
        for f in o.findings
    )
    print("\ncontend findings on benign controls (control operator, topic:rule)")
    for (op, rule), n in sorted(alarms.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {op:28} {rule:48} {n}")


def load_items(dest: Path) -> list[Item]:
    manifest = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
    return [
        Item(
            **{
                **d,
                "added_lines": tuple(d["added_lines"]),
                "removed_lines": tuple(d["removed_lines"]),
            }
        )
        for d in manifest["items"]
    ]


def run(
    dest: Path, seed: int, per_topic: int, benign: int, *, reuse: bool = False
) -> tuple[list[Outcome], dict[str, object]]:
    t0 = time.perf_counter()
    if reuse:
        items = load_items(dest)
    else:
        items = build_corpus(dest, seed=seed, per_topic=per_topic, benign=benign)
    build_s = time.perf_counter() - t0
    print(f"corpus: {len(items)} items ready in {build_s:.1f} s under {dest}", file=sys.stderr)

    items_dir, base_dir = dest / "items", dest / "base"
    shutil.rmtree(base_dir, ignore_errors=True)
    olds: dict[str, str] = {}
    for item in items:
        olds[item.id] = base_text(item)
        target = base_dir / item.id / item.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(olds[item.id], encoding="utf-8")
    jobs = {
        (tool, side): Job(tool, items_dir if side == "new" else base_dir)
        for tool in ("ruff", "bandit")
        for side in ("new", "old")
    }

    t1 = time.perf_counter()
    outcomes = [score_contend(item) for item in items]
    contend_s = time.perf_counter() - t1
    print(f"contend: {contend_s:.1f} s over {len(items)} items", file=sys.stderr)

    results = {key: job.result() for key, job in jobs.items()}
    for o in outcomes:
        key = f"{o.item.id}/{o.item.path}"
        new_text = (Path(o.item.repo) / o.item.path).read_text(encoding="utf-8")
        for tool in ("ruff", "bandit"):
            o.hits[tool] = score_baseline(
                o.item,
                olds[o.item.id],
                new_text,
                results[(tool, "old")].get(key, []),
                results[(tool, "new")].get(key, []),
            )
    pools = stdlib_pools()
    meta: dict[str, object] = {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": sys.version.split()[0],
        "stdlib": str(pools.root),
        "lib_test_present": pools.has_lib_test,
        "library_files": len(pools.library),
        "test_files": len(pools.tests),
        "nproc": os.cpu_count(),
        "seed": seed,
        "items": len(items),
        "build_seconds": round(build_s, 1),
        "contend_seconds": round(contend_s, 1),
        "total_seconds": round(time.perf_counter() - t0, 1),
        "ruff_select": RUFF_SELECT,
        "ruff_ignore": RUFF_IGNORE,
        "contend_errors": sum(o.error is not None for o in outcomes),
        "not_used": sum(
            json.loads((dest / "manifest.json").read_text(encoding="utf-8"))["not_used"].values()
        ),
    }
    return outcomes, meta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="build the corpus here and keep it")
    parser.add_argument(
        "--reuse", action="store_true", help="score the corpus already built in --keep DIR"
    )
    parser.add_argument("--json", type=Path, help="write every outcome to this file")
    parser.add_argument("--markdown", type=Path, help="write the tables as Markdown here")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--per-topic", type=int, default=72)
    parser.add_argument("--benign", type=int, default=312)
    args = parser.parse_args(argv)
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        outcomes, meta = run(args.keep, args.seed, args.per_topic, args.benign, reuse=args.reuse)
    else:
        with tempfile.TemporaryDirectory(prefix="contend-bench-") as tmp:
            outcomes, meta = run(Path(tmp), args.seed, args.per_topic, args.benign)
    print(" ".join(f"{k}={v}" for k, v in meta.items()))
    print_tables(outcomes)
    if args.markdown is not None:
        args.markdown.write_text(markdown_tables(outcomes), encoding="utf-8")
    if args.json is not None:
        payload = {
            "meta": meta,
            "outcomes": [
                {
                    "item": asdict(o.item),
                    "hits": o.hits,
                    "any_topic": o.any_topic,
                    "blocking": o.blocking,
                    "earned": o.earned,
                    "strict": o.strict,
                    "findings": o.findings,
                    "caught_by": o.caught_by,
                    "seconds": round(o.seconds, 4),
                    "error": o.error,
                }
                for o in outcomes
            ],
        }
        args.json.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
