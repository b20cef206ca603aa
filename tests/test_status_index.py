"""The SQLite index of runs and `contend status`: a cache rebuilt from the ledgers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from contend.cli.main import main
from contend.ledger.index import INDEX_FILE, recent, refresh, verdict_counts
from review_helpers import git, make_repo

# These tests are about `contend status` and its index, not about which static findings may block:
# the change they plant as the one that fails (a broad `except Exception: return 0`) is a
# `swallowing-handler`, which the default earned policy lists as minor. They let static findings
# block at each rule's own severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


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


# contend: allow test-weakening -- "unreadable" became TAMPERED + "not intact", asserted
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
    # A tampered ledger is named and shown as tampered, never with its verdict.
    [run_dir] = list((state / "runs").iterdir())
    ledger = run_dir / "ledger.jsonl"
    ledger.write_bytes(ledger.read_bytes().replace(b'"alg":"hmac', b'"alg": "hmac', 1))
    result = refresh(state, rebuild=True)
    assert len(result.problems) == 1 and run_dir.name in result.problems[0]
    assert verdict_counts(state) == {"tampered": 1}
    capsys.readouterr()
    assert main(["status"]) == 1
    out, err = capsys.readouterr()
    assert f"{run_dir.name}  TAMPERED" in out and "line 1:" in out
    assert "fail" not in out.split("TAMPERED", 1)[1]
    assert "not intact" in err


def flip_in_place(ledger: Path, old: bytes, new: bytes) -> None:
    """Edit a ledger without changing its size or its last line, and put its mtime back:
    what the old cheap check (size + last line) could not see."""
    assert len(old) == len(new)
    info = ledger.stat()
    raw = ledger.read_bytes()
    assert raw.count(old) >= 1
    ledger.write_bytes(raw.replace(old, new, 1))
    os.utime(ledger, ns=(info.st_atime_ns, info.st_mtime_ns))


def test_a_same_size_edit_is_shown_as_tampered_not_with_the_cached_verdict(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", "-q", "--format", "json"]) == 1
    capsys.readouterr()
    assert main(["status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"] == {"fail": 1}
    [ledger] = (repo / ".contend" / "runs").glob("*/ledger.jsonl")
    flip_in_place(ledger, b'"severity":"major"', b'"severity":"minor"')
    assert main(["status", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["counts"] == {"tampered": 1}
    [row] = data["runs"]
    assert row["integrity"] == "tampered" and row["verdict"] is None
    assert "MAC mismatch" in row["problem"] and "line " in row["problem"]


def test_status_notices_a_rewound_head_and_a_cut_ledger_on_every_read(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", "-q", "--format", "json"]) == 1
    assert main(["status"]) == 0
    [ledger] = (repo / ".contend" / "runs").glob("*/ledger.jsonl")
    lines = ledger.read_bytes().splitlines(keepends=True)
    ledger.write_bytes(b"".join(lines[:-1]))
    (ledger.parent / "ledger.head").unlink()
    capsys.readouterr()
    assert main(["status"]) == 1
    out = capsys.readouterr().out
    assert "TAMPERED" in out and "truncated" in out and "anchor" in out


def test_a_duplicate_kind_leaves_status_usable_for_every_other_run(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", "-q", "--format", "json"]) == 1
    git(repo, "checkout", "-q", "-b", "other")
    assert main(["review", "-q", "--format", "json"]) == 1
    first, second = sorted((repo / ".contend" / "runs").glob("*/ledger.jsonl"))
    lines = first.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].rstrip(b"\n")[:-1] + b',"kind":"no_such_kind"}\n'
    first.write_bytes(b"".join(lines))
    capsys.readouterr()
    assert main(["status", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["counts"] == {"fail": 1, "tampered": 1}
    by_id = {r["run_id"]: r for r in data["runs"]}
    assert by_id[first.parent.name]["integrity"] == "tampered"
    assert "line 3: duplicate key 'kind'" in by_id[first.parent.name]["problem"]
    assert by_id[second.parent.name]["verdict"] == "fail"
