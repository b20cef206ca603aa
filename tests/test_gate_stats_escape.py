"""`contend gate`, `contend stats`, `contend escape`, and the index as a cache of them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from contend.cli.main import main
from contend.cli.stats_cmd import parse_since
from contend.ledger.index import INDEX_FILE
from review_helpers import git, make_repo
from web_helpers import rich_repo

# These tests are about `contend gate`, `escape` and `stats` on a run with a blocking dispute, not
# about which static findings may block: the change they plant as the one that fails (a broad
# `except Exception: return 0`) is a `swallowing-handler`, which the default earned policy lists as
# minor. They let static findings block at each rule's own severity, as a user can (`static.blocking
# = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


FALLBACK = "def f(g):\n    try:\n        return g()\n    except Exception:\n        return None\n"


@pytest.fixture
def fallback_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = make_repo(
        tmp_path,
        base={"m.py": "def f(g):\n    return g()\n"},
        change={"m.py": FALLBACK},
    )
    monkeypatch.chdir(path)
    return path


def _review_json(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["review", "-q", "--format", "json"]) == 1
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def _only_dispute(data: dict[str, object]) -> str:
    disputes = data["disputes"]
    assert isinstance(disputes, list) and len(disputes) == 1
    return str(disputes[0]["id"])


# --- gate -------------------------------------------------------------------------------


def test_gate_blocks_while_a_blocking_dispute_is_open_and_opens_after_a_decision(
    fallback_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    attack = _only_dispute(_review_json(capsys))
    assert main(["gate"]) == 1
    out, err = capsys.readouterr()
    [line] = err.splitlines()
    assert line.startswith(f"open {attack} [major] m.py:") and "silent-fallback" in line
    assert "blocked" in out and "exit 1" in out
    # An upheld dispute is decided, and still blocks: a person confirmed the defect.
    assert main(["decide", attack, "--uphold", "--note", "real"]) == 1
    capsys.readouterr()
    assert main(["gate"]) == 1
    assert "upheld by a person" in capsys.readouterr().err
    assert main(["decide", attack, "--overrule", "--note", "g() never raises here"]) == 0
    capsys.readouterr()
    assert main(["gate"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "pass (exit 0)" in out


def test_gate_escalates_on_a_deadlock_until_a_person_decides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, result = rich_repo(tmp_path)
    monkeypatch.chdir(repo)
    assert result.outcome.exit_code == 3
    assert main(["gate", result.run_id]) == 3
    out, err = capsys.readouterr()
    assert len(err.splitlines()) == 2 and all("(deadlocked)" in x for x in err.splitlines())
    assert "escalated" in out and "deadlock on 2 blocking" in out
    assert main(["decide", "C1-1", "--overrule", "--note", "empty lists never reach it"]) == 0
    assert main(["gate"]) == 3  # C1-3 is still deadlocked and undecided
    assert main(["decide", "C1-3", "--waive", "--note", "a fixture"]) == 0
    capsys.readouterr()
    assert main(["gate"]) == 0
    # The minor concession stays resolved; nothing else is left.
    assert "pass" in capsys.readouterr().out


def test_gate_names_and_refuses_a_tampered_ledger(
    fallback_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    attack = _only_dispute(_review_json(capsys))
    assert main(["decide", attack, "--overrule", "--note", "fine"]) == 0
    assert main(["gate"]) == 0
    [ledger] = (fallback_repo / ".contend" / "runs").glob("*/ledger.jsonl")
    raw = ledger.read_bytes()
    # Turn the overrule into a waiver of the same length: the decision text is under the MAC.
    ledger.write_bytes(raw.replace(b'"action":"overrule"', b'"action":"waive"   ', 1))
    capsys.readouterr()
    assert main(["gate"]) == 1
    err = capsys.readouterr().err
    assert "not intact" in err and ledger.parent.name in err and "refused" in err


def test_gate_bad_input_is_one_line_and_exit_2(
    fallback_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gate"]) == 2
    assert "no review run on feature" in capsys.readouterr().err
    _review_json(capsys)
    for bad in ("nope", "../../etc", "20260101-000000-000000"):
        assert main(["gate", bad]) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and err.startswith("contend: error:")


# --- escape -----------------------------------------------------------------------------


def test_escape_is_appended_to_the_run_and_shown_in_stats(
    fallback_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _review_json(capsys)
    [run_dir] = (fallback_repo / ".contend" / "runs").iterdir()
    before = (run_dir / "ledger.jsonl").read_bytes()
    code = main(
        [
            "escape",
            run_dir.name,
            "--note",
            "None leaked into billing",
            "--path",
            "m.py",
            "--line",
            "5",
            "--topic",
            "silent-fallback",
        ]
    )
    assert code == 0
    assert "escape recorded" in capsys.readouterr().out
    after = (run_dir / "ledger.jsonl").read_bytes()
    assert after.startswith(before) and after.count(b"\n") == before.count(b"\n") + 1
    appended = after[len(before) :]
    assert b'"kind":"escape_recorded"' in appended and b'"person":{' in appended
    assert main(["ledger", "verify", run_dir.name]) == 0
    capsys.readouterr()
    assert main(["stats", "--json", "--by", "topic"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["by"]["topic"]["silent-fallback"]["escapes"] == 1
    assert data["totals"]["escapes"] == 1
    [escape] = data["escapes"]
    assert (escape["note"], escape["path"], escape["line"]) == (
        "None leaked into billing",
        "m.py",
        5,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--note", "   "], "--note is empty"),
        (["--note", "x", "--line", "3"], "--line needs --path"),
        (["--note", "x", "--path", "m.py", "--line", "0"], "--line must be 1 or more"),
        (["--note", "x", "--topic", ""], "--topic must be one non-empty line"),
    ],
)
def test_escape_bad_input_changes_nothing(
    fallback_repo: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    _review_json(capsys)
    [run_dir] = (fallback_repo / ".contend" / "runs").iterdir()
    before = (run_dir / "ledger.jsonl").read_bytes()
    assert main(["escape", run_dir.name, *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1
    assert (run_dir / "ledger.jsonl").read_bytes() == before
    assert main(["escape", "20260101-000000-abcdef", "--note", "x"]) == 2
    assert "no run" in capsys.readouterr().err


def test_escape_refuses_a_tampered_run(
    fallback_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _review_json(capsys)
    [run_dir] = (fallback_repo / ".contend" / "runs").iterdir()
    ledger = run_dir / "ledger.jsonl"
    ledger.write_bytes(ledger.read_bytes().replace(b'"severity":"major"', b'"severity":"minor"', 1))
    tampered = ledger.read_bytes()
    assert main(["escape", run_dir.name, "--note", "x"]) == 2
    err = capsys.readouterr().err
    assert "not intact" in err and "MAC mismatch" in err
    assert ledger.read_bytes() == tampered


# --- stats ------------------------------------------------------------------------------


def test_stats_figures_on_a_known_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, result = rich_repo(tmp_path)
    monkeypatch.chdir(repo)
    # C1-1 and C1-3 defended and deadlocked, C1-2 conceded and accepted.
    assert main(["decide", "C1-1", "--overrule", "--note", "callers filter"]) == 0
    assert main(["decide", "C1-3", "--uphold", "--note", "fix it"]) == 1
    assert main(["escape", result.run_id, "--note", "slipped", "--topic", "edge cases"]) == 0
    capsys.readouterr()
    assert main(["stats", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    total = data["totals"]
    assert (total["runs"], total["raised"], total["found"]) == (1, 3, 1)
    assert total["found_rate"] == round(1 / 3, 4)
    assert total["survival_rate"] == round(2 / 3, 4)  # the overruled one reached a person
    assert (total["decided"], total["overruled"], total["false_alarm_rate"]) == (2, 1, 0.5)
    assert total["resolved"] == 2 and total["rounds_to_resolution_mean"] is not None
    assert total["escapes"] == 1 and total["time_per_review_s"] > 0
    assert set(data["by"]) == {"topic", "family"}
    assert data["by"]["family"]["fam-critic"]["raised"] == 3
    assert data["by"]["topic"]["edge cases"]["escapes"] == 1
    capsys.readouterr()
    assert main(["stats"]) == 0
    text = capsys.readouterr().out
    assert "all reviews" in text and "33.3%" in text and "50.0%" in text and "edge cases" in text


def test_stats_since_by_chart_and_bad_input(
    fallback_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _review_json(capsys)
    assert main(["stats", "--json", "--since", "2999-01-01"]) == 0
    assert json.loads(capsys.readouterr().out)["totals"]["runs"] == 0
    assert main(["stats", "--json", "--since", "1d", "--by", "branch"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["by"]["branch"]["feature"]["raised"] == 1
    chart = tmp_path / "critics.png"
    assert main(["stats", "--by", "critic", "--chart", str(chart)]) == 0
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["stats", "--since", "last tuesday"]) == 2
    assert "--since 'last tuesday'" in capsys.readouterr().err
    assert main(["stats", "--by", "colour"]) == 2
    assert parse_since("2026-01-31") == "2026-01-31T00:00:00.000000Z"


# --- the index is a cache ---------------------------------------------------------------


def test_rebuild_rederives_every_figure_from_the_ledgers_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, result = rich_repo(tmp_path)
    monkeypatch.chdir(repo)
    assert main(["decide", "C1-1", "--waive", "--note", "accepted risk"]) == 0
    assert main(["escape", result.run_id, "--note", "got through", "--path", "app.py"]) == 0
    git(repo, "checkout", "-q", "-b", "second")
    (repo / "more.py").write_text(FALLBACK)
    assert main(["review", "-q", "--format", "json"]) == 1
    capsys.readouterr()

    def figures() -> tuple[dict[str, object], dict[str, object]]:
        outputs = []
        for args in (["stats", "--json", "--by", "critic"], ["status", "--json"]):
            assert main(args) == 0
            outputs.append(json.loads(capsys.readouterr().out))
        return outputs[0], outputs[1]

    stats_before, status_before = figures()
    index = repo / ".contend" / INDEX_FILE
    with sqlite3.connect(index) as db:
        assert db.execute("SELECT COUNT(*) FROM attacks").fetchone()[0] == 4
        assert db.execute("SELECT COUNT(*) FROM escapes").fetchone()[0] == 1
    index.unlink()
    assert figures() == (stats_before, status_before)
    assert main(["status", "--rebuild", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == status_before
    assert stats_before["totals"]["raised"] == 4  # type: ignore[index]
    [waived] = [r for r in status_before["runs"] if r["run_id"] == result.run_id]  # type: ignore[union-attr]
    assert waived["decided"] == 1 and waived["escapes"] == 1 and waived["verdict"] == "escalate"
