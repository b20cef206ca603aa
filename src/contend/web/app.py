"""The Starlette application of `contend serve`: pages, one form, one event stream.

    GET  /                                   runs (filter by verdict, branch, kind)
    GET  /runs/{run}                         a run: disputes ranked, evidence, decisions
    GET  /runs/{run}?fragment=1              the live part of that page (for live.js)
    GET  /runs/{run}/disputes/{attack}       one dispute's whole thread
    POST /runs/{run}/disputes/{attack}/decide  uphold | overrule | waive, with a note
    GET  /runs/{run}/live                    server-sent events: the ledger grew
    GET  /stats                              the figures of `contend stats`
    GET  /experiments[/{suite}[/figures/{png}]]  experiment reports
    GET  /static/{style.css|live.js}

Access control and headers are security.Guard's. A decision goes through
`review.respond.answer_in_run`, the code path of `contend decide`. Every page reads the
ledger fresh and verifies it; a run that does not verify is named and refused.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import anyio.to_thread
import uvicorn
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from contend.config import Settings
from contend.errors import ContendError, LockHeld, UserError
from contend.ledger.index import INTACT, recent, refresh, stats_rows
from contend.ledger.runs import LEDGER_FILE
from contend.ledger.stats import BY_CHOICES, compute
from contend.protocol.model import Action, Actor
from contend.redaction import redact_text
from contend.report.escape import visible
from contend.review.respond import answer_in_run
from contend.review.runread import RunTampered, read_run, run_dir_of
from contend.web import views
from contend.web.security import Access, Guard

DECISIONS = {"uphold": Action.UPHOLD, "overrule": Action.OVERRULE, "waive": Action.WAIVE}
MAX_FORM_BYTES = 64 * 1024
MAX_NOTE_CHARS = 20_000
STATIC = {"style.css": "text/css; charset=utf-8", "live.js": "text/javascript; charset=utf-8"}
LIVE_POLL_S = 0.5
LIVE_KEEPALIVE_S = 15.0


@dataclass(frozen=True, slots=True)
class ServeConfig:
    state_dir: Path
    repo: Path | None  # the repository served (code excerpts, who decides), if any
    settings: Settings
    access: Access
    # Set when the server stops: open event streams end, so Ctrl-C never waits on a page.
    stopping: threading.Event = field(default_factory=threading.Event)


def _finalize(value: Any) -> Any:
    # Every string that reaches a page passes redaction (a code excerpt comes from git,
    # not from the redacted ledger), is shown with its control characters (bidi overrides,
    # ESC, ...) as visible escapes, then HTML-escaped by autoescape.
    if isinstance(value, str) and not isinstance(value, Markup):
        return visible(redact_text(value))
    return value


def _environment() -> Environment:
    folder = resources.files("contend.web") / "templates"
    env = Environment(
        loader=FileSystemLoader(str(folder)),
        autoescape=True,
        undefined=StrictUndefined,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pct"] = lambda v: "-" if v is None else f"{v * 100:.1f}%"
    env.filters["money"] = lambda v: "-" if v is None else f"${v:.4f}"
    env.filters["secs"] = lambda v: "-" if v is None else f"{v:.1f} s"
    env.filters["one_line"] = lambda v: visible(str(v), single_line=True)
    return env


class _Pages:
    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.env = _environment()

    # --- helpers -------------------------------------------------------------------------

    def render(self, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        # Hex digits only: marked safe so that redaction never reads it as a secret.
        context.setdefault("csrf", Markup(self.config.access.csrf))
        context.setdefault("state_dir", str(self.config.state_dir))
        return HTMLResponse(self.env.get_template(name).render(**context), status_code=status)

    def error(self, status: int, message: str, title: str = "Error") -> HTMLResponse:
        return self.render("error.html", status, title=title, message=message)

    @property
    def min_families(self) -> int:
        return self.config.settings.min_families

    def _read(self, run_id: str) -> Any:
        return read_run(self.config.state_dir, run_id, min_families=self.min_families)

    async def _run_page(
        self, run_id: str, *, status: int = 200, fragment: bool = False, **extra: Any
    ) -> Response:
        try:
            read = await anyio.to_thread.run_sync(self._read, run_id)
        except RunTampered as exc:
            return self.error(409, str(exc), "Ledger not intact — refused")
        except UserError as exc:
            return self.error(404, str(exc), "Not found")
        if read.kind == "claims":
            try:
                claims = await anyio.to_thread.run_sync(views.claims_view, read)
            except UserError as exc:
                return self.error(409, str(exc), "Claim report refused")
            return self.render("claims.html", status, view=claims)
        view = await anyio.to_thread.run_sync(
            lambda: views.review_view(read, self.config.repo, min_families=self.min_families)
        )
        extra.setdefault("error", None)
        extra.setdefault("form", {})
        extra.setdefault("done", None)
        name = "_live.html" if fragment else "run.html"
        return self.render(name, status, view=view, **extra)

    # --- pages ---------------------------------------------------------------------------

    async def runs(self, request: Request) -> Response:
        state_dir = self.config.state_dir

        def load() -> tuple[list[Any], list[str]]:
            refreshed = refresh(state_dir, min_families=self.min_families)
            return recent(state_dir, limit=1000), refreshed.problems

        rows, problems = await anyio.to_thread.run_sync(load)
        verdicts = sorted({_verdict_of(r) for r in rows})
        branches = sorted({r.branch for r in rows if r.branch})
        kinds = sorted({r.kind for r in rows if r.integrity == INTACT})
        want_verdict = request.query_params.get("verdict", "")
        want_branch = request.query_params.get("branch", "")
        want_kind = request.query_params.get("kind", "")
        shown = [
            r
            for r in rows
            if (not want_verdict or _verdict_of(r) == want_verdict)
            and (not want_branch or r.branch == want_branch)
            and (not want_kind or r.kind == want_kind)
        ]
        experiments = await anyio.to_thread.run_sync(views.experiment_dirs, state_dir)
        return self.render(
            "runs.html",
            rows=shown,
            total=len(rows),
            problems=problems,
            verdicts=verdicts,
            branches=branches,
            kinds=kinds,
            want={"verdict": want_verdict, "branch": want_branch, "kind": want_kind},
            experiments=[p.name for p in experiments],
            verdict_of=_verdict_of,
        )

    async def run(self, request: Request) -> Response:
        fragment = request.query_params.get("fragment") == "1"
        done = request.query_params.get("decided")
        return await self._run_page(request.path_params["run_id"], fragment=fragment, done=done)

    async def dispute(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        attack_id = request.path_params["attack_id"]
        try:
            read = await anyio.to_thread.run_sync(self._read, run_id)
            if read.kind != "review":
                raise UserError(f"run {run_id} is a {read.kind} run: it has no disputes")
            view = await anyio.to_thread.run_sync(
                lambda: views.review_view(read, self.config.repo, min_families=self.min_families)
            )
            item = views.dispute_view(view, attack_id)
        except RunTampered as exc:
            return self.error(409, str(exc), "Ledger not intact — refused")
        except UserError as exc:
            return self.error(404, str(exc), "Not found")
        return self.render("dispute.html", view=view, d=item, error=None, form={})

    async def decide(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        attack_id = request.path_params["attack_id"]
        body = await _bounded_body(request)
        if body is None:
            return self.error(413, f"the form is larger than {MAX_FORM_BYTES} bytes")
        form = {k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
        if not self.config.access.valid_csrf(form.get("csrf")):
            return self.error(403, "forbidden: the form's CSRF token is missing or wrong")
        note = form.get("note", "")
        kept = {"attack": attack_id, "decision": form.get("decision", ""), "note": note}
        action = DECISIONS.get(form.get("decision", ""))
        problem = None
        if action is None:
            problem = "choose uphold, overrule or waive"
        elif not note.strip():
            problem = "a decision needs a note: say why (it goes into the ledger verbatim)"
        elif len(note) > MAX_NOTE_CHARS:
            problem = f"the note is longer than {MAX_NOTE_CHARS} characters"
        if problem is None:
            assert action is not None
            try:
                await anyio.to_thread.run_sync(
                    lambda: self._decide(run_id, attack_id, action, note)
                )
            except RunTampered as exc:
                return self.error(409, str(exc), "Ledger not intact — refused")
            except LockHeld as exc:
                problem = f"a review is writing this repository's runs right now; try again ({exc})"
            except ContendError as exc:
                problem = str(exc)
        if problem is not None:
            # The page again, with the error and the person's note kept in the form.
            return await self._run_page(run_id, status=400, error=problem, form=kept)
        return RedirectResponse(
            f"/runs/{run_id}?decided={attack_id}#d-{attack_id}", status_code=303
        )

    def _decide(self, run_id: str, attack_id: str, action: Action, note: str) -> None:
        # Refuse a tampered ledger with its name before the shared path opens it.
        self._read(run_id)
        repo = self.config.repo if self.config.repo is not None else Path.cwd()
        answer_in_run(
            self.config.state_dir,
            run_id,
            repo,
            self.config.settings,
            attack_id,
            action,
            text=note,
            by="human",
            actor=Actor.HUMAN,
            wait_s=2.0,
        )

    async def live(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        try:
            ledger = run_dir_of(self.config.state_dir, run_id) / LEDGER_FILE
        except UserError as exc:
            return self.error(404, str(exc), "Not found")

        async def events() -> AsyncIterator[bytes]:
            last = _mark(ledger)
            quiet = 0.0
            yield b"retry: 2000\n\n"
            while not self.config.stopping.is_set() and not await request.is_disconnected():
                await asyncio.sleep(LIVE_POLL_S)
                now = _mark(ledger)
                if now != last:
                    last = now
                    quiet = 0.0
                    yield f"event: change\ndata: {now[0]}\n\n".encode()
                else:
                    quiet += LIVE_POLL_S
                    if quiet >= LIVE_KEEPALIVE_S:
                        quiet = 0.0
                        yield b": keepalive\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    async def stats(self, request: Request) -> Response:
        by = request.query_params.get("by", "critic")
        if by not in BY_CHOICES:
            return self.error(400, f"by must be one of {', '.join(BY_CHOICES)}")
        state_dir = self.config.state_dir

        def load() -> tuple[dict[str, Any], list[str]]:
            refreshed = refresh(state_dir, min_families=self.min_families)
            rows = stats_rows(state_dir)
            return compute(rows, (by,)), refreshed.problems

        data, problems = await anyio.to_thread.run_sync(load)
        return self.render("stats.html", data=data, by=by, choices=BY_CHOICES, problems=problems)

    async def experiments(self, request: Request) -> Response:
        dirs = await anyio.to_thread.run_sync(views.experiment_dirs, self.config.state_dir)
        items: list[tuple[str, views.ExperimentView | None, str | None]] = []
        for folder in dirs:
            try:
                items.append((folder.name, views.experiment_view(folder), None))
            except UserError as exc:
                items.append((folder.name, None, str(exc)))
        return self.render("experiments.html", items=items)

    async def experiment(self, request: Request) -> Response:
        try:
            folder = views.experiment_dir(self.config.state_dir, request.path_params["suite"])
            view = views.experiment_view(folder)
        except UserError as exc:
            return self.error(404, str(exc), "Not found")
        return self.render("experiment.html", view=view)

    async def figure(self, request: Request) -> Response:
        try:
            path = views.figure_path(
                self.config.state_dir, request.path_params["suite"], request.path_params["name"]
            )
        except UserError as exc:
            return self.error(404, str(exc), "Not found")
        return Response(path.read_bytes(), media_type="image/png")

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return self.error(404, "no such file", "Not found")
        data = (resources.files("contend.web") / "static" / name).read_bytes()
        return Response(data, media_type=STATIC[name])


def _verdict_of(row: Any) -> str:
    if row.integrity != INTACT:
        return str(row.integrity)
    return str(row.verdict) if row.verdict else str(row.phase or "unfinished")


def _mark(ledger: Path) -> tuple[int, int]:
    try:
        info = os.stat(ledger)
    except FileNotFoundError:
        return (-1, -1)
    return (info.st_size, info.st_mtime_ns)


async def _bounded_body(request: Request) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


class Server(uvicorn.Server):
    """uvicorn's server, telling the page's event streams to end before it waits for its
    connections to close."""

    def __init__(self, config: uvicorn.Config, stopping: threading.Event) -> None:
        super().__init__(config)
        self.stopping = stopping

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.stopping.set()
        await super().shutdown(sockets=sockets)


def server(config: ServeConfig, **options: Any) -> Server:
    """The uvicorn server of the app for `config` (options: uvicorn.Config's)."""
    settings = uvicorn.Config(
        create_app(config),
        log_level="warning",
        server_header=False,
        proxy_headers=False,
        **options,
    )
    return Server(settings, config.stopping)


def create_app(config: ServeConfig) -> Guard:
    pages = _Pages(config)

    async def not_found(request: Request, exc: Exception) -> Response:
        return pages.error(404, "no such page", "Not found")

    app = Starlette(
        routes=[
            Route("/", pages.runs, methods=["GET"]),
            Route("/runs/{run_id}", pages.run, methods=["GET"]),
            Route("/runs/{run_id}/live", pages.live, methods=["GET"]),
            Route("/runs/{run_id}/disputes/{attack_id}", pages.dispute, methods=["GET"]),
            Route("/runs/{run_id}/disputes/{attack_id}/decide", pages.decide, methods=["POST"]),
            Route("/stats", pages.stats, methods=["GET"]),
            Route("/experiments", pages.experiments, methods=["GET"]),
            Route("/experiments/{suite}", pages.experiment, methods=["GET"]),
            Route("/experiments/{suite}/figures/{name}", pages.figure, methods=["GET"]),
            Route("/static/{name}", pages.static, methods=["GET"]),
        ],
        exception_handlers={404: not_found},
    )
    return Guard(app, config.access)
