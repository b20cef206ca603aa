"""`contend experiment run` at its edges: bad input is one line and exit 2; resume never
repeats a cell (also after a real SIGKILL); the cost cap stops cleanly; banks stay in step
with their generator."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contend.cli.main import main
from contend.experiments.catalogue import experiment
from contend.experiments.framework import RunConfig
from contend.experiments.questions import Question, truth
from experiment_helpers import script_for

ROOT = Path(__file__).resolve().parents[1]


def right_agent(tmp_path: Path, **kw: object) -> str:
    return script_for(
        tmp_path / "right.json",
        "01",
        lambda i, s: {"answer": truth(Question.model_validate(i))},
        **kw,
    )  # type: ignore[arg-type]


def one_line_error(capsys: pytest.CaptureFixture[str], message: str) -> None:
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert message in err and "Traceback" not in err


def write_bank(tmp_path: Path, text: str) -> str:
    path = tmp_path / "bank.yaml"
    path.write_text(text)
    return str(path)


GOOD_HEAD = 'schema: contend.bank/v1\nexperiment: "01"\nid: b\nversion: 1\n'


@pytest.mark.parametrize(
    ("bank", "message"),
    [
        ("items: [unclosed", "not valid YAML at line 1"),
        ("- just\n- a list\n", "must be a YAML mapping"),
        (GOOD_HEAD + "items: []\n", "items: List should have at least 1 item"),
        (
            GOOD_HEAD.replace("v1", "v9") + "items: [{id: a, kind: arith, args: {expr: '1'}}]\n",
            "schema 'contend.bank/v9' is not 'contend.bank/v1'",
        ),
        (GOOD_HEAD + "items: [{id: a, kind: poem, args: {}}]\n", "items[0] (a): kind"),
        (
            GOOD_HEAD + "items: [{id: a, kind: arith, args: {expr: '1/0'}}]\n",
            "item a: cannot compute its answer",
        ),
        (
            GOOD_HEAD + "items: [{id: a, kind: arith, args: {expr: '1'}}, {id: a, kind: arith, "
            "args: {expr: '2'}}]\n",
            "item id 'a' appears more than once",
        ),
        (
            GOOD_HEAD.replace('"01"', '"05"') + "items: [{id: a, kind: arith}]\n",
            "is for experiment 05, not experiment 01",
        ),
    ],
)
def test_malformed_banks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bank: str, message: str
) -> None:
    code = main(
        [
            "experiment",
            "run",
            "01",
            "--bank",
            write_bank(tmp_path, bank),
            "--agent",
            right_agent(tmp_path),
            "--dir",
            str(tmp_path / "suite"),
        ]
    )
    assert code == 2
    one_line_error(capsys, message)


def test_a_pinned_value_its_spec_does_not_say_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = (
        'schema: contend.bank/v1\nexperiment: "04"\nid: b\nversion: 1\nitems:\n'
        '  - {id: s, pair: p, text: "Return some users.", decisions: '
        '[{id: n, question: "How many?", type: number, pinned: "10"}]}\n'
    )
    assert (
        main(
            [
                "experiment",
                "run",
                "04",
                "--bank",
                write_bank(tmp_path, bank),
                "--agent",
                "scripted:x.json",
                "--dir",
                str(tmp_path),
            ]
        )
        == 2
    )
    one_line_error(capsys, "decision n is pinned to '10', which its spec text does not say")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["08"], "unknown experiment '08'; experiments: 01 (consensus)"),
        (["01", "--max-cost", "0"], "--max-cost must be a positive amount, got 0"),
        (["01", "--max-tokens", "0"], "--max-tokens must be positive, got 0"),
        (["01", "--agent", "nosuch:x"], "unknown critic backend 'nosuch'"),
        (["01", "--agent", "static"], "names no agent"),
        (["01", "--param", "oops"], "--param must be KEY=VALUE"),
        (["01", "02", "--bank", "x.yaml"], "--bank applies to one experiment"),
        (["01", "--executor", "gpu"], "Invalid value for '--executor'"),
    ],
)
def test_bad_run_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    agent = ["--agent", right_agent(tmp_path)] if "--agent" not in args else []
    code = main(["experiment", "run", *args, *agent, "--dir", str(tmp_path / "suite")])
    assert code == 2
    one_line_error(capsys, message)


def test_rerun_needs_resume_and_resume_repeats_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = [
        "experiment",
        "run",
        "01",
        "--agent",
        right_agent(tmp_path),
        "--param",
        "ensemble_sizes=[3]",
        "--dir",
        str(tmp_path / "suite"),
    ]
    assert main(base) == 0
    capsys.readouterr()
    assert main(base) == 2
    one_line_error(capsys, "already holds a grid's records: continue it with --resume")
    assert main([*base, "--resume"]) == 0
    assert "0 cells run, 12 already done" in capsys.readouterr().out
    changed = [*base[:-4], "--param", "ensemble_sizes=[5]", "--dir", str(tmp_path / "suite")]
    assert main([*changed, "--resume"]) == 2
    one_line_error(capsys, "holds a different grid (config was")
    assert (
        main(
            [
                "experiment",
                "run",
                "01",
                "--agent",
                right_agent(tmp_path),
                "--resume",
                "--dir",
                str(tmp_path / "empty"),
            ]
        )
        == 2
    )
    one_line_error(capsys, "nothing to resume in")


def test_cost_cap_stops_cleanly_and_resume_finishes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "home-config"
    config.mkdir()
    # The scripted model has a configured price, so each cell costs something.
    (config / "config.toml").write_text(
        '[prices."priced-script"]\ninput_per_mtok = 1000.0\noutput_per_mtok = 1000.0\n'
    )
    monkeypatch.setenv("CONTEND_CONFIG_HOME", str(config))
    agent = right_agent(tmp_path, model="priced-script")
    base = [
        "experiment",
        "run",
        "01",
        "--agent",
        agent,
        "--param",
        "ensemble_sizes=[3]",
        "--concurrency",
        "1",
        "--dir",
        str(tmp_path / "suite"),
    ]
    assert main([*base, "--max-cost", "0.2"]) == 3
    captured = capsys.readouterr()
    assert "stopped at max_cost" in captured.err
    recs = (tmp_path / "suite/01-consensus/records.jsonl").read_text().splitlines()
    spent = [json.loads(line)["cost"] for line in recs]
    assert 0 < len(recs) < 12 and all(c > 0 for c in spent)
    # Stopped as soon as the spend reached the cap, not before, not later.
    assert sum(spent[:-1]) < 0.2 <= sum(spent)
    tables = (tmp_path / "suite/01-consensus/report/tables.md").read_text()
    assert "INCOMPLETE: max_cost" in tables
    assert "*(incomplete grid)*" in (tmp_path / "suite/report.md").read_text()
    assert main([*base, "--resume"]) == 0
    lines = (tmp_path / "suite/01-consensus/records.jsonl").read_text().splitlines()
    cells = [json.loads(line)["cell"] for line in lines]
    assert len(cells) == 12 == len(set(cells))


@pytest.mark.slow
def test_resume_after_sigkill_mid_grid_loses_and_repeats_no_cell(tmp_path: Path) -> None:
    agent = right_agent(tmp_path, latency_s=0.4)
    suite = tmp_path / "suite"
    args = [
        sys.executable,
        "-m",
        "contend.cli.main",
        "experiment",
        "run",
        "01",
        "--agent",
        agent,
        "--param",
        "ensemble_sizes=[3]",
        "--concurrency",
        "2",
        "--dir",
        str(suite),
    ]
    records = suite / "01-consensus" / "records.jsonl"
    proc = subprocess.Popen(
        args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if records.exists() and len(records.read_bytes().splitlines()) >= 3:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the grid wrote no records within 120 s")
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    before = records.read_bytes().split(b"\n")[:-1]
    assert 3 <= len(before) < 12  # killed mid-grid
    done = subprocess.run(
        [*args, "--resume"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    after = records.read_bytes().split(b"\n")
    assert after[-1] == b""
    cells = [json.loads(line)["cell"] for line in after[:-1]]
    exp = experiment("01")
    cfg = RunConfig(agents=(agent,), params={"ensemble_sizes": [3]})
    grid = {c.id for c in exp.module.plan(exp.bank(), cfg)}
    assert sorted(cells) == sorted(grid)  # every cell exactly once
    assert after[: len(before)] == before  # acknowledged records untouched


def test_banks_match_their_generator() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "experiment_banks.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_report_rebuilds_from_the_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite"
    assert (
        main(
            [
                "experiment",
                "run",
                "01",
                "--agent",
                right_agent(tmp_path),
                "--param",
                "ensemble_sizes=[3]",
                "--dir",
                str(suite),
            ]
        )
        == 0
    )
    first = json.loads((suite / "01-consensus/report/analysis.json").read_text())
    for path in [*(suite / "01-consensus/report").iterdir(), suite / "report.md"]:
        path.unlink()
    capsys.readouterr()
    assert main(["experiment", "report", "--dir", str(suite)]) == 0
    again = json.loads((suite / "01-consensus/report/analysis.json").read_text())
    assert again["finding"] == first["finding"] and again["data"] == first["data"]
    assert (suite / "01-consensus/report/liveness_safety_vs_n.png").exists()
    assert first["finding"] in capsys.readouterr().out
    assert main(["experiment", "report", "--dir", str(tmp_path / "nothing")]) == 2
    one_line_error(capsys, "no experiment grid in")


def test_the_ray_executor_names_its_extra_when_ray_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from contend.errors import UserError
    from contend.executor.ray_executor import import_ray

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(UserError, match=r"needs Ray: pip install 'contend\[ray\]'"):
        import_ray()
