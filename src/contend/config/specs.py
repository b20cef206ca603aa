"""The grammar of agent specs in config and on the command line: `name[:arg]`.

Owns which backend names a critic, an oracle or a proposer may name and which of them need
an argument. It checks spelling only; whether a backend is installed or reachable is the
agent registry's business, decided when the backend is built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from contend.critics.static.base import Topic

# Backends a critic (or the deadlock oracle) may name.
CRITIC_BACKENDS = frozenset(
    {
        "static",
        "claude",
        "codex",
        "gemini",
        "openai",
        "anthropic",
        "ollama",
        "openai-compatible",
        "scripted",
    }
)

# Backends a proposer may name: forks of the author's own session, an API model, a person
# answering later, a scripted double, or nobody (the author answers across invocations).
PROPOSER_BACKENDS = frozenset(
    {
        "none",
        "human",
        "claude-fork",
        "codex-fork",
        "openai",
        "anthropic",
        "ollama",
        "openai-compatible",
        "scripted",
    }
)

# An API model is meaningless without a model name, a scripted agent without its script.
_ARG_REQUIRED = {
    "openai": "a model name, e.g. openai:gpt-4.1",
    "anthropic": "a model name, e.g. anthropic:claude-sonnet-4-5",
    "ollama": "a model name, e.g. ollama:qwen2.5-coder",
    "openai-compatible": "a model name, e.g. openai-compatible:my-model",
    "scripted": "a script file, e.g. scripted:path/to/script.json",
}
_ARG_FORBIDDEN = frozenset({"none", "human"})

_SPEC = re.compile(r"(?P<name>[a-z][a-z0-9-]*)(?::(?P<arg>.*))?", re.DOTALL)


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """One parsed spec: `codex:gpt-5` is AgentSpec("codex", "gpt-5")."""

    backend: str
    arg: str | None

    def __str__(self) -> str:
        return self.backend if self.arg is None else f"{self.backend}:{self.arg}"


def parse_critic_spec(text: str) -> AgentSpec:
    """Parse a critic (or oracle) spec; ValueError says what is wrong and what is valid."""
    spec = _parse(text, CRITIC_BACKENDS, role="critic")
    if spec.backend == "static" and spec.arg is not None:
        topics = sorted(t.value for t in Topic)
        if spec.arg not in topics:
            raise ValueError(
                f"unknown static topic {spec.arg!r} in {text!r}; valid topics: {', '.join(topics)}"
            )
    return spec


def parse_proposer_spec(text: str) -> AgentSpec:
    """Parse a proposer spec; ValueError says what is wrong and what is valid."""
    return _parse(text, PROPOSER_BACKENDS, role="proposer")


def _parse(text: str, backends: frozenset[str], *, role: str) -> AgentSpec:
    match = _SPEC.fullmatch(text)
    valid = ", ".join(sorted(backends))
    if match is None:
        raise ValueError(f"{role} spec {text!r} is not of the form name[:arg]; backends: {valid}")
    name, arg = match["name"], match["arg"]
    if name not in backends:
        raise ValueError(f"unknown {role} backend {name!r} in {text!r}; valid backends: {valid}")
    if arg is not None and not arg.strip():
        raise ValueError(f"{role} spec {text!r} has an empty argument after ':'")
    if arg is not None and arg != arg.strip():
        raise ValueError(f"{role} spec {text!r} has spaces around its argument")
    if arg is None and name in _ARG_REQUIRED:
        raise ValueError(f"{role} spec {text!r} needs {_ARG_REQUIRED[name]}")
    if arg is not None and name in _ARG_FORBIDDEN:
        raise ValueError(f"{role} spec {text!r}: {name!r} takes no argument")
    return AgentSpec(name, arg)
