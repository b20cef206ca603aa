"""The Claude Code backend, run as the real `claude` CLI against the fake model server.

Every test asserts on what claude really sent (captured by the server): the tools offered,
the prompt, the absence of the author's transcript from a critic's context, and on what it
left behind: an unchanged worktree for a critic, a byte-identical author transcript after
a fork. Failure tests use the real CLI where the failure is the server's (HTTP errors,
garbage, hangs) and a stand-in script where it is the CLI's own (crash, bad stdout).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backend_helpers import context
from contend.agents.base import AgentReply, AgentRequest, Role
from contend.agents.claude_code import ClaudeCodeAgent, create
from contend.agents.claude_sessions import claude_home, newest_session, project_dir_name
from contend.config import Settings
from contend.errors import AgentError, AgentTimeout, UserError
from contend.protocol.prompts import CRITIC_SYSTEM, PROPOSER_SYSTEM, critic_first_turn
from contend.protocol.reply_schemas import CRITIC_SCHEMA, PROPOSER_SCHEMA
from fakes.cli_env import agent_bin, diff_of, git, make_repo, sha256, tree_hash
from fakes.model_server import (
    ANTHROPIC,
    CutStream,
    FakeModelServer,
    Garbage,
    Hang,
    HttpError,
    Step,
    Text,
    ToolUse,
    Turn,
)

SPEC = "Totals must never hide a pricing failure. SPEC-MARKER-7f3a"
AUTHOR_SECRET = "AUTHOR-TRANSCRIPT-MARKER-91c2"
CRITIC_OUTPUT: dict[str, Any] = {
    "topic": "silent fallbacks",
    "no_defect_found": False,
    "objections": [
        {
            "severity": "major",
            "path": "app.py",
            "start_line": 4,
            "end_line": 5,
            "claim": "A pricing failure is hidden behind a total of 0.",
            "evidence": "except Exception:\n    return 0",
            "expected": "Let the error propagate.",
        }
    ],
    "judgements": [],
}
PROPOSER_OUTPUT = {
    "answers": [{"objection_id": "A1", "action": "fix", "text": "re-raise", "evidence": ""}]
}


@pytest.fixture
def claude_bin() -> str:
    return agent_bin("claude")


@pytest.fixture
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as fake:
        yield fake


@pytest.fixture
def claude_env(server: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    # A developer's own Anthropic settings must not leak into the test.
    for name in ("ANTHROPIC_AUTH_TOKEN", "CLAUDE_CONFIG_DIR", "ANTHROPIC_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return {
        "ANTHROPIC_BASE_URL": server.base_url,
        "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }


def _agent(role: str, binary: str, env: dict[str, str], **kwargs: Any) -> ClaudeCodeAgent:
    return ClaudeCodeAgent(
        role=role,  # type: ignore[arg-type]
        settings=Settings(),
        binary=binary,
        env_add=env,
        **kwargs,
    )


def _critic_request(worktree: Path, timeout_s: float = 45) -> AgentRequest:
    prompt = critic_first_turn(spec=SPEC, diff=diff_of(worktree), invariants=[], taken_topics=[])
    return AgentRequest(
        role="critic",
        thread="t1",
        round=1,
        system=CRITIC_SYSTEM,
        prompt=prompt,
        schema=CRITIC_SCHEMA,
        worktree=worktree,
        timeout_s=timeout_s,
    )


def _run(agent: ClaudeCodeAgent, request: AgentRequest) -> AgentReply:
    return asyncio.run(agent.run(request))


def _tool_names(body: dict[str, Any]) -> set[str]:
    return {tool["name"] for tool in body.get("tools", [])}


def _author_session(binary: str, env: dict[str, str], server: FakeModelServer, repo: Path) -> Path:
    """Record a real author session in `repo` (as the user's own claude would) and return
    its transcript file."""
    server.script(ANTHROPIC, Turn([Text(f"Done. {AUTHOR_SECRET} reasoning of the author")]))
    done = subprocess.run(
        [binary, "-p", "--output-format", "json", "--tools", "Read"],
        input=f"Make total() robust. {AUTHOR_SECRET}",
        capture_output=True,
        text=True,
        cwd=repo,
        env={**os.environ, **env},
        timeout=60,
        check=True,
    )
    session = json.loads(done.stdout)["session_id"]
    transcript = claude_home() / "projects" / project_dir_name(repo) / f"{session}.jsonl"
    assert AUTHOR_SECRET in transcript.read_text()
    return transcript


# -- critic --------------------------------------------------------------------------------


def test_critic_is_read_only_and_never_sees_the_author_transcript(
    claude_bin: str, claude_env: dict[str, str], server: FakeModelServer, tmp_path: Path
) -> None:
    author_repo = make_repo(tmp_path / "author")
    transcript = _author_session(claude_bin, claude_env, server, author_repo)
    worktree = make_repo(tmp_path / "worktree")
    before = tree_hash(worktree, tmp_path)
    server.requests.clear()
    server.script(
        ANTHROPIC,
        Turn([ToolUse("Read", {"file_path": str(worktree / "app.py")})]),
        Turn([ToolUse("StructuredOutput", CRITIC_OUTPUT)], input_tokens=1500, output_tokens=90),
    )
    agent = _agent("critic", claude_bin, claude_env, model="claude-test-model")

    reply = _run(agent, _critic_request(worktree))

    assert reply.error is None
    assert reply.output == CRITIC_OUTPUT
    assert reply.usage.tokens_in == 100 + 1500
    assert reply.usage.tokens_out == 20 + 90
    assert reply.cost > 0 and reply.exchange["cost_source"] == "claude"
    assert reply.session is not None
    calls = server.requests_to(ANTHROPIC)
    assert len(calls) == 2
    for call in calls:
        assert _tool_names(call.json) == {"Read", "Grep", "Glob", "StructuredOutput"}
        assert call.json["model"] == "claude-test-model"
        assert call.json["stream"] is True
    first = json.dumps(calls[0].json)
    assert "SPEC-MARKER-7f3a" in first
    assert "except Exception" in first and "+        return 0" in first.replace("\\n", "\n")
    assert "independent code reviewer" in json.dumps(calls[0].json["system"])
    # The Read tool really ran in the worktree: its result went back to the model.
    assert "i.price for i in items" in json.dumps(calls[1].json["messages"][-1])
    assert AUTHOR_SECRET not in server.all_bodies()
    assert AUTHOR_SECRET in transcript.read_text()  # the marker exists to be found
    assert tree_hash(worktree, tmp_path) == before
    # --no-session-persistence: a critic leaves no transcript in the user's claude home.
    assert list((claude_home() / "projects").glob(f"{project_dir_name(worktree)}/*.jsonl")) == []


def test_critic_cannot_change_the_worktree(
    claude_bin: str, claude_env: dict[str, str], server: FakeModelServer, tmp_path: Path
) -> None:
    worktree = make_repo(tmp_path / "worktree")
    before = tree_hash(worktree, tmp_path)
    target = str(worktree / "app.py")
    server.script(
        ANTHROPIC,
        Turn([ToolUse("Write", {"file_path": target, "content": "pwned\n"})]),
        Turn(
            [
                ToolUse(
                    "Edit",
                    {"file_path": target, "old_string": "return 0", "new_string": "return 1"},
                )
            ]
        ),
        Turn([ToolUse("Bash", {"command": f"echo pwned > {worktree}/new.txt"})]),
        Turn([ToolUse("StructuredOutput", CRITIC_OUTPUT)]),
    )
    reply = _run(_agent("critic", claude_bin, claude_env), _critic_request(worktree))

    assert reply.output == CRITIC_OUTPUT
    assert tree_hash(worktree, tmp_path) == before
    assert not (worktree / "new.txt").exists()
    refusals = [json.dumps(c.json["messages"][-1]) for c in server.requests_to(ANTHROPIC)[1:]]
    for tool, text in zip(("Write", "Edit", "Bash"), refusals, strict=False):
        assert f"No such tool available: {tool}" in text


def test_critic_ignores_the_worktrees_own_claude_settings(
    claude_bin: str, claude_env: dict[str, str], server: FakeModelServer, tmp_path: Path
) -> None:
    # A change under review can add .claude/settings.json; its hooks run commands.
    worktree = make_repo(tmp_path / "worktree")
    marker = tmp_path / "hook-ran"
    hook = [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]
    (worktree / ".claude").mkdir()
    (worktree / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"SessionStart": hook, "UserPromptSubmit": hook}})
    )
    # Nor does claude read a .env from its working directory (a bun runtime could).
    (worktree / ".env").write_text(
        "ANTHROPIC_CUSTOM_HEADERS=X-Planted: yes\nANTHROPIC_MODEL=planted-model\n"
    )
    server.script(ANTHROPIC, Turn([ToolUse("StructuredOutput", CRITIC_OUTPUT)]))
    reply = _run(_agent("critic", claude_bin, claude_env), _critic_request(worktree))
    assert reply.output == CRITIC_OUTPUT
    assert not marker.exists()
    (sent,) = server.requests_to(ANTHROPIC)
    assert "x-planted" not in sent.headers and sent.json["model"] != "planted-model"


# -- proposer (claude-fork) ----------------------------------------------------------------


def test_fork_keeps_author_context_and_leaves_the_author_transcript_byte_identical(
    claude_bin: str, claude_env: dict[str, str], server: FakeModelServer, tmp_path: Path
) -> None:
    author_repo = make_repo(tmp_path / "author")
    transcript = _author_session(claude_bin, claude_env, server, author_repo)
    digest = sha256(transcript)
    author_session = transcript.stem
    worktree = make_repo(tmp_path / "worktree")
    server.requests.clear()
    server.script(
        ANTHROPIC,
        # claude refuses to overwrite a file it has not read in this session.
        Turn([ToolUse("Read", {"file_path": str(worktree / "app.py")})]),
        Turn([ToolUse("Write", {"file_path": str(worktree / "app.py"), "content": "FIXED\n"})]),
        Turn([ToolUse("StructuredOutput", PROPOSER_OUTPUT)]),
    )
    agent = _agent("proposer", claude_bin, claude_env, session=author_session)
    request = AgentRequest(
        role="proposer",
        thread="t1",
        round=1,
        system=PROPOSER_SYSTEM,
        prompt="### A1 [major] app.py:4-5\nA pricing failure is hidden.",
        schema=PROPOSER_SCHEMA,
        worktree=worktree,
        timeout_s=45,
    )

    reply = _run(agent, request)

    assert reply.error is None and reply.output == PROPOSER_OUTPUT
    assert sha256(transcript) == digest
    assert reply.session is not None and reply.session != author_session
    calls = server.requests_to(ANTHROPIC)
    assert AUTHOR_SECRET in json.dumps(calls[0].json["messages"])  # the author's context
    assert _tool_names(calls[0].json) == {
        "Read",
        "Grep",
        "Glob",
        "Edit",
        "Write",
        "StructuredOutput",
    }
    assert (worktree / "app.py").read_text() == "FIXED\n"
    assert not (author_repo / "app.py").read_text().startswith("FIXED")
    # The fork's transcript holds the author's context: what the call created under the
    # worktree's project directory is gone, the directory with it (issue 10).
    assert not (claude_home() / "projects" / project_dir_name(worktree)).exists()
    assert sorted(p.name for p in (claude_home() / "projects").iterdir()) == [
        project_dir_name(author_repo)
    ]


def _proposer_request(worktree: Path) -> AgentRequest:
    return AgentRequest(
        role="proposer",
        thread="t1",
        round=1,
        system=PROPOSER_SYSTEM,
        prompt="### A1 [major] app.py:4-5\nA pricing failure is hidden.",
        schema=PROPOSER_SCHEMA,
        worktree=worktree,
        timeout_s=45,
    )


def _plant_claude_config(worktree: Path, marker: Path) -> None:
    """What a change under review could add: hooks in .claude/settings.json, and an MCP
    server in .mcp.json that the project's own settings approve."""
    hook = [{"hooks": [{"type": "command", "command": f"touch {marker}.hook"}]}]
    (worktree / ".claude").mkdir()
    (worktree / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {"SessionStart": hook, "UserPromptSubmit": hook, "PreToolUse": hook},
                "enableAllProjectMcpServers": True,
            }
        )
    )
    (worktree / ".mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"planted": {"command": "sh", "args": ["-c", f"touch {marker}.mcp"]}}}
        )
    )


def test_fork_ignores_the_worktrees_own_claude_settings(
    claude_bin: str, claude_env: dict[str, str], server: FakeModelServer, tmp_path: Path
) -> None:
    # Issue 9: the proposer ran the change's hooks; it must run with --setting-sources user.
    author_repo = make_repo(tmp_path / "author")
    session = _author_session(claude_bin, claude_env, server, author_repo).stem
    worktree = make_repo(tmp_path / "worktree")
    marker = tmp_path / "planted-ran"
    _plant_claude_config(worktree, marker)
    # Control: claude started plainly in the worktree obeys the planted settings.
    server.script(ANTHROPIC, Turn([Text("ok")]))
    subprocess.run(
        [claude_bin, "-p", "--output-format", "json", "--tools", "Read"],
        input="hello",
        capture_output=True,
        text=True,
        cwd=worktree,
        env={**os.environ, **claude_env},
        timeout=60,
        check=True,
    )
    planted = sorted(p.name for p in tmp_path.glob("planted-ran*"))
    assert planted == ["planted-ran.hook", "planted-ran.mcp"], "no control"
    for name in planted:
        (tmp_path / name).unlink()
    server.requests.clear()
    server.script(
        ANTHROPIC,
        Turn([ToolUse("Read", {"file_path": str(worktree / "app.py")})]),
        Turn([ToolUse("StructuredOutput", PROPOSER_OUTPUT)]),
    )
    agent = _agent("proposer", claude_bin, claude_env, session=session)

    reply = _run(agent, _proposer_request(worktree))

    assert reply.output == PROPOSER_OUTPUT, reply.error
    assert sorted(p.name for p in tmp_path.glob("planted-ran*")) == []


def test_fork_cleanup_removes_only_what_the_call_created(
    claude_bin: str, claude_env: dict[str, str], server: FakeModelServer, tmp_path: Path
) -> None:
    author_repo = make_repo(tmp_path / "author")
    session = _author_session(claude_bin, claude_env, server, author_repo).stem
    worktree = make_repo(tmp_path / "worktree")
    project = claude_home() / "projects" / project_dir_name(worktree)
    project.mkdir(parents=True)
    (project / "someone-elses.jsonl").write_text('{"kept": true}\n')
    (project / "notes").mkdir()
    server.requests.clear()
    server.script(ANTHROPIC, Turn([ToolUse("StructuredOutput", PROPOSER_OUTPUT)]))
    reply = _run(
        _agent("proposer", claude_bin, claude_env, session=session), _proposer_request(worktree)
    )
    assert reply.output == PROPOSER_OUTPUT, reply.error
    assert reply.session is not None
    assert sorted(p.name for p in project.iterdir()) == ["notes", "someone-elses.jsonl"]
    assert (project / "someone-elses.jsonl").read_text() == '{"kept": true}\n'


def test_fork_takes_the_reviewed_repositorys_session_not_the_current_directorys(
    claude_bin: str,
    claude_env: dict[str, str],
    server: FakeModelServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Issue 10: reviewing repository B from inside repository A must fork B's session.
    reviewed = make_repo(tmp_path / "repo-b")
    server.script(ANTHROPIC, Turn([Text("Done. REPO-B-AUTHOR-MARKER")]))
    subprocess.run(
        [claude_bin, "-p", "--output-format", "json", "--tools", "Read"],
        input="Work on B.",
        capture_output=True,
        text=True,
        cwd=reviewed,
        env={**os.environ, **claude_env},
        timeout=60,
        check=True,
    )
    here = make_repo(tmp_path / "repo-a")
    _author_session(claude_bin, claude_env, server, here)  # the newer session, in A
    worktree = reviewed / ".contend" / "worktrees" / "run-1" / "C1"
    git(reviewed, "worktree", "add", "--detach", "--quiet", str(worktree), "HEAD")
    monkeypatch.chdir(here)
    server.requests.clear()
    server.script(ANTHROPIC, Turn([ToolUse("StructuredOutput", PROPOSER_OUTPUT)]))
    # Built without the reviewed repository: the fork finds it through its worktree.
    agent = ClaudeCodeAgent(role="proposer", settings=Settings())
    agent.binary, agent.env_add = claude_bin, claude_env

    reply = _run(agent, _proposer_request(worktree))

    assert reply.output == PROPOSER_OUTPUT, reply.error
    sent = json.dumps(server.requests_to(ANTHROPIC)[0].json["messages"])
    assert "REPO-B-AUTHOR-MARKER" in sent
    assert AUTHOR_SECRET not in sent


def test_newest_session_of_the_repository_is_found(tmp_path: Path) -> None:
    repo = tmp_path / "my_repo.v2"
    repo.mkdir()
    folder = claude_home() / "projects" / project_dir_name(repo)
    assert folder.name == str(repo.resolve()).replace("/", "-").replace("_", "-").replace(".", "-")
    folder.mkdir(parents=True)
    old, new = folder / "old-session.jsonl", folder / "new-session.jsonl"
    old.write_text("{}\n")
    new.write_text("{}\n")
    now = time.time()
    os.utime(old, (now, now))
    os.utime(new, (now + 5, now + 5))
    assert newest_session(repo) == "new-session"
    with pytest.raises(UserError, match="no Claude Code session found"):
        newest_session(tmp_path)


def test_create_maps_arguments_by_role(tmp_path: Path) -> None:
    critic = create("opus", context(Settings(), "critic"))
    assert (critic.backend, critic.model, critic.family) == ("claude", "opus", "anthropic")
    assert critic.capabilities.read_only_enforced and not critic.capabilities.can_fix
    fork = create("abc-123", context(Settings(), "proposer"))
    assert (fork.backend, fork.session) == ("claude-fork", "abc-123")
    assert fork.capabilities.fork_session and fork.capabilities.can_fix
    argv = fork.argv(_critic_request_like(tmp_path, "proposer"), "abc-123")
    assert argv[argv.index("--resume") + 1] == "abc-123" and "--fork-session" in argv


def _critic_request_like(worktree: Path, role: Role) -> AgentRequest:
    return AgentRequest(
        role=role,
        thread="t",
        round=1,
        system="s",
        prompt="p",
        schema=CRITIC_SCHEMA,
        worktree=worktree,
        timeout_s=5,
    )


# -- failures: the server misbehaves -------------------------------------------------------


# name: (script, text the error must hold, retryable, failure kind, HTTP status); run
# concurrently to keep this fast.
SERVER_FAILURES: dict[str, tuple[list[Step], str, bool, str, int | None]] = {
    "http-429": ([HttpError(429)], "(HTTP 429)", True, "http_status", 429),
    "http-500": ([HttpError(500)], "(HTTP 500)", True, "http_status", 500),
    # claude retries a broken stream once, non-streaming; both attempts get the fault.
    "garbage": ([Garbage(), Garbage()], "malformed response", False, "malformed", None),
    "truncated-stream": (
        [CutStream(Turn([ToolUse("StructuredOutput", CRITIC_OUTPUT)]), 3)] * 2,
        "malformed response",
        False,
        "malformed",
        None,
    ),
}


def test_server_failures_are_agent_errors(
    claude_bin: str, claude_env: dict[str, str], tmp_path: Path
) -> None:
    worktree = make_repo(tmp_path / "worktree")

    async def one(steps: list[Step]) -> AgentReply | AgentError:
        with FakeModelServer() as fake:
            fake.script(ANTHROPIC, *steps)
            agent = _agent(
                "critic", claude_bin, {**claude_env, "ANTHROPIC_BASE_URL": fake.base_url}
            )
            try:
                return await agent.run(_critic_request(worktree))
            except AgentError as exc:
                return exc

    async def all_cases() -> list[AgentReply | AgentError]:
        return await asyncio.gather(*(one(case[0]) for case in SERVER_FAILURES.values()))

    outcomes = dict(zip(SERVER_FAILURES, asyncio.run(all_cases()), strict=True))
    for name, (_, text, retryable, failure, status) in SERVER_FAILURES.items():
        outcome = outcomes[name]
        assert isinstance(outcome, AgentError), f"{name}: no error, got {outcome!r}"
        assert not isinstance(outcome, AgentTimeout), name
        assert text in str(outcome), f"{name}: {outcome}"
        # claude reports API errors with subtype "success"; that is not their label.
        assert "success" not in str(outcome), f"{name}: {outcome}"
        assert outcome.retryable is retryable, name
        assert (outcome.failure, outcome.status) == (failure, status), f"{name}: {outcome}"


def test_a_server_that_is_down_is_unreachable_not_a_timeout(
    claude_bin: str, claude_env: dict[str, str], tmp_path: Path
) -> None:
    with FakeModelServer() as gone:
        base_url = gone.base_url  # closed on exit: nothing listens there any more
    worktree = make_repo(tmp_path / "worktree")
    agent = _agent("critic", claude_bin, {**claude_env, "ANTHROPIC_BASE_URL": base_url})
    started = time.monotonic()
    with pytest.raises(AgentError) as caught:
        _run(agent, _critic_request(worktree, timeout_s=60))
    assert time.monotonic() - started < 30
    assert caught.value.failure == "unreachable", str(caught.value)
    assert "Unable to connect" in str(caught.value)
    assert "success" not in str(caught.value)


def test_schema_breaking_output_is_refused(
    claude_bin: str, claude_env: dict[str, str], server: FakeModelServer, tmp_path: Path
) -> None:
    worktree = make_repo(tmp_path / "worktree")
    broken = {**CRITIC_OUTPUT, "no_defect_found": "maybe", "verdict": "pass"}
    server.script(ANTHROPIC, *[Turn([ToolUse("StructuredOutput", broken)])] * 8)
    with pytest.raises(AgentError, match="structured_output"):
        _run(_agent("critic", claude_bin, claude_env), _critic_request(worktree))


def test_a_text_answer_is_an_error_not_a_silent_no_defect(
    claude_bin: str, claude_env: dict[str, str], server: FakeModelServer, tmp_path: Path
) -> None:
    worktree = make_repo(tmp_path / "worktree")
    server.script(ANTHROPIC, *[Turn([Text("Looks fine to me.")])] * 3)
    reply = _run(_agent("critic", claude_bin, claude_env), _critic_request(worktree))
    assert reply.output is None
    assert reply.error is not None and "no structured output" in reply.error


def test_a_hanging_server_hits_the_deadline(
    claude_bin: str, claude_env: dict[str, str], server: FakeModelServer, tmp_path: Path
) -> None:
    worktree = make_repo(tmp_path / "worktree")
    server.script(ANTHROPIC, Hang())
    started = time.monotonic()
    with pytest.raises(AgentTimeout):
        _run(_agent("critic", claude_bin, claude_env), _critic_request(worktree, timeout_s=3))
    assert time.monotonic() - started < 15


def test_a_10_mb_reply_is_an_error(
    claude_bin: str, claude_env: dict[str, str], server: FakeModelServer, tmp_path: Path
) -> None:
    worktree = make_repo(tmp_path / "worktree")
    huge = {**CRITIC_OUTPUT, "topic": "x" * (10 * 1024 * 1024)}
    server.script(ANTHROPIC, Turn([ToolUse("StructuredOutput", huge)]))
    with pytest.raises(AgentError, match="reply exceeded 16777216 bytes"):
        _run(_agent("critic", claude_bin, claude_env), _critic_request(worktree, timeout_s=60))


# -- failures: the CLI itself misbehaves (a stand-in script plays claude) ------------------


# A loopback endpoint for stand-ins, which never connect: the no-network guard wants one.
NOWHERE = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}


def _stand_in(tmp_path: Path, body: str) -> str:
    script = tmp_path / "fake-claude"
    script.write_text(f"#!{sys.executable}\nimport os, sys\nsys.stdin.read()\n{body}\n")
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("print('not json at all')", "no JSON result"),
        ('print(\'{"type": "result", "is_error": false, "structured_\')', "no JSON result"),
    ],
    ids=["garbage-stdout", "truncated-json"],
)
def test_unparsable_stdout_is_a_reply_with_error(tmp_path: Path, body: str, expected: str) -> None:
    worktree = make_repo(tmp_path / "worktree")
    agent = _agent("critic", _stand_in(tmp_path, body), NOWHERE)
    reply = _run(agent, _critic_request(worktree, timeout_s=10))
    assert reply.output is None
    assert reply.error is not None and expected in reply.error


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("sys.stderr.write('fatal: config broken'); sys.exit(2)", "exited with code 2"),
        ("import signal; os.kill(os.getpid(), signal.SIGKILL)", "killed by signal 9"),
    ],
    ids=["non-zero-exit", "crash"],
)
def test_cli_failures_are_agent_errors(tmp_path: Path, body: str, expected: str) -> None:
    worktree = make_repo(tmp_path / "worktree")
    agent = _agent("critic", _stand_in(tmp_path, body), NOWHERE)
    with pytest.raises(AgentError, match=expected):
        _run(agent, _critic_request(worktree, timeout_s=10))


def test_no_real_endpoint_is_reached_from_tests(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # conftest turns CONTEND_ALLOW_MODEL_REQUESTS off: without a loopback ANTHROPIC_BASE_URL
    # the backend refuses before it starts anything (the binary does not even exist).
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    agent = _agent("critic", str(tmp_path / "no-such-claude"), {})
    with pytest.raises(UserError, match=r"api\.anthropic\.com are disabled"):
        _run(agent, _critic_request_like(tmp_path, "critic"))


def test_a_configured_price_wins_over_claudes_own_cost(tmp_path: Path) -> None:
    worktree = make_repo(tmp_path / "worktree")
    doc = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "session_id": "s",
        "total_cost_usd": 9.99,
        "structured_output": CRITIC_OUTPUT,
        "usage": {"input_tokens": 1_000_000, "output_tokens": 100_000},
        "modelUsage": {"claude-priced": {}},
    }
    settings = Settings.model_validate(
        {"prices": {"claude-priced": {"input_per_mtok": 2.0, "output_per_mtok": 10.0}}}
    )
    agent = ClaudeCodeAgent(
        role="critic",
        settings=settings,
        env_add=NOWHERE,
        binary=_stand_in(tmp_path, f"print({json.dumps(doc)!r})"),
    )
    reply = _run(agent, _critic_request(worktree, timeout_s=10))
    assert reply.output == CRITIC_OUTPUT
    assert reply.cost == pytest.approx(2.0 + 1.0)
    assert (reply.exchange["cost_known"], reply.exchange["cost_source"]) == (True, "config")


def test_the_registry_resolves_every_cli_spec() -> None:
    from contend.agents.codex import CodexAgent
    from contend.agents.gemini import GeminiAgent
    from contend.agents.registry import resolve

    assert isinstance(resolve("claude:opus", context(Settings(), "critic")), ClaudeCodeAgent)
    fork = resolve("claude-fork:sess-1", context(Settings(), "proposer"))
    assert isinstance(fork, ClaudeCodeAgent) and fork.backend == "claude-fork"
    codex = resolve("codex-fork:sess-2", context(Settings(), "proposer"))
    assert isinstance(codex, CodexAgent) and codex.backend == "codex-fork"
    assert isinstance(resolve("gemini", context(Settings(), "oracle")), GeminiAgent)


def test_transcript_placement_for_a_fork(tmp_path: Path) -> None:
    from contend.agents.claude_code import _place_transcript

    author, worktree = tmp_path / "author", tmp_path / "worktree"
    author.mkdir()
    worktree.mkdir()
    source = claude_home() / "projects" / project_dir_name(author) / "s-1.jsonl"
    source.parent.mkdir(parents=True)
    source.write_bytes(b'{"author": true}\n')
    copy = _place_transcript("s-1", worktree)
    assert copy == claude_home() / "projects" / project_dir_name(worktree) / "s-1.jsonl"
    assert copy.read_bytes() == source.read_bytes()
    # A copy an interrupted run left behind, identical: reused.
    assert _place_transcript("s-1", worktree) == copy
    # A session already recorded in the worktree (an earlier fork): nothing to copy.
    copy.unlink()
    fork = copy.parent / "fork-2.jsonl"
    fork.write_bytes(b'{"fork": true}\n')
    assert _place_transcript("fork-2", worktree) is None
    # A different file under the name: refused rather than overwritten.
    copy.write_bytes(b"something else\n")
    with pytest.raises(AgentError, match="is not the transcript being forked"):
        _place_transcript("s-1", worktree)
    with pytest.raises(AgentError, match="no transcript for session"):
        _place_transcript("never-recorded", worktree)


def test_an_oracle_is_as_read_only_as_a_critic(tmp_path: Path) -> None:
    oracle = create(None, context(Settings(), "oracle"))
    argv = oracle.argv(_critic_request_like(tmp_path, "oracle"), None)
    assert argv[argv.index("--tools") + 1] == "Read,Grep,Glob"
    assert "--resume" not in argv and "--setting-sources" in argv
