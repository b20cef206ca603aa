"""Resolve an agent spec such as "claude:opus" or "scripted:critic.json" to an Agent.

Built-in backends are modules of this package, imported only when used. Third parties
register more through the entry-point group "contend.backends": the entry point loads a
factory with the same signature as the built-in `create` functions.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

from contend.agents.base import Agent, Role
from contend.errors import UserError

if TYPE_CHECKING:
    from contend.config import Settings

Factory = Callable[[str | None, "Settings", Role], Agent]

BUILTIN: dict[str, str] = {
    "scripted": "contend.agents.scripted",
    "claude": "contend.agents.claude_code",
    "claude-fork": "contend.agents.claude_code",
    "codex": "contend.agents.codex",
    "codex-fork": "contend.agents.codex",
    "gemini": "contend.agents.gemini",
    "openai": "contend.agents.openai_api",
    "anthropic": "contend.agents.anthropic_api",
    "ollama": "contend.agents.openai_api",
    "openai-compatible": "contend.agents.openai_api",
}


def split_spec(spec: str) -> tuple[str, str | None]:
    name, sep, arg = spec.partition(":")
    return name.strip(), (arg.strip() or None) if sep else None


def resolve(spec: str, settings: Settings, role: Role) -> Agent:
    name, arg = split_spec(spec)
    factory = _factory(name)
    return factory(
        arg if name not in ("ollama", "openai-compatible") else f"{name}:{arg}", settings, role
    )


def _factory(name: str) -> Factory:
    module_name = BUILTIN.get(name)
    if module_name is not None:
        module = importlib.import_module(module_name)
        factory: Factory = module.create
        return factory
    for ep in entry_points(group="contend.backends"):
        if ep.name == name:
            loaded: Factory = ep.load()
            return loaded
    known = ", ".join(sorted([*BUILTIN, "static"]))
    raise UserError(f"unknown agent backend {name!r}; known: {known}")
