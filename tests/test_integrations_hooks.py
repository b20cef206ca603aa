"""`contend hook install/uninstall/run`: the agents' hook files in a throwaway HOME, the
stop hook run as the agent runs it (a subprocess fed the hook input JSON on stdin) in a
real git repository, and the real `claude` CLI firing it against the fake model server."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fakes.cli_env import agent_bin
from fakes.model_server import ANTHROPIC, FakeModelServer, Text, ToolUse, Turn
from review_helpers import git

# These tests are about the agents' stop hook, not about which static findings may block: the change
# they plant as the one that fails (a broad `except Exception: return 0`) is a `swallowing-handler`,
# which the default earned policy lists as minor. They let static findings block at each rule's own
# severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


PY = sys.executable
CLEAN = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(6))  # 24 lines
FALLBACK = (
    "def parse(x):\n    try:\n        return int(x)\n    except Exception:\n        return 0\n"
    + CLEAN
)


def contend(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "-m", "contend.cli.main", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def stop(
    repo: Path, payload: dict[str, Any] | str, *extra: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The hook as the agent runs it: the installed command, the input JSON on stdin."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        [PY, "-m", "contend.integrations.stop_hook", "--agent", "claude", *extra],
        cwd=repo,
        input=text,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def new_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.py").write_text("X = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def runs(repo: Path) -> list[Path]:
    where = repo / ".contend" / "runs"
    return sorted(where.iterdir()) if where.is_dir() else []


# --- install / uninstall ------------------------------------------------------------


def stop_commands(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    return [h["command"] for g in data.get("hooks", {}).get("Stop", []) for h in g["hooks"]]


def test_install_is_idempotent_keeps_others_and_uninstall_undoes(tmp_path: Path) -> None:
    settings = Path.home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    original = {
        "model": "opus",
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}]},
    }
    settings.write_text(json.dumps(original, indent=4))
    before = settings.read_bytes()
    first = contend("hook", "install", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "installed" in first.stdout
    assert (settings.parent / "settings.json.contend-backup").read_bytes() == before
    commands = stop_commands(settings)
    assert commands[0] == "echo mine"
    assert shlex.split(commands[1]) == [
        PY,
        "-m",
        "contend.integrations.stop_hook",
        "--agent",
        "claude",
    ]
    after_first = settings.read_bytes()
    again = contend("hook", "install", cwd=tmp_path)
    assert "already installed" in again.stdout and settings.read_bytes() == after_first
    # switching to --feedback replaces contend's entry, never adds a second one
    contend("hook", "install", "--feedback", cwd=tmp_path)
    assert [c.endswith("--feedback") for c in stop_commands(settings)] == [False, True]
    removed = contend("hook", "uninstall", cwd=tmp_path)
    assert removed.returncode == 0 and "removed" in removed.stdout
    assert json.loads(settings.read_text()) == original
    assert "not installed" in contend("hook", "uninstall", cwd=tmp_path).stdout


def test_codex_project_scope_writes_the_repository_hooks_json(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    done = contend("hook", "install", "--agent", "codex", "--scope", "project", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "trust it" in done.stdout
    commands = stop_commands(repo / ".codex" / "hooks.json")
    assert shlex.split(commands[0])[-2:] == ["--agent", "codex"]
    outside = contend("hook", "install", "--scope", "project", cwd=tmp_path)
    assert outside.returncode == 2 and "needs a git repository" in outside.stderr


@pytest.mark.parametrize(
    "text", ["{not json", "[1, 2]", '{"hooks": []}', '{"hooks": {"Stop": {"x": 1}}}']
)
def test_a_malformed_settings_file_is_refused_and_untouched(tmp_path: Path, text: str) -> None:
    settings = Path.home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(text)
    for args in (("hook", "install"), ("hook", "uninstall")):
        done = contend(*args, cwd=tmp_path)
        assert done.returncode == 2
        assert "left untouched" in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
        assert settings.read_text() == text
    assert not (settings.parent / "settings.json.contend-backup").exists()


# --- the stop hook -------------------------------------------------------------------


def test_a_trivial_change_short_circuits_before_the_engine(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    (repo / "a.py").write_text("X = 2\nY = 3\n")
    done = stop(repo, {"session_id": "s1", "cwd": str(repo)})
    assert done.returncode == 0 and done.stdout == ""
    assert "trivial change (3 changed lines < 10)" in done.stderr
    assert runs(repo) == []
    # the threshold is the hook's, not the engine's: lower it and the change is reviewed
    reviewed = stop(repo, {"session_id": "s1", "cwd": str(repo)}, "--trivial-lines", "2")
    assert "contend: pass" in reviewed.stderr and len(runs(repo)) == 1


@pytest.mark.parametrize("tracked", [True, False], ids=["edited", "new-file"])
def test_a_small_edit_of_the_review_configuration_is_never_trivial(
    tmp_path: Path, tracked: bool
) -> None:
    """Two lines of contend.toml could raise the threshold or drop a critic: reviewed."""
    repo = new_repo(tmp_path)
    if tracked:
        (repo / "contend.toml").write_text('critics = ["static"]\n')
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "config")
    (repo / "contend.toml").write_text("trivial_diff_lines = 100000\n")
    done = stop(repo, {"session_id": "s1", "cwd": str(repo)})
    assert "trivial change" not in done.stderr, done.stderr
    assert len(runs(repo)) == 1, done.stderr


def test_a_failing_change_is_reviewed_once_and_nothing_enters_the_session(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    (repo / "b.py").write_text(FALLBACK)
    payload = {"session_id": "sess-1", "cwd": str(repo), "stop_hook_active": False}
    done = stop(repo, payload)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # no decision, no added context
    [line] = done.stderr.splitlines()
    [run] = runs(repo)
    assert line == f"contend: fail — 1 unresolved dispute — {run / 'report.md'}"
    started = json.loads((run / "ledger.jsonl").read_text().splitlines()[0])
    assert started["data"]["proposer"] == "claude-fork:sess-1"
    # the same stop again (nothing changed since): not reviewed twice
    again = stop(repo, payload)
    assert "already reviewed" in again.stderr and len(runs(repo)) == 1
    # another edit is a new change: reviewed
    (repo / "c.py").write_text(CLEAN)
    assert "contend: fail" in stop(repo, payload).stderr and len(runs(repo)) == 2


def test_feedback_hands_the_disputes_back_as_a_block(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    (repo / "b.py").write_text(FALLBACK)
    done = stop(repo, {"session_id": "s2", "cwd": str(repo)}, "--feedback")
    decision = json.loads(done.stdout)
    assert decision["decision"] == "block"
    assert "b.py:4" in decision["reason"] and "silent-fallback" in decision["reason"]
    # the continuation stops again with stop_hook_active: no second review, no loop
    looped = stop(
        repo, {"session_id": "s2", "cwd": str(repo), "stop_hook_active": True}, "--feedback"
    )
    assert looped.stdout == "" and "not reviewed again" in looped.stderr and len(runs(repo)) == 1


def test_loop_guard_and_bad_input(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    (repo / "b.py").write_text(FALLBACK)
    inside = stop(repo, {"session_id": "s3", "cwd": str(repo)}, env={"CONTEND_HOOK_ACTIVE": "1"})
    assert "contend started itself" in inside.stderr and runs(repo) == []
    for bad in (
        "not json",
        "[]",
        json.dumps({"cwd": str(repo)}),
        json.dumps({"session_id": "../x"}),
    ):
        done = stop(repo, bad)
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.startswith("contend: error:") and len(done.stderr.splitlines()) == 1
    # a critic's or proposer's session in one of contend's own worktrees stops there
    state = repo / ".contend"
    (state / "runs").mkdir(parents=True, exist_ok=True)
    own = state / "worktrees" / "20261201-000000-abcdef" / "t1"
    git(repo, "worktree", "add", "-q", "--detach", str(own), "HEAD")
    (own / "x.py").write_text(FALLBACK)
    theirs = stop(own, {"session_id": "s5", "cwd": str(own)})
    assert theirs.returncode == 0 and "is a worktree of a contend run" in theirs.stderr
    assert not any((state / "runs").iterdir())
    outside = stop(tmp_path, {"session_id": "s4", "cwd": str(tmp_path)})
    assert outside.returncode == 0 and "not in a git repository" in outside.stderr
    assert runs(repo) == []


# --- the real claude CLI -------------------------------------------------------------

RECORDER = """\
import hashlib, json, subprocess, sys, time
from pathlib import Path
payload = sys.stdin.read()
transcript = Path(json.loads(payload)["transcript_path"])
def sha():
    return hashlib.sha256(transcript.read_bytes()).hexdigest()
def ended():
    # Claude Code flushes the session's final assistant turn to the transcript on its own
    # schedule, sometimes after starting the Stop hook: that write is the client's, not
    # contend's. Take "before" once the turn that ended the session is on disk.
    for line in reversed(transcript.read_text().splitlines()):
        entry = json.loads(line)
        if entry.get("type") == "assistant":
            return entry.get("message", {}).get("stop_reason") == "end_turn"
    return False
deadline = time.monotonic() + 20
while not ended() and time.monotonic() < deadline:
    time.sleep(0.05)
before = sha()
done = subprocess.run(sys.argv[2:], input=payload, capture_output=True, text=True)
Path(sys.argv[1]).write_text(json.dumps({
    "payload": json.loads(payload), "before": before, "after": sha(),
    "rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr,
}))
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
sys.exit(done.returncode)
"""


@pytest.mark.slow
def test_the_real_claude_cli_runs_the_hook_and_its_session_is_untouched(tmp_path: Path) -> None:
    claude = agent_bin("claude")
    repo = new_repo(tmp_path)
    installed = contend("hook", "install", cwd=repo)
    assert installed.returncode == 0, installed.stderr
    # Wrap the installed command (exactly as installed) to record the transcript's sha256
    # just before and just after contend's hook ran inside the real client.
    settings = Path.home() / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    entry = data["hooks"]["Stop"][-1]["hooks"][0]
    recorder, record = tmp_path / "recorder.py", tmp_path / "record.json"
    recorder.write_text(RECORDER)
    entry["command"] = shlex.join([PY, str(recorder), str(record)]) + " " + entry["command"]
    settings.write_text(json.dumps(data))
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CLAUDE_CONFIG_DIR", "ANTHROPIC_AUTH_TOKEN")
    }
    with FakeModelServer() as server:
        server.script(
            ANTHROPIC,
            Turn([ToolUse("Write", {"file_path": str(repo / "util.py"), "content": CLEAN})]),
            Turn([Text("Done.")]),
        )
        env.update(
            ANTHROPIC_BASE_URL=server.base_url,
            ANTHROPIC_API_KEY="sk-ant-test-not-a-key",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            CLAUDE_CODE_MAX_RETRIES="0",
        )
        session = subprocess.run(
            [
                claude,
                "-p",
                "--output-format",
                "json",
                "--permission-mode",
                "acceptEdits",
                "--tools",
                "Write",
            ],
            input="add util.py",
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert session.returncode == 0, session.stderr
        assert server.remaining(ANTHROPIC) == 0, session.stdout[-3000:]
    session_id = json.loads(session.stdout)["session_id"]
    assert (repo / "util.py").read_text() == CLEAN  # the scripted session did edit
    # On failure, say what the client did: its output and the hook's record.
    assert record.is_file(), (
        f"the hook did not run:\n{session.stdout[-3000:]}\n{session.stderr[-3000:]}"
    )
    seen = json.loads(record.read_text())
    assert seen["payload"]["session_id"] == session_id
    assert seen["rc"] == 0 and seen["stdout"] == "", seen
    assert len(runs(repo)) == 1, seen
    [run] = runs(repo)
    assert seen["stderr"].strip() == f"contend: pass — 0 unresolved disputes — {run / 'report.md'}"
    assert (run / "ledger.jsonl").is_file() and (run / "report.md").is_file()
    started = json.loads((run / "ledger.jsonl").read_text().splitlines()[0])
    assert started["data"]["proposer"] == f"claude-fork:{session_id}"
    # the author's transcript: byte-identical across the hook's whole review
    assert seen["before"] == seen["after"]
    transcript = Path(seen["payload"]["transcript_path"])
    assert transcript.is_file() and hashlib.sha256(transcript.read_bytes()).hexdigest()


@pytest.mark.slow
def test_the_real_codex_cli_runs_the_hook_and_its_session_is_untouched(tmp_path: Path) -> None:
    """The same with the real `codex exec` (hooks.json in CODEX_HOME): the session answers
    and stops over a pending change; codex runs the installed hook with its input JSON."""
    from fakes.model_server import RESPONSES

    codex = agent_bin("codex")
    repo = new_repo(tmp_path)
    codex_home = Path.home() / ".codex"
    codex_home.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY")
    }
    env["CODEX_HOME"] = str(codex_home)
    installed = contend("hook", "install", "--agent", "codex", cwd=repo, env=env)
    assert installed.returncode == 0, installed.stderr
    hooks_file = codex_home / "hooks.json"
    data = json.loads(hooks_file.read_text())
    entry = data["hooks"]["Stop"][-1]["hooks"][0]
    recorder, record = tmp_path / "recorder.py", tmp_path / "record.json"
    recorder.write_text(RECORDER)
    entry["command"] = shlex.join([PY, str(recorder), str(record)]) + " " + entry["command"]
    hooks_file.write_text(json.dumps(data))
    (repo / "util.py").write_text(CLEAN)  # the session's change, pending when it stops
    with FakeModelServer() as server:
        server.script(RESPONSES, Turn([Text("Done.")]))
        provider = (
            f'model_providers.fake={{name="fake",base_url="{server.base_url}/v1",'
            'wire_api="responses",request_max_retries=0,stream_max_retries=0}'
        )
        session = subprocess.run(
            [codex, "exec", "--json", "--dangerously-bypass-hook-trust",
             "-c", "model_provider=fake", "-c", provider, "-c", "features.plugins=false",
             "add util.py"],
            cwd=repo, env=env, capture_output=True, text=True, timeout=300,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert session.returncode == 0, session.stderr
    thread = json.loads(session.stdout.splitlines()[0])["thread_id"]
    # On failure, say what the client did: its output and the hook's record.
    assert record.is_file(), (
        f"the hook did not run:\n{session.stdout[-3000:]}\n{session.stderr[-3000:]}"
    )
    seen = json.loads(record.read_text())
    assert seen["payload"]["session_id"] == thread
    assert seen["rc"] == 0 and seen["stdout"] == "", seen
    assert len(runs(repo)) == 1, seen
    [run] = runs(repo)
    assert seen["stderr"].strip() == f"contend: pass — 0 unresolved disputes — {run / 'report.md'}"
    started = json.loads((run / "ledger.jsonl").read_text().splitlines()[0])
    assert started["data"]["proposer"] == f"codex-fork:{thread}"
    assert seen["before"] == seen["after"]
