"""The arithmetic of bench/realcommits/rules.py (which rules cost the all-findings target), on
a hand-made set of findings whose figures were worked out by hand.

The findings (one language; "main" is a tuning set, "holdout7" the fresh one):

    rule  set       labels                            severities
    A     main      TRUE FALSE FALSE                  major major minor
    B     main      TRUE TRUE DEBATABLE               minor
    C     main      FALSE FALSE FALSE DEBATABLE       minor
    D     main      UNLABELLED FALSE                  minor
    A     holdout7  TRUE                              major
    C     holdout7  FALSE                             minor

Tuning sets: 12 findings, 11 labelled, 3 TRUE -> 3/11. Without A 2/8, without B 1/8,
without C 3/7, without D 3/10. Rules without a TRUE finding: C (4 noise), D (1 noise).
- target 25%: met as is (3/11 = 27.3%) -> nothing removed;
- target 40%: C alone -> 3/7 = 42.9% (the noisiest free rule first: D alone is 3/10);
- target 50%: C and D -> 3/6, no TRUE lost (C alone: 3/7 = 42.9%, short);
- target 60%: C, D and A -> B alone 2/3, 1 TRUE lost (A and C alone: 2/4; B costs 2);
- target 70%: not reachable; the closest is B alone (A, C, D removed): 2/3 = 66.7%, 1 TRUE
  lost; the best at no loss is C, D removed: 3/6.
No network, no bundles.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "realcommits"))

from rc_labels import Label, finding_key  # noqa: E402
from rc_rules import (  # noqa: E402
    RealFinding,
    SyntheticItem,
    free_removal,
    rule_rows,
    smallest_removal,
    synthetic_recall,
    tally,
)
from rules import InputError, main, read_synthetic  # noqa: E402

ROWS = [
    ("A", "main", "TRUE", "major"),
    ("A", "main", "FALSE", "major"),
    ("A", "main", "FALSE", "minor"),
    ("B", "main", "TRUE", "minor"),
    ("B", "main", "TRUE", "minor"),
    ("B", "main", "DEBATABLE", "minor"),
    ("C", "main", "FALSE", "minor"),
    ("C", "main", "FALSE", "minor"),
    ("C", "main", "FALSE", "minor"),
    ("C", "main", "DEBATABLE", "minor"),
    ("D", "main", "UNLABELLED", "minor"),
    ("D", "main", "FALSE", "minor"),
    ("A", "holdout7", "TRUE", "major"),
    ("C", "holdout7", "FALSE", "minor"),
]
FINDINGS = [RealFinding(s, "python", rule, sev, label) for rule, s, label, sev in ROWS]
TUNING = [f for f in FINDINGS if not f.fresh]


def test_tally_counts_each_label_and_blocking() -> None:
    t = tally(TUNING)
    assert (t.n, t.true, t.debatable, t.false, t.unlabelled) == (12, 3, 2, 6, 1)
    assert t.labelled == 11 and t.noise == 8 and t.blocking == 2
    assert t.precision() == Fraction(3, 11)
    assert tally([]).precision() is None


def test_rule_rows_split_tuning_and_fresh_with_the_counterfactual() -> None:
    rows = {r.rule: r for r in rule_rows(FINDINGS)}
    a, b, c, d = rows["A"], rows["B"], rows["C"], rows["D"]
    assert (a.tuning.n, a.tuning.true, a.tuning.false, a.tuning.blocking) == (3, 1, 2, 2)
    assert (a.fresh.n, a.fresh.true, a.fresh.blocking) == (1, 1, 1)
    assert (c.fresh.n, c.fresh.false) == (1, 1)
    assert (d.tuning.unlabelled, d.tuning.labelled) == (1, 1)
    assert a.precision_without == Fraction(2, 8)
    assert b.precision_without == Fraction(1, 8)
    assert c.precision_without == Fraction(3, 7)
    assert d.precision_without == Fraction(3, 10)
    assert dict(a.tuning.severities) == {"major": 2, "minor": 1}
    # Most labelled noise (tuning + fresh) first: C 5, A 2, B 1, D 1 (then more findings).
    assert [r.rule for r in rule_rows(FINDINGS)] == ["C", "A", "B", "D"]


@pytest.mark.parametrize(
    ("target", "rules", "reached", "lost", "after"),
    [
        (Fraction(25, 100), (), True, 0, Fraction(3, 11)),
        (Fraction(40, 100), ("C",), True, 0, Fraction(3, 7)),
        (Fraction(50, 100), ("C", "D"), True, 0, Fraction(3, 6)),
        (Fraction(60, 100), ("A", "C", "D"), True, 1, Fraction(2, 3)),
        (Fraction(70, 100), ("A", "C", "D"), False, 1, Fraction(2, 3)),
    ],
)
def test_smallest_removal(target, rules, reached, lost, after) -> None:
    removal = smallest_removal(TUNING, target)
    assert removal.rules == rules
    assert removal.reached is reached
    assert removal.true_lost == lost
    assert removal.after.precision() == after
    assert removal.before.precision() == Fraction(3, 11)


def test_free_removal_keeps_every_true_finding() -> None:
    removal = free_removal(TUNING, Fraction(70, 100))
    assert (removal.rules, removal.reached, removal.true_lost) == (("C", "D"), False, 0)
    assert removal.after.precision() == Fraction(3, 6)
    assert free_removal(TUNING, Fraction(50, 100)).reached is True


def test_fewest_true_lost_wins_over_fewest_rules() -> None:
    # X: 1 TRUE 1 FALSE; Y: 2 TRUE 2 FALSE; F: 1 FALSE; Z: 4 TRUE -> 7/11. Target 71%:
    # F alone 7/10 short; Y alone 5/7 = 71.4% (1 rule, 2 TRUE lost); X and F 6/8 = 75%
    # (2 rules, 1 TRUE lost): the fewer TRUE findings lost decides.
    rows = [("X", "TRUE"), ("X", "FALSE"), ("Y", "TRUE"), ("Y", "TRUE"), ("Y", "FALSE")]
    rows += [("Y", "FALSE"), ("F", "FALSE")] + [("Z", "TRUE")] * 4
    findings = [RealFinding("main", "js", rule, "minor", label) for rule, label in rows]
    removal = smallest_removal(findings, Fraction(71, 100))
    assert (removal.rules, removal.true_lost, removal.after.precision()) == (
        ("F", "X"),
        1,
        Fraction(6, 8),
    )


def test_synthetic_recall_without_rules() -> None:
    items = [
        SyntheticItem("silent-fallback", frozenset({"A"})),
        SyntheticItem("silent-fallback", frozenset({"A", "B"})),
        SyntheticItem("silent-fallback", frozenset()),
        SyntheticItem("silent-fallback", frozenset({"C"})),
        SyntheticItem("benign", frozenset({"C"})),
        SyntheticItem("benign", frozenset()),
    ]
    got = {
        x.kind: (x.n, x.caught, x.caught_without, x.lost)
        for x in synthetic_recall(items, {"A", "C"})
    }
    assert got == {"silent-fallback": (4, 3, 1, 2), "benign": (2, 1, 0, 1)}
    assert [x.kind for x in synthetic_recall(items, ())] == ["silent-fallback", "benign"]


SHA = "ab" * 20


def _finding(n: int, rule: str, label: str, severity: str) -> dict:
    place = {"path": "m.py", "start_line": n, "end_line": n, "label": label}
    place["keys"] = [finding_key(SHA, "m.py", rule, n, n)] if label != "UNLABELLED" else []
    return {"rule": rule, "severity": severity, "label": label, "locations": [place]}


def _label_line(n: int, rule: str, label: str) -> str:
    key = finding_key(SHA, "m.py", rule, n, n)
    return Label("p", SHA, "m.py", rule, n, n, label, f"reason {n}", key=key).to_json()


def test_command_reads_the_runs_and_prints_the_figures(tmp_path: Path, capsys) -> None:
    for name in ("main", "holdout7"):
        rows = [(n, *row) for n, row in enumerate(ROWS) if row[1] == name]
        doc = {
            "schema": "contend.realcommits-run/v1",
            "contend": "0.1.0+test",
            "date": "2026-12-02 12:00 UTC",
            "summary": {"errors": []},
            "commits": [
                {
                    "project": "p",
                    "sha": SHA,
                    "lang": "python",
                    "findings": [_finding(n, r, lab, sev) for n, r, _s, lab, sev in rows],
                }
            ],
        }
        (tmp_path / f"{name}.json").write_text(json.dumps(doc))
        labels = tmp_path / "labels" / name / "python"
        labels.mkdir(parents=True)
        judged = [_label_line(n, r, lab) for n, r, _s, lab, _v in rows if lab != "UNLABELLED"]
        (labels / "p.jsonl").write_text("\n".join(judged) + "\n")
    synthetic = {
        "outcomes": [
            {"item": {"label": "silent-fallback"}, "hits": {"contend": True}, "caught_by": ["A"]},
            {"item": {"label": "silent-fallback"}, "hits": {"contend": True}, "caught_by": ["B"]},
        ]
    }
    (tmp_path / "synthetic-python.json").write_text(json.dumps(synthetic))
    args = ["--json-dir", str(tmp_path), "--target", "60", "--json", str(tmp_path / "o")]
    assert main([*args, "--labels-root", str(tmp_path / "labels")]) == 0
    text = capsys.readouterr().out
    assert "NOT measured: holdout, holdout2" in text
    assert "(fewest TRUE lost): 3 rules removed: `A`, `C`, `D`." in text
    assert "| `A` | 25.0% | 1 | 1 | silent-fallback 1/2 |" in text
    assert "| recall: silent-fallback | 2 | 2 (100.0%) | 1 (50.0%) | 1 |" in text
    # Rows 0 and 12 are A's TRUE findings (tuning, fresh), rows 3 and 4 B's.
    assert f"- `A` main p {SHA[:10]} m.py:0: reason 0" in text
    assert f"- `A` holdout7 p {SHA[:10]} m.py:12: reason 12" in text
    assert f"- `B` main p {SHA[:10]} m.py:4: reason 4" in text
    out = json.loads((tmp_path / "o").read_text())["langs"]["python"]["removal"]
    assert (out["true_lost_tuning"], out["true_lost_fresh"]) == (1, 1)
    assert main([*args[:2], "--labels-root", str(tmp_path / "labels")]) == 0
    text = capsys.readouterr().out
    assert "Target 70.0% NOT reachable" in text
    assert "(then fewest TRUE lost): 3 rules removed: `A`, `C`, `D`." in text
    assert "(every rule without one removed): 2 rules removed: `C`, `D`." in text


def test_a_synthetic_file_without_caught_by_or_disagreeing_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps([{"kind": "concurrency", "caught": True}]))
    with pytest.raises(InputError, match="no caught_by"):
        read_synthetic(path, "js")
    path.write_text(json.dumps([{"kind": "concurrency", "caught": True, "caught_by": []}]))
    with pytest.raises(InputError, match="disagrees"):
        read_synthetic(path, "js")
