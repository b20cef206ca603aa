"""Which static rules cost the all-findings target (>= 70% TRUE, issues 8 and 17), and what
removing them would cost in recall — from runs already made, nothing is reviewed here.

    .venv/bin/python bench/realcommits/rules.py --json-dir /tmp/rules [--target 70] [--json F]

Reads, in DIR:

- `<set>.json` for each set (main, holdout … holdout7): the output of
  `run.py --set <set> --lang all --json DIR/<set>.json`, whose findings carry their labels
  (matched against the committed label files when the run was made). A set without its
  file is listed as not measured; runs of different contend versions are refused.
- `synthetic-python.json`: `bench/static_quality.py --json DIR/synthetic-python.json`, and
  `synthetic-js.json`: `bench/js_quality.py <repos> --json DIR/synthetic-js.json` — both
  with per-item `caught_by`. Either missing: its synthetic recall is said not measured.

Prints, per language (Markdown tables):

1. per rule: findings, TRUE / DEBATABLE / FALSE / UNLABELLED and blocking (critical or
   major, as raised) on the tuning sets (main, holdout … holdout6) and the fresh set
   (holdout7), with the severities as raised;
2. per rule, the counterfactual: all-findings precision on the tuning sets if that rule were
   not raised, and the TRUE findings it would lose (tuning, fresh), and the synthetic
   mutants only it catches, per topic;
3. the removal set that reaches the target on the tuning sets with the fewest TRUE findings
   lost, then the fewest rules (exact search, see rc_rules.py), and its cost: TRUE findings
   lost on the tuning and fresh sets, and synthetic recall per topic with and without it.
   Where no set reaches the target: the set with the highest precision, and the set that
   loses no TRUE finding, each with the same costs;
4. each rule's TRUE findings: set, project, commit, place and the label's reason.

Exit 0, or 2 on missing or inconsistent input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from rc_labels import LabelError, load_labels
from rc_projects import LANGS, SETS
from rc_rules import (
    FRESH_SET,
    RealFinding,
    Removal,
    RuleRow,
    SyntheticItem,
    free_removal,
    pct,
    rule_rows,
    smallest_removal,
    synthetic_recall,
    tally,
)

LANG_NAMES = {"python": "Python", "js": "JS/TS"}
SYNTHETIC_FILES = {"python": "synthetic-python.json", "js": "synthetic-js.json"}


class InputError(Exception):
    """Missing or inconsistent input: one line, exit 2."""


def read_runs(
    json_dir: Path, labels_root: Path | None = None
) -> tuple[list[RealFinding], dict[str, Any]]:
    """Every finding of every set's run, and what was read (sets, versions, errors). The
    labels' reasons come from each set's committed label directory, or `labels_root/<set>`."""
    findings: list[RealFinding] = []
    meta: dict[str, Any] = {"sets": {}, "missing": [], "contend": set()}
    for name in SETS:
        path = json_dir / f"{name}.json"
        if not path.exists():
            meta["missing"].append(name)
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("schema") != "contend.realcommits-run/v1":
            raise InputError(f"{path}: not a run.py --json output")
        errors = doc["summary"]["errors"]
        if errors:
            # A commit that was not reviewed has no findings to count: the run is incomplete.
            raise InputError(f"{path}: {len(errors)} commits errored in that run; rerun it")
        labels_dir = SETS[name].labels_dir if labels_root is None else labels_root / name
        reasons = {lab.key: lab.reason for lab in load_labels(labels_dir, LANGS)}
        meta["contend"].add(doc["contend"])
        meta["sets"][name] = {
            "commits": len(doc["commits"]),
            "date": doc["date"],
            "contend": doc["contend"],
        }
        for commit in doc["commits"]:
            for f in commit["findings"]:
                # A dispute is TRUE when one of its places is (rc_labels): quote that place.
                place = next((p for p in f["locations"] if p["label"] == f["label"]), None)
                where, reason = f"{commit['project']} {commit['sha'][:10]}", ""
                if place is not None:
                    where += f" {place['path']}:{place['start_line']}"
                    reason = next((reasons[k] for k in place["keys"] if k in reasons), "")
                    if not reason and f["label"] != "UNLABELLED":
                        raise InputError(f"{path}: no label file line for {place['keys']}")
                findings.append(
                    RealFinding(
                        name,
                        commit["lang"],
                        f["rule"],
                        f["severity"],
                        f["label"],
                        where,
                        reason,
                    )
                )
    if not meta["sets"]:
        raise InputError(f"no run.py --json output (<set>.json) in {json_dir}")
    if len(meta["contend"]) > 1:
        raise InputError(f"runs of different contend versions: {sorted(meta['contend'])}")
    return findings, meta


def read_synthetic(path: Path, lang: str) -> list[SyntheticItem]:
    """The items of a synthetic run, checked against the run's own verdicts: an item is
    caught exactly when some rule caught it, or the file predates `caught_by`."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    if lang == "python":
        rows = [
            (o["item"]["label"], o["hits"]["contend"], o.get("caught_by")) for o in doc["outcomes"]
        ]
    else:
        rows = [(r["kind"], r["caught"], r.get("caught_by")) for r in doc]
    items = []
    for kind, caught, caught_by in rows:
        if caught_by is None:
            raise InputError(f"{path}: items have no caught_by; rerun with this version")
        if bool(caught_by) != bool(caught):
            raise InputError(f"{path}: a {kind} item's caught_by disagrees with its verdict")
        items.append(SyntheticItem(kind, frozenset(caught_by)))
    return items


def _cells(t: Any) -> str:
    return f"{t.n} | {t.true} | {t.debatable} | {t.false} | {t.unlabelled} | {t.blocking}"


def _severities(row: RuleRow) -> str:
    both = row.tuning.severities + row.fresh.severities
    return ", ".join(f"{sev} {n}" for sev, n in sorted(both.items()))


def counts_table(rows: Sequence[RuleRow], findings: Sequence[RealFinding]) -> list[str]:
    lines = [
        "| rule | tuning n | TRUE | DEB | FALSE | unlab | blocking "
        "| fresh n | TRUE | DEB | FALSE | unlab | blocking | raised as |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(f"| `{r.rule}` | {_cells(r.tuning)} | {_cells(r.fresh)} | {_severities(r)} |")
    tuning = tally(f for f in findings if not f.fresh)
    fresh = tally(f for f in findings if f.fresh)
    lines.append(f"| **all** | {_cells(tuning)} | {_cells(fresh)} | |")
    return lines


def counterfactual_table(
    rows: Sequence[RuleRow], findings: Sequence[RealFinding], items: Sequence[SyntheticItem] | None
) -> list[str]:
    tuning = tally(f for f in findings if not f.fresh)
    lines = [
        f"All-findings precision on the tuning sets with every rule: {pct(tuning.precision())}"
        f" ({tuning.true}/{tuning.labelled}).",
        "",
        "| rule | precision without it (tuning) | TRUE lost: tuning | fresh "
        "| synthetic mutants only it catches (per topic) |",
        "|---|---:|---:|---:|---|",
    ]
    for r in rows:
        if items is None:
            only = "not measured"
        else:
            lost = [x for x in synthetic_recall(items, {r.rule}) if x.kind != "benign" and x.lost]
            only = ", ".join(f"{x.kind} {x.lost}/{x.n}" for x in lost) or "none"
        lines.append(
            f"| `{r.rule}` | {pct(r.precision_without)} | {r.tuning.true} | {r.fresh.true}"
            f" | {only} |"
        )
    return lines


def removal_lines(
    title: str,
    removal: Removal,
    findings: Sequence[RealFinding],
    items: Sequence[SyntheticItem] | None,
) -> list[str]:
    fresh = [f for f in findings if f.fresh]
    fresh_before = tally(fresh)
    fresh_after = tally(f for f in fresh if f.rule not in removal.rules)
    names = ", ".join(f"`{r}`" for r in removal.rules) or "(none)"
    b, a = removal.before, removal.after
    lines = [
        f"{title}: {len(removal.rules)} rules removed: {names}.",
        "",
        "| | findings | labelled | TRUE | precision |",
        "|---|---:|---:|---:|---:|",
        f"| tuning sets, every rule | {b.n} | {b.labelled} | {b.true} | {pct(b.precision())} |",
        f"| tuning sets, without them | {a.n} | {a.labelled} | {a.true} | {pct(a.precision())} |",
        f"| fresh set ({FRESH_SET}), every rule | {fresh_before.n} | {fresh_before.labelled}"
        f" | {fresh_before.true} | {pct(fresh_before.precision())} |",
        f"| fresh set ({FRESH_SET}), without them | {fresh_after.n} | {fresh_after.labelled}"
        f" | {fresh_after.true} | {pct(fresh_after.precision())} |",
        "",
        f"TRUE findings lost: {removal.true_lost} on the tuning sets,"
        f" {fresh_before.true - fresh_after.true} on {FRESH_SET}.",
        "",
    ]
    if items is None:
        lines.append("Synthetic recall: not measured (no synthetic run JSON).")
        return lines
    lines += [
        "| synthetic | n | caught, every rule | caught, without them | lost |",
        "|---|---:|---:|---:|---:|",
    ]
    for x in synthetic_recall(items, removal.rules):
        name = "false alarms: benign controls" if x.kind == "benign" else f"recall: {x.kind}"
        lines.append(
            f"| {name} | {x.n} | {x.caught} ({pct(Fraction(x.caught, x.n))})"
            f" | {x.caught_without} ({pct(Fraction(x.caught_without, x.n))}) | {x.lost} |"
        )
    return lines


def report(
    findings: Sequence[RealFinding],
    meta: dict[str, Any],
    synthetic: dict[str, list[SyntheticItem] | None],
    target: Fraction,
) -> tuple[str, dict[str, Any]]:
    out = [
        f"contend {', '.join(sorted(meta['contend']))}; sets measured: "
        + ", ".join(f"{k} ({v['commits']} commits, {v['date']})" for k, v in meta["sets"].items())
        + (f"; NOT measured: {', '.join(meta['missing'])}" if meta["missing"] else ""),
        f"tuning sets: every measured set but {FRESH_SET}; fresh set: {FRESH_SET}",
    ]
    machine: dict[str, Any] = {"meta": {**meta, "contend": sorted(meta["contend"])}, "langs": {}}
    for lang in sorted({f.lang for f in findings}):
        mine = [f for f in findings if f.lang == lang]
        rows = rule_rows(mine)
        items = synthetic.get(lang)
        tuning = [f for f in mine if not f.fresh]
        removal = smallest_removal(tuning, target)
        out += ["", f"## {LANG_NAMES.get(lang, lang)}", "", "Findings per rule:", ""]
        out += counts_table(rows, mine)
        out += ["", "Counterfactual per rule:", ""]
        out += counterfactual_table(rows, mine, items)
        out += ["", "Smallest removal set:", ""]
        if removal.reached:
            title = f"Target {pct(target)} reached on the tuning sets (fewest TRUE lost)"
            out += removal_lines(title, removal, mine, items)
        else:
            out += [
                f"Target {pct(target)} NOT reachable on the tuning sets by removing rules.",
                "",
            ]
            title = "The highest precision any removal set gives (then fewest TRUE lost)"
            out += removal_lines(title, removal, mine, items)
            title = "Without losing a TRUE finding (every rule without one removed)"
            out += ["", *removal_lines(title, free_removal(tuning, target), mine, items)]
        out += ["", "TRUE findings per rule (set, project, commit, place: the label's reason):"]
        for r in rows:
            for f in mine:
                if f.rule == r.rule and f.label == "TRUE":
                    out.append(f"- `{f.rule}` {f.bench_set} {f.where}: {f.reason}")
        machine["langs"][lang] = {
            "rules": {
                r.rule: {
                    "tuning": _tally_json(r.tuning),
                    "fresh": _tally_json(r.fresh),
                    "precision_without": _frac(r.precision_without),
                }
                for r in rows
            },
            "removal": _removal_json(removal, mine, items),
            "removal_without_true_loss": _removal_json(free_removal(tuning, target), mine, items),
        }
    return "\n".join(out), machine


def _removal_json(
    removal: Removal, findings: Sequence[RealFinding], items: Sequence[SyntheticItem] | None
) -> dict[str, Any]:
    return {
        "rules": list(removal.rules),
        "reached": removal.reached,
        "true_lost_tuning": removal.true_lost,
        "true_lost_fresh": sum(
            f.fresh and f.label == "TRUE" and f.rule in removal.rules for f in findings
        ),
        "precision_before": _frac(removal.before.precision()),
        "precision_after": _frac(removal.after.precision()),
        "synthetic": None
        if items is None
        else [
            {"kind": x.kind, "n": x.n, "caught": x.caught, "without": x.caught_without}
            for x in synthetic_recall(items, removal.rules)
        ],
    }


def _tally_json(t: Any) -> dict[str, Any]:
    return {
        "n": t.n,
        "TRUE": t.true,
        "DEBATABLE": t.debatable,
        "FALSE": t.false,
        "UNLABELLED": t.unlabelled,
        "blocking": t.blocking,
        "severities": dict(t.severities),
    }


def _frac(p: Fraction | None) -> float | None:
    return None if p is None else round(float(p), 4)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    ap.add_argument("--json-dir", type=Path, required=True, help="where the run JSONs are")
    ap.add_argument("--target", type=int, default=70, help="all-findings TRUE %% (default 70)")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON here")
    ap.add_argument(
        "--labels-root",
        type=Path,
        help="read each set's label reasons from DIR/<set>/ instead of the committed label "
        "directories (the labels themselves are those in the run JSONs)",
    )
    args = ap.parse_args(argv)
    try:
        findings, meta = read_runs(args.json_dir, args.labels_root)
        synthetic: dict[str, list[SyntheticItem] | None] = {}
        for lang, name in SYNTHETIC_FILES.items():
            path = args.json_dir / name
            synthetic[lang] = read_synthetic(path, lang) if path.exists() else None
    except (InputError, LabelError, OSError, KeyError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text, machine = report(findings, meta, synthetic, Fraction(args.target, 100))
    print(text)
    if args.json is not None:
        args.json.write_text(json.dumps(machine, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
