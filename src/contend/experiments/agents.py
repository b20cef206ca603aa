"""How an experiment cell asks agents: through the one backend registry, like code review.

    ask(Context, spec, slot=..., call=..., system=..., prompt=..., schema=...) -> Asked

`spec` is any critic spec the registry knows (`claude`, `codex:gpt-5`, `openai:MODEL`,
`scripted:FILE`, an installed package's backend). Agents play the read-only critic role in
an empty scratch directory. `call` is the request's round: the position of this question in
the experiment (1-based), so a scripted agent's turn list is read one turn per question.

A backend failure is not an exception here: it is an abstention with its reason, which the
experiments count on the liveness axis. Cost is the backend's own figure, else the
configured `[prices]` entry for the model (so a price can be put on any backend).
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contend.agents.base import AgentRequest, BackendContext
from contend.agents.registry import resolve
from contend.config import Settings
from contend.errors import AgentError

DEFAULT_TIMEOUT_S = 300.0


@dataclass(frozen=True, slots=True)
class Context:
    """What every cell carries: effective settings, per-call timeout, scratch directory."""

    settings: Settings
    timeout_s: float
    workdir: Path

    @staticmethod
    def from_payload(payload: dict[str, Any], workdir: Path) -> Context:
        settings = Settings.model_validate(payload.get("settings") or {})
        return Context(settings, float(payload.get("timeout_s", DEFAULT_TIMEOUT_S)), workdir)


def settings_payload(settings: Settings) -> dict[str, Any]:
    """Settings as plain JSON for a cell's payload (a Ray worker rebuilds them)."""
    return settings.model_dump(mode="json", by_alias=True)


@dataclass(frozen=True, slots=True)
class Asked:
    spec: str
    slot: str
    output: dict[str, Any] | None
    error: str | None
    tokens_in: int
    tokens_out: int
    cost: float
    model: str
    family: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "slot": self.slot,
            "output": self.output,
            "error": self.error,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost": self.cost,
            "model": self.model,
            "family": self.family,
        }


async def ask(
    ctx: Context,
    spec: str,
    *,
    slot: str,
    call: int,
    system: str,
    prompt: str,
    schema: dict[str, Any],
) -> Asked:
    agent = resolve(
        spec, BackendContext(repo_root=ctx.workdir, settings=ctx.settings, role="critic")
    )
    request = AgentRequest(
        role="critic",
        thread=slot,
        round=call,
        system=system,
        prompt=prompt,
        schema=schema,
        worktree=ctx.workdir,
        timeout_s=ctx.timeout_s,
        repo=ctx.workdir,
    )
    try:
        reply = await agent.run(request)
    except AgentError as exc:
        return Asked(
            spec, slot, None, f"{exc.failure}: {exc}", 0, 0, 0.0, agent.model, agent.family
        )
    cost = reply.cost or _priced(
        ctx.settings, agent.model, reply.usage.tokens_in, reply.usage.tokens_out
    )
    return Asked(
        spec,
        slot,
        reply.output if reply.error is None else None,
        None if reply.error is None else f"malformed: {reply.error}",
        reply.usage.tokens_in,
        reply.usage.tokens_out,
        cost,
        agent.model,
        agent.family,
    )


def _priced(settings: Settings, model: str, tokens_in: int, tokens_out: int) -> float:
    price = settings.prices.get(model)
    if price is None:
        return 0.0
    return (tokens_in * price.input_per_mtok + tokens_out * price.output_per_mtok) / 1e6


async def ask_all(ctx: Context, calls: list[dict[str, Any]]) -> list[Asked]:
    """Several independent questions at once (each dict: ask's keyword arguments + spec)."""
    return list(await asyncio.gather(*(ask(ctx, **call) for call in calls)))


def usage(asked: list[Asked]) -> dict[str, Any]:
    return {
        "tokens_in": sum(a.tokens_in for a in asked),
        "tokens_out": sum(a.tokens_out for a in asked),
        "cost": round(sum(a.cost for a in asked), 8),
    }


def scratch() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="contend-exp-")
