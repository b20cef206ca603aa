"""Implementers built on agent CLIs: what writes the slice's code.

The backend registry's write-capable role is the proposer, a fork of the author's own
session; an implementer starts fresh instead, so `contend run --implementer claude[:MODEL]`
is built here: a new `claude -p` session in the slice's worktree with Read, Grep, Glob,
Edit and Write (`--permission-mode acceptEdits`), and nothing else — no Bash (running
commands is the gates' job), no web, no MCP servers (`--strict-mcp-config`), no settings,
hooks or MCP approvals from the worktree (`--setting-sources user`), no session kept
(`--no-session-persistence`: each pass gets the whole brief). Claude Code asks permission
for edits outside its working directory, which `-p` cannot grant; the harness's fingerprint
of the main tree catches and reverts anything that gets through anyway.

`--implementer codex[:MODEL]` is a fresh `codex exec --sandbox workspace-write` in the
worktree: codex's OS sandbox lets commands write the worktree only (its default extra
writable roots, /tmp and $TMPDIR, are excluded, so a tool that needs a temporary directory
fails there — the gates run outside the sandbox); the critic's rules otherwise hold — no
execpolicy rules (`--ignore-rules`: an allow-rule runs a command outside the sandbox),
the worktree and its repository forced untrusted so their `.codex/` never configures it,
no session kept (`--ephemeral`).

Topology A (the implementer reviews its own diff in its own session): the claude
implementer keeps its session (no `--no-session-persistence`) and its critic is a
`ClaudeCodeSelfReviewer`, the read-only critic resuming a fork of that session
(`--resume SESSION --fork-session`) — so it remembers what it did and why, as the seed's
baseline has it. The kept transcripts are removed when the slice is done
(`discard_sessions`). Codex keeps no session (`--ephemeral`): its topology A self-review
is a fresh read-only session of the same model, in effect topology B, and the slice says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from contend.agents.api_common import check_model_requests_allowed
from contend.agents.base import AgentReply, AgentRequest, BackendContext, Capabilities
from contend.agents.claude_code import ClaudeCodeAgent, _entries, _remove_added
from contend.agents.claude_sessions import project_dir
from contend.agents.codex import _EVERY_RUN, CodexAgent, untrusted_projects
from contend.agents.process import run_process
from contend.errors import AgentError

WRITE_TOOLS = ("Read", "Grep", "Glob", "Edit", "Write")
DENIED = ("Bash", "NotebookEdit", "WebFetch", "WebSearch", "Agent", "EnterWorktree")
CLI_IMPLEMENTERS = frozenset({"claude", "codex"})


class ClaudeCodeImplementer(ClaudeCodeAgent):
    def __init__(self, *, keep_session: bool = False, **kwargs: Any) -> None:
        kwargs.pop("role", None)
        # Built as a non-fork agent: it never continues anyone's session.
        super().__init__(role="critic", **kwargs)
        self.backend = "claude"
        self.capabilities = Capabilities(
            structured_output=True, repo_tools=True, read_only_enforced=False, can_fix=True
        )
        self.keep_session = keep_session
        # claude's project directories this implementer wrote sessions into, with what
        # each held before its first call: only what it added is removed.
        self._projects: dict[Path, set[str] | None] = {}

    async def run(self, request: AgentRequest) -> AgentReply:
        if not self.keep_session:
            return await super().run(request)
        check_model_requests_allowed(self.endpoint(), backend=self.backend)
        argv = self.argv(request, None)
        project = project_dir(request.worktree)
        self._projects.setdefault(project, _entries(project))
        result = await run_process(
            argv,
            backend=self.backend,
            cwd=request.worktree,
            timeout_s=request.timeout_s,
            stdin=request.prompt.encode(),
            env_add=self.env_add,
        )
        return self._reply(request, argv, result)

    def discard_sessions(self) -> None:
        """Remove the sessions kept for topology A's self-review (the slice is done)."""
        for project, existed in self._projects.items():
            _remove_added(project, existed)
        self._projects.clear()

    def argv(self, request: AgentRequest, session: str | None) -> list[str]:
        tools = ",".join(WRITE_TOOLS)
        argv = [self.binary, "-p", "--output-format", "json"]
        argv += ["--json-schema", json.dumps(request.schema, separators=(",", ":"))]
        argv += ["--append-system-prompt", request.system, "--setting-sources", "user"]
        argv += ["--tools", tools, "--allowedTools", tools, "--permission-mode", "acceptEdits"]
        argv += ["--disallowedTools", ",".join(DENIED)]
        argv += ["--strict-mcp-config"]
        if not self.keep_session:
            argv += ["--no-session-persistence"]
        if self._model_flag:
            argv += ["--model", self._model_flag]
        return [*argv, *self.extra_args]


class ClaudeCodeSelfReviewer(ClaudeCodeAgent):
    """Topology A's critic: the claude critic (read-only tools, no MCP, no worktree
    settings) in a fork of the implementer's session, which the fork leaves untouched."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.pop("role", None)
        super().__init__(role="critic", **kwargs)

    def session_to_fork(self, request: AgentRequest) -> str | None:
        if request.session is None:
            raise AgentError(
                "topology A: the implementer left no session to review its diff in",
                backend=self.backend,
            )
        return request.session

    def argv(self, request: AgentRequest, session: str | None) -> list[str]:
        argv = super().argv(request, session)
        if session is None:
            raise AgentError("topology A: no implementer session to resume", backend=self.backend)
        return [*argv[:2], "--resume", session, "--fork-session", *argv[2:]]


class CodexImplementer(CodexAgent):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.pop("role", None)
        super().__init__(role="critic", **kwargs)
        self.backend = "codex"
        self.capabilities = Capabilities(
            structured_output=True, repo_tools=True, read_only_enforced=False, can_fix=True
        )

    def argv(self, request: AgentRequest, schema_file: Path, session: str | None) -> list[str]:
        argv = [self.binary, "exec", "--sandbox", "workspace-write", "--ignore-rules"]
        argv += ["-c", 'web_search="disabled"']
        # workspace-write also opens /tmp and $TMPDIR by default: the worktree only.
        argv += ["-c", "sandbox_workspace_write.exclude_slash_tmp=true"]
        argv += ["-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true"]
        argv += ["--json", "--output-schema", str(schema_file), "--skip-git-repo-check"]
        argv += [*_EVERY_RUN, "-c", untrusted_projects(request.worktree)]
        argv += ["-c", "developer_instructions=" + json.dumps(request.system)]
        if self._model_flag:
            argv += ["-m", self._model_flag]
        return [*argv, *self.extra_args]


def cli_implementer(
    name: str, arg: str | None, ctx: BackendContext, *, keep_session: bool = False
) -> ClaudeCodeImplementer | CodexImplementer:
    """The implementer `name[:arg]` names (one of CLI_IMPLEMENTERS); `keep_session` (claude
    only) for topology A's self-review."""
    # The argument is a model (for_spec would read a proposer's as a session to fork).
    if name == "claude":
        return ClaudeCodeImplementer(
            settings=ctx.settings, model=arg, repo=ctx.repo_root, keep_session=keep_session
        )
    return CodexImplementer(settings=ctx.settings, model=arg, repo=ctx.repo_root)


def self_reviewer(arg: str | None, ctx: BackendContext) -> ClaudeCodeSelfReviewer:
    """Topology A's critic for `--implementer claude[:MODEL]`."""
    return ClaudeCodeSelfReviewer(settings=ctx.settings, model=arg, repo=ctx.repo_root)
