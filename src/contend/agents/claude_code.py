"""Claude Code (`claude -p`) as a critic or oracle (read-only), or as the proposer (a fork
of the author's own session).

Critic / oracle, run in the thread's worktree with the prompt on stdin:

    claude -p --output-format json --json-schema SCHEMA --append-system-prompt SYSTEM
           --tools Read,Grep,Glob --allowedTools Read,Grep,Glob
           --disallowedTools Edit,Write,NotebookEdit,Bash,... --setting-sources user
           --strict-mcp-config --no-session-persistence [--model MODEL]

A request with `web_access` (claims' external-tool checks) adds WebSearch and WebFetch to
`--tools`/`--allowedTools` (and drops them from `--disallowedTools`): they read the web
and write nothing.

`--tools` is the read-only guarantee: it limits the built-in tools the model is offered, so
user settings that allow more cannot add a writing tool; `--strict-mcp-config` without a
config drops the user's MCP servers, which could write. `--json-schema` makes claude offer
a StructuredOutput tool and validate its input; we validate the result again.

Trust boundary (DESIGN §9), for every role: the worktree holds the change under review, so
`--setting-sources user` keeps its `.claude/settings.json` and `settings.local.json`
(hooks run commands; `enableAllProjectMcpServers` would start its `.mcp.json` servers)
from configuring claude; the user's own settings apply. The tools offered (`--tools`)
include neither Skill nor Agent, so the change's `.claude/skills` and `.claude/agents`
cannot be invoked; CLAUDE.md is content, read as instructions about the code. claude does
not load a `.env` from its working directory (a test plants one).

Proposer (`claude-fork[:SESSION]`): `claude -p --resume SESSION --fork-session` with
Read/Grep/Glob/Edit/Write and `--permission-mode acceptEdits`, so it can fix in its own
worktree. claude looks a session up only under the project directory of its cwd (its
layout: agents/claude_sessions.py), and the worktree is not the author's checkout, so the
author's transcript is COPIED there for the run. The
author's own file is only ever read, and the fork gets a new session id. After the call
everything the call added to the worktree's project directory — the copy, the fork's
transcript (which holds the author's context), claude's per-project memory directory —
is removed, and the directory itself when the call created it; nothing else is touched.
Without SESSION the newest transcript of the reviewed repository (AgentRequest.repo, else
the main work tree of the worktree's repository) is used — never of contend's own current
directory.

Failures carry a `failure` kind: an API error with a status is `http_status` (claude prints
`subtype: "success"` with `is_error: true` for those, so the subtype is not the label),
"Unable to connect" is `unreachable`, "an empty or malformed response" (garbage or a cut
stream from the server) is `malformed`, anything else — a non-zero exit without a result
too — is `crashed`.

The user's environment reaches claude unchanged (login, subscription, ANTHROPIC_API_KEY,
ANTHROPIC_BASE_URL, CLAUDE_CONFIG_DIR, settings and hooks); `extra_args` / `env_add` are
for tests only and never read from config.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from contend.agents.api_common import (
    RETRYABLE_STATUS,
    check_model_requests_allowed,
    lookup_price,
)
from contend.agents.base import AgentReply, AgentRequest, BackendContext, Usage
from contend.agents.claude_sessions import find_transcript, newest_session, project_dir
from contend.agents.cli_agent import CliAgentConfig
from contend.agents.process import ProcessResult, run_process
from contend.errors import AgentError, Failure, ProtocolError
from contend.protocol.event_types import RawExchange
from contend.protocol.reply_schemas import validate

READ_ONLY_TOOLS = ("Read", "Grep", "Glob")
# Offered to a critic or oracle only when the request asks for web access: they read the
# web and write nothing (claims' external-tool checks, seeds/002).
WEB_TOOLS = ("WebSearch", "WebFetch")
EDIT_TOOLS = ("Edit", "Write")
# Named as well as left out of --tools, so a future default cannot slip one back in.
DENIED_FOR_CRITIC = (
    "Edit",
    "Write",
    "NotebookEdit",
    "Bash",
    "WebFetch",
    "WebSearch",
    "Agent",
    "EnterWorktree",
)
DEFAULT_ENDPOINT = "https://api.anthropic.com"
# A review reply this long is not a review; refusing it also keeps the ledger bounded.
MAX_REPLY_CHARS = 1_000_000
# claude's words (2.1) for a model server it could not connect to.
_UNREACHABLE_MARKERS = ("Unable to connect", "Connection error", "ECONNREFUSED", "ENOTFOUND")
_MALFORMED_MARKERS = ("malformed response",)  # "API returned an empty or malformed response"


class ClaudeCodeAgent(CliAgentConfig):
    newest_session = staticmethod(newest_session)
    name = "claude"
    family = "anthropic"
    web_capable = True

    def endpoint(self) -> str:
        """Where claude will send requests, as far as the environment says."""
        configured = self.env_add.get("ANTHROPIC_BASE_URL") or os.environ.get("ANTHROPIC_BASE_URL")
        return configured or DEFAULT_ENDPOINT

    def argv(self, request: AgentRequest, session: str | None) -> list[str]:
        """The claude command line for `request` (the prompt itself goes to stdin)."""
        argv = [self.binary, "-p", "--output-format", "json"]
        argv += ["--json-schema", json.dumps(request.schema, separators=(",", ":"))]
        argv += ["--append-system-prompt", request.system]
        # The worktree holds the change under review: its .claude/ settings (hooks,
        # permissions, MCP approvals) must not configure claude. The user's own apply.
        argv += ["--setting-sources", "user"]
        if self.role == "proposer":
            if session is None:
                raise AgentError("claude-fork: no session to fork", backend=self.backend)
            tools = ",".join((*READ_ONLY_TOOLS, *EDIT_TOOLS))
            argv += ["--resume", session, "--fork-session", "--tools", tools]
            argv += ["--allowedTools", tools, "--permission-mode", "acceptEdits"]
        else:
            web = WEB_TOOLS if request.web_access else ()
            tools = ",".join((*READ_ONLY_TOOLS, *web))
            argv += ["--tools", tools, "--allowedTools", tools]
            denied = [t for t in DENIED_FOR_CRITIC if t not in web]
            argv += ["--disallowedTools", ",".join(denied)]
            argv += ["--strict-mcp-config", "--no-session-persistence"]
        if self._model_flag:
            argv += ["--model", self._model_flag]
        return [*argv, *self.extra_args]

    async def run(self, request: AgentRequest) -> AgentReply:
        check_model_requests_allowed(self.endpoint(), backend=self.backend)
        session = self.session_to_fork(request)
        argv = self.argv(request, session)
        project = project_dir(request.worktree)
        existed = _entries(project)
        try:
            copied = _place_transcript(session, request.worktree) if session else None
            try:
                result = await run_process(
                    argv,
                    backend=self.backend,
                    cwd=request.worktree,
                    timeout_s=request.timeout_s,
                    stdin=request.prompt.encode(),
                    env_add=self.env_add,
                )
            finally:
                if copied is not None:
                    copied.unlink(missing_ok=True)
        finally:
            _remove_added(project, existed)
        return self._reply(request, argv, result)

    def _reply(self, request: AgentRequest, argv: list[str], result: ProcessResult) -> AgentReply:
        exchange: RawExchange = {
            "argv": argv,
            "system": request.system,
            "prompt": request.prompt,
            "stdout": result.stdout_text,
            "stderr_tail": result.stderr_text,
            "returncode": result.returncode,
        }
        try:
            doc = json.loads(result.stdout_text)
        except json.JSONDecodeError:
            doc = None  # reported just below, with the raw text
        if not isinstance(doc, dict) or doc.get("type") != "result":
            if result.returncode != 0:
                raise AgentError(f"{self.backend}: {result.failure()}", backend=self.backend)
            return AgentReply(
                output=None,
                raw_text=result.stdout_text,
                wall_s=result.wall_s,
                exchange=exchange,
                error="claude printed no JSON result object",
            )
        if doc.get("is_error") or result.returncode != 0:
            raise self._failure(doc, result)
        usage = _usage(doc)
        reply = AgentReply(
            output=None,
            raw_text=result.stdout_text,
            usage=usage,
            cost=self._cost(doc, usage, exchange),
            wall_s=result.wall_s,
            exchange=exchange,
            session=_str_or_none(doc.get("session_id")),
        )
        structured = doc.get("structured_output")
        if structured is None:
            reply.error = "claude returned no structured output (the model answered in text)"
            return reply
        size = len(json.dumps(structured))
        if size > MAX_REPLY_CHARS:
            reply.error = f"structured output of {size} characters is over the limit"
            return reply
        try:
            reply.output = validate(structured, request.schema, what=self.backend)
        except ProtocolError as exc:
            reply.error = str(exc)
        return reply

    def _failure(self, doc: dict[str, Any], result: ProcessResult) -> AgentError:
        """The error of a result that says it failed. claude reports an API error with
        `subtype: "success"`; only an error subtype (error_max_turns, ...) names the kind."""
        status = doc.get("api_error_status")
        status = status if isinstance(status, int) else None
        detail = str(doc.get("result") or "; ".join(map(str, doc.get("errors") or [])) or "")
        subtype = str(doc.get("subtype") or "")
        kind = subtype if subtype.startswith("error") else "error"
        message = f"{self.backend}: {kind}"
        if status is not None:
            message += f" (HTTP {status})"
        message += f": {detail[:2000]}" if detail else f"; {result.failure()}"
        failure: Failure = "crashed"
        if status is not None:
            failure = "http_status"
        elif any(marker in detail for marker in _UNREACHABLE_MARKERS):
            failure = "unreachable"
        elif any(marker in detail for marker in _MALFORMED_MARKERS):
            failure = "malformed"
        return AgentError(
            message,
            backend=self.backend,
            retryable=status in RETRYABLE_STATUS or failure == "unreachable",
            failure=failure,
            status=status,
        )

    def _cost(self, doc: dict[str, Any], usage: Usage, exchange: RawExchange) -> float:
        """A price in config wins; else claude's own total_cost_usd; else the built-in list
        price of the model claude reports having used; else 0 marked unknown."""
        used = (
            [str(m) for m in doc.get("modelUsage") or {}]
            if isinstance(doc.get("modelUsage"), dict)
            else []
        )
        model = self._model_flag or (used[0] if len(used) == 1 else self.model)
        configured = self.settings.prices.get(model)
        reported = doc.get("total_cost_usd")
        if configured is None and isinstance(reported, int | float):
            exchange["cost_known"], exchange["cost_source"] = True, "claude"
            return float(reported)
        price = lookup_price(model, self.settings.prices, "anthropic")
        exchange["cost_known"] = price is not None
        exchange["cost_source"] = price.source if price is not None else "unknown"
        return price.cost(usage.tokens_in, usage.tokens_out) if price is not None else 0.0


def _usage(doc: dict[str, Any]) -> Usage:
    raw = doc.get("usage")
    if not isinstance(raw, dict):
        return Usage()
    tokens_in = sum(
        int(raw.get(key) or 0)
        for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    return Usage(tokens_in=tokens_in, tokens_out=int(raw.get("output_tokens") or 0))


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _entries(folder: Path) -> set[str] | None:
    """The names in `folder`, or None when it does not exist."""
    try:
        return {entry.name for entry in folder.iterdir()}
    # contend: allow silent-fallback -- a missing folder is recorded as missing (None)
    except FileNotFoundError:
        return None


def _remove_added(folder: Path, existed: set[str] | None) -> None:
    """Remove what appeared in `folder` since `existed` was taken, and `folder` itself when
    it did not exist then. Only what a call of ours added is ever removed."""
    now = _entries(folder)
    if now is None:
        return
    for name in now - (existed or set()):
        path = folder / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    if existed is None and not any(folder.iterdir()):
        folder.rmdir()


def _place_transcript(session: str, worktree: Path) -> Path | None:
    """Copy the transcript of `session` to the worktree's project directory so that
    `claude --resume` finds it there; return the copy to delete, or None when the
    transcript already lives there (a fork made in this worktree). An identical copy left
    by an interrupted run is overwritten; a different file of that name is an error."""
    source = find_transcript(session)
    target_dir = project_dir(worktree)
    target = target_dir / source.name
    if source.resolve() == target.resolve():
        return None
    if target.exists() and target.read_bytes() != source.read_bytes():
        raise AgentError(
            f"claude-fork: {target} exists and is not the transcript being forked",
            backend="claude-fork",
        )
    target_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)
    return target


def create(arg: str | None, ctx: BackendContext) -> ClaudeCodeAgent:
    """`claude[:MODEL]` for a critic or oracle; `claude-fork[:SESSION]` for the proposer."""
    return ClaudeCodeAgent.for_spec(arg, ctx)
