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
"""

from __future__ import annotations

import json
from typing import Any

from contend.agents.base import AgentRequest, Capabilities
from contend.agents.claude_code import ClaudeCodeAgent

WRITE_TOOLS = ("Read", "Grep", "Glob", "Edit", "Write")
DENIED = ("Bash", "NotebookEdit", "WebFetch", "WebSearch", "Agent", "EnterWorktree")
CLI_IMPLEMENTERS = frozenset({"claude"})


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
