"""Where review/ decides the verdict (issue 18): the trivial-change shortcut of a review
(`_Session._body`), which gives `pass` without any critic, and a person's answer between
reviews (`respond.answer`), which re-decides the verdict. Through the CLI and the API on
real git repositories, asserting on the verdict, its reasons and what the ledger holds."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from contend.cli.main import main
from contend.config import load_settings
from contend.errors import UserError
from contend.protocol.model import Action, Actor
from contend.review.respond import answer, answer_in_run
from review_helpers import make_repo
from test_report_reading import FALLBACK, FALLBACK_BASE

# These tests are about how the review verdict follows the author's answers, not about which static
# findings may block: the change they plant as the one that fails (a broad `except Exception: return
# 0`) is a `swallowing-handler`, which the default earned policy lists as minor. They let static
# findings block at each rule's own severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


TRIVIAL = 'trivial_diff_lines = 3\ncritics = ["static"]\n'
HARMLESS = FALLBACK_BASE.replace('"amount must be text"', '"the amount must be text"')


def _review(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["review", "-q", "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def _repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: dict[str, str]) -> Path:
    repo = make_repo(
        tmp_path,
        base={"app.py": FALLBACK_BASE, "contend.toml": TRIVIAL},
        change=change,
        commit_change=False,
    )
    monkeypatch.chdir(repo)
    return repo


# --- the trivial-change shortcut ---------------------------------------------------------


def test_an_empty_change_passes_with_nothing_to_review_and_no_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The other `pass` decided before any critic: no change and no earlier dispute."""
    _repo(tmp_path, monkeypatch, {})
    code, data = _review(capsys)
    assert (code, data["verdict"]) == (0, "pass")
    assert data["reasons"] == ["nothing to review"]
    assert data["threads"] == []


def test_a_change_under_the_trivial_threshold_passes_without_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _repo(tmp_path, monkeypatch, {"app.py": HARMLESS})  # one line out, one in: 2 < 3
    code, data = _review(capsys)
    assert (code, data["verdict"]) == (0, "pass")
    assert data["reasons"] == ["trivial change: 2 changed lines < trivial_diff_lines 3"]
    assert data["threads"] == []


def test_a_change_at_the_trivial_threshold_is_reviewed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three changed lines are not fewer than three: the static critics read the change."""
    _repo(tmp_path, monkeypatch, {"app.py": HARMLESS + "# one more line\n"})
    code, data = _review(capsys)
    assert not any(r.startswith("trivial change") for r in data["reasons"]), data["reasons"]
    assert data["threads"] != []
    assert code == 0


def test_a_small_change_that_plants_a_fallback_is_not_waved_through_by_an_open_dispute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run with disputes is never passed as trivial: the second session changes one line
    but the fallback of the first is still open, so the verdict is still fail."""
    repo = _repo(tmp_path, monkeypatch, {"app.py": FALLBACK})
    code, first = _review(capsys)
    assert (code, first["verdict"]) == (1, "fail")
    (repo / "app.py").write_text(FALLBACK.replace('"amount must be text"', '"amount text"'))
    code, second = _review(capsys)
    assert second["run_id"] == first["run_id"]
    assert (code, second["verdict"]) == (1, "fail")
    assert not any(r.startswith("trivial change") for r in second["reasons"])


def test_a_small_change_with_a_skipped_file_is_not_trivial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, monkeypatch, {"app.py": HARMLESS})
    (repo / "blob.bin").write_bytes(bytes(range(256)) * 10)
    _, data = _review(capsys)
    assert [s["path"] for s in data["skipped"]] == ["blob.bin"]
    assert not any(r.startswith("trivial change") for r in data["reasons"]), data["reasons"]
    assert data["threads"] != []


# --- a person's answer between reviews ---------------------------------------------------


def _fallback_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, dict[str, Any]]:
    repo = make_repo(
        tmp_path, base={"app.py": FALLBACK_BASE}, change={"app.py": FALLBACK}, commit_change=False
    )
    monkeypatch.chdir(repo)
    code, data = _review(capsys)
    assert code == 1 and data["disputes"]
    return repo, data


def test_an_answer_needs_a_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, data = _fallback_run(tmp_path, monkeypatch, capsys)
    attack = data["disputes"][0]["id"]
    with pytest.raises(UserError, match=r"^defend needs a text: say why"):
        answer(repo, load_settings(repo), attack, Action.DEFEND, text="  ")


def test_an_answer_without_a_review_run_says_to_run_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path, change={"app.py": FALLBACK}, commit_change=False)
    monkeypatch.chdir(repo)
    with pytest.raises(UserError) as caught:
        answer(repo, load_settings(repo), "x-1", Action.DEFEND, text="because")
    assert str(caught.value) == "no review run on feature: run `contend review` first"
    # A blank text is refused first, before the run is looked up.
    with pytest.raises(UserError, match=r"^concede needs a text"):
        answer(repo, load_settings(repo), "x-1", Action.CONCEDE, text="")


def test_an_answer_to_an_unknown_objection_lists_the_unresolved_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, data = _fallback_run(tmp_path, monkeypatch, capsys)
    ids = ", ".join(d["id"] for d in data["disputes"])
    with pytest.raises(UserError) as caught:
        answer(repo, load_settings(repo), "nope-1", Action.DEFEND, text="because")
    assert str(caught.value) == f"no objection 'nope-1' in run {data['run_id']} (unresolved: {ids})"


def test_a_defence_keeps_the_verdict_fail_and_is_in_the_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, data = _fallback_run(tmp_path, monkeypatch, capsys)
    attack = data["disputes"][0]["id"]
    done = answer(
        repo, load_settings(repo), attack, Action.DEFEND, text="it is logged", evidence="l. 3"
    )
    assert (done.run_id, done.attack_id, done.status) == (data["run_id"], attack, "defended")
    assert str(done.outcome.verdict) == "fail"
    ledger = repo / ".contend" / "runs" / data["run_id"] / "ledger.jsonl"
    last = [json.loads(line) for line in ledger.read_text().splitlines() if line.strip()]
    moves = [e["data"] for e in last if e.get("kind") == "attack_transition"]
    assert moves[-1]["attack"] == attack
    assert (moves[-1]["action"], moves[-1]["by"], moves[-1]["text"]) == (
        "defend",
        "author",
        "it is logged",
    )
    assert moves[-1]["evidence"] == "l. 3"
    # A second defence of a defended objection is not a legal move: one clear line.
    with pytest.raises(UserError, match="defend is not allowed from status defended"):
        answer(repo, load_settings(repo), attack, Action.DEFEND, text="again")


# --- what a review records before any critic ---------------------------------------------


def test_the_spec_is_recorded_cut_at_64_kib_with_its_whole_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, monkeypatch, {"app.py": HARMLESS})
    spec = tmp_path / "SPEC.md"
    spec.write_text("s" * 70_000)
    main(["review", "-q", "--format", "json", "--spec", str(spec)])
    data = json.loads(capsys.readouterr().out)
    ledger = repo / ".contend" / "runs" / data["run_id"] / "ledger.jsonl"
    entries = [json.loads(line) for line in ledger.read_text().splitlines()]
    [loaded] = [e["data"] for e in entries if e["kind"] == "spec_loaded"]
    assert (loaded["source"], loaded["path"], loaded["chars"]) == ("file", str(spec), 70_000)
    assert loaded["text"] == "s" * 65_536


def test_no_spec_is_recorded_as_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, monkeypatch, {"app.py": HARMLESS})
    _, data = _review(capsys)
    ledger = repo / ".contend" / "runs" / data["run_id"] / "ledger.jsonl"
    entries = [json.loads(line) for line in ledger.read_text().splitlines()]
    [loaded] = [e["data"] for e in entries if e["kind"] == "spec_loaded"]
    # An uncommitted change with no spec given: no commit message, no transcript.
    assert (loaded["source"], loaded["text"], loaded["chars"]) == (None, "", 0)


def test_the_entry_gates_run_in_the_runs_worktree_and_are_recorded_at_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(
        tmp_path, base={"app.py": FALLBACK_BASE}, change={"app.py": FALLBACK}, commit_change=False
    )
    monkeypatch.chdir(repo)
    where = tmp_path / "gate-cwd"
    main(["review", "-q", "--format", "json", "--gate", f"pwd > {where}"])
    data = json.loads(capsys.readouterr().out)
    # The gate ran in the run's own worktree, where a crashed run's cleanup looks for it.
    state = repo / ".contend"
    assert where.read_text().strip() == str(state / "worktrees" / data["run_id"] / "gates")
    ledger = repo / ".contend" / "runs" / data["run_id"] / "ledger.jsonl"
    entries = [json.loads(line) for line in ledger.read_text().splitlines()]
    [gate] = [e["data"] for e in entries if e["kind"] == "gate_ran"]
    assert (gate["when"], gate["ok"]) == ("entry", True)
    # The worktree is gone once the session ends.
    assert not (state / "worktrees" / data["run_id"] / "gates").exists()
    listed = subprocess.run(
        ["git", "worktree", "list", "--porcelain"], cwd=repo, capture_output=True, text=True
    ).stdout
    assert listed.count("worktree ") == 1, listed
    assert data["verdict"] == "fail"  # a green gate does not wave the fallback through


def test_an_answer_given_without_evidence_is_the_authors_and_records_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, data = _fallback_run(tmp_path, monkeypatch, capsys)
    attack = data["disputes"][0]["id"]
    done = answer(repo, load_settings(repo), attack, Action.CONCEDE, text="fair point")
    assert done.status == "conceded"
    ledger = repo / ".contend" / "runs" / data["run_id"] / "ledger.jsonl"
    entries = [json.loads(line) for line in ledger.read_text().splitlines()]
    last = [e["data"] for e in entries if e["kind"] == "attack_transition"][-1]
    assert (last["attack"], last["action"], last["by"], last["actor"]) == (
        attack,
        "concede",
        "author",
        "proposer",
    )
    assert (last["text"], last["evidence"]) == ("fair point", "")


def test_an_answer_appended_to_a_named_run_without_evidence_records_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, data = _fallback_run(tmp_path, monkeypatch, capsys)
    attack = data["disputes"][0]["id"]
    settings = load_settings(repo)
    state_dir = repo / ".contend"
    run_id = data["run_id"]
    done = answer_in_run(state_dir, run_id, repo, settings, attack, Action.DEFEND, text="ok")
    assert (done.status, str(done.outcome.verdict)) == ("defended", "fail")
    with pytest.raises(UserError, match=r"^accept needs a text"):
        answer_in_run(state_dir, run_id, repo, settings, attack, Action.ACCEPT, text=" ")
    ledger = state_dir / "runs" / data["run_id"] / "ledger.jsonl"
    entries = [json.loads(line) for line in ledger.read_text().splitlines()]
    last = [e["data"] for e in entries if e["kind"] == "attack_transition"][-1]
    assert (last["by"], last["actor"], last["text"], last["evidence"]) == (
        "author",
        "proposer",
        "ok",
        "",
    )


def test_an_answer_to_a_run_that_does_not_exist_or_has_nothing_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, data = _fallback_run(tmp_path, monkeypatch, capsys)
    settings, state_dir = load_settings(repo), repo / ".contend"
    with pytest.raises(UserError) as missing:
        answer_in_run(state_dir, "nope", repo, settings, "x-1", Action.DEFEND, text="ok")
    assert str(missing.value) == f"no run 'nope' in {state_dir / 'runs'}"
    for dispute in data["disputes"]:  # every dispute overruled by a person: none open
        answer(repo, settings, dispute["id"], Action.OVERRULE, text="fine", by="human",
               actor=Actor.HUMAN)  # fmt: skip
    with pytest.raises(UserError) as caught:
        answer(repo, settings, "nope-1", Action.DEFEND, text="because")
    assert str(caught.value) == f"no objection 'nope-1' in run {data['run_id']} (unresolved: none)"


def test_a_small_change_that_loosens_the_review_configuration_is_reviewed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two changed lines are under the threshold, but they raise the threshold itself: the
    shortcut would let the edit that switches review off land unseen, so the static round
    runs and the configuration critic names the weakening."""
    _repo(tmp_path, monkeypatch, {"contend.toml": TRIVIAL.replace("= 3", "= 100000")})
    code, data = _review(capsys)
    assert not any(r.startswith("trivial change") for r in data["reasons"]), data["reasons"]
    rules = {d.get("rule") for d in data["disputes"]}
    assert "review-config-weakened" in rules, data["disputes"]
    assert (code, data["verdict"]) == (1, "fail")  # a weakened configuration blocks


def test_a_red_entry_gate_fails_the_run_before_any_critic_reads_the_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing is reviewed on a tree whose own gates are red: the run ends at the gate,
    and the fallback the static critics would have found is not reached."""
    repo = make_repo(
        tmp_path, base={"app.py": FALLBACK_BASE}, change={"app.py": FALLBACK}, commit_change=False
    )
    monkeypatch.chdir(repo)
    code = main(["review", "-q", "--format", "json", "--gate", "exit 3"])
    data = json.loads(capsys.readouterr().out)
    assert (code, data["verdict"]) == (1, "fail")
    assert data["threads"] == []
    ledger = repo / ".contend" / "runs" / data["run_id"] / "ledger.jsonl"
    kinds = [json.loads(line)["kind"] for line in ledger.read_text().splitlines()]
    assert kinds.count("gate_ran") == 1
    assert "thread_started" not in kinds and "attack" not in kinds
