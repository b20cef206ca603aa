"""`contend mcp` as an MCP host sees it: the real server process over stdio, driven by
the SDK's own stdio client (tools, resources, progress notifications, tool errors)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from review_helpers import git

# These tests are about the MCP server, not about which static findings may block: the change they
# plant as the one that fails (a broad `except Exception: return 0`) is a `swallowing-handler`,
# which the default earned policy lists as minor. They let static findings block at each rule's own
# severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


BEFORE = "def f(x):\n    return int(x)\n"
FALLBACK = "def f(x):\n    try:\n        return int(x)\n    except Exception:\n        return 0\n"


def new_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.py").write_text(BEFORE)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (repo / "a.py").write_text(FALLBACK)
    return repo


def server_params(repo: Path) -> StdioServerParameters:
    # The SDK passes only a safe subset of the environment: hand on the test isolation.
    keep = (
        "HOME",
        "PATH",
        "XDG_CONFIG_HOME",
        "CONTEND_CONFIG_HOME",
        "CONTEND_ALLOW_MODEL_REQUESTS",
        "CONTEND_STATIC_BLOCKING",  # a test's choice of static blocking (conftest)
    )
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update({k: v for k, v in os.environ.items() if k.startswith("GIT_")})
    return StdioServerParameters(
        command=sys.executable, args=["-m", "contend.cli.main", "mcp", "-C", str(repo)], env=env
    )


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        data = result.structured_content
        return dict(data.get("result", data)) if set(data) == {"result"} else dict(data)
    return dict(json.loads(result.content[0].text))


def error_text(result: Any) -> str:
    assert result.is_error
    return " ".join(getattr(c, "text", "") for c in result.content)


async def _session_flow(repo: Path) -> dict[str, Any]:
    seen: dict[str, Any] = {"progress": []}
    async with stdio_client(server_params(repo)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        seen["tools"] = sorted(t.name for t in (await s.list_tools()).tools)
        templates = (await s.list_resource_templates()).resource_templates
        seen["templates"] = sorted(str(t.uri_template) for t in templates)

        async def progress(value: float, total: float | None, message: str | None) -> None:
            seen["progress"].append((value, message))

        reviewed = await s.call_tool("review", {"critics": ["static"]}, progress_callback=progress)
        seen["review"] = structured(reviewed)
        run_id = seen["review"]["run_id"]
        ledger = Path(seen["review"]["run_dir"]) / "ledger.jsonl"
        seen["ledger_lines"] = len(ledger.read_text().splitlines())
        dispute_id = seen["review"]["unresolved"][0]["id"]
        seen["dispute"] = structured(
            await s.call_tool("get_dispute", {"run_id": run_id, "dispute_id": dispute_id})
        )
        page = await s.read_resource(f"contend://runs/{run_id}/report.md")
        seen["report_md"] = page.contents[0].text  # type: ignore[union-attr]
        seen["status"] = structured(await s.call_tool("status", {}))
        seen["respond"] = structured(
            await s.call_tool(
                "respond",
                {"dispute_id": dispute_id, "action": "concede", "text": "a real fallback"},
            )
        )
        seen["focus"] = structured(await s.call_tool("review_focus", {"focus": "security"}))
        # wrong arguments: MCP errors, and the server keeps serving afterwards
        seen["errors"] = [
            error_text(await s.call_tool("review", {"critics": "static", "max_rounds": "x"})),
            error_text(
                await s.call_tool("get_dispute", {"run_id": "../../etc", "dispute_id": "x"})
            ),
            error_text(await s.call_tool("get_dispute", {"run_id": run_id, "dispute_id": "NOPE"})),
            error_text(
                await s.call_tool(
                    "respond", {"dispute_id": dispute_id, "action": "smash", "text": "x"}
                )
            ),
            error_text(
                await s.call_tool("review", {"path": "/nonexistent/nowhere", "critics": ["static"]})
            ),
            error_text(await s.call_tool("verify_claims", {"cards": []})),
        ]
        seen["after_errors"] = structured(await s.call_tool("status", {"limit": 1}))
    return seen


@pytest.mark.slow
def test_the_sdk_client_drives_every_tool_over_stdio(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    seen = anyio.run(_session_flow, repo)
    assert seen["tools"] == [
        "get_dispute",
        "respond",
        "review",
        "review_focus",
        "status",
        "verify_claims",
    ]
    assert "contend://runs/{run_id}/report.md" in seen["templates"]
    review = seen["review"]
    assert review["verdict"] == "fail" and review["exit_code"] == 1
    assert review["unresolved"][0]["topic"] == "silent-fallback"
    # progress: one notification per acknowledged ledger event, in order
    assert [v for v, _ in seen["progress"]] == list(range(1, seen["ledger_lines"] + 1))
    assert seen["progress"][0][1] == "run_started"
    assert seen["dispute"]["claim"] == review["unresolved"][0]["claim"]
    assert "silent-fallback" in seen["report_md"]
    assert seen["status"]["counts"] == {"fail": 1}
    focus = seen["focus"]
    assert focus["run_id"] != review["run_id"] and focus["unresolved"] == []
    assert seen["respond"]["status"] == "conceded"
    bad_types, traversal, no_dispute, bad_action, no_repo, no_cards = seen["errors"]
    assert "validation" in bad_types.lower() or "critics" in bad_types
    assert "not a run id" in traversal
    assert "no dispute 'NOPE'" in no_dispute
    assert "use defend or concede" in bad_action
    assert "git" in no_repo.lower() or "repository" in no_repo.lower()
    assert "at least one card" in no_cards
    assert seen["after_errors"]["runs"]


@pytest.mark.slow
def test_a_real_claude_host_registers_and_calls_the_server(tmp_path: Path) -> None:
    """`claude mcp add` registers `contend mcp`; the real client, driven by the fake model
    server, calls the review tool and hands the model its result."""
    import subprocess

    from fakes.cli_env import agent_bin
    from fakes.model_server import ANTHROPIC, FakeModelServer, Text, ToolUse, Turn

    claude = agent_bin("claude")
    repo = new_repo(tmp_path)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CLAUDE_CONFIG_DIR", "ANTHROPIC_AUTH_TOKEN")
    }
    added = subprocess.run(
        [
            claude,
            "mcp",
            "add",
            "--scope",
            "user",
            "contend",
            "--",
            sys.executable,
            "-m",
            "contend.cli.main",
            "mcp",
            "-C",
            str(repo),
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert added.returncode == 0, added.stderr
    with FakeModelServer() as server:
        server.script(
            ANTHROPIC,
            # -p starts before stdio servers finish connecting: wait, as a model would
            Turn([ToolUse("WaitForMcpServers", {})]),
            Turn([ToolUse("mcp__contend__review", {"critics": ["static"]})]),
            Turn([Text("Reviewed.")]),
        )
        env.update(
            ANTHROPIC_BASE_URL=server.base_url,
            ANTHROPIC_API_KEY="sk-ant-test-not-a-key",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            CLAUDE_CODE_MAX_RETRIES="0",
        )
        done = subprocess.run(
            [claude, "-p", "--output-format", "json", "--allowedTools", "mcp__contend__review"],
            input="review my change",
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        assert server.remaining(ANTHROPIC) == 0
        last = server.requests_to(ANTHROPIC)[-1].json
    results = [
        block
        for message in last["messages"]
        if message["role"] == "user"
        for block in (message["content"] if isinstance(message["content"], list) else [])
        if block.get("type") == "tool_result"
    ]
    review_result = results[-1]
    assert not review_result.get("is_error")
    text = review_result["content"]
    text = text if isinstance(text, str) else " ".join(c.get("text", "") for c in text)
    payload = json.loads(text)
    assert payload["verdict"] == "fail" and payload["unresolved"][0]["topic"] == "silent-fallback"
    runs = list((repo / ".contend" / "runs").iterdir())
    assert [r.name for r in runs] == [payload["run_id"]]
