"""`contend serve` for the other kinds of run: claim runs (`contend verify`) shown with their
own report only while it agrees with their intact ledger, experiment reports with their
figures, and the runs page's filters."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from contend.claims.decide import decide_claim
from contend.cli.main import main
from experiment_helpers import script_for
from web_helpers import rich_repo, serving

ROOT = Path(__file__).resolve().parents[1]


def test_a_claim_run_is_shown_with_its_report_and_refused_when_they_disagree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    monkeypatch.setenv("CONTEND_STATE_DIR", str(state))
    monkeypatch.chdir(tmp_path)
    claims = ROOT / "examples" / "claims"
    code = main(["verify", str(claims / "internal-fact.yaml"), str(claims / "precheck.yaml")])
    capsys.readouterr()
    [run_dir] = (state / "runs").iterdir()
    report = json.loads((run_dir / "report.json").read_text())
    assert code in (0, 1, 3)
    with serving(None, state_dir=state) as s:
        status, _, body = s.request("GET", "/")
        assert status == 200 and run_dir.name in body.decode()
        status, _, body = s.request("GET", "/?kind=claims")
        assert run_dir.name in body.decode()
        status, _, body = s.request("GET", f"/runs/{run_dir.name}")
        page = body.decode()
        assert status == 200 and "claim run" in page
        assert f'id="verdict">{report["verdict"]}<' in page
        for claim in report["claims"]:
            assert f'id="c-{claim["claim_id"]}"' in page
        # A person's later ruling on an escalated claim (`contend decide --run`): the
        # rewritten report agrees with the ledger's claim_decided, and is shown.
        escalated = [c["claim_id"] for c in report["claims"] if c["verdict"] == "escalate"]
        assert escalated
        decided = decide_claim(run_dir, escalated[0], "accept", "read the paper myself")
        status, _, body = s.request("GET", f"/runs/{run_dir.name}")
        page = body.decode()
        assert status == 200, page
        assert "read the paper myself" in page
        assert f'id="verdict">{decided.verdict}<' in page
        report = json.loads((run_dir / "report.json").read_text())
        # report.json that says something its ledger does not: refused, not shown.
        forged = dict(report, verdict="accept" if report["verdict"] != "accept" else "reject")
        (run_dir / "report.json").write_text(json.dumps(forged))
        status, _, body = s.request("GET", f"/runs/{run_dir.name}")
        assert status == 409 and "does not match its ledger" in body.decode()


def test_an_experiment_report_and_its_figures(tmp_path: Path) -> None:
    repo, _ = rich_repo(tmp_path)
    agent = script_for(tmp_path / "right.json", "01", _right_answer)
    suite = repo / ".contend" / "experiments"
    args = ["experiment", "run", "01", "--agent", agent, "--param", "ensemble_sizes=[3]"]
    assert main([*args, "--dir", str(suite)]) == 0
    analysis = json.loads((suite / "01-consensus" / "report" / "analysis.json").read_text())
    with serving(repo) as s:
        status, _, body = s.request("GET", "/experiments")
        assert status == 200 and analysis["finding"].split()[0] in body.decode()
        status, _, body = s.request("GET", "/experiments/01-consensus")
        page = body.decode()
        assert status == 200
        figures = re.findall(r'<img src="(/experiments/01-consensus/figures/[^"]+\.png)"', page)
        assert figures
        for figure in figures:
            status, headers, data = s.request("GET", figure)
            assert status == 200 and headers["content-type"] == "image/png"
            assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert s.request("GET", "/experiments/02-nothing")[0] == 404


def _right_answer(item: dict[str, object], step: int) -> dict[str, object]:
    from contend.experiments.questions import Question, truth

    return {"answer": truth(Question.model_validate(item))}


def test_the_runs_page_filters_by_verdict_branch_and_kind(tmp_path: Path) -> None:
    repo, result = rich_repo(tmp_path)
    with serving(repo) as s:

        def rows(query: str) -> int:
            status, _, body = s.request("GET", f"/?{query}")
            assert status == 200
            return body.decode().count(f'href="/runs/{result.run_id}"')

        assert rows("") == 1
        assert rows("verdict=escalate") == rows("branch=feature") == rows("kind=review") == 1
        assert rows("verdict=pass") == rows("branch=main") == rows("kind=claims") == 0
        _, _, body = s.request("GET", "/")
        page = body.decode()
        # The run's row: verdict, headline, open of all, families, cost, time.
        for shown in ("escalate", "2/3", "$0.0000", " s<"):
            assert shown in page, shown
