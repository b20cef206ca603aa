"""`contend mcp`: serve contend's tools to an agent host over stdio (MCP)."""

from __future__ import annotations

from pathlib import Path

import click

from contend.errors import UserError


@click.command("mcp")
@click.option(
    "-C",
    "path",
    type=click.Path(path_type=Path, file_okay=False),
    default=".",
    help="The repository served (default: here).",
)
def mcp(path: Path) -> int:
    """An MCP server over stdio: tools review, review_focus, verify_claims, status,
    get_dispute, respond; resources contend://runs/{run_id}/report.md and report.json.

    Register it with a host, e.g. `claude mcp add contend -- contend mcp`.
    """
    try:
        import mcp as _sdk  # noqa: F401  (presence check: the SDK is an extra)
    except ImportError as exc:
        raise UserError("`contend mcp` needs the MCP SDK: pip install 'contend[mcp]'") from exc
    from contend.integrations.mcp_server import serve

    serve(path.resolve())
    return 0
