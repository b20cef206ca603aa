"""Each static rule's blocking record on the seen real-commit sets, recomputed from the labels.

    .venv/bin/python bench/block_records.py [--markdown]

Reads the label files of the four SEEN sets only (`bench/realcommits/labels/`,
`labels-holdout/`, `labels-holdout2/`, `labels-holdout3/`; never a later holdout, which
nobody tuning the critics may read) and counts, per rule, the labelled finding locations
that were raised at a blocking severity (`major` or `critical` as seen when labelled):
TRUE / DEBATABLE / FALSE. A location labelled again by a later version with the same label
counts once (same set, commit, path, rule, start line and label). Prints each rule's record,
the one-sided 95% Wilson lower bound of its TRUE share, and whether
`contend.critics.static.calibration.POLICY` states the same record and lets the rule block.
`tests/test_static_calibration.py` checks the table against these counts, so the table
cannot drift from the labels.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from contend.critics.static.calibration import POLICY, Record

ROOT = Path(__file__).resolve().parent / "realcommits"
SEEN_SETS = ("labels", "labels-holdout", "labels-holdout2", "labels-holdout3")
BLOCKING = frozenset({"major", "critical"})


def blocking_records(root: Path = ROOT, sets: tuple[str, ...] = SEEN_SETS) -> dict[str, Record]:
    """rule -> its blocking record over the label files of `sets` under `root`."""
    seen: dict[str, dict[str, set[tuple[object, ...]]]] = defaultdict(lambda: defaultdict(set))
    for name in sets:
        files = sorted((root / name).glob("*/*.jsonl"))
        if not files:
            raise FileNotFoundError(f"no label files under {root / name}")
        for path in files:
            for line in path.read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                label = json.loads(line)
                if label["severity"] not in BLOCKING:
                    continue
                place = (name, label["commit"], label["path"], label["start_line"])
                seen[label["rule"]][label["label"]].add(place)
    return {
        rule: Record(len(by["TRUE"]), len(by["DEBATABLE"]), len(by["FALSE"]))
        for rule, by in seen.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    records = blocking_records()
    rules = sorted(set(records) | set(POLICY), key=lambda r: (-records.get(r, Record()).n, r))
    drift = 0
    if args.markdown:
        print("| rule | blocking labels T / D / F | lower bound | blocks |")
        print("|---|---:|---:|---|")
    for rule in rules:
        record = records.get(rule, Record())
        policy = POLICY.get(rule)
        stated = policy.record if policy else Record()
        blocks = "yes" if policy is not None and policy.blocks else "no"
        mismatch = "" if stated == record else f"  TABLE SAYS {stated.text()}"
        drift += bool(mismatch)
        if args.markdown:
            print(f"| `{rule}` | {record.text()} | {record.lower_bound():.2f} | {blocks} |")
        else:
            bound = record.lower_bound()
            print(f"{rule:32} {record.text():>12}  lb {bound:.2f}  {blocks}{mismatch}")
    total = Record(
        sum(r.true for r in records.values()),
        sum(r.debatable for r in records.values()),
        sum(r.false for r in records.values()),
    )
    print(f"\nall rules: {total.text()} blocking labels; table out of date for {drift} rule(s)")
    return 1 if drift else 0


if __name__ == "__main__":
    sys.exit(main())
