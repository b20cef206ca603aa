"""Nothing lost, no silent pass, no traceback (issue 10), tried from outside: the real CLI on
real git repositories, with real kills, real signals and real read-only mounts.

Read-only locations are made with a private mount namespace (`unshare -Urm`, a read-only
bind mount), because the tests run as root here and root ignores file modes.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from contend.cli.main import main
from contend.ledger.verify import verify
from review_helpers import git, make_repo

# These tests are about robustness (nothing lost, no silent pass), not about which static findings
# may block: the change they plant as the one that fails (a broad `except Exception: return 0`) is a
# `swallowing-handler`, which the default earned policy lists as minor. They let static findings
# block at each rule's own severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


BASE = """\
def parse_amount(raw):
    if not isinstance(raw, str):
        raise TypeError("amount must be text")
    return int(raw)
"""
FALLBACK = BASE.replace(
    "    return int(raw)\n",
    "    try:\n        return int(raw)\n    except Exception:\n        return 0\n",
)


def cli(
    cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "contend.cli.main", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


def one_line(err: str) -> str:
    """The single line an error must be; no traceback."""
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


def review_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["review", "--format", "json", "-q", *args])
    out = capsys.readouterr().out
    return code, json.loads(out)


def active_runs(state_dir: Path) -> list[str]:
    folder = state_dir / "active"
    if not folder.is_dir():
        return []
    return sorted(json.loads(p.read_text())["run_id"] for p in folder.iterdir())


@pytest.fixture
def main_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """On main with a clean tree; HEAD commits a silent fallback. A plain review compares
    HEAD~1..HEAD and must fail."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "app.py").write_text(BASE)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (repo / "app.py").write_text(FALLBACK)
    git(repo, "commit", "-q", "-am", "parse amounts leniently")
    monkeypatch.chdir(repo)
    return repo


# --- the state directory is created whole and never reviewed ----------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["status"],
        ["respond", "SF-1", "--defend", "zero is a safe amount"],
        ["decide", "SF-1", "--waive", "--note", "accepted"],
    ],
    ids=["status", "respond", "decide"],
)
def test_a_command_before_the_first_review_creates_the_state_dir_whole(
    main_repo: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    main(command)
    assert "Traceback" not in capsys.readouterr().err
    assert (main_repo / ".contend" / ".gitignore").read_text().endswith("*\n")
    assert git(main_repo, "status", "--porcelain") == ""
    code, data = review_json(capsys)
    assert code == 1 and data["verdict"] == "fail"
    assert any(d["topic"] == "silent-fallback" for d in data["disputes"])


def test_the_review_target_never_includes_the_state_dir(
    main_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = review_json(capsys)
    assert code == 1
    # Damaged: git now sees contend's own files as untracked work.
    (main_repo / ".contend" / ".gitignore").write_text("")
    assert ".contend" in git(main_repo, "status", "--porcelain")
    code, data = review_json(capsys)
    assert code == 1 and data["verdict"] == "fail"
    paths = [s["path"] for s in data["skipped"]] + [d["location"]["path"] for d in data["disputes"]]
    assert not any(p.startswith(".contend") for p in paths)


# --- validate before anything is written ---------------------------------------------------


def bad_invocations(tmp_path: Path) -> dict[str, list[str]]:
    garbage = tmp_path / "session.jsonl"
    garbage.write_text("this is not a transcript\n")
    return {
        "spec-missing": ["--spec", str(tmp_path / "no-such-spec.md")],
        "spec-directory": ["--spec", str(tmp_path)],
        "transcript-garbage": ["--transcript", str(garbage)],
        "transcript-missing": ["--transcript", str(tmp_path / "no-such.jsonl")],
        "scripted-missing": ["--critic", f"scripted:{tmp_path / 'no-such.json'}"],
    }


BAD_IDS = [
    "spec-missing",
    "spec-directory",
    "transcript-garbage",
    "transcript-missing",
    "scripted-missing",
]


@pytest.mark.parametrize("case", BAD_IDS)
def test_a_broken_invocation_writes_nothing(
    main_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    args = bad_invocations(tmp_path)[case]
    assert main(["review", "-q", *args]) == 2
    one_line(capsys.readouterr().err)
    assert not (main_repo / ".contend").exists()


@pytest.mark.parametrize("case", BAD_IDS)
def test_a_broken_invocation_with_new_keeps_the_active_run(
    main_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    code, first = review_json(capsys)
    assert code == 1
    state = main_repo / ".contend"
    ledger = state / "runs" / first["run_id"] / "ledger.jsonl"
    before = ledger.read_bytes()
    args = bad_invocations(tmp_path)[case]
    assert main(["review", "-q", "--new", *args]) == 2
    one_line(capsys.readouterr().err)
    assert active_runs(state) == [first["run_id"]]
    assert [p.name for p in (state / "runs").iterdir()] == [first["run_id"]]
    assert ledger.read_bytes() == before


def test_an_api_critic_without_its_extra_writes_nothing(main_repo: Path, tmp_path: Path) -> None:
    # The `openai` extra is missing: its import fails, as it does where it is not installed.
    shadow = tmp_path / "no-openai"
    (shadow / "openai").mkdir(parents=True)
    (shadow / "openai" / "__init__.py").write_text("raise ImportError('not installed')\n")
    env = {"PYTHONPATH": os.pathsep.join([str(shadow), os.environ.get("PYTHONPATH", "")])}
    done = cli(main_repo, "review", "-q", "--critic", "openai:gpt-4.1", env=env)
    assert done.returncode == 2
    assert "contend[openai]" in one_line(done.stderr) or "extra" in done.stderr
    assert not (main_repo / ".contend").exists()


def test_bad_wait_values_are_usage_errors(
    main_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for value in ("nan", "-3", "inf"):
        assert main(["review", "-q", "--wait", value]) == 2
        assert "--wait" in one_line(capsys.readouterr().err)
    assert not (main_repo / ".contend").exists()


# --- --out never overwrites what contend did not write -------------------------------------


def test_out_refuses_to_overwrite_files_contend_did_not_write(
    main_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (main_repo / "report.md").write_text("# my own report\n")
    git(main_repo, "add", "report.md")
    git(main_repo, "commit", "-q", "-m", "my report")
    git(main_repo, "commit", "-q", "--allow-empty", "-m", "later")
    assert main(["review", "-q", "--out", "."]) == 2
    assert "--force" in one_line(capsys.readouterr().err)
    assert (main_repo / "report.md").read_text() == "# my own report\n"
    assert not (main_repo / "report.json").exists()

    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine\n")
    assert main(["review", "-q", "--out", str(foreign)]) == 2
    one_line(capsys.readouterr().err)
    assert sorted(p.name for p in foreign.iterdir()) == ["notes.txt"]

    out = tmp_path / "out"
    assert main(["review", "-q", "--out", str(out)]) == 0  # HEAD~1..HEAD is now empty
    assert main(["review", "-q", "--out", str(out)]) == 0  # its own output: rewritten
    (out / "report.md").write_text("edited by hand\n")
    assert main(["review", "-q", "--out", str(out)]) == 2
    assert "report.md" in one_line(capsys.readouterr().err)
    assert (out / "report.md").read_text() == "edited by hand\n"
    assert main(["review", "-q", "--out", str(out), "--force"]) == 0
    assert (out / "report.md").read_text() != "edited by hand\n"


def test_out_that_cannot_be_written_keeps_the_finished_review(
    main_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", "-q", "--out", "/proc/forbidden"]) == 2
    line = one_line(capsys.readouterr().err)
    assert "/proc/forbidden" in line and "fail" in line
    [run_dir] = list((main_repo / ".contend" / "runs").iterdir())
    assert str(run_dir) in line
    assert json.loads((run_dir / "report.json").read_text())["verdict"] == "fail"
    assert verify(run_dir / "ledger.jsonl").ok
    assert main(["ledger", "verify", str(run_dir)]) == 0


# --- where the state directory may be -------------------------------------------------------


@pytest.mark.parametrize(
    ("state_dir", "fragment"),
    [("src", "tracked"), (".", "repository root"), ("scratch", "did not create")],
)
def test_a_state_dir_that_would_hide_user_files_is_refused(
    main_repo: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    state_dir: str,
    fragment: str,
) -> None:
    (main_repo / "src").mkdir()
    (main_repo / "src" / "mod.py").write_text("X = 1\n")
    git(main_repo, "add", "src/mod.py")
    git(main_repo, "commit", "-q", "-m", "module")
    (main_repo / "src" / "new_module.py").write_text("Y = 2\n")
    (main_repo / "scratch").mkdir()
    (main_repo / "scratch" / "draft.py").write_text("Z = 3\n")
    monkeypatch.setenv("CONTEND_STATE_DIR", state_dir)
    assert main(["review", "-q"]) == 2
    assert fragment in one_line(capsys.readouterr().err)
    untracked = git(main_repo, "status", "--porcelain", "--untracked-files=all")
    assert "src/new_module.py" in untracked and "scratch/draft.py" in untracked
    for folder in (main_repo, main_repo / "src", main_repo / "scratch"):
        assert not (folder / ".gitignore").exists()


def test_a_state_dir_in_the_project_config_holding_tracked_files_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(
        tmp_path,
        base={"app.py": BASE, "src/mod.py": "X = 1\n", "contend.toml": 'state_dir = "src"\n'},
        change={"app.py": FALLBACK},
    )
    monkeypatch.chdir(repo)
    assert main(["review", "-q"]) == 2
    assert "tracked" in one_line(capsys.readouterr().err)
    assert not (repo / "src" / ".gitignore").exists()


def test_a_committed_state_dir_symlink_leading_outside_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    repo = make_repo(tmp_path, base={"app.py": BASE}, change={"app.py": FALLBACK})
    (repo / ".contend").symlink_to(outside)
    git(repo, "add", ".contend")
    git(repo, "commit", "-q", "-m", "link the state away")
    monkeypatch.chdir(repo)
    assert main(["review", "-q"]) == 2
    assert "symlink" in one_line(capsys.readouterr().err)
    assert list(outside.iterdir()) == []


def test_an_absolute_state_dir_the_user_configured_is_used(
    main_repo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    elsewhere = tmp_path / "elsewhere"
    monkeypatch.setenv("CONTEND_STATE_DIR", str(elsewhere))
    code, data = review_json(capsys)
    assert code == 1
    assert (elsewhere / "runs" / data["run_id"] / "ledger.jsonl").is_file()
    assert not (elsewhere / ".gitignore").exists()  # outside the repository: none needed
    assert not (main_repo / ".contend").exists()


# --- one clear line instead of a traceback ---------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [["review", "-q"], ["status"], ["respond", "SF-1", "--defend", "because"]],
    ids=["review", "status", "respond"],
)
def test_a_state_dir_that_is_a_regular_file(
    main_repo: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    (main_repo / ".contend").write_text("my notes\n")
    assert main(command) == 2
    assert "not a directory" in one_line(capsys.readouterr().err)
    assert (main_repo / ".contend").read_text() == "my notes\n"


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-Urm", "sh", "-c", "mount --bind / /mnt 2>/dev/null || true; exit 0"],
        capture_output=True,
    )
    return probe.returncode == 0


needs_unshare = pytest.mark.skipif(
    not _unshare_works(),
    reason="issue 10: needs `unshare -Urm` (user and mount namespaces) to make a read-only "
    "bind mount; chmod cannot make anything read-only for root",
)


def read_only(
    paths: list[Path], cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `contend ARGS` in a private mount namespace where `paths` are read-only."""
    mounts = "".join(
        f'mount --bind "{p}" "{p}" && mount -o remount,bind,ro "{p}" && ' for p in paths
    )
    script = f'{mounts}exec "$@"'
    return subprocess.run(
        [
            "unshare",
            "-Urm",
            "sh",
            "-c",
            script,
            "sh",
            sys.executable,
            "-m",
            "contend.cli.main",
            *args,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=180,
    )


@needs_unshare
@pytest.mark.parametrize(
    "command",
    [["review", "-q"], ["status"], ["respond", "SF-1", "--defend", "because"]],
    ids=["review", "status", "respond"],
)
def test_a_read_only_state_dir(
    main_repo: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    code, first = review_json(capsys)
    assert code == 1
    state = main_repo / ".contend"
    done = read_only([state], main_repo, *command)
    assert done.returncode == 2
    assert "cannot write the state directory" in one_line(done.stderr)
    assert verify(state / "runs" / first["run_id"] / "ledger.jsonl").ok


@needs_unshare
def test_an_unwritable_state_dir_from_the_environment(main_repo: Path, tmp_path: Path) -> None:
    locked = tmp_path / "locked-state"
    locked.mkdir()
    done = read_only([locked], main_repo, "review", "-q", env={"CONTEND_STATE_DIR": str(locked)})
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert "cannot write the state directory" in line and "another contend" not in line


@needs_unshare
def test_a_read_only_git_dir_with_a_gate(
    main_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    done = read_only([main_repo / ".git"], main_repo, "review", "-q", "--gate", "true")
    assert done.returncode == 2
    assert ".git" in one_line(done.stderr)
    state = main_repo / ".contend"
    assert active_runs(state) == []
    assert not (state / "runs").exists() or list((state / "runs").iterdir()) == []
    code, data = review_json(capsys, "--gate", "true")
    assert code == 1 and data["verdict"] == "fail"


def test_a_failure_mid_run_closes_the_ledger_and_leaves_no_new_active_run(
    main_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shim = tmp_path / "shim"
    shim.mkdir()
    real_git = shutil.which("git")
    assert real_git is not None
    (shim / "git").write_text(
        "#!/bin/sh\n"
        'case " $* " in *" worktree add "*) echo "fatal: simulated failure" >&2; exit 128;; esac\n'
        f'exec "{real_git}" "$@"\n'
    )
    (shim / "git").chmod(0o755)
    env = {"PATH": f"{shim}:{os.environ['PATH']}"}
    done = cli(main_repo, "review", "-q", "--gate", "true", env=env)
    assert done.returncode == 2
    assert "simulated failure" in one_line(done.stderr)
    state = main_repo / ".contend"
    assert active_runs(state) == []
    [run_dir] = list((state / "runs").iterdir())
    checked = verify(run_dir / "ledger.jsonl", keep_entries=True)
    assert checked.ok
    last = checked.entries[-1]
    assert last["kind"] == "run_interrupted" and last["data"]["cause"] == "error"
    assert "simulated failure" in last["data"]["error"]
    assert git(main_repo, "for-each-ref", "refs/contend/") == ""
    code, data = review_json(capsys, "--gate", "true")
    assert code == 1 and data["run_id"] != run_dir.name


# --- leftovers of killed runs ----------------------------------------------------------------


def _start(repo: Path, *args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "contend.cli.main", *args],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
        start_new_session=True,
    )


def _wait_for(path: Path, proc: subprocess.Popen[str], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def _kill_group(proc: subprocess.Popen[str]) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)


@pytest.mark.slow
def test_a_kill_during_the_snapshot_leaves_a_temp_index_the_next_run_removes(
    main_repo: Path, tmp_path: Path
) -> None:
    shim = tmp_path / "shim"
    shim.mkdir()
    marker = tmp_path / "snapshot-started"
    real_git = shutil.which("git")
    assert real_git is not None
    (shim / "git").write_text(
        "#!/bin/sh\n"
        'case "$GIT_INDEX_FILE" in *contend-index-*)\n'
        f'  touch "{marker}"; sleep 60;;\n'
        "esac\n"
        f'exec "{real_git}" "$@"\n'
    )
    (shim / "git").chmod(0o755)
    proc = _start(
        main_repo, "review", "-q", "--gate", "true", env={"PATH": f"{shim}:{os.environ['PATH']}"}
    )
    _wait_for(marker, proc)
    _kill_group(proc)
    git_dir = main_repo / ".git"
    left = sorted(p.name for p in git_dir.glob("contend-index-*"))
    assert left, "the killed snapshot left no temporary index"
    done = cli(main_repo, "review", "--gate", "true", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert list(git_dir.glob("contend-index-*")) == []
    assert all(name in done.stderr for name in left)
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_kill_during_worktree_add_is_cleaned_without_a_false_rescue(
    main_repo: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "checkout-started"
    (main_repo / ".gitattributes").write_text("*.py filter=slow\n")
    git(main_repo, "add", ".gitattributes")
    git(main_repo, "commit", "-q", "--amend", "--no-edit")
    # Checking out a .py file into the gate worktree now takes a minute.
    git(main_repo, "config", "filter.slow.smudge", f'touch "{marker}"; sleep 60; cat')
    proc = _start(main_repo, "review", "-q", "--gate", "true", env={})
    _wait_for(marker, proc)
    _kill_group(proc)
    git(main_repo, "config", "--unset", "filter.slow.smudge")
    assert "initializing" in git(main_repo, "worktree", "list", "--porcelain")
    done = cli(main_repo, "review", "--gate", "true", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert "checkout was interrupted" in done.stderr
    assert git(main_repo, "for-each-ref", "refs/contend/rescue") == ""
    assert "initializing" not in git(main_repo, "worktree", "list", "--porcelain")


def test_a_lock_taken_over_from_a_killed_holder_is_said(main_repo: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\n"
            "from pathlib import Path\n"
            "from contend.review.lock import review_lock\n"
            "Path('.contend').mkdir()\n"
            "Path('.contend/.gitignore').write_text("
            "'# created by contend: runs are local state\\n*\\n')\n"
            "with review_lock(Path('.contend'), command='contend review (killed)'):\n"
            "    print('held', flush=True)\n"
            "    time.sleep(60)\n",
        ],
        cwd=main_repo,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    holder.kill()
    holder.communicate(timeout=30)
    done = cli(main_repo, "review", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert "took over the review lock" in done.stderr and str(holder.pid) in done.stderr


# --- shallow clones and gate names -----------------------------------------------------------


def test_a_shallow_boundary_is_refused_with_the_reason(main_repo: Path, tmp_path: Path) -> None:
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{main_repo}", str(shallow))
    done = cli(shallow, "review", "-q")
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert "shallow" in line and "--deepen" in line
    deeper = tmp_path / "deeper"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{main_repo}", str(deeper))
    done = cli(deeper, "review", "-q", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["verdict"] == "fail"


def test_a_gate_is_named_by_its_whole_command(
    main_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = "sh -c 'exit 0'", "sh -c 'exit 4'"
    code, data = review_json(capsys, "--gate", good, "--gate", bad)
    assert code == 1 and data["reasons"] == ["gate"]
    assert [(g["name"], g["ok"]) for g in data["gates"]] == [(good, True), (bad, False)]
    # A fail report lists no caveats (they are a conditional pass's minor items); the red
    # gate is shown in report.md under its whole command.
    assert data["caveats"] == []
    (report_md,) = (main_repo / ".contend" / "runs").glob("*/report.md")
    assert f"Output of red gate `{bad}`" in report_md.read_text()


def test_a_state_dir_holding_only_contends_own_leftovers_is_accepted(
    main_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # What an older contend or a killed one leaves: no .gitignore, only its own files.
    state = main_repo / ".contend"
    (state / "runs").mkdir(parents=True)
    (state / "index.sqlite3").write_bytes(b"")
    (state / ".contend-probe-k2j3").write_bytes(b"")
    (state / ".review.holder.json.4242.tmp").write_bytes(b"")
    code, data = review_json(capsys)
    assert code == 1 and data["verdict"] == "fail"
    assert (state / ".gitignore").read_text().endswith("*\n")
