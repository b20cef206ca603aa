"""`contend mcp`: contend as an MCP server over stdio, on the official `mcp` SDK (extra
`contend[mcp]`; only `contend mcp` imports this module).

Tools (each a thin call of what the CLI runs; errors come back as MCP tool errors with the
one line the CLI would print, never a crash of the server):

    review          the whole review of a change (as `contend review`)
    review_focus    one topic or one critic only (seed 004's run-critic-focus)
    verify_claims   claim cards (as `contend verify`)
    status          recent runs and verdict counts (as `contend status --json`)
    get_dispute     one dispute of a run's report, evidence included
    respond         the author's answer without code: defend or concede (`contend respond`)

Resources: `contend://runs/{run_id}/report.md` and `.../report.json` of the repository the
server serves. A review reports progress through MCP progress notifications: one per event
the ledger acknowledged (threads started, objections raised, answers, the verdict).

The server serves one repository (`-C PATH`, default the working directory); a tool's
`path` may name another. Nothing here is reachable from the network: stdio only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ToolError

from contend import __version__
from contend.errors import ContendError, UserError

if TYPE_CHECKING:
    from contend.report.model import Report

_RUN_ID = re.compile(r"[A-Za-z0-9._-]{1,100}")


def _summary(report: Report, run_dir: Path | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "run_id": report.run_id,
        "verdict": report.verdict,
        "exit_code": report.exit_code,
        "reasons": list(report.reasons),
        "unresolved": [
            {
                "id": d.id,
                "topic": d.topic,
                "severity": str(d.severity),
                "path": d.location.path,
                "line": d.location.start_line,
                "claim": d.claim,
                "contention": d.contention,
            }
            for d in report.disputes
        ],
        "resolved": len(report.resolved),
        "report_uri": f"contend://runs/{report.run_id}/report.md",
    }
    if run_dir is not None:
        out["run_dir"] = str(run_dir)
    return out


def _state_dir(path: Path) -> Path:
    from contend.config import load_settings
    from contend.gitio.git import repo_root
    from contend.review.state_dir import open_state_dir

    root = repo_root(path)
    return open_state_dir(root, load_settings(root))


def _load_report(root: Path, run_id: str) -> tuple[Path, Report]:
    from contend.ledger.runs import runs_dir
    from contend.report.model import Report

    if not _RUN_ID.fullmatch(run_id):
        raise UserError(f"{run_id!r} is not a run id")
    run_dir = runs_dir(_state_dir(root)) / run_id
    path = run_dir / "report.json"
    if not path.is_file():
        raise UserError(f"no finished run {run_id!r} in {run_dir.parent}")
    return run_dir, Report.model_validate_json(path.read_bytes())


def build_server(root: Path) -> MCPServer:
    """The server for the repository at `root` (tools may name another `path`)."""
    server: MCPServer = MCPServer(
        "contend",
        version=__version__,
        log_level="WARNING",
        instructions=(
            "Adversarial review of a code change: critics attack it, only surviving disputes "
            "reach the person. `review` runs a whole review; read a report with the "
            "contend://runs/{run_id}/report.md resource."
        ),
    )

    def where(path: str | None) -> Path:
        return root if not path else (root / path).resolve()

    async def call(fn: Callable[[], Any]) -> Any:
        try:
            return await anyio.to_thread.run_sync(fn)
        except ContendError as exc:
            raise ToolError(str(exc)) from exc

    async def run_review(ctx: Context, **kwargs: Any) -> dict[str, Any]:
        from contend.integrations.runner import ReviewArgs
        from contend.integrations.runner import run_review as engine_review
        from contend.report.model import Report

        seen = 0

        def listener(entry: dict[str, Any], _state: object) -> None:
            nonlocal seen
            seen += 1
            message = str(entry.get("kind", "event"))
            anyio.from_thread.run(ctx.report_progress, seen, None, message)

        def work() -> dict[str, Any]:
            result, _ = engine_review(
                ReviewArgs(command="contend mcp review", **kwargs), listener=listener
            )
            return _summary(Report.model_validate_json(result.texts["json"]), result.run_dir)

        summary: dict[str, Any] = await call(work)
        return summary

    @server.tool()
    async def review(
        ctx: Context,
        path: str | None = None,
        base: str | None = None,
        head: str | None = None,
        staged: bool = False,
        critics: list[str] | None = None,
        spec_text: str | None = None,
        max_rounds: int | None = None,
        new: bool = False,
    ) -> dict[str, Any]:
        """Review the change in the git repository at `path` (default: the served one):
        the working tree vs HEAD, or `base`..`head`, or the `staged` index. `critics` as on
        the command line (`static`, `static:security`, `claude`); empty: the configured
        ones. Returns the verdict and the unresolved disputes."""
        return await run_review(
            ctx,
            path=where(path),
            base=base,
            head=head,
            staged=staged,
            critics=tuple(critics or ()),
            spec_text=spec_text,
            max_rounds=max_rounds,
            new=new,
        )

    @server.tool()
    async def review_focus(
        ctx: Context,
        focus: str,
        path: str | None = None,
        base: str | None = None,
        head: str | None = None,
        staged: bool = False,
    ) -> dict[str, Any]:
        """Review with one topic or one critic only: a static topic (`security`,
        `silent-fallback`, `weakened-tests`, ...) or a critic spec (`claude`, `codex:MODEL`,
        `static:concurrency`). A new run, so it never continues a whole review."""
        if not re.fullmatch(r"[A-Za-z0-9_.:/-]{1,100}", focus):
            raise ToolError(f"focus {focus!r}: give a topic or a critic spec")
        from contend.backends import lookup

        # A backend name (`claude`) or a spec with an argument is a critic; else a topic.
        spec = focus if ":" in focus or lookup(focus) is not None else f"static:{focus}"
        return await run_review(
            ctx,
            path=where(path),
            base=base,
            head=head,
            staged=staged,
            critics=(spec,),
            new=True,
        )

    @server.tool()
    async def verify_claims(cards: list[str], out: str | None = None) -> dict[str, Any]:
        """Verify claim cards (YAML/JSON files or directories of them, relative to the
        served repository); returns the claims report (contend.claims/v1)."""
        from contend.cli.verify_cmd import run_verify

        if not cards:
            raise ToolError("give at least one card file or directory")

        def work() -> dict[str, Any]:
            done = run_verify([where(c) for c in cards], None if out is None else where(out))
            data: dict[str, Any] = json.loads(done.texts["json"])
            data["run_dir"] = str(done.run_dir)
            return data

        result: dict[str, Any] = await call(work)
        return result

    @server.tool()
    async def status(path: str | None = None, limit: int = 10) -> dict[str, Any]:
        """Recent review runs of the repository and the verdict counts (the index of the
        ledgers; a tampered ledger is listed as such, never with a verdict)."""
        from dataclasses import asdict

        from contend.ledger.index import recent, refresh, verdict_counts

        if not 1 <= limit <= 1000:
            raise ToolError("limit must be between 1 and 1000")

        def work() -> dict[str, Any]:
            state_dir = _state_dir(where(path))
            refreshed = refresh(state_dir, rebuild=False)
            return {
                "schema": "contend.status/v1",
                "counts": verdict_counts(state_dir),
                "runs": [asdict(r) for r in recent(state_dir, limit)],
                "problems": refreshed.problems,
            }

        result: dict[str, Any] = await call(work)
        return result

    @server.tool()
    async def get_dispute(run_id: str, dispute_id: str, path: str | None = None) -> dict[str, Any]:
        """One dispute (unresolved or resolved) of a finished run, as report.json has it."""

        def work() -> dict[str, Any]:
            _, report = _load_report(where(path), run_id)
            for d in [*report.disputes, *report.resolved]:
                if d.id == dispute_id:
                    found: dict[str, Any] = d.model_dump(mode="json")
                    return found
            known = ", ".join(d.id for d in report.disputes) or "none"
            raise UserError(f"no dispute {dispute_id!r} in run {run_id} (unresolved: {known})")

        result: dict[str, Any] = await call(work)
        return result

    @server.tool()
    async def respond(
        dispute_id: str,
        action: str,
        text: str,
        evidence: str = "",
        path: str | None = None,
    ) -> dict[str, Any]:
        """Answer a dispute of the active review as its author, without code: `action` is
        `defend` (the code is right, because `text`) or `concede`. Recorded in the ledger."""
        from contend.config import load_settings
        from contend.gitio.git import repo_root
        from contend.protocol.model import Action
        from contend.review.respond import answer

        actions = {"defend": Action.DEFEND, "concede": Action.CONCEDE}
        if action not in actions:
            raise ToolError(f"action {action!r}: use defend or concede")

        def work() -> dict[str, Any]:
            repo = where(path)
            done = answer(
                repo,
                load_settings(repo_root(repo)),
                dispute_id,
                actions[action],
                text=text,
                evidence=evidence,
            )
            return {
                "run_id": done.run_id,
                "dispute_id": done.attack_id,
                "status": done.status,
                "verdict": done.outcome.verdict,
            }

        result: dict[str, Any] = await call(work)
        return result

    def report_file(run_id: str, name: str) -> str:
        try:
            run_dir, _ = _load_report(root, run_id)
        except ContendError as exc:
            raise ResourceError(str(exc)) from exc
        return (run_dir / name).read_text(encoding="utf-8")

    @server.resource(
        "contend://runs/{run_id}/report.md", name="report.md", mime_type="text/markdown"
    )
    def report_md(run_id: str) -> str:
        """A finished run's report.md: unresolved disputes ranked by contention."""
        return report_file(run_id, "report.md")

    @server.resource(
        "contend://runs/{run_id}/report.json", name="report.json", mime_type="application/json"
    )
    def report_json(run_id: str) -> str:
        """A finished run's report.json (contend.report/v1)."""
        return report_file(run_id, "report.json")

    return server


def serve(root: Path) -> None:
    """Serve over stdio until the host closes the stream."""
    build_server(root).run("stdio")
