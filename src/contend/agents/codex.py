"""Codex CLI (`codex exec`) as a critic or oracle (read-only sandbox), or as the proposer
(`codex exec fork`, a fork of the author's own session).

Critic / oracle, run in the thread's worktree:

    codex exec --sandbox read-only --json --output-schema FILE --skip-git-repo-check
               -c developer_instructions=SYSTEM [-m MODEL] PROMPT

The read-only guarantee is codex's own OS sandbox (Landlock/seccomp on Linux, Seatbelt on
macOS): every command the model runs sees a read-only file system. The prompt is an
argument with stdin from /dev/null (codex otherwise waits to read stdin); a prompt over
100 KB goes through stdin as `-` instead, since Linux caps one argument at 128 KB.
`--json` prints JSONL events: the final `agent_message` item is the structured output
(codex passes the schema to the model as a strict json_schema format), `turn.completed`
carries token usage, `turn.failed` / `error` events carry failures.

Proposer (`codex-fork[:SESSION]`): `codex exec -c sandbox_mode="workspace-write" fork
SESSION ...` (the fork subcommand has no --sandbox flag; the config key sets it). codex
writes the fork to a new rollout file, so the author's session file is only read. Without
SESSION the newest session recorded for the repository (its `session_meta.cwd`) is used.

Codex does not report a cost: it comes from `prices` in config, else the built-in list
price, else it is recorded as 0 with `cost_known = false` in the exchange. The user's
environment reaches codex unchanged (login in CODEX_HOME, config.toml, OPENAI_API_KEY);
`extra_args` / `env_add` are for tests only and never read from config. When
CONTEND_ALLOW_MODEL_REQUESTS is off (the test suite), a run whose endpoint is not loopback
is refused before codex starts.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contend.agents.api_common import check_model_requests_allowed, lookup_price
from contend.agents.base import AgentReply, AgentRequest, Role, Usage
from contend.agents.cli_agent import CliAgentConfig
from contend.agents.process import ProcessResult, run_process
from contend.agents.schemas import validate
from contend.errors import AgentError, ProtocolError, UserError

if TYPE_CHECKING:
    from contend.config import Settings

DEFAULT_ENDPOINT = "https://api.openai.com/v1"
_BASE_URL = re.compile(r'base_url\s*=\s*"([^"]+)"')
MAX_PROMPT_ARG_BYTES = 100_000
# A review reply this long is not a review; refusing it also keeps the ledger bounded.
MAX_REPLY_CHARS = 1_000_000
# codex words its failures in prose; these mark the ones worth retrying later.
_RETRYABLE_MARKERS = ("429", "Too Many Requests", "high demand", "stream disconnected")


def codex_home() -> Path:
    configured = os.environ.get("CODEX_HOME")
    return Path(configured) if configured else Path.home() / ".codex"


def repo_root(start: Path) -> Path:
    """The git work tree containing `start` (the nearest directory with a .git entry), or
    `start` itself outside any repository."""
    here = start.resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return here


def newest_session(repo: Path) -> str:
    """The id of the newest codex session whose working directory was in `repo`."""
    root = repo.resolve()
    rollouts = sorted(
        (codex_home() / "sessions").glob("**/rollout-*.jsonl"),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )
    for rollout in rollouts:
        meta = _session_meta(rollout)
        if meta is None:
            continue
        cwd = Path(str(meta.get("cwd", "")))
        if cwd.is_absolute() and cwd.is_relative_to(root):
            return str(meta["id"])
    raise UserError(
        f"codex-fork: no codex session found for {root} under {codex_home()}/sessions; "
        "name one with codex-fork:SESSION"
    )


def _session_meta(rollout: Path) -> dict[str, Any] | None:
    with rollout.open("rb") as handle:
        first = handle.readline()
    try:
        record = json.loads(first)
    # contend: allow silent-fallback -- not JSON: no rollout; the search goes on
    except json.JSONDecodeError:
        return None  # not a rollout this version can read; the caller looks further
    if not isinstance(record, dict) or record.get("type") != "session_meta":
        return None
    payload = record.get("payload")
    return payload if isinstance(payload, dict) else None


class CodexAgent(CliAgentConfig):
    name = "codex"
    family = "openai"

    def endpoint(self) -> str:
        """Where codex will send requests: a provider base_url given on the command line
        (tests), else OpenAI's (codex ignores OPENAI_BASE_URL)."""
        for arg in self.extra_args:
            match = _BASE_URL.search(arg)
            if match:
                return match[1]
        return DEFAULT_ENDPOINT

    def argv(self, request: AgentRequest, schema_file: Path, session: str | None) -> list[str]:
        """The codex command line, without the prompt (see `run`)."""
        argv = [self.binary, "exec"]
        if self.role == "proposer":
            if session is None:
                raise AgentError("codex-fork: no session to fork", backend=self.backend)
            argv += ["-c", 'sandbox_mode="workspace-write"', "fork", session]
        else:
            argv += ["--sandbox", "read-only"]
        argv += ["--json", "--output-schema", str(schema_file), "--skip-git-repo-check"]
        # JSON string escapes are valid TOML basic-string escapes, so this is a TOML string.
        argv += ["-c", "developer_instructions=" + json.dumps(request.system)]
        if self._model_flag:
            argv += ["-m", self._model_flag]
        return [*argv, *self.extra_args]

    async def run(self, request: AgentRequest) -> AgentReply:
        check_model_requests_allowed(self.endpoint(), backend=self.backend)
        session = (request.session or self.session) if self.role == "proposer" else None
        with tempfile.TemporaryDirectory(prefix="contend-codex-") as scratch:
            schema_file = Path(scratch) / "schema.json"
            schema_file.write_text(json.dumps(request.schema))
            argv = self.argv(request, schema_file, session)
            prompt = request.prompt.encode()
            stdin: bytes | None = None
            if len(prompt) > MAX_PROMPT_ARG_BYTES:
                argv.append("-")
                stdin = prompt
            else:
                argv.append(request.prompt)
            result = await run_process(
                argv,
                backend=self.backend,
                cwd=request.worktree,
                timeout_s=request.timeout_s,
                stdin=stdin,
                env_add=self.env_add,
            )
        return self._reply(request, argv, result)

    def _reply(self, request: AgentRequest, argv: list[str], result: ProcessResult) -> AgentReply:
        events, bad_lines = _parse_events(result.stdout_text)
        exchange: dict[str, Any] = {
            "argv": ["<prompt>" if arg == request.prompt else arg for arg in argv],
            "system": request.system,
            "prompt": request.prompt,
            "stdout": result.stdout_text,
            "stderr_tail": result.stderr_text,
            "returncode": result.returncode,
        }
        failures = [_event_error(e) for e in events if e.get("type") in ("error", "turn.failed")]
        if failures or result.returncode != 0:
            detail = "; ".join(dict.fromkeys(f for f in failures if f)) or result.failure()
            raise AgentError(
                f"{self.backend}: {detail}",
                backend=self.backend,
                retryable=any(m in detail for m in _RETRYABLE_MARKERS),
            )
        usage = _usage(events)
        reply = AgentReply(
            output=None,
            raw_text="",
            usage=usage,
            cost=self._cost(usage, exchange),
            wall_s=result.wall_s,
            exchange=exchange,
            session=_thread_id(events),
        )
        messages = [
            e["item"]["text"]
            for e in events
            if e.get("type") == "item.completed"
            and isinstance(e.get("item"), dict)
            and e["item"].get("type") == "agent_message"
            and isinstance(e["item"].get("text"), str)
        ]
        if bad_lines:
            reply.raw_text = result.stdout_text
            reply.error = f"codex printed {bad_lines} line(s) that are not JSON events"
            return reply
        if not messages:
            reply.error = "codex finished without a final message"
            return reply
        reply.raw_text = messages[-1]
        if len(reply.raw_text) > MAX_REPLY_CHARS:
            reply.error = f"final message of {len(reply.raw_text)} characters is over the limit"
            return reply
        try:
            reply.output = validate(json.loads(messages[-1]), request.schema, what=self.backend)
        except json.JSONDecodeError as exc:
            reply.error = f"final message is not JSON: {exc}"
        except ProtocolError as exc:
            reply.error = str(exc)
        return reply

    def _cost(self, usage: Usage, exchange: dict[str, Any]) -> float:
        """Config price (always wins), else the built-in list price, else 0 marked unknown."""
        price = lookup_price(self.model, self.settings.prices, "openai")
        exchange["cost_known"] = price is not None
        exchange["cost_source"] = price.source if price is not None else "unknown"
        return price.cost(usage.tokens_in, usage.tokens_out) if price is not None else 0.0


def _parse_events(stdout: str) -> tuple[list[dict[str, Any]], int]:
    """The JSONL events, and how many non-empty lines were not JSON objects."""
    events: list[dict[str, Any]] = []
    bad = 0
    for line in stdout.splitlines():
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            bad += 1
            continue
        if isinstance(event, dict):
            events.append(event)
        else:
            bad += 1
    return events, bad


def _event_error(event: dict[str, Any]) -> str:
    if event.get("type") == "turn.failed":
        error = event.get("error")
        return str(error.get("message", "")) if isinstance(error, dict) else str(error)
    return str(event.get("message", ""))


def _usage(events: list[dict[str, Any]]) -> Usage:
    tokens_in = tokens_out = 0
    for event in events:
        usage = event.get("usage") if event.get("type") == "turn.completed" else None
        if isinstance(usage, dict):
            tokens_in += int(usage.get("input_tokens") or 0)
            tokens_out += int(usage.get("output_tokens") or 0)
    return Usage(tokens_in=tokens_in, tokens_out=tokens_out)


def _thread_id(events: list[dict[str, Any]]) -> str | None:
    for event in events:
        if event.get("type") == "thread.started" and isinstance(event.get("thread_id"), str):
            return str(event["thread_id"])
    return None


def create(arg: str | None, settings: Settings, role: Role) -> CodexAgent:
    """`codex[:MODEL]` for a critic or oracle; `codex-fork[:SESSION]` for the proposer."""
    if role == "proposer":
        session = arg or newest_session(repo_root(Path.cwd()))
        return CodexAgent(role=role, settings=settings, session=session)
    return CodexAgent(role=role, settings=settings, model=arg)
