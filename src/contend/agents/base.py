"""The one narrow interface every backend implements, and the data that crosses it.

    factory(arg, BackendContext) -> Agent          (declared in contend.backends)
    Agent.run(AgentRequest) -> AgentReply

A reply carries the parsed structured output (or None), the raw exchange exactly as sent
and received (for the ledger), usage, cost and wall time. Failures are raised as
contend.errors.AgentError (AgentTimeout for a deadline); a reply whose output does not
fit the schema is returned with `error` set so the engine can count it as malformed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from contend.backends import Role as Role
from contend.protocol.event_types import RawExchange

if TYPE_CHECKING:
    from contend.config import Settings


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a backend can do, as data (the engine never checks backend classes)."""

    structured_output: bool = True
    repo_tools: bool = False  # can read/grep/list files of the worktree itself
    read_only_enforced: bool = False  # the backend itself enforces read-only (sandbox)
    can_fix: bool = False  # as proposer, can edit files in its worktree
    fork_session: bool = False  # can continue the author's session as a fork
    needs_network: bool = True
    # can search and read the web when a request asks (AgentRequest.web_access), with no
    # write access gained by it (claims' external-tool checks, seeds/002)
    web_access: bool = False


@dataclass(frozen=True, slots=True)
class BackendContext:
    """What a backend's factory is given besides its argument: the reviewed repository's
    root (a factory reads it from here, never from the current directory), the effective
    settings, and the role the agent will play."""

    repo_root: Path
    settings: Settings
    role: Role


@dataclass(frozen=True, slots=True)
class AgentRequest:
    role: Role
    thread: str
    round: int
    system: str
    prompt: str
    schema: dict[str, Any]
    worktree: Path
    timeout_s: float
    session: str | None = None  # author session to fork (proposer) or to continue
    web_access: bool = False  # offer the web tools (only a backend whose capabilities allow)
    # The reviewed repository's root, where the author works: a fork without a named
    # session looks the author's newest session up there. None: the main work tree of
    # `worktree`'s repository.
    repo: Path | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    tokens_in: int = 0
    tokens_out: int = 0


@dataclass(slots=True)
class AgentReply:
    output: dict[str, Any] | None
    raw_text: str
    usage: Usage = field(default_factory=Usage)
    cost: float = 0.0
    wall_s: float = 0.0
    exchange: RawExchange = field(default_factory=lambda: RawExchange())
    error: str | None = None  # set when the output was unusable (malformed, schema break)
    session: str | None = None  # session id the backend used, when it has one


class Agent(Protocol):
    backend: str  # registry name, e.g. "claude", "scripted"
    model: str
    family: str  # model family, e.g. "anthropic", "openai", "static"
    capabilities: Capabilities

    async def run(self, request: AgentRequest) -> AgentReply: ...
