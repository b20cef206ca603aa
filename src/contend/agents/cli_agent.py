"""What the agent-CLI backends (claude, codex, gemini) share: how they are configured."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Self

from contend.agents.base import BackendContext, Capabilities, Role
from contend.config import Settings


class CliAgentConfig:
    """Role, model, binary and the test-only additions of an agent CLI backend.

    `extra_args` and `env_add` exist for tests (a fake provider, an isolated home); in
    normal use they are empty and the user's own environment reaches the CLI unchanged.
    `repo` is the reviewed repository, where a fork looks the author's session up when a
    request does not name it.
    """

    name: str  # the CLI's name, its default binary and its critic backend name
    family: str

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
        )

    @classmethod
    def for_spec(cls, arg: str | None, ctx: BackendContext) -> Self:
        """`NAME[:MODEL]` as a critic or oracle; `NAME-fork[:SESSION]` as the proposer
        (without SESSION, the newest session of the reviewed repository, looked up per
        call)."""
        if ctx.role == "proposer":
            return cls(role=ctx.role, settings=ctx.settings, session=arg, repo=ctx.repo_root)
        return cls(role=ctx.role, settings=ctx.settings, model=arg, repo=ctx.repo_root)
