"""The scripted agent's `hold_until` gate: a turn in flight until a test opens it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from contend.agents.base import AgentRequest
from contend.agents.scripted import ScriptedAgent
from contend.errors import AgentTimeout
from contend.protocol.reply_schemas import CRITIC_SCHEMA

QUIET = {"topic": "", "no_defect_found": True, "objections": [], "judgements": []}


def request(tmp_path: Path, timeout_s: float) -> AgentRequest:
    return AgentRequest(
        role="critic",
        thread="C1",
        round=1,
        system="s",
        prompt="p",
        schema=CRITIC_SCHEMA,
        worktree=tmp_path,
        timeout_s=timeout_s,
    )


def test_a_held_turn_answers_only_after_the_gate_opens(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    agent = ScriptedAgent({"critic": [{"output": QUIET, "hold_until": str(gate)}]}, role="critic")

    async def scenario() -> tuple[bool, object]:
        call = asyncio.ensure_future(agent.run(request(tmp_path, 30.0)))
        await asyncio.sleep(0.3)
        waiting = not call.done()
        gate.touch()
        return waiting, (await call).output

    waiting, output = asyncio.run(scenario())
    assert waiting, "the turn answered before its gate opened"
    assert output == QUIET


def test_a_gate_never_opened_is_the_calls_timeout(tmp_path: Path) -> None:
    agent = ScriptedAgent(
        {"critic": [{"output": QUIET, "hold_until": str(tmp_path / "never")}]}, role="critic"
    )
    with pytest.raises(AgentTimeout, match=r"waited past the 0\.2s deadline"):
        asyncio.run(agent.run(request(tmp_path, 0.2)))
