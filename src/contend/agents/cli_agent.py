"""What the agent-CLI backends (claude, codex, gemini) share: how they are configured, and
which of the author's sessions a fork continues."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Self

from contend.agents.base import AgentRequest, BackendContext, Capabilities, Role
from contend.agents.gitpaths import author_checkout
from contend.config import Settings
from contend.errors import AgentError, UserError


class CliAgentConfig:
    """Role, model, binary and the test-only additions of an agent CLI backend.

    `extra_args` and `env_add` exist for tests (a fake provider, an isolated home); in
    normal use they are empty and the user's own environment reaches the CLI unchanged.
    `repo` is the reviewed repository, where a fork looks the author's session up when a
    request does not name it.
    """

    name: str  # the CLI's name, its default binary and its critic backend name
    family: str
    web_capable: bool = False  # its critic can be offered web search (request.web_access)

    def __init__(
        self,
        *,
        role: Role,
        settings: Settings,
        model: str | None = None,
        session: str | None = None,
        binary: str | None = None,
        extra_args: Sequence[str] = (),
        env_add: Mapping[str, str] | None = None,
        repo: Path | None = None,
    ) -> None:
        self.role = role
        self.settings = settings
        self.model = model or "default"
        self._model_flag = model
        self.session = session
        self.binary = binary or self.name
        self.extra_args = tuple(extra_args)
        self.env_add = dict(env_add or {})
        self.repo = repo
        fork = role == "proposer"
        self.backend = f"{self.name}-fork" if fork else self.name
        self.capabilities = Capabilities(
            structured_output=True,
            repo_tools=True,
            read_only_enforced=not fork,
            can_fix=fork,
            fork_session=fork,
            web_access=self.web_capable and not fork,
        )

    @classmethod
    def for_spec(cls, arg: str | None, ctx: BackendContext) -> Self:
        """`NAME[:MODEL]` as a critic or oracle; `NAME-fork[:SESSION]` as the proposer
        (without SESSION, the newest session of the reviewed repository, looked up per
        call)."""
        if ctx.role == "proposer":
            return cls(role=ctx.role, settings=ctx.settings, session=arg, repo=ctx.repo_root)
        return cls(role=ctx.role, settings=ctx.settings, model=arg, repo=ctx.repo_root)

    @staticmethod
    def newest_session(repo: Path) -> str:
        """The newest session the CLI recorded for `repo`; UserError when there is none."""
        raise NotImplementedError  # each CLI keeps its sessions its own way

    def session_to_fork(self, request: AgentRequest) -> str | None:
        """The session a proposer forks: the one named, else the newest of the reviewed
        repository (never of contend's current directory); None for a critic or oracle."""
        if self.role != "proposer":
            return None
        named = request.session or self.session
        if named is not None:
            return named
        repo = author_checkout(request.worktree, request.repo or self.repo, backend=self.backend)
        try:
            return self.newest_session(repo)
        except UserError as exc:
            raise AgentError(str(exc), backend=self.backend) from exc
