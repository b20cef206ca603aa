"""Codex CLI (`codex exec`) as a critic or oracle (read-only sandbox), or as the proposer
(`codex exec fork`, a fork of the author's own session).

Critic / oracle, run in the thread's worktree:

    codex exec --sandbox read-only --json --output-schema FILE --skip-git-repo-check
               --ephemeral --ignore-rules -c projects={...untrusted...} -c <read tools only>
               -c features.unbounded_connection_retries=false
               -c developer_instructions=SYSTEM [-m MODEL] PROMPT

The read-only guarantee is codex's own OS sandbox (Landlock/seccomp on Linux, Seatbelt on
macOS): every command the model runs sees a read-only file system. Two things could run a
command outside it, and both are switched off for a critic: an execpolicy rule with
`decision = "allow"` (`--ignore-rules`: the user's rules too, since an allow-rule escapes
the sandbox), and an MCP server (see the trust boundary below). The tools that reach beyond
the worktree or wait for a person (web search, sub-agents, request_user_input, goals,
connectors, image generation, browser and computer use, sleep) are turned off by config
keys, so a critic is offered shell commands in the sandbox, `write_stdin` to them and
`view_image` (checked against the tools codex really sends, in the tests); web search
only when the request asks for web access (`-c web_search="live"`, claims' external-tool
checks: a tool of the model's server, the sandbox stays read-only). A model whose
codex catalogue entry forces the multi-agent v2 tools keeps them; its sub-agents inherit
the read-only sandbox.

Trust boundary (DESIGN §9): the worktree holds the change under review, so its `.codex/`
(config.toml with MCP servers and `notify`, execpolicy rules, hooks, agents) must never
configure codex. codex loads a project's `.codex/` only for a trusted project, and it
looks a linked worktree's trust up under the worktree's own path and under the main
repository's root — which the user may well have trusted (codex's first-run prompt writes
`[projects."<repo>"] trust_level = "trusted"`). So every run, critic and proposer alike,
passes `-c projects={"<path>"={trust_level="untrusted"}, ...}` for the worktree, its
repository's main work tree and the parent of its git directory, each as given and
resolved. (The dotted form `-c projects."<path>".trust_level=...` is not applied by codex
0.171; the inline table is merged into the user's table and wins.) `AGENTS.md` is content,
not configuration: codex reads it as instructions, and the critic prompt treats the change
as untrusted input. codex reads `.env` only from CODEX_HOME, never from the worktree.

A model server that cannot be reached: codex would reconnect "waiting for network" until our
deadline (ten minutes by default). `features.unbounded_connection_retries=false` makes it
give up after the provider's own retry count and say why; should a codex version ignore
that key, its first "Reconnecting... waiting for network" line ends the run at once
(`give_up` in `process`). Either way the AgentError carries codex's words and
`failure="unreachable"`.

`--ephemeral`: codex keeps no rollout of a contend run in the user's CODEX_HOME — a
critic's would hold the diff, a fork's the author's context — and so a later
`codex-fork` without SESSION can never pick a contend run as "the author's session".

The prompt is an argument with stdin from /dev/null (codex otherwise waits to read stdin);
a prompt over 100 KB goes through stdin as `-` instead, since Linux caps one argument at
128 KB. `--json` prints JSONL events: the final `agent_message` item is the structured
output (codex passes the schema to the model as a strict json_schema format),
`turn.completed` carries token usage, `turn.failed` / `error` events carry failures.

Proposer (`codex-fork[:SESSION]`): `codex exec -c sandbox_mode="workspace-write" fork
SESSION ...` (the fork subcommand has no --sandbox flag; the config key sets it), with the
same trust override, `--ephemeral` and connection setting; the user's own rules and tools
apply. The author's session file is only read. Without SESSION the newest session recorded
for the reviewed repository (its `session_meta.cwd`) is used — the repository under
review, never contend's current directory.

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
import tomllib
from pathlib import Path
from typing import Any

from contend.agents.api_common import check_model_requests_allowed, lookup_price
from contend.agents.base import AgentReply, AgentRequest, BackendContext, Usage
from contend.agents.cli_agent import CliAgentConfig
from contend.agents.gitpaths import repo_paths
from contend.agents.process import ProcessResult, run_process
from contend.errors import AgentError, Failure, ProtocolError, UserError
from contend.protocol.event_types import RawExchange
from contend.protocol.reply_schemas import validate

DEFAULT_ENDPOINT = "https://api.openai.com/v1"
_BASE_URL = re.compile(r'base_url\s*=\s*"([^"]+)"')
MAX_PROMPT_ARG_BYTES = 100_000
# A review reply this long is not a review; refusing it also keeps the ledger bounded.
MAX_REPLY_CHARS = 1_000_000
# codex words its failures in prose; these mark the ones worth retrying later.
_RETRYABLE_MARKERS = ("429", "Too Many Requests", "high demand", "stream disconnected")
# ... and these say which kind of failure it was (codex 0.171's words).
_UNREACHABLE_MARKERS = ("Connection failed", "error sending request", "waiting for network")
_STATUS = re.compile(r"(?:last status|unexpected status):?\s*(\d{3})\b")
_SERVER_BUSY = "high demand"  # codex's words for an HTTP 5xx, without the number
_STREAM_BROKEN = "stream disconnected"
# What codex prints while it retries an unreachable server without limit.
_WAITING_FOR_NETWORK = "waiting for network"

# Every run: the change's .codex/ never applies (see the module docstring), no rollout is
# kept, and an unreachable server ends the run instead of being retried without end.
_EVERY_RUN = (
    "--ephemeral",
    "-c",
    "features.unbounded_connection_retries=false",
)
# A critic or oracle: no execpolicy rules (an allow-rule runs a command outside the
# sandbox), and only the tools that read the worktree. Config keys rather than --disable:
# codex rejects an unknown --disable name but ignores an unknown key, so a codex that
# lacks one of these features still runs.
_READ_ONLY = (
    "--ignore-rules",
    "-c",
    "tools.experimental_request_user_input.enabled=false",
    *(
        arg
        for feature in (
            "multi_agent",
            "multi_agent_v2",
            "goals",
            "apps",
            "image_generation",
            "browser_use",
            "computer_use",
            "tool_suggest",
            "sleep_tool",
            "send_message_to_user_async",
        )
        for arg in ("-c", f"features.{feature}=false")
    ),
)


def codex_home() -> Path:
    configured = os.environ.get("CODEX_HOME")
    return Path(configured) if configured else Path.home() / ".codex"


def untrusted_projects(worktree: Path) -> str:
    """The `-c` value that marks every directory codex may key `worktree`'s project trust
    by as untrusted: the worktree, its repository's main work tree and the parent of its
    git directory, each as given and resolved."""
    paths = {worktree.absolute(), worktree.resolve()}
    found = repo_paths(worktree, backend="codex")
    if found is not None:
        for path in (found.toplevel, found.main, found.common_parent):
            paths |= {path, path.resolve()}
    entries = ",".join(f'{_toml_string(str(p))}={{trust_level="untrusted"}}' for p in sorted(paths))
    return f"projects={{{entries}}}"


def _configured_endpoint() -> str | None:
    """The base_url of the model provider selected in CODEX_HOME/config.toml, if any."""
    try:
        config = tomllib.loads((codex_home() / "config.toml").read_text(encoding="utf-8"))
    # contend: allow silent-fallback -- only feeds the no-network guard, which then refuses
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None  # no readable config: the guard assumes OpenAI's endpoint and refuses
    providers = config.get("model_providers")
    chosen = providers.get(config.get("model_provider")) if isinstance(providers, dict) else None
    url = chosen.get("base_url") if isinstance(chosen, dict) else None
    return url if isinstance(url, str) else None


def _toml_string(text: str) -> str:
    """`text` as a TOML basic string (JSON escapes are TOML escapes; DEL must be escaped)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


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
    newest_session = staticmethod(newest_session)
    name = "codex"
    family = "openai"
    web_capable = True

    def endpoint(self) -> str:
        """Where codex will send requests: a provider base_url given on the command line
        (tests), else that of the provider the user's config.toml selects, else OpenAI's
        (codex ignores OPENAI_BASE_URL)."""
        for arg in self.extra_args:
            match = _BASE_URL.search(arg)
            if match:
                return match[1]
        return _configured_endpoint() or DEFAULT_ENDPOINT

    def argv(self, request: AgentRequest, schema_file: Path, session: str | None) -> list[str]:
        """The codex command line, without the prompt (see `run`)."""
        argv = [self.binary, "exec"]
        if self.role == "proposer":
            if session is None:
                raise AgentError("codex-fork: no session to fork", backend=self.backend)
            argv += ["-c", 'sandbox_mode="workspace-write"', "fork", session]
        else:
            argv += ["--sandbox", "read-only", *_READ_ONLY]
            # Web search only when the request asks (claims' external-tool checks): a tool
            # of the model's server, so the sandbox stays read-only either way.
            argv += ["-c", 'web_search="live"' if request.web_access else 'web_search="disabled"']
        argv += ["--json", "--output-schema", str(schema_file), "--skip-git-repo-check"]
        argv += [*_EVERY_RUN, "-c", untrusted_projects(request.worktree)]
        # JSON string escapes are valid TOML basic-string escapes, so this is a TOML string.
        argv += ["-c", "developer_instructions=" + json.dumps(request.system)]
        if self._model_flag:
            argv += ["-m", self._model_flag]
        return [*argv, *self.extra_args]

    async def run(self, request: AgentRequest) -> AgentReply:
        check_model_requests_allowed(self.endpoint(), backend=self.backend)
        session = self.session_to_fork(request)
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
                give_up=self._give_up,
            )
        return self._reply(request, argv, result)

    def _give_up(self, line: str) -> AgentError | None:
        """End the run at codex's first word that it is waiting for the network."""
        if _WAITING_FOR_NETWORK not in line:
            return None
        events, _ = _parse_events(line)
        said = "; ".join(_event_error(e) for e in events if e.get("type") == "error")
        if _WAITING_FOR_NETWORK not in said:
            return None
        return AgentError(
            f"{self.backend}: cannot reach the model server: {said}",
            backend=self.backend,
            retryable=True,
            failure="unreachable",
        )

    def _reply(self, request: AgentRequest, argv: list[str], result: ProcessResult) -> AgentReply:
        events, bad_lines = _parse_events(result.stdout_text)
        exchange: RawExchange = {
            "argv": ["<prompt>" if arg == request.prompt else arg for arg in argv],
            "system": request.system,
            "prompt": request.prompt,
            "stdout": result.stdout_text,
            "stderr_tail": result.stderr_text,
            "returncode": result.returncode,
        }
        failures = [_event_error(e) for e in events if e.get("type") in ("error", "turn.failed")]
        if failures or result.returncode != 0:
            said = "; ".join(dict.fromkeys(f for f in failures if f))
            detail = said or result.failure()
            failure, status = _classify(said)
            raise AgentError(
                f"{self.backend}: {detail}",
                backend=self.backend,
                retryable=any(m in detail for m in _RETRYABLE_MARKERS),
                failure=failure,
                status=status,
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

    def _cost(self, usage: Usage, exchange: RawExchange) -> float:
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


def _classify(said: str) -> tuple[Failure, int | None]:
    """The kind of failure codex's own words describe, and the HTTP status when it names one."""
    status = _STATUS.search(said)
    if status is not None:
        return "http_status", int(status[1])
    if _SERVER_BUSY in said:
        return "http_status", None
    if any(marker in said for marker in _UNREACHABLE_MARKERS):
        return "unreachable", None
    if _STREAM_BROKEN in said:
        return "malformed", None
    return "crashed", None


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


def create(arg: str | None, ctx: BackendContext) -> CodexAgent:
    """`codex[:MODEL]` for a critic or oracle; `codex-fork[:SESSION]` for the proposer."""
    return CodexAgent.for_spec(arg, ctx)
