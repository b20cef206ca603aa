"""The SQLite index of runs and `contend status`: a cache rebuilt from the ledgers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contend.cli.main import main
from contend.ledger.index import INDEX_FILE, recent, refresh, verdict_counts
from review_helpers import git, make_repo

FALLBACK = "def f(g):\n    try:\n        return g()\n    except Exception:\n        return None\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = make_repo(
        tmp_path,
        base={"m.py": "def f(g):\n    return g()\n"},
        change={"m.py": FALLBACK},
        commit_change=False,
    )
    monkeypatch.chdir(path)
    return path


def test_status_lists_runs_and_counts_verdicts(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", "-q", "--format", "json"]) == 1
    (repo / "m.py").write_text("def f(g):\n    return g()\n")
    assert main(["review", "-q", "--format", "json"]) == 0  # same run, second session
    git(repo, "checkout", "-q", "-b", "other")
    (repo / "m.py").write_text(FALLBACK)
    assert main(["review", "-q", "--format", "json"]) == 1
    capsys.readouterr()
    assert main(["status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["counts"] == {"fail": 1, "pass": 1}
    [newest, oldest] = data["runs"]
    assert (newest["key"], newest["verdict"], newest["sessions"]) == ("other", "fail", 1)
    assert (oldest["key"], oldest["verdict"], oldest["sessions"]) == ("feature", "pass", 2)


def test_the_index_is_a_cache_rebuilt_from_the_ledgers(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", "-q", "--format", "json"]) == 1
    state = repo / ".contend"
    assert refresh(state).reread == 1
    assert refresh(state).reread == 0  # unchanged ledgers are not re-read
    (state / INDEX_FILE).unlink()
    assert refresh(state).reread == 1
    assert [r.verdict for r in recent(state)] == ["fail"]
    # A tampered ledger is named, never indexed as if it were fine.
    [run_dir] = list((state / "runs").iterdir())
    ledger = run_dir / "ledger.jsonl"
    ledger.write_bytes(ledger.read_bytes().replace(b'"alg":"sha256"', b'"alg": "sha256"', 1))
    result = refresh(state, rebuild=True)
    assert len(result.unreadable) == 1 and run_dir.name in result.unreadable[0]
    assert verdict_counts(state) == {}
    capsys.readouterr()
    assert main(["status"]) == 1
    assert "unreadable" in capsys.readouterr().err
