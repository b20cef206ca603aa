"""contend's own backends, declared exactly as a third-party package declares one.

Each name here is an entry point of the group "contend.backends" (listed in
`backends.BUILTIN`) and is loaded and checked by the same code as an installed package's.
The declarations are plain data: the factories are named as "module:attr" and imported
only when an agent is built, so checking a config imports no backend module. See
docs/agents.md, docs/agents-api.md and docs/configuration.md for what each backend does.
"""

from __future__ import annotations

from contend.backends import Backend, Role
from contend.topics import topics_named

_CRITIC_OR_ORACLE: frozenset[Role] = frozenset({"critic", "oracle"})
_ANY_ROLE: frozenset[Role] = frozenset({"critic", "oracle", "proposer"})
_PROPOSER: frozenset[Role] = frozenset({"proposer"})

STATIC = Backend(
    "static",
    frozenset({"critic"}),
    kind="static",
    check_arg=topics_named,
    summary="the deterministic critics, offline: every topic, or static:<topic>[,<topic>...]",
)
CLAUDE = Backend(
    "claude",
    _CRITIC_OR_ORACLE,
    "contend.agents.claude_code:create",
    summary="Claude Code (`claude -p`), read-only; optional model",
)
CLAUDE_FORK = Backend(
    "claude-fork",
    _PROPOSER,
    "contend.agents.claude_code:create",
    summary="a fork of the author's Claude Code session; optional session id",
)
CODEX = Backend(
    "codex",
    _CRITIC_OR_ORACLE,
    "contend.agents.codex:create",
    summary="Codex CLI (`codex exec`) in its read-only sandbox; optional model",
)
CODEX_FORK = Backend(
    "codex-fork",
    _PROPOSER,
    "contend.agents.codex:create",
    summary="a fork of the author's Codex session; optional session id",
)
GEMINI = Backend(
    "gemini",
    _CRITIC_OR_ORACLE,
    "contend.agents.gemini:create",
    summary="Gemini CLI in plan (read-only) mode; optional model",
)
OPENAI = Backend(
    "openai",
    _ANY_ROLE,
    "contend.agents.openai_api:create",
    arg="required",
    arg_hint="a model name, e.g. openai:gpt-4.1",
    summary="an OpenAI model through the API",
)
ANTHROPIC = Backend(
    "anthropic",
    _ANY_ROLE,
    "contend.agents.anthropic_api:create",
    arg="required",
    arg_hint="a model name, e.g. anthropic:claude-sonnet-4-5",
    summary="an Anthropic model through the API",
)
OLLAMA = Backend(
    "ollama",
    _ANY_ROLE,
    "contend.agents.openai_api:create_ollama",
    arg="required",
    arg_hint="a model name, e.g. ollama:qwen2.5-coder",
    summary="a local Ollama model",
)
OPENAI_COMPATIBLE = Backend(
    "openai-compatible",
    _ANY_ROLE,
    "contend.agents.openai_api:create_compatible",
    arg="required",
    arg_hint="a model name, e.g. openai-compatible:my-model",
    summary="any OpenAI-compatible server (vLLM, llama.cpp, LM Studio, OpenRouter)",
)
SCRIPTED = Backend(
    "scripted",
    _ANY_ROLE,
    "contend.agents.scripted:create",
    arg="required",
    arg_hint="a script file, e.g. scripted:path/to/script.json",
    summary="a recorded or hand-written script of turns, for tests and demos",
)
NONE = Backend(
    "none",
    _PROPOSER,
    arg="forbidden",
    kind="author",
    summary="no proposer: the author answers across invocations",
)
HUMAN = Backend(
    "human",
    _PROPOSER,
    arg="forbidden",
    kind="author",
    summary="a person answers later (`contend respond`)",
)
