"""Gemini CLI (`gemini`, npm @google/gemini-cli) as a critic or oracle, as far as its flags
allow.

    gemini --approval-mode plan --skip-trust --output-format json [-m MODEL]
           -p "<answer instruction>"   < stdin: SYSTEM + PROMPT + the JSON Schema

What it can do: a headless run (`-p`), a JSON envelope on stdout (`--output-format
json`: session_id, response, stats with per-model token counts, or error), and a
read-only mode: `--approval-mode plan` offers no shell tool and refuses writes outside
gemini's own plans directory (verified against gemini 0.61 in the tests).

What it cannot do, and what we do instead:
- no schema enforcement: the schema goes into the prompt and we validate the reply
  ourselves; a reply that does not parse or fit is returned with `error` set;
- no system-prompt flag that keeps its tool instructions (GEMINI_SYSTEM_MD replaces the
  whole prompt): the system text leads the prompt instead;
- no session fork, so it cannot be the proposer (`create` refuses that role);
- no cost in its output: cost comes from `prices` in config, else 0 with
  `cost_known = false` (there is no built-in Gemini price table);
- headless runs require a trusted folder, so `--skip-trust` is passed: gemini then also
  loads the worktree's own `.gemini/` settings and the first `.gemini/.env` or `.env` it
  finds walking up from the worktree — the reviewed change could configure the critic (a
  planted `.env` picks the model and, unless the user set GOOGLE_GEMINI_BASE_URL, sends
  the diff and the user's API key to any server: verified with gemini 0.61). A worktree
  with a `.gemini/` directory is refused (AgentError), and so is a run in which gemini
  would load such an env file from anywhere but the home directory — gemini's own
  `advanced.ignoreLocalEnv = true` (in ~/.gemini/settings.json) lets it skip a plain
  `.env`, and then contend runs it; gemini has no command-line flag for that;
- on HTTP 429 it retries with backoff on its own for a long time: a rate-limited run ends
  at our deadline (AgentTimeout).

The user's environment and ~/.gemini settings (auth type, GEMINI_API_KEY,
GOOGLE_GEMINI_BASE_URL) reach it unchanged; `extra_args` / `env_add` are for tests only.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contend.agents.api_common import (
    RETRYABLE_STATUS,
    check_model_requests_allowed,
    lookup_price,
)
from contend.agents.base import AgentReply, AgentRequest, BackendContext, Capabilities, Role, Usage
from contend.agents.process import ProcessResult, run_process
from contend.errors import AgentError, ProtocolError, UserError
from contend.protocol.event_types import RawExchange
from contend.protocol.reply_schemas import validate

if TYPE_CHECKING:
    from contend.config import Settings

ANSWER_INSTRUCTION = (
    "Answer with exactly one JSON object that matches the JSON Schema given above, "
    "and nothing else: no prose, no code fence."
)
MAX_REPLY_CHARS = 1_000_000
DEFAULT_ENDPOINT = "https://generativelanguage.googleapis.com"
_FENCED = re.compile(r"\A\s*```(?:json)?\s*\n(?P<body>.*)\n\s*```\s*\Z", re.DOTALL)


def full_prompt(request: AgentRequest) -> str:
    """What goes to gemini's stdin: the system text, the prompt, then the schema."""
    schema = json.dumps(request.schema, indent=1)
    return (
        f"{request.system}\n\n{request.prompt}\n\n"
        f"## JSON Schema of your answer\n```json\n{schema}\n```"
    )


class GeminiAgent:
    backend = "gemini"
    family = "google"

    def __init__(
        self,
        *,
        role: Role,
        settings: Settings,
        model: str | None = None,
        binary: str = "gemini",
        extra_args: Sequence[str] = (),
        env_add: Mapping[str, str] | None = None,
    ) -> None:
        if role == "proposer":
            raise UserError("gemini cannot be the proposer: Gemini CLI cannot fork a session")
        self.role = role
        self.settings = settings
        self.model = model or "default"
        self._model_flag = model
        self.binary = binary
        self.extra_args = tuple(extra_args)
        self.env_add = dict(env_add or {})
        self.capabilities = Capabilities(
            structured_output=False, repo_tools=True, read_only_enforced=True
        )

    def endpoint(self) -> str:
        """Where gemini will send requests, as far as the environment says."""
        configured = self.env_add.get("GOOGLE_GEMINI_BASE_URL") or os.environ.get(
            "GOOGLE_GEMINI_BASE_URL"
        )
        return configured or DEFAULT_ENDPOINT

    def argv(self) -> list[str]:
        argv = [self.binary, "--approval-mode", "plan", "--skip-trust", "--output-format", "json"]
        if self._model_flag:
            argv += ["-m", self._model_flag]
        return [*argv, *self.extra_args, "-p", ANSWER_INSTRUCTION]

    async def run(self, request: AgentRequest) -> AgentReply:
        if (request.worktree / ".gemini").exists():
            raise AgentError(
                "gemini: the worktree has a .gemini/ directory; headless gemini must trust "
                "the folder and would load it (settings, hooks, tools) from the change under "
                "review, so this critic refuses to run there",
                backend=self.backend,
            )
        env_file = project_env_file(request.worktree, ignore_local_env=_ignores_local_env())
        if env_file is not None:
            raise AgentError(
                f"gemini: gemini would load {env_file} into its environment (it reads the "
                "first .env above its working directory), and that file may come from the "
                "change under review: it could pick the model or the server that receives "
                "your API key, so this critic refuses to run; set advanced.ignoreLocalEnv "
                "= true in ~/.gemini/settings.json to have gemini skip a project .env",
                backend=self.backend,
            )
        check_model_requests_allowed(self.endpoint(), backend=self.backend)
        argv = self.argv()
        result = await run_process(
            argv,
            backend=self.backend,
            cwd=request.worktree,
            timeout_s=request.timeout_s,
            stdin=full_prompt(request).encode(),
            env_add=self.env_add,
        )
        return self._reply(request, argv, result)

    def _reply(self, request: AgentRequest, argv: list[str], result: ProcessResult) -> AgentReply:
        exchange: RawExchange = {
            "argv": argv,
            "stdin": full_prompt(request),
            "stdout": result.stdout_text,
            "stderr_tail": result.stderr_text,
            "returncode": result.returncode,
        }
        doc = _envelope(result.stdout_text) or _envelope(_last_json_block(result.stderr_text))
        if doc is not None and isinstance(doc.get("error"), dict):
            error = doc["error"]
            code = error.get("code")
            status = code if isinstance(code, int) and 100 <= code <= 599 else None
            raise AgentError(
                f"gemini: {error.get('message', 'error')} (code {code})",
                backend=self.backend,
                retryable=status in RETRYABLE_STATUS,
                failure="http_status" if status is not None else "crashed",
                status=status,
            )
        if result.returncode != 0:
            raise AgentError(f"gemini: {result.failure()}", backend=self.backend)
        if doc is None or not isinstance(doc.get("response"), str):
            return AgentReply(
                output=None,
                raw_text=result.stdout_text,
                wall_s=result.wall_s,
                exchange=exchange,
                error="gemini printed no JSON envelope with a response",
            )
        usage = _usage(doc)
        reply = AgentReply(
            output=None,
            raw_text=doc["response"],
            usage=usage,
            cost=self._cost(usage, exchange),
            wall_s=result.wall_s,
            exchange=exchange,
            session=doc["session_id"] if isinstance(doc.get("session_id"), str) else None,
        )
        if len(reply.raw_text) > MAX_REPLY_CHARS:
            reply.error = f"response of {len(reply.raw_text)} characters is over the limit"
            return reply
        try:
            reply.output = validate(
                json.loads(_unfence(reply.raw_text)), request.schema, what=self.backend
            )
        except json.JSONDecodeError as exc:
            reply.error = f"response is not JSON: {exc}"
        except ProtocolError as exc:
            reply.error = str(exc)
        return reply

    def _cost(self, usage: Usage, exchange: RawExchange) -> float:
        """Config price (always wins), else the built-in list price, else 0 marked unknown."""
        price = lookup_price(self.model, self.settings.prices, None)
        exchange["cost_known"] = price is not None
        exchange["cost_source"] = price.source if price is not None else "unknown"
        return price.cost(usage.tokens_in, usage.tokens_out) if price is not None else 0.0


def project_env_file(start: Path, *, ignore_local_env: bool) -> Path | None:
    """The env file gemini 0.61 would load for a trusted folder `start` (its findEnvFile),
    when that file is not one of the home directory's; None otherwise. Walking up from
    `start`, each directory's `.gemini/.env` comes first, then its `.env` (skipped under
    `advanced.ignoreLocalEnv`, except in the home directory)."""
    home = Path.home().resolve()
    here = start.resolve()
    for directory in (here, *here.parents):
        for candidate, local in (
            (directory / ".gemini" / ".env", False),
            (directory / ".env", True),
        ):
            if local and ignore_local_env and directory != home:
                continue
            if candidate.exists():
                return None if directory == home else candidate
    return None


def _ignores_local_env() -> bool:
    """Whether the user's gemini settings say `advanced.ignoreLocalEnv = true`."""
    path = Path.home() / ".gemini" / "settings.json"
    try:
        settings = json.loads(path.read_text(encoding="utf-8"))
    # contend: allow silent-fallback -- unreadable: assume not set, so the guard refuses
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    advanced = settings.get("advanced") if isinstance(settings, dict) else None
    return isinstance(advanced, dict) and advanced.get("ignoreLocalEnv") is True


def _envelope(text: str) -> dict[str, Any] | None:
    try:
        doc = json.loads(text)
    # contend: allow silent-fallback -- the caller reports it with the raw text
    except json.JSONDecodeError:
        return None  # the caller reports the missing envelope with the raw text
    return doc if isinstance(doc, dict) else None


def _last_json_block(text: str) -> str:
    """gemini prints an error envelope after a stack trace on stderr: the last '{' block."""
    start = text.rfind("\n{")
    return text[start + 1 :] if start >= 0 else text


def _unfence(text: str) -> str:
    """The body of a ```json fence, when the model wrapped its answer in one anyway."""
    match = _FENCED.match(text)
    return match["body"] if match else text


def _usage(doc: dict[str, Any]) -> Usage:
    stats = doc.get("stats")
    models = stats.get("models") if isinstance(stats, dict) else None
    tokens_in = tokens_out = 0
    for entry in (models or {}).values():
        tokens = entry.get("tokens") if isinstance(entry, dict) else None
        if isinstance(tokens, dict):
            tokens_in += int(tokens.get("prompt") or 0)
            tokens_out += int(tokens.get("candidates") or 0) + int(tokens.get("thoughts") or 0)
    return Usage(tokens_in=tokens_in, tokens_out=tokens_out)


def create(arg: str | None, ctx: BackendContext) -> GeminiAgent:
    """`gemini[:MODEL]` for a critic or oracle."""
    return GeminiAgent(role=ctx.role, settings=ctx.settings, model=arg)
