"""What a person decides, withdraws or is told, across `contend review` invocations
(issues 9 and 10), through the CLI on real git repositories:

- `decide` records who decided (git identity of the repository, else the OS user, and
  which of the two); its flags are mutually exclusive;
- a human decision attaches to the finding and carries to the next review, like a fix or
  an in-code waiver, instead of the finding coming back under a new id;
- a change withdrawn (reverted to an empty diff) resolves its disputes as withdrawn, and the
  verdict follows from the dispute set;
- a critic that failed says why, in report.json, report.md and SARIF, and is shown as failed;
  a gate is named by its whole command.
"""

from __future__ import annotations

import getpass
import json
from pathlib import Path
from typing import Any

import pytest

from contend.cli.main import main
from review_helpers import critic_turn, git, make_repo, objection, write_script
from test_report_reading import FALLBACK, FALLBACK_BASE, ledger_events, review

# These tests are about a person's decisions in the report, not about which static findings may
# block: the change they plant as the one that fails (a broad `except Exception: return 0`) is a
# `swallowing-handler`, which the default earned policy lists as minor. They let static findings
# block at each rule's own severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


@pytest.fixture
def fallback_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = make_repo(
        tmp_path, base={"app.py": FALLBACK_BASE}, change={"app.py": FALLBACK}, commit_change=False
    )
    monkeypatch.chdir(repo)
    return repo


GUARD_RESTORED = FALLBACK_BASE.replace(
    "    return int(raw)\n",
    "    try:\n        return int(raw)\n    except Exception:\n        return 0\n",
)


def _ids(data: dict[str, Any], key: str = "disputes") -> dict[str, str]:
    return {d["rule"]: d["id"] for d in data[key]}


def _human_transitions(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in ledger_events(data, "attack_transition") if e["by"] == "human"]


# --- who decided ----------------------------------------------------------------------


def test_decide_records_the_git_identity_of_the_repository(
    fallback_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(fallback_repo, "config", "user.name", "Dana Reviewer")
    git(fallback_repo, "config", "user.email", "dana@example.invalid")
    _, first, _ = review(capsys)
    target = _ids(first)["swallowing-handler"]
    assert main(["decide", target, "--waive", "--note", "cache is best-effort"]) == 0
    capsys.readouterr()
    _, second, md = review(capsys)
    [decision] = _human_transitions(second)
    assert decision["person"] == {
        "name": "Dana Reviewer",
        "email": "dana@example.invalid",
        "source": "git config",
    }
    [exchange] = [x for x in second["history"][target] if x["action"] == "waive"]
    assert exchange["person"]["name"] == "Dana Reviewer"
    assert "Dana Reviewer" in md and "dana@example.invalid" in md


def test_decide_falls_back_to_the_os_user_and_says_so(
    fallback_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, first, _ = review(capsys)
    target = _ids(first)["swallowing-handler"]
    assert main(["decide", target, "--overrule", "--note", "0 is a valid amount here"]) == 0
    capsys.readouterr()
    _, second, _ = review(capsys)
    [decision] = _human_transitions(second)
    assert decision["person"] == {"name": getpass.getuser(), "email": None, "source": "os user"}


def test_decision_flags_are_mutually_exclusive(
    fallback_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, first, _ = review(capsys)
    target = _ids(first)["swallowing-handler"]
    ledger = Path(".contend") / "runs" / first["run_id"] / "ledger.jsonl"
    before = ledger.read_bytes()
    assert main(["decide", target, "--waive", "--uphold", "--note", "x"]) == 2
    err = capsys.readouterr().err
    assert "--waive" in err and "--uphold" in err and "Traceback" not in err
    assert ledger.read_bytes() == before


# --- decisions carry to the next review -----------------------------------------------


@pytest.mark.parametrize("flag", ["--waive", "--overrule"])
def test_a_human_decision_survives_the_next_review(
    fallback_repo: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    _, first, _ = review(capsys)
    ids = _ids(first)
    target = ids["swallowing-handler"]
    assert main(["decide", target, flag, "--note", "accepted risk, see ADR-9"]) == 0
    capsys.readouterr()
    # The author fixes the other finding; the decided one stays in the code.
    (fallback_repo / "app.py").write_text(GUARD_RESTORED)
    code, second, _ = review(capsys)
    assert code == 0 and second["verdict"] == "pass", second["reasons"]
    assert "swallowing-handler" not in _ids(second)
    resolved = {d["id"]: d["status"] for d in second["resolved"]}
    assert resolved[target] == {"--waive": "waived", "--overrule": "overruled"}[flag]
    raised = [
        e for e in ledger_events(second, "attack_raised") if e["rule"] == "swallowing-handler"
    ]
    assert len(raised) == 1
    # And again: nothing comes back on a third invocation either.
    code, third, _ = review(capsys)
    assert code == 0 and "swallowing-handler" not in _ids(third)


# --- a withdrawn change ---------------------------------------------------------------


def test_reverting_the_change_resolves_its_disputes_as_withdrawn(
    fallback_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, first, _ = review(capsys)
    assert code == 1 and len(first["disputes"]) == 2
    git(fallback_repo, "checkout", "--", "app.py")
    code, second, md = review(capsys)
    assert second["run_id"] == first["run_id"]
    assert code == 0 and second["verdict"] == "pass"
    assert second["disputes"] == []
    assert {d["id"]: d["status"] for d in second["resolved"]} == {
        d["id"]: "withdrawn" for d in first["disputes"]
    }
    for d in first["disputes"]:
        [last] = second["history"][d["id"]][-1:]
        assert last["change_withdrawn"] is True
    assert "nothing to review" not in second["reasons"]
    resolved_md = md[md.index("## Resolved") :]
    assert resolved_md.count("withdrawn with the change") == 2


def test_a_file_whose_change_was_reverted_resolves_as_withdrawn_not_fixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(
        tmp_path,
        base={"app.py": FALLBACK_BASE, "other.py": "X = 1\n"},
        change={"app.py": FALLBACK, "other.py": "X = 2\n"},
        commit_change=False,
    )
    monkeypatch.chdir(repo)
    _, first, _ = review(capsys)
    git(repo, "checkout", "--", "app.py")
    code, second, _ = review(capsys)
    assert code == 0
    assert {d["status"] for d in second["resolved"]} == {"withdrawn"}
    assert len(second["resolved"]) == len(first["disputes"])


# --- a failed critic, a gate ----------------------------------------------------------


def test_a_failed_critic_says_why_everywhere_and_is_shown_as_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, commit_change=False)
    monkeypatch.chdir(repo)
    script = write_script(
        tmp_path / "critic.json", family="scripted-a", critic=[{"error": "http-500"}]
    )
    code = main(["review", "-q", "--format", "json", "--critic", script])
    data = json.loads(capsys.readouterr().out)
    assert code == 3 and data["verdict"] == "escalate"
    [failure] = data["failures"]
    assert failure["thread"] == "C1" and failure["role"] == "critic"
    assert "scripted failure: http-500" in failure["error"]
    assert failure["backend"] == "scripted"
    [thread] = data["threads"]
    assert thread["failed"] is True
    run_dir = Path(".contend") / "runs" / data["run_id"]
    md = (run_dir / "report.md").read_text()
    assert "scripted failure: http-500" in md
    assert "awaiting_author" not in md
    assert "failed" in md[md.index("`C1`") :]
    sarif = json.loads((run_dir / "report.sarif").read_text())
    [invocation] = sarif["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    [note] = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and "scripted failure: http-500" in note["message"]["text"]
    main(["review", "-q", "--format", "text", "--critic", script])
    text = capsys.readouterr().out
    assert "scripted failure: http-500" in text and "awaiting_author" not in text


def test_a_critic_that_answered_then_failed_shows_its_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, commit_change=False)
    monkeypatch.chdir(repo)
    script = write_script(
        tmp_path / "critic.json",
        family="scripted-a",
        critic=[critic_turn(objections=[objection()]), {"error": "timeout"}],
    )
    assert main(["review", "-q", "--format", "json", "--critic", script]) == 1
    capsys.readouterr()
    main(["review", "-q", "--format", "json", "--critic", script])
    data = json.loads(capsys.readouterr().out)
    [failure] = data["failures"]
    assert failure["kind"] == "timeout" and failure["round"] == 2
    md = (Path(".contend") / "runs" / data["run_id"] / "report.md").read_text()
    assert "timeout" in md and "awaiting_author" not in md


def test_a_gate_is_shown_by_its_whole_command(
    fallback_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gate = "python -c 'raise SystemExit(3)'"
    code = main(["review", "-q", "--format", "json", "--gate", gate])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    md = (Path(".contend") / "runs" / data["run_id"] / "report.md").read_text()
    assert f"`{gate}`" in md
    assert "red gate: python," not in md and "red gate python:" not in md
    main(["review", "-q", "--format", "text", "--gate", gate])
    text = capsys.readouterr().out
    assert gate in text and "red gate: python\n" not in text
