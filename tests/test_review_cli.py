"""`contend review` through the CLI on real git repositories: author mode across sessions,
outputs, exit codes, and bad input (each a clear message and exit 2, nothing lost)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from contend.cli.main import main
from review_helpers import git, make_repo

# These tests are about `contend review` through the CLI, not about which static findings may block:
# the change they plant as the one that fails (a broad `except Exception: return 0`) is a
# `swallowing-handler`, which the default earned policy lists as minor. They let static findings
# block at each rule's own severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


BASE = """\
def parse_amount(raw):
    if not isinstance(raw, str):
        raise TypeError("amount must be text")
    return int(raw)


def parse_rate(raw):
    if not isinstance(raw, str):
        raise TypeError("rate must be text")
    return float(raw)
"""

FALLBACK = BASE.replace(
    "    return int(raw)\n",
    "    try:\n        return int(raw)\n    except Exception:\n        return 0\n",
).replace(
    """    if not isinstance(raw, str):
        raise TypeError("rate must be text")
""",
    "",
)
GUARD_RESTORED = BASE.replace(
    "    return int(raw)\n",
    "    try:\n        return int(raw)\n    except Exception:\n        return 0\n",
)


@pytest.fixture
def in_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = make_repo(
        tmp_path, base={"app.py": BASE}, change={"app.py": FALLBACK}, commit_change=False
    )
    monkeypatch.chdir(repo)
    return repo


def review_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object]]:
    code = main(["review", "--format", "json", "-q", *args])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_author_mode_fix_waiver_and_defense_across_sessions(
    in_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, first = review_json(capsys)
    assert code == 1 and first["verdict"] == "fail"
    topics = {d["topic"]: d["id"] for d in first["disputes"]}  # type: ignore[union-attr]
    assert {"silent-fallback", "boundary-typing"} <= set(topics)

    # The author defends the fallback in words, and fixes the guard removal.
    assert main(["respond", topics["silent-fallback"], "--defend", "0 is a safe amount"]) == 0
    (in_repo / "app.py").write_text(GUARD_RESTORED)
    capsys.readouterr()
    code, second = review_json(capsys)
    disputes = {d["id"]: d for d in second["disputes"]}  # type: ignore[union-attr]
    fallback = disputes[topics["silent-fallback"]]
    assert fallback["re_attacked"] is True and fallback["contention"] == 2
    resolved = {d["id"]: d["status"] for d in second["resolved"]}  # type: ignore[union-attr]
    assert resolved[topics["boundary-typing"]] == "fixed"

    # A reasonless waiver is itself a finding; a waiver with a reason concedes.
    text = (
        (in_repo / "app.py")
        .read_text()
        .replace(
            "    except Exception:\n",
            "    except Exception:  # contend: allow silent-fallback -- amounts are advisory\n",
        )
    )
    (in_repo / "app.py").write_text(text)
    code, third = review_json(capsys)
    resolved = {d["id"]: d["status"] for d in third["resolved"]}  # type: ignore[union-attr]
    assert resolved[topics["silent-fallback"]] == "conceded"
    assert code == 0 and third["verdict"] == "pass"

    # --new starts afresh: a new run id, no history.
    code, fresh = review_json(capsys, "--new")
    assert fresh["run_id"] != third["run_id"]


def test_out_dir_holds_all_reports_and_a_verifiable_ledger(
    in_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["review", "-q", "--out", str(out), "--format", "sarif"]) == 1
    sarif = json.loads(capsys.readouterr().out)
    assert sarif["version"] == "2.1.0"
    for name in ("report.json", "report.md", "report.sarif", "ledger.jsonl"):
        assert (out / name).is_file(), name
    assert json.loads((out / "report.json").read_text())["schema"] == "contend.report/v1"
    assert main(["ledger", "verify", str(out)]) == 0
    md = (out / "report.md").read_text()
    assert md.index("silent") < md.index("Resolved") if "Resolved" in md else True


def test_empty_diff_passes_with_nothing_to_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, change={}, commit_change=False)
    monkeypatch.chdir(repo)
    code, data = review_json(capsys, "--base", "main")
    assert code == 0 and data["verdict"] == "pass"
    assert data["reasons"] == ["nothing to review"]


def test_red_gate_fails_before_any_critic(
    in_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = review_json(capsys, "--gate", "echo gate-output-here; exit 3")
    assert code == 1 and data["verdict"] == "fail" and data["reasons"] == ["gate"]
    [gate] = data["gates"]  # type: ignore[misc]
    assert gate["ok"] is False and "gate-output-here" in gate["output"]
    assert data["disputes"] == [] and data["threads"] == []


def test_binary_and_large_files_are_skipped_with_reasons(
    in_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_repo / "blob.bin").write_bytes(bytes(range(256)) * 10)
    (in_repo / "huge.py").write_text("x = 1\n" * 400_000)
    code, data = review_json(capsys)
    reasons = {s["path"]: s["reason"] for s in data["skipped"]}  # type: ignore[union-attr]
    assert "binary" in reasons["blob.bin"]
    assert "large" in reasons["huge.py"] or "bytes" in reasons["huge.py"]
    assert code == 1  # the real findings still stand


def test_not_a_git_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["review"]) == 2
    err = capsys.readouterr().err
    assert "not a git repository" in err.lower() and "Traceback" not in err


def test_unknown_base(in_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", "--base", "no-such-rev"]) == 2
    err = capsys.readouterr().err
    assert "no-such-rev" in err and "Traceback" not in err
    assert not (in_repo / ".contend" / "runs").exists() or not any(
        (in_repo / ".contend" / "runs").iterdir()
    )


def test_detached_head_is_reviewed_by_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, base={"app.py": BASE}, change={"app.py": FALLBACK})
    git(repo, "checkout", "-q", "--detach", "HEAD")
    monkeypatch.chdir(repo)
    code = main(["review", "--format", "json", "--base", "main"])
    captured = capsys.readouterr()
    assert code == 1 and json.loads(captured.out)["verdict"] == "fail"
    assert "detached" in captured.err


def test_unknown_config_key_is_one_line_exit_2(
    in_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_repo / "contend.toml").write_text("max_round = 3\n")
    git(in_repo, "add", "contend.toml")
    git(in_repo, "commit", "-q", "-m", "configure")
    # Read at the base revision, where the review's configuration comes from.
    assert main(["review", "--base", "HEAD"]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown key 'max_round'" in err and "contend.toml at base revision" in err
    assert len(err.splitlines()) == 1


def test_a_second_review_at_once_is_refused_naming_the_holder(
    in_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from pathlib import Path\n"
            "from contend.review.lock import review_lock\n"
            "with review_lock(Path('.contend'), command='contend review (holder)'):\n"
            "    print('held', flush=True)\n"
            "    time.sleep(30)\n",
        ],
        cwd=in_repo,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert main(["review", "-q"]) == 2
        err = capsys.readouterr().err
        assert str(holder.pid) in err and "contend review (holder)" in err
    finally:
        holder.kill()
        holder.communicate()


def test_stale_worktrees_of_a_crashed_run_are_cleaned_with_a_note(
    in_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = in_repo / ".contend" / "worktrees" / "20260101-000000-dead00" / "C1"
    stale.parent.mkdir(parents=True)
    git(in_repo, "worktree", "add", "-q", "--detach", str(stale), "HEAD")
    (stale / "app.py").write_text("# an unfinished fix\n")
    assert main(["review", "--format", "json"]) == 1
    err = capsys.readouterr().err
    assert "C1" in err and "rescue" in err
    assert not stale.exists()
    assert "refs/contend/rescue" in git(in_repo, "for-each-ref", "refs/contend/rescue")


def test_a_corrupt_ledger_stops_the_next_review_and_is_left_as_is(
    in_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", "-q", "--format", "json"]) == 1
    capsys.readouterr()
    [run_dir] = list((in_repo / ".contend" / "runs").iterdir())
    ledger = run_dir / "ledger.jsonl"
    lines = ledger.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'{"alg"', b'{ "alg"', 1)
    tampered = b"".join(lines)
    ledger.write_bytes(tampered)
    assert main(["review", "-q"]) == 2
    err = capsys.readouterr().err
    assert "line 3" in err and "Traceback" not in err
    assert ledger.read_bytes() == tampered
    assert main(["ledger", "verify", str(run_dir)]) == 1


def test_each_unresolved_dispute_shows_its_ways_out(
    in_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["review", "-q", "--out", str(out)]) == 1
    data = json.loads((out / "report.json").read_text())
    fallback = next(d for d in data["disputes"] if d["topic"] == "silent-fallback")
    ways = data["ways_out"][fallback["id"]]
    # The ways out are the rule's own (issue 8), not one sentence for every topic.
    from contend.critics.static.catalogue import rule_info

    info = rule_info(fallback["rule"])
    assert info is not None
    assert ways == list(info.ways_out)
    assert any("contend: allow silent-fallback -- <reason>" in w for w in ways)
    assert "Ways out:" in (out / "report.md").read_text()


def test_respond_refolds_the_reports_keeping_the_sessions_wall_time(
    in_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, first = review_json(capsys)
    assert code == 1
    [run_dir] = list((in_repo / ".contend" / "runs").iterdir())
    before = json.loads((run_dir / "report.json").read_text())["stats"]["wall_time_s"]
    assert before > 0
    target = first["disputes"][0]["id"]  # type: ignore[index]
    assert main(["respond", target, "--concede", "known, tracked elsewhere"]) == 0
    after = json.loads((run_dir / "report.json").read_text())
    assert after["stats"]["wall_time_s"] == before
    statuses = {d["id"]: d["status"] for d in after["disputes"]}
    assert statuses[target] == "conceded"
