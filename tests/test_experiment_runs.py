"""Every experiment end to end with scripted agents through the backend registry: the
grid, the records, the metrics in the report, the summary page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from contend.cli.main import main
from contend.experiments.gate_rules import dangerous
from contend.experiments.questions import Question, lie, truth
from experiment_helpers import script_for


def q(item: dict[str, Any]) -> Question:
    return Question.model_validate(item)


def run(tmp_path: Path, *args: str) -> int:
    return main(["experiment", "run", *args, "--dir", str(tmp_path / "suite")])


def analysis(tmp_path: Path, folder: str) -> dict[str, Any]:
    path = tmp_path / "suite" / folder / "report" / "analysis.json"
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def records(tmp_path: Path, folder: str) -> list[dict[str, Any]]:
    path = tmp_path / "suite" / folder / "records.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_list_shows_every_experiment_and_its_bank(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiment", "list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line[:2] for line in out] == ["01", "02", "03", "04", "05", "06", "07"]
    assert "bank verifiable-answers v1" in out[0] and "07_debate_vs_vote.yaml" in out[6]


def test_01_consensus_homogeneous_and_mixed(tmp_path: Path) -> None:
    right = script_for(tmp_path / "r.json", "01", lambda i, s: {"answer": truth(q(i))})
    wrong = script_for(tmp_path / "w.json", "01", lambda i, s: {"answer": "-1"}, family="b")
    assert (
        run(tmp_path, "01", "--agent", right, "--agent", wrong, "--param", "ensemble_sizes=[3, 5]")
        == 0
    )
    recs = records(tmp_path, "01-consensus")
    assert len(recs) == 12 * 2 * 2 and all(r["status"] == "ok" for r in recs)
    groups = {
        (g["ensemble"], g["N"]): g for g in analysis(tmp_path, "01-consensus")["data"]["groups"]
    }
    # Homogeneous (all right): unanimous and right. Mixed 3 = right, wrong, right: majority.
    assert groups[("homogeneous", 3)]["unanimous"]["k"] == 12
    assert groups[("homogeneous", 3)]["correct_given_unanimous"]["k"] == 12
    assert groups[("mixed", 5)]["majority"]["k"] == 12
    assert groups[("mixed", 5)]["correct_given_majority"]["k"] == 12
    report = (tmp_path / "suite" / "report.md").read_text()
    assert "**01 parallel consensus**" in report and "(n=48)" in report
    assert (tmp_path / "suite/01-consensus/report/liveness_safety_vs_n.png").stat().st_size > 0


def test_02_byzantine_agent_and_contamination(tmp_path: Path) -> None:
    honest = script_for(tmp_path / "h.json", "02", lambda i, s: {"answer": truth(q(i))})
    # Follows its instruction: the strong lie in both rounds.
    byzantine = script_for(
        tmp_path / "b.json", "02", lambda i, s: {"answer": lie(q(i), "strong")}, family="byz"
    )
    # Honest at first, then swayed by the lie it saw in round 2.
    swayed = script_for(
        tmp_path / "s.json",
        "02",
        lambda i, s: {"answer": truth(q(i)) if s == 1 else lie(q(i), "strong")},
        family="sway",
    )
    assert (
        run(
            tmp_path,
            "02",
            "--agent",
            honest,
            "--agent",
            swayed,
            "--agent",
            honest,
            "--byzantine",
            byzantine,
            "--param",
            "n=3",
            "--param",
            "f_values=[0, 1]",
            "--param",
            "strengths=[strong]",
        )
        == 0
    )
    groups = {
        (g["strength"], g["f"]): g for g in analysis(tmp_path, "02-byzantine")["data"]["groups"]
    }
    clean, attacked = groups[("none", 0)], groups[("strong", 1)]
    assert clean["honest_majority_win"]["k"] == 8
    # f=1: slots = [byzantine, swayed, honest] -> final [lie, lie, truth]: the lie wins.
    assert attacked["honest_majority_win"]["k"] == 0
    assert attacked["injection_took_effect"]["k"] == attacked["injection_took_effect"]["n"] == 8
    assert (attacked["contamination"]["k"], attacked["contamination"]["n"]) == (8, 16)


def test_03_bug_presence(tmp_path: Path) -> None:
    oracle = script_for(
        tmp_path / "o.json",
        "03",
        lambda i, s: {"defect": i["label"] != "benign", "reason": "planted"},
    )
    alarmist = script_for(
        tmp_path / "a.json", "03", lambda i, s: {"defect": True, "reason": "everything"}, family="b"
    )
    assert run(tmp_path, "03", "--agent", oracle, "--agent", alarmist, "--param", "n=2") == 0
    data = analysis(tmp_path, "03-bug-presence")["data"]
    # Agreement happens exactly on the defects (both say yes): precision and recall 1.
    defects = sum(1 for r in records(tmp_path, "03-bug-presence") if r["result"]["defect"])
    assert data["unanimous_rate"]["k"] == defects
    assert data["precision_unanimous"]["value"] == 1.0 == data["recall_unanimous"]["value"]


def test_04_disagreement_finds_the_ambiguous_decisions(tmp_path: Path) -> None:
    def answers(value: str) -> Any:
        return lambda i, s: {
            "decisions": [{"id": d["id"], "value": d["pinned"] or value} for d in i["decisions"]]
        }

    a = script_for(tmp_path / "a.json", "04", answers("7"))
    b = script_for(tmp_path / "b.json", "04", answers("9"), family="b")
    assert run(tmp_path, "04", "--agent", a, "--agent", b, "--param", "n=2") == 0
    data = analysis(tmp_path, "04-ambiguity")["data"]
    assert data["auc"] == 1.0
    assert all((d["disagreement"] > 0) == d["ambiguous"] for d in data["decisions"])


def test_05_gate_roc(tmp_path: Path) -> None:
    right = script_for(
        tmp_path / "r.json",
        "05",
        lambda i, s: {"block": dangerous(i["kind"], i["args"]), "reason": "rule"},
    )
    blocker = script_for(
        tmp_path / "b.json", "05", lambda i, s: {"block": True, "reason": "no"}, family="b"
    )
    assert run(tmp_path, "05", "--agent", right, "--agent", blocker, "--param", "n=3") == 0
    rows = {r["K"]: r for r in analysis(tmp_path, "05-gate")["data"]["rows"]}
    # Votes per safe item: [no, yes, no] -> 1 block; per dangerous item: 3 blocks.
    assert rows[1]["false_block"]["value"] == 1.0 and rows[2]["false_block"]["value"] == 0.0
    assert rows[3]["true_block"]["value"] == 1.0


def test_06_chains_seeded_errors_propagate(tmp_path: Path) -> None:
    from contend.experiments.exp06_chains import Chain, apply

    def faithful(i: dict[str, Any], step: int) -> dict[str, str] | None:
        c = Chain.model_validate(i)
        if step > len(c.ops):
            return None
        value = c.seed_error  # a worker that trusts its input: the seeded value flows on
        for op in c.ops[:step]:
            value = apply(op, value)
        return {"answer": str(value)}

    spec = script_for(tmp_path / "f.json", "06", faithful)
    assert run(tmp_path, "06", "--agent", spec, "--param", "lengths=[2]") == 0
    flow = analysis(tmp_path, "06-chains")["data"]["flow"]
    # Seeded: step 1 carries the wrong start faithfully, step 2 too -> propagated twice.
    assert flow["seeded"]["1"]["propagated"] == 4 and flow["seeded"]["2"]["propagated"] == 4
    # Clean chains are told the right start, but this worker uses seed_error anyway.
    assert flow["clean"]["1"]["introduced"] == 4


def _small_07_bank(tmp_path: Path) -> Path:
    bank = yaml.safe_load(Path("src/contend/experiments/banks/07_debate_vs_vote.yaml").read_text())
    keep = {
        "silent-fallback--raise_to_return_none--inventory",
        "concurrency--remove_lock--inventory",
        "benign--add_docstring--inventory",
    }
    bank["items"] = [i for i in bank["items"] if i["id"] in keep]
    path = tmp_path / "bank07.yaml"
    path.write_text(yaml.safe_dump(bank))
    return path


def _critic(tmp_path: Path, name: str, objects: bool, family: str) -> str:
    objection = {
        "severity": "major",
        "path": "inventory.py",
        "start_line": 20,
        "end_line": 20,
        "claim": "a failure is swallowed",
        "evidence": "line 20",
        "expected": "raise",
    }
    turn = {
        "topic": f"axis {name}",
        "no_defect_found": not objects,
        "objections": [objection] if objects else [],
        "judgements": [],
    }
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"family": family, "critic": [{"output": turn}]}))
    return f"scripted:{path}"


@pytest.mark.parametrize("budget", [None, 400])
def test_07_debate_vs_vote_at_a_matched_budget(tmp_path: Path, budget: int | None) -> None:
    objector = _critic(tmp_path, "objector", True, "fam-a")
    quiet = _critic(tmp_path, "quiet", False, "fam-b")
    extra = [] if budget is None else ["--budget-tokens", str(budget)]
    assert (
        run(
            tmp_path,
            "07",
            "--bank",
            str(_small_07_bank(tmp_path)),
            "--agent",
            objector,
            "--agent",
            quiet,
            *extra,
        )
        == 0
    )
    recs = [r["result"] for r in records(tmp_path, "07-debate-vs-vote")]
    assert len(recs) == 3
    for r in recs:
        # One upheld objection suffices: the objector's major objection fails every review.
        assert r["adversarial"]["verdict"] == "fail"
        assert r["budget"] == (budget or r["adversarial"]["tokens"])
        assert r["vote"]["tokens"] <= r["budget"] and r["vote"]["voters"] >= 1
        # The vote arm never exceeds B; the review's token cap is checked between turns, so
        # a first round dearer than B overruns it -- and the record says so.
        assert r["budget_matched"] == (r["adversarial"]["tokens"] <= r["budget"])
        # Voters alternate objector, quiet, ...: blocked only with more objectors than half.
        said = r["vote"]["said"]
        assert said == [i % 2 == 0 for i in range(len(said))]
        assert r["vote"]["blocked"] == (said.count(True) * 2 > len(said))
    data = analysis(tmp_path, "07-debate-vs-vote")["data"]
    assert data["adversarial"]["flaw_survival"]["k"] == 0
    assert data["adversarial"]["false_block"]["k"] == 1
    over = sum(1 for r in recs if not r["budget_matched"])
    assert data["over_budget"] == over
    assert over == (0 if budget is None else sum(r["adversarial"]["tokens"] > 400 for r in recs))
    tables = (tmp_path / "suite/07-debate-vs-vote/report/tables.md").read_text()
    assert f"Budget match per item ({over} over budget)" in tables
