"""`contend hook install|uninstall|run`: contend as the Stop hook of Claude Code or Codex."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.group("hook")
def hook() -> None:
    """Review every coding session's change when the agent stops.

    `install` writes contend's Stop hook into the agent's own hook configuration (Claude
    Code: settings.json; Codex: hooks.json). When a session stops, the hook reviews its
    change with `--proposer claude-fork:<session>` (or codex-fork) and the configured
    critics, and tells you one line: verdict, unresolved disputes, report.md. It returns
    nothing into the session unless installed with --feedback.
    """


_AGENT = click.option(
    "--agent", type=click.Choice(["claude", "codex"]), default="claude", show_default=True
)
_SCOPE = click.option(
    "--scope",
    type=click.Choice(["user", "project"]),
    default="user",
    show_default=True,
    help="user: every session of yours; project: this repository's committed agent config.",
)


def _path(agent: str, scope: str) -> Path:
    from contend.cli.context import cwd_repo_root
    from contend.integrations.agent_hooks import settings_path

    return settings_path(agent, scope, cwd_repo_root() if scope == "project" else None)


@hook.command("install")
@_AGENT
@_SCOPE
@click.option(
    "--feedback",
    is_flag=True,
    help="Hand a fail/escalate back to the agent as a block decision. This CHANGES the "
    "session (the agent continues on the disputes); without it the session is untouched.",
)
def install_cmd(agent: str, scope: str, feedback: bool) -> int:
    """Install contend's Stop hook (idempotent; the previous file is kept as
    <file>.contend-backup)."""
    from contend.integrations.agent_hooks import hook_command, install

    path = _path(agent, scope)
    change = install(path, hook_command(agent, feedback=feedback))
    backup = f" (previous file: {change.backup})" if change.backup else ""
    click.echo(f"contend: Stop hook {change.action} in {change.path}{backup}")
    if agent == "codex" and change.action == "installed":
        click.echo("contend: codex runs a new hook only after you trust it: open /hooks in codex")
    return 0


@hook.command("uninstall")
@_AGENT
@_SCOPE
def uninstall_cmd(agent: str, scope: str) -> int:
    """Remove contend's Stop hook; every other setting and hook stays."""
    from contend.integrations.agent_hooks import uninstall

    path = _path(agent, scope)
    change = uninstall(path)
    backup = f" (previous file: {change.backup})" if change.backup else ""
    click.echo(f"contend: Stop hook {change.action} in {change.path}{backup}")
    return 0


@hook.command(
    "run",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    add_help_option=False,
)
@click.pass_context
def run_cmd(ctx: click.Context) -> int:
    """What the agent runs on Stop (reads the hook input JSON on stdin): --agent
    claude|codex [--feedback] [--trivial-lines N]."""
    from contend.integrations.stop_hook import main

    return main(list(ctx.args), sys.stdin)
