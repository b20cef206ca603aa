"""A scripted agent: a recorded or hand-written script of turns, for tests and demos.

It resolves through the same registry as every real backend (`scripted:FILE`). The script
is JSON:

    {"family": "scripted-a", "model": "script", "latency_s": 0.0,
     "critic":   [TURN, TURN, ...],     # indexed by round (1-based)
     "proposer": [TURN, ...],
     "oracle":   [TURN, ...]}

A TURN is one of
    {"output": {...}}                    the structured output for that round
    {"output": {...}, "edits": {"path": "new content" | null}}   proposer fixes (null deletes)
    {"raw": "text"}                      unparsable or schema-breaking output, as is
    {"error": "crash" | "timeout" | "unreachable" | "http-NNN"}   a failure of that kind
    {"sleep": seconds, ...}              extra latency before the turn
    {"hold_until": "PATH", ...}          the turn waits until PATH exists (a test's gate)
    {"interrupt_once": "MARKER", ...}    Ctrl-C during this call, the first time only
The text "{thread}" in a turn's output and edits is replaced by the calling thread's name
(e.g. "C2"), so one proposer script can answer objection "{thread}-1" in every thread.
Rounds past the end of a list get a quiet turn: a critic finds no new defect and judges
nothing; a proposer answers nothing.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from contend.agents.api_common import RETRYABLE_STATUS
from contend.agents.base import AgentReply, AgentRequest, BackendContext, Capabilities, Role, Usage
from contend.errors import AgentError, AgentTimeout, ProtocolError, UserError
from contend.protocol.event_types import RawExchange
from contend.protocol.reply_schemas import validate

QUIET: dict[str, dict[str, Any]] = {
    "critic": {"topic": "", "no_defect_found": True, "objections": [], "judgements": []},
    "proposer": {"answers": []},
}


class ScriptedAgent:
    backend = "scripted"

    def __init__(self, script: dict[str, Any], *, role: Role, source: str = "<script>") -> None:
        self.script = script
        self.source = source
        self.model = str(script.get("model", "script"))
        self.family = str(script.get("family", "scripted"))
        self.latency_s = float(script.get("latency_s", 0.0))
        # It edits files only as the proposer (a proposer turn's "edits"); in any other
        # role it never writes, which is its own guarantee of read-only access.
        fixes = role == "proposer"
        self.capabilities = Capabilities(
            structured_output=True,
            can_fix=fixes,
            read_only_enforced=not fixes,
            needs_network=False,
        )

    async def run(self, request: AgentRequest) -> AgentReply:
        started = time.perf_counter()
        turn = self._turn(request.role, request.round)
        delay = self.latency_s + float(turn.get("sleep", 0.0))
        gate = turn.get("hold_until")
        try:
            await asyncio.wait_for(
                _wait(delay, None if gate is None else Path(str(gate))),
                timeout=request.timeout_s,
            )
        except TimeoutError:
            raise AgentTimeout(
                f"scripted agent waited past the {request.timeout_s:g}s deadline",
                backend=self.backend,
            ) from None
        marker = turn.get("interrupt_once")
        if marker is not None and not Path(marker).exists():
            # Simulates Ctrl-C arriving during this call, once (tests of --resume).
            Path(marker).write_text("interrupted\n")
            raise KeyboardInterrupt
        error = turn.get("error")
        if error == "timeout":
            raise AgentTimeout("scripted timeout", backend=self.backend)
        if error is not None:
            raise _scripted_failure(str(error), self.backend)
        if request.role == "proposer":
            edits = {
                path: None if text is None else str(text).replace("{thread}", request.thread)
                for path, text in turn.get("edits", {}).items()
            }
            _apply_edits(request.worktree, edits)
        exchange: RawExchange = {"request": {"system": request.system, "prompt": request.prompt}}
        if "raw" in turn:
            raw_text = str(turn["raw"])
        else:
            raw_text = json.dumps(turn.get("output", QUIET.get(request.role, {})))
        # One script can serve several threads: "{thread}" names the calling thread.
        raw_text = raw_text.replace("{thread}", request.thread)
        exchange["response"] = raw_text
        reply = AgentReply(
            output=None,
            raw_text=raw_text,
            usage=Usage(tokens_in=len(request.prompt) // 4, tokens_out=len(raw_text) // 4),
            wall_s=time.perf_counter() - started,
            exchange=exchange,
        )
        try:
            reply.output = validate(json.loads(raw_text), request.schema, what=self.source)
        except json.JSONDecodeError as exc:
            reply.error = f"output is not JSON: {exc}"
        except ProtocolError as exc:
            reply.error = str(exc)
        return reply

    def _turn(self, role: Role, rnd: int) -> dict[str, Any]:
        turns = self.script.get(role, [])
        if not isinstance(turns, list):
            raise UserError(f"{self.source}: '{role}' must be a list of turns")
        if rnd - 1 < len(turns):
            turn = turns[rnd - 1]
            if not isinstance(turn, dict):
                raise UserError(f"{self.source}: {role} turn {rnd} must be an object")
            return turn
        return {"output": QUIET.get(role, {})}


async def _wait(delay: float, gate: Path | None) -> None:
    """The turn's latency, then — for a test that must act while the call is in flight,
    whatever the machine's load — until the gate file exists."""
    await asyncio.sleep(delay)
    while gate is not None and not gate.exists():
        await asyncio.sleep(0.02)


def _scripted_failure(error: str, backend: str) -> AgentError:
    """The AgentError a script's {"error": ...} turn stands for."""
    message = f"scripted failure: {error}"
    if error.startswith("http-") and error[5:].isdigit():
        status = int(error[5:])
        return AgentError(
            message,
            backend=backend,
            retryable=status in RETRYABLE_STATUS,
            failure="http_status",
            status=status,
        )
    if error == "unreachable":
        return AgentError(message, backend=backend, retryable=True, failure="unreachable")
    return AgentError(message, backend=backend)


def _apply_edits(worktree: Path, edits: dict[str, str | None]) -> None:
    root = worktree.resolve()
    for rel, content in edits.items():
        target = (root / rel).resolve()
        if not target.is_relative_to(root):
            raise UserError(f"scripted edit outside the worktree: {rel}")
        if content is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)


def load_script(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"scripted agent: no such script {path}") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"scripted agent: {path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise UserError(f"scripted agent: {path} must hold a JSON object")
    return data


def create(arg: str | None, ctx: BackendContext) -> ScriptedAgent:
    """`scripted:FILE`, for any role; FILE as the user wrote it (relative: to where they
    stand, like any path on the command line)."""
    if not arg:
        raise UserError("scripted agent needs a script: scripted:PATH.json")
    path = Path(arg)
    return ScriptedAgent(load_script(path), role=ctx.role, source=str(path))
