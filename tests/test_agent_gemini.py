"""The Gemini CLI backend: the real `gemini` against the fake server where it matters (the
tools it offers in plan mode, what it refuses to write, how it fails), a stand-in script for
the parsing of its output. gemini takes ~4 s to start, so real-client tests are few."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backend_helpers import context
from contend.agents.base import AgentReply, AgentRequest
from contend.agents.gemini import ANSWER_INSTRUCTION, GeminiAgent, create
from contend.config import Settings
from contend.errors import AgentError, AgentTimeout, UserError
from contend.protocol.prompts import CRITIC_SYSTEM, critic_first_turn
from contend.protocol.reply_schemas import CRITIC_SCHEMA
from fakes.cli_env import agent_bin, diff_of, make_repo, tree_hash
from fakes.model_server import GEMINI, FakeModelServer, HttpError, Text, ToolUse, Turn

SPEC = "Totals must never hide a pricing failure. SPEC-MARKER-0c9b"
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


@pytest.fixture
def gemini_bin() -> str:
    return agent_bin("gemini")


@pytest.fixture
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as fake:
        yield fake


@pytest.fixture
def gemini_env(
    server: FakeModelServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> dict[str, str]:
    for name in ("GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    # The auth type a user picks once in gemini's own settings (HOME is per-test).
    settings = Path.home() / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    # gemini writes a report of each failed stream into its temporary directory: this
    # test's, not the machine's /tmp (one file per failure test per run piled up there).
    scratch = tmp_path / "gemini-tmp"
    scratch.mkdir()
    return {
        "GEMINI_API_KEY": "test-not-a-key",
        "GOOGLE_GEMINI_BASE_URL": server.base_url,
        "TMPDIR": str(scratch),
    }


def _request(worktree: Path, timeout_s: float = 40) -> AgentRequest:
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


def _run(agent: GeminiAgent, request: AgentRequest) -> AgentReply:
    return asyncio.run(agent.run(request))


def _tools(body: dict[str, Any]) -> set[str]:
    return {
        f["name"] for tool in body.get("tools", []) for f in tool.get("functionDeclarations", [])
    }


# -- the real gemini -----------------------------------------------------------------------


def test_critic_reads_the_worktree_and_its_reply_is_validated(
    gemini_bin: str, gemini_env: dict[str, str], server: FakeModelServer, tmp_path: Path
) -> None:
    worktree = make_repo(tmp_path / "worktree")
    server.script(
        GEMINI,
        Turn([ToolUse("read_file", {"file_path": str(worktree / "app.py")})], 300, 10),
        Turn([Text("```json\n" + json.dumps(CRITIC_OUTPUT) + "\n```")], 400, 60),
    )
    agent = GeminiAgent(
        role="critic",
        settings=Settings(),
        model="gemini-test",
        binary=gemini_bin,
        env_add=gemini_env,
    )

    reply = _run(agent, _request(worktree))

    assert reply.error is None, reply.error
    assert reply.output == CRITIC_OUTPUT
    assert (reply.usage.tokens_in, reply.usage.tokens_out) == (700, 70)
    calls = server.requests_to(GEMINI)
    assert [c.path for c in calls] == ["/v1beta/models/gemini-test:streamGenerateContent"] * 2
    offered = _tools(calls[0].json)
    assert {"read_file", "grep_search", "glob"} <= offered
    assert "run_shell_command" not in offered
    sent = json.dumps(calls[0].json["contents"])
    assert "SPEC-MARKER-0c9b" in sent and "except Exception" in sent
    assert "independent code reviewer" in sent and '\\"no_defect_found\\"' in sent
    assert ANSWER_INSTRUCTION in sent
    assert "i.price for i in items" in json.dumps(calls[1].json["contents"][-1])


def test_plan_mode_leaves_the_worktree_unchanged(
    gemini_bin: str, gemini_env: dict[str, str], server: FakeModelServer, tmp_path: Path
) -> None:
    worktree = make_repo(tmp_path / "worktree")
    before = tree_hash(worktree, tmp_path)
    target = str(worktree / "app.py")
    server.script(
        GEMINI,
        Turn([ToolUse("write_file", {"file_path": target, "content": "pwned\n"})]),
        Turn(
            [
                ToolUse(
                    "replace",
                    {
                        "file_path": target,
                        "old_string": "return 0",
                        "new_string": "return 1",
                        "instruction": "x",
                    },
                )
            ]
        ),
        Turn([ToolUse("run_shell_command", {"command": f"touch {worktree}/new.txt"})]),
        Turn([Text(json.dumps(CRITIC_OUTPUT))]),
    )
    agent = GeminiAgent(role="critic", settings=Settings(), binary=gemini_bin, env_add=gemini_env)

    reply = _run(agent, _request(worktree))

    assert reply.output == CRITIC_OUTPUT
    assert tree_hash(worktree, tmp_path) == before
    answers = [json.dumps(c.json["contents"][-1]) for c in server.requests_to(GEMINI)[1:]]
    assert "plans directory" in answers[0]  # write_file: only gemini's own plans dir
    assert all('"error"' in a for a in answers)


def test_server_failures_end_in_agent_errors(
    gemini_bin: str, gemini_env: dict[str, str], server: FakeModelServer, tmp_path: Path
) -> None:
    """Run concurrently (gemini is slow to start): a refused request fails at once; under
    HTTP 429 gemini retries with backoff by itself (5 s, then longer), so a rate-limited run
    ends at the deadline. The deadline leaves a loaded 2-core machine time to start gemini
    (about 4 s idle) before it must have sent its first request."""
    worktree = make_repo(tmp_path / "worktree")
    refused = HttpError(
        400, {"error": {"code": 400, "message": "bad request XYZ", "status": "INVALID_ARGUMENT"}}
    )
    server.script(GEMINI, refused)

    async def both() -> list[AgentReply | BaseException]:
        with FakeModelServer() as limited:
            limited.script(GEMINI, *[HttpError(429)] * 20)
            env = {**gemini_env, "GOOGLE_GEMINI_BASE_URL": limited.base_url}
            runs = [
                GeminiAgent(
                    role="critic", settings=Settings(), binary=gemini_bin, env_add=gemini_env
                ).run(_request(worktree, timeout_s=30)),
                GeminiAgent(role="critic", settings=Settings(), binary=gemini_bin, env_add=env).run(
                    _request(worktree, timeout_s=20)
                ),
            ]
            outcome = await asyncio.gather(*runs, return_exceptions=True)
            assert len(limited.requests_to(GEMINI)) >= 1
            return outcome

    refused_outcome, limited_outcome = asyncio.run(both())
    assert isinstance(refused_outcome, AgentError), refused_outcome
    assert not isinstance(refused_outcome, AgentTimeout)
    assert "bad request XYZ" in str(refused_outcome)
    assert (refused_outcome.failure, refused_outcome.status) == ("http_status", 400)
    assert isinstance(limited_outcome, AgentTimeout), limited_outcome
    assert limited_outcome.failure == "timeout"


def test_a_planted_env_file_is_refused_unless_gemini_is_told_to_skip_it(
    gemini_bin: str, gemini_env: dict[str, str], server: FakeModelServer, tmp_path: Path
) -> None:
    # gemini loads the first .env above its working directory: a change that commits one
    # picks the model and, when the user has not set GOOGLE_GEMINI_BASE_URL, the server
    # that receives the diff and the user's API key.
    worktree = make_repo(tmp_path / "worktree")
    with FakeModelServer() as elsewhere:
        (worktree / ".env").write_text(
            f"GOOGLE_GEMINI_BASE_URL={elsewhere.base_url}\nGEMINI_MODEL=planted-model\n"
        )
        server.script(GEMINI, Turn([Text(json.dumps(CRITIC_OUTPUT))]))
        agent = GeminiAgent(
            role="critic", settings=Settings(), binary=gemini_bin, env_add=gemini_env
        )
        with pytest.raises(AgentError, match=r"would load .*\.env") as refused:
            _run(agent, _request(worktree))
        assert str(worktree / ".env") in str(refused.value)
        assert server.requests == [] and elsewhere.requests == []
        # gemini's own setting makes it skip a project .env: then the critic runs, with the
        # user's model and server.
        settings = Path.home() / ".gemini" / "settings.json"
        doc = json.loads(settings.read_text())
        settings.write_text(json.dumps({**doc, "advanced": {"ignoreLocalEnv": True}}))
        reply = _run(agent, _request(worktree))
        assert reply.output == CRITIC_OUTPUT, reply.error
        assert elsewhere.requests == []
        assert all("planted-model" not in r.path for r in server.requests_to(GEMINI))


def test_the_env_file_gemini_would_load_is_found_as_gemini_finds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from contend.agents.gemini import project_env_file

    home = tmp_path / "home"
    worktree = tmp_path / "work" / "repo" / ".contend" / "worktrees" / "r" / "C1"
    worktree.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    assert project_env_file(worktree, ignore_local_env=False) is None
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / ".env").write_text("GEMINI_API_KEY=mine\n")
    assert project_env_file(worktree, ignore_local_env=False) is None  # the user's own
    repo_env = tmp_path / "work" / "repo" / ".env"
    repo_env.write_text("X=1\n")
    assert project_env_file(worktree, ignore_local_env=False) == repo_env
    assert project_env_file(worktree, ignore_local_env=True) is None
    # A .gemini/.env is read whatever ignoreLocalEnv says, and wins in its directory.
    (repo_env.parent / ".gemini").mkdir()
    (repo_env.parent / ".gemini" / ".env").write_text("X=2\n")
    found = project_env_file(worktree, ignore_local_env=True)
    assert found == repo_env.parent / ".gemini" / ".env"


# -- parsing, with a stand-in for gemini ---------------------------------------------------


def _stand_in(tmp_path: Path, body: str) -> GeminiAgent:
    script = tmp_path / "fake-gemini"
    script.write_text(f"#!{sys.executable}\nimport json, os, sys\nsys.stdin.read()\n{body}\n")
    script.chmod(0o755)
    # A loopback endpoint: the stand-in never connects, the no-network guard wants one.
    nowhere = {"GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"}
    return GeminiAgent(role="critic", settings=Settings(), binary=str(script), env_add=nowhere)


def _envelope(response: str) -> str:
    doc = {
        "session_id": "s-1",
        "response": response,
        "stats": {"models": {"g": {"tokens": {"prompt": 5, "candidates": 7, "thoughts": 1}}}},
    }
    return f"print({json.dumps(doc)!r})"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("print('garbage \\x00 not json')", "no JSON envelope"),
        ('print(\'{"session_id": "s", "resp\')', "no JSON envelope"),
        (_envelope("No defect found, all good."), "not JSON"),
        (_envelope(json.dumps({**CRITIC_OUTPUT, "no_defect_found": "yes"})), "schema violation"),
        (_envelope(json.dumps(CRITIC_OUTPUT)[:-30]), "not JSON"),
        (_envelope(json.dumps({**CRITIC_OUTPUT, "topic": "x" * 2_000_000})), "over the limit"),
    ],
    ids=["garbage", "truncated-envelope", "prose", "schema-break", "truncated-json", "huge"],
)
def test_unusable_output_is_a_reply_with_error(tmp_path: Path, body: str, expected: str) -> None:
    worktree = make_repo(tmp_path / "worktree")
    reply = _run(_stand_in(tmp_path, body), _request(worktree, timeout_s=10))
    assert reply.output is None
    assert reply.error is not None and expected in reply.error


def test_a_fenced_answer_is_accepted_with_usage(tmp_path: Path) -> None:
    worktree = make_repo(tmp_path / "worktree")
    agent = _stand_in(tmp_path, _envelope("```json\n" + json.dumps(CRITIC_OUTPUT) + "\n```"))
    reply = _run(agent, _request(worktree, timeout_s=10))
    assert reply.output == CRITIC_OUTPUT and reply.session == "s-1"
    assert (reply.usage.tokens_in, reply.usage.tokens_out) == (5, 8)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "sys.stderr.write('Error: at x\\n' + json.dumps({'session_id': 's', 'error': "
            "{'type': 'Error', 'message': 'quota gone', 'code': 429}}, indent=2)); sys.exit(1)",
            "quota gone",
        ),
        ("sys.stderr.write('segfault-ish'); sys.exit(3)", "exited with code 3"),
        ("import signal; os.kill(os.getpid(), signal.SIGKILL)", "killed by signal 9"),
    ],
    ids=["error-envelope", "non-zero-exit", "crash"],
)
def test_failures_are_agent_errors(tmp_path: Path, body: str, expected: str) -> None:
    worktree = make_repo(tmp_path / "worktree")
    with pytest.raises(AgentError, match=expected):
        _run(_stand_in(tmp_path, body), _request(worktree, timeout_s=10))


def test_a_worktree_with_its_own_gemini_settings_is_refused(tmp_path: Path) -> None:
    worktree = make_repo(tmp_path / "worktree")
    (worktree / ".gemini").mkdir()
    (worktree / ".gemini" / "settings.json").write_text('{"hooks": {}}')
    agent = _stand_in(tmp_path, _envelope(json.dumps(CRITIC_OUTPUT)))
    with pytest.raises(AgentError, match="refuses to run there"):
        _run(agent, _request(worktree, timeout_s=10))


def test_create_and_command_line() -> None:
    agent = create("gemini-2.5-pro", context(Settings(), "critic"))
    assert (agent.backend, agent.model, agent.family) == ("gemini", "gemini-2.5-pro", "google")
    assert not agent.capabilities.structured_output and agent.capabilities.read_only_enforced
    argv = agent.argv()
    assert argv[argv.index("--approval-mode") + 1] == "plan"
    assert argv[argv.index("--output-format") + 1] == "json"
    assert argv[argv.index("-m") + 1] == "gemini-2.5-pro"
    with pytest.raises(UserError, match="cannot be the proposer"):
        create(None, context(Settings(), "proposer"))


def test_no_real_endpoint_is_reached_from_tests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GOOGLE_GEMINI_BASE_URL", raising=False)
    worktree = make_repo(tmp_path / "worktree")
    agent = GeminiAgent(role="critic", settings=Settings(), binary=str(tmp_path / "no-gemini"))
    with pytest.raises(UserError, match=r"googleapis\.com are disabled"):
        _run(agent, _request(worktree, timeout_s=10))
