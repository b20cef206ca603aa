"""The figures of a real-commit run, from per-commit results matched against labels (pure).

Definitions (every share is of *labelled* findings; a finding is one unresolved dispute,
counted once however many locations it groups):

- precision of blocking findings = TRUE blocking / labelled blocking (critical or major);
- precision of all findings = TRUE / labelled; DEBATABLE and FALSE shares likewise;
- `fail` with no TRUE blocker: a commit whose verdict is `fail` and none of whose blocking
  findings is TRUE, all of them labelled (`pending` when some are still unlabelled);
  given as a count and as a share of all reviewed commits;
- TRUE findings no longer raised: labels saying TRUE, on commits this run reviewed, that
  no finding of this run matched (a recall regression — or a fixed location drift).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rc_labels import UNLABELLED, Label, LabelIndex, dispute_label, place_label
from rc_report import Finding

VERDICTS = ("pass", "conditional_pass", "fail", "escalate")


@dataclass(slots=True)
class CommitResult:
    project: str
    lang: str
    sha: str
    category: str
    size: str
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    verdict: str = ""
    exit_code: int | None = None
    error: str = ""
    resolved: int = 0
    reasons: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "path: reason" of files not reviewed
    findings: list[Finding] = field(default_factory=list)


def apply_labels(results: Sequence[CommitResult], index: LabelIndex) -> Counter[str]:
    """Set each finding's label and matches; return how the locations matched."""
    how: Counter[str] = Counter()
    for r in results:
        for f in r.findings:
            matches = index.match(r.sha, f.rule, f.locs, f.evidence)
            f.label = dispute_label(matches)
            f.matches = [
                {
                    "path": m.loc.path,
                    "start_line": m.loc.start,
                    "end_line": m.loc.end,
                    "how": m.how,
                    "label": place_label(matches, i),
                    "keys": [lab.key for lab in m.labels],
                }
                for i, m in enumerate(matches)
            ]
            how.update(m.how for m in matches)
    return how


def pct(num: int, den: int) -> dict[str, Any]:
    return {"n": num, "of": den, "pct": round(100.0 * num / den, 1) if den else None}


def quantile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    idx = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[idx]


def _tally(findings: Sequence[Finding]) -> dict[str, int]:
    c = Counter(f.label for f in findings)
    return {k: c.get(k, 0) for k in ("TRUE", "DEBATABLE", "FALSE", UNLABELLED)}


def summarize(results: Sequence[CommitResult], labels: Sequence[Label]) -> dict[str, Any]:
    ok = [r for r in results if not r.error]
    findings = [f for r in ok for f in r.findings]
    blocking = [f for f in findings if f.blocking]
    labelled = [f for f in findings if f.label != UNLABELLED]
    lab_block = [f for f in blocking if f.label != UNLABELLED]
    times = [r.seconds for r in ok]
    cpu = [r.cpu_seconds for r in ok]
    per_commit = [len(r.findings) for r in ok]

    fails = [r for r in ok if r.verdict == "fail"]
    no_true, pending = [], []
    for r in fails:
        blockers = [f for f in r.findings if f.blocking]
        if any(f.label == "TRUE" for f in blockers):
            continue
        if any(f.label == UNLABELLED for f in blockers):
            pending.append(r)
        else:
            no_true.append(r)

    rules: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        rules[f.rule].append(f)
    per_rule = {
        rule: {
            "findings": len(fs),
            "blocking": sum(f.blocking for f in fs),
            "severities": dict(Counter(f.severity for f in fs)),
            **_tally(fs),
        }
        for rule, fs in sorted(rules.items())
    }

    per_project = {}
    for name in sorted({r.project for r in results}):
        rs = [r for r in ok if r.project == name]
        fs = [f for r in rs for f in r.findings]
        pf = [r for r in rs if r.verdict == "fail"]
        per_project[name] = {
            "lang": next(r.lang for r in results if r.project == name),
            "commits": len(rs),
            "errors": sum(1 for r in results if r.project == name and r.error),
            "findings": len(fs),
            "blocking": sum(f.blocking for f in fs),
            **_tally(fs),
            "fail": len(pf),
            "fail_no_true_blocker": sum(r in no_true for r in pf),
            "fail_pending": sum(r in pending for r in pf),
            "median_s": statistics.median([r.seconds for r in rs]) if rs else None,
        }

    reviewed = {r.sha for r in ok}
    matched_keys = {k for f in findings for m in f.matches for k in m["keys"]}
    lost = [
        lab
        for lab in labels
        if lab.commit in reviewed and lab.label == "TRUE" and lab.key not in matched_keys
    ]
    gone_noise = [
        lab
        for lab in labels
        if lab.commit in reviewed and lab.label != "TRUE" and lab.key not in matched_keys
    ]
    unlabelled_locs = sum(1 for f in findings for m in f.matches if m["label"] == UNLABELLED)
    return {
        "commits": len(results),
        "reviewed": len(ok),
        "errors": [
            {"project": r.project, "sha": r.sha, "error": r.error} for r in results if r.error
        ],
        "time_s": {
            "median": statistics.median(times) if times else None,
            "p90": quantile(times, 0.9),
            "max": max(times) if times else None,
            "total": round(sum(times), 2),
            "cpu_median": statistics.median(cpu) if cpu else None,
            "cpu_p90": quantile(cpu, 0.9),
        },
        "findings": {
            "total": len(findings),
            "blocking": len(blocking),
            "per_commit_mean": round(len(findings) / len(ok), 2) if ok else None,
            "per_commit_median": statistics.median(per_commit) if per_commit else None,
            "per_commit_max": max(per_commit) if per_commit else None,
            "commits_with_findings": sum(1 for n in per_commit if n),
            "resolved_in_report": sum(r.resolved for r in ok),
            "skipped_files": sum(len(r.skipped) for r in ok),
            "commits_with_skipped_files": sum(1 for r in ok if r.skipped),
        },
        "verdicts": {v: sum(1 for r in ok if r.verdict == v) for v in VERDICTS},
        "labelled": len(labelled),
        "unlabelled": len(findings) - len(labelled),
        "unlabelled_locations": unlabelled_locs,
        "provisional": len(labelled) < len(findings),
        "precision_blocking": pct(sum(f.label == "TRUE" for f in lab_block), len(lab_block)),
        "precision_all": pct(sum(f.label == "TRUE" for f in labelled), len(labelled)),
        "debatable_share": pct(sum(f.label == "DEBATABLE" for f in labelled), len(labelled)),
        "false_share": pct(sum(f.label == "FALSE" for f in labelled), len(labelled)),
        "fail_no_true_blocker": {
            **pct(len(no_true), len(ok)),
            "pending": len(pending),
            "of_fails": len(fails),
            "commits": [f"{r.project}:{r.sha[:10]}" for r in no_true],
        },
        "per_rule": per_rule,
        "per_project": per_project,
        "true_no_longer_raised": [
            {
                "project": lab.project,
                "commit": lab.commit,
                "path": lab.path,
                "rule": lab.rule,
                "start_line": lab.start_line,
                "end_line": lab.end_line,
                "reason": lab.reason,
                "key": lab.key,
            }
            for lab in lost
        ],
        "labels_no_longer_raised": {
            "DEBATABLE": sum(lab.label == "DEBATABLE" for lab in gone_noise),
            "FALSE": sum(lab.label == "FALSE" for lab in gone_noise),
            "keys": [lab.key for lab in gone_noise],
        },
    }


def _p(x: dict[str, Any]) -> str:
    return "n/a (nothing labelled)" if x["pct"] is None else f"{x['pct']:.1f}% ({x['n']}/{x['of']})"


def _s(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f} s"


def render(summary: dict[str, Any], header: str, matched_how: Counter[str]) -> str:
    s = summary
    f = s["findings"]
    t = s["time_s"]
    v = s["verdicts"]
    fn = s["fail_no_true_blocker"]
    lines = [
        header,
        "",
        f"commits reviewed      {s['reviewed']} of {s['commits']}"
        + (f"  ({len(s['errors'])} ERRORS, see below)" if s["errors"] else ""),
        f"time per commit       median {_s(t['median'])}, p90 {_s(t['p90'])}, max {_s(t['max'])}"
        f"  (wall time of the `contend review` subprocess; total {t['total']:.0f} s)",
        f"CPU per commit        median {_s(t['cpu_median'])}, p90 {_s(t['cpu_p90'])}"
        "  (user + system time of that subprocess: unaffected by other load on the machine)",
        f"findings              {f['total']} ({f['blocking']} blocking) in "
        f"{f['commits_with_findings']} commits; per commit mean {f['per_commit_mean']}, "
        f"median {f['per_commit_median']}, max {f['per_commit_max']}",
        "verdicts              " + ", ".join(f"{k} {v[k]}" for k in VERDICTS),
        f"files not reviewed    {f['skipped_files']} in {f['commits_with_skipped_files']} commits"
        "  (the report's `skipped`: unparsable, binary, too large …; see --json)",
        "",
        f"labelled findings     {s['labelled']} of {f['total']}"
        + (
            f"  — {s['unlabelled']} UNLABELLED ({s['unlabelled_locations']} locations): "
            "figures are provisional (--show-unlabelled, --dump DIR)"
            if s["provisional"]
            else ""
        ),
        f"precision, blocking   {_p(s['precision_blocking'])}   (TRUE / labelled critical+major)",
        f"precision, all        {_p(s['precision_all'])}",
        f"DEBATABLE share       {_p(s['debatable_share'])}",
        f"FALSE share           {_p(s['false_share'])}",
        f"fail, no TRUE blocker {fn['n']} of {fn['of_fails']} fails = "
        + ("n/a" if fn["pct"] is None else f"{fn['pct']:.1f}% of {fn['of']} commits")
        + (f"  (+{fn['pending']} fails with unlabelled blockers)" if fn["pending"] else ""),
        "label matches         "
        + ", ".join(
            f"{k} {matched_how.get(k, 0)}"
            for k in ("exact", "span", "evidence", "line", "overlap", "none")
        ),
        "",
        "per rule                                 n  block   TRUE   DEB  FALSE  unlab  precision",
    ]
    for rule, r in s["per_rule"].items():
        judged = r["TRUE"] + r["DEBATABLE"] + r["FALSE"]
        prec = f"{100.0 * r['TRUE'] / judged:5.1f}%" if judged else "    -"
        lines.append(
            f"  {rule:36} {r['findings']:4} {r['blocking']:6} {r['TRUE']:6} {r['DEBATABLE']:5}"
            f" {r['FALSE']:6} {r[UNLABELLED]:6}  {prec}"
        )
    lines += [
        "",
        "per project           commits  findings  block  TRUE   DEB  FALSE  unlab  fail"
        "  fail-no-TRUE  median",
    ]
    for name, p in s["per_project"].items():
        lines.append(
            f"  {name:18} {p['commits']:7} {p['findings']:9} {p['blocking']:6} {p['TRUE']:5}"
            f" {p['DEBATABLE']:5} {p['FALSE']:6} {p[UNLABELLED]:6} {p['fail']:5}"
            f" {p['fail_no_true_blocker']:6}"
            + (f"+{p['fail_pending']}?" if p["fail_pending"] else "  ")
            + f"      {_s(p['median_s'])}"
        )
    lost = s["true_no_longer_raised"]
    lines += ["", f"TRUE findings no longer raised: {len(lost)}"]
    lines += [
        f"  {x['project']} {x['commit'][:10]} {x['path']}:{x['start_line']}-{x['end_line']}"
        f" {x['rule']} — {x['reason']}"
        for x in lost
    ]
    gone = s["labels_no_longer_raised"]
    if gone["DEBATABLE"] or gone["FALSE"]:
        lines.append(
            f"labelled noise no longer raised: {gone['FALSE']} FALSE, {gone['DEBATABLE']} DEBATABLE"
        )
    if fn["commits"]:
        lines += ["", "fail with no TRUE blocker: " + ", ".join(fn["commits"])]
    if s["errors"]:
        lines += ["", "ERRORS (commits not measured):"]
        lines += [f"  {e['project']} {e['sha'][:10]}: {e['error']}" for e in s["errors"]]
    return "\n".join(lines)
