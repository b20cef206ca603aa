"""API models as implementers (`openai:`, `openai-compatible:`, `anthropic:`): the model gets
the read-only repo tools plus write_file / replace_in_file, confined to the slice's
worktree — an absolute path, `..`, `.git` and a symlink out are refused and the refusal
goes back to the model. Against the fake model servers in tests/fakes/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contend.harness.config import HarnessConfig
from contend.harness.slice import SliceRequest, run_slice
from fakes.chat_completions import ChatServer
from fakes.model_server import ANTHROPIC, CHAT, FakeModelServer, Text, ToolUse, Turn
from harness_helpers import clean, critic, main_repo, script, spec_file
from review_helpers import git

STATS = "def average(items):\n    return sum(items) / len(items)\n"
FIXED = STATS.replace(
    "    return", "    if not items:\n        raise ValueError('empty')\n    return"
)


def _writes(outside: Path) -> list[ToolUse]:
    return [
        ToolUse("write_file", {"path": "stats.py", "content": STATS}, id="w1"),
        ToolUse("write_file", {"path": "../escaped.txt", "content": "x"}, id="w2"),
        ToolUse("write_file", {"path": str(outside), "content": "x"}, id="w3"),
        ToolUse("write_file", {"path": ".git/hooks/post-commit", "content": "x"}, id="w4"),
        ToolUse("write_file", {"path": "link/evil.txt", "content": "x"}, id="w5"),
    ]


def _edit() -> ToolUse:
    old, new = (
        "    return sum",
        "    if not items:\n        raise ValueError('empty')\n    return sum",
    )
    return ToolUse("replace_in_file", {"path": "stats.py", "old": old, "new": new}, id="e1")


def _run(repo: Path, tmp_path: Path, implementer: str) -> object:
    crit = script(tmp_path / "crit.json", **critic(clean()))
    return run_slice(
        SliceRequest(
            repo=repo,
            spec_path=spec_file(tmp_path, "Create stats.py with average(items).\n"),
            implementer=implementer,
            critics=[crit],
            config=HarnessConfig(topology="C", static=False),
            agent_timeout_s=30.0,
        )
    )


def _prepare(tmp_path: Path) -> tuple[Path, Path]:
    repo = main_repo(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / "link").symlink_to(outside, target_is_directory=True)
    git(repo, "add", "link")
    git(repo, "commit", "-q", "-m", "a link out")
    return repo, outside


def _assert_confined(repo: Path, tmp_path: Path, outside: Path, result: object) -> None:
    assert result.outcome.verdict == "pass", result.outcome.reason  # type: ignore[attr-defined]
    branch = result.branch  # type: ignore[attr-defined]
    assert git(repo, "show", f"{branch}:stats.py") == FIXED.rstrip("\n")
    assert not (repo.parent / "escaped.txt").exists()
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "x").exists()
    assert git(repo, "status", "--porcelain") == ""


def test_openai_compatible_implementer_writes_only_inside_its_worktree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, outside = _prepare(tmp_path)
    with ChatServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{server.base_url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
        server.script(
            CHAT,
            Turn(_writes(outside / "abs.txt")),
            Turn([_edit()]),
            Turn([Text(json.dumps({"summary": "wrote stats.py"}))]),
        )
        result = _run(repo, tmp_path, "openai-compatible:qwen2.5-coder")
        bodies = [r.json for r in server.requests_to(CHAT)]
    tools = {t["function"]["name"] for t in bodies[0]["tools"]}
    assert {"write_file", "replace_in_file", "read_file"} <= tools
    answers = {
        m["tool_call_id"]: m["content"] for m in bodies[1]["messages"] if m["role"] == "tool"
    }
    assert not answers["w1"].startswith("error")
    for refused in ("w2", "w3", "w4", "w5"):
        assert answers[refused].startswith("error:"), answers[refused]
    _assert_confined(repo, tmp_path, outside, result)


def test_anthropic_implementer_writes_only_inside_its_worktree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, outside = _prepare(tmp_path)
    with FakeModelServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-key")
        server.script(
            ANTHROPIC,
            Turn(_writes(outside / "abs.txt")),
            Turn([_edit()]),
            Turn([ToolUse("submit_answer", {"summary": "wrote stats.py"}, id="s1")]),
        )
        result = _run(repo, tmp_path, "anthropic:claude-sonnet-4-5")
        bodies = [r.json for r in server.requests_to(ANTHROPIC)]
    names = [t["name"] for t in bodies[0]["tools"]]
    assert {"write_file", "replace_in_file", "read_file"} <= set(names)
    results = {
        block["tool_use_id"]: block
        for message in bodies[1]["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    }
    assert not results["w1"].get("is_error")
    for refused in ("w2", "w3", "w4", "w5"):
        assert results[refused].get("is_error"), results[refused]
    _assert_confined(repo, tmp_path, outside, result)
