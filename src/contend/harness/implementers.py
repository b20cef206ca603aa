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
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from contend.agents.base import AgentRequest, BackendContext, Capabilities
from contend.agents.claude_code import ClaudeCodeAgent
from contend.agents.codex import _EVERY_RUN, CodexAgent, untrusted_projects

WRITE_TOOLS = ("Read", "Grep", "Glob", "Edit", "Write")
DENIED = ("Bash", "NotebookEdit", "WebFetch", "WebSearch", "Agent", "EnterWorktree")
CLI_IMPLEMENTERS = frozenset({"claude", "codex"})


class ClaudeCodeImplementer(ClaudeCodeAgent):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.pop("role", None)
        # Built as a non-fork agent: it never continues anyone's session.
        super().__init__(role="critic", **kwargs)
        self.backend = "claude"
        self.capabilities = Capabilities(
            structured_output=True, repo_tools=True, read_only_enforced=False, can_fix=True
        )

    def argv(self, request: AgentRequest, session: str | None) -> list[str]:
        tools = ",".join(WRITE_TOOLS)
        argv = [self.binary, "-p", "--output-format", "json"]
        argv += ["--json-schema", json.dumps(request.schema, separators=(",", ":"))]
        argv += ["--append-system-prompt", request.system, "--setting-sources", "user"]
        argv += ["--tools", tools, "--allowedTools", tools, "--permission-mode", "acceptEdits"]
        argv += ["--disallowedTools", ",".join(DENIED)]
        argv += ["--strict-mcp-config", "--no-session-persistence"]
        if self._model_flag:
            argv += ["--model", self._model_flag]
        return [*argv, *self.extra_args]


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
    name: str, arg: str | None, ctx: BackendContext
) -> ClaudeCodeImplementer | CodexImplementer:
    """The implementer `name[:arg]` names (one of CLI_IMPLEMENTERS)."""
    # The argument is a model (for_spec would read a proposer's as a session to fork).
    cls = ClaudeCodeImplementer if name == "claude" else CodexImplementer
    return cls(settings=ctx.settings, model=arg, repo=ctx.repo_root)
