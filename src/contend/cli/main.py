"""Entry point of the `contend` command. Errors become one line on stderr and an exit code.

Exit codes: 0 pass / conditional_pass, 1 fail (or a ledger that failed verification),
2 usage or configuration error, 3 escalate.
"""

from __future__ import annotations

import importlib
import sys

import click

from contend import __version__
from contend.errors import ContendError


class _LazyCommands(click.Group):
    """The top-level group, loading a command's module only when that command runs.

    `contend review` on one commit costs about a second of CPU, and importing every command
    (the claims engine, the harness, the web server) was a third of it; `contend --help`
    still lists them all, since listing imports each for its one-line help."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        where = _COMMANDS.get(cmd_name)
        if where is None:
            return None  # click answers "No such command" with the usage line
        module_name, attr = where
        command = getattr(importlib.import_module(f"contend.cli.{module_name}"), attr)
        if not isinstance(command, click.Command) or command.name != cmd_name:
            raise TypeError(f"contend.cli.{module_name}.{attr} is not the `{cmd_name}` command")
        return command


@click.group(
    cls=_LazyCommands,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "--version", prog_name="contend")
def cli() -> None:
    """contend: adversarial verification of AI-agent work.

    Independent critics each attack a change on their own axis; the author answers every
    objection (fix, concede, or defend with evidence); critics press or withdraw. Only the
    disputes that survive reach you, ranked by how hard they were contested, recorded in a
    hash-chained ledger. Nothing is decided by vote.

    \b
    Start here, inside a git repository:
      contend review            review your change with the offline static critics
      contend demo              watch the protocol on a sample repository

    \b
    Exit codes: 0 pass or conditional_pass, 1 fail, 2 usage error, 3 escalate.
    """


# Every command: its name -> (its module in contend.cli, the click command that module defines).
_COMMANDS: dict[str, tuple[str, str]] = {
    "ledger": ("ledger_cmd", "ledger"),
    "config": ("config_cmd", "config"),
    "review": ("review_cmd", "review"),
    "respond": ("respond_cmd", "respond"),
    "decide": ("respond_cmd", "decide_cmd"),
    "demo": ("demo_cmd", "demo"),
    "status": ("status_cmd", "status"),
    "verify": ("verify_cmd", "verify"),
    "experiment": ("experiment_cmd", "experiment"),
    "run": ("run_cmd", "run"),
    "serve": ("serve_cmd", "serve"),
    "gate": ("gate_cmd", "gate"),
    "stats": ("stats_cmd", "stats"),
    "escape": ("escape_cmd", "escape"),
    "comment": ("comment_cmd", "comment"),
    "hook": ("hook_cmd", "hook"),
    "mcp": ("mcp_cmd", "mcp"),
}


def main(argv: list[str] | None = None) -> int:
    try:
        result = cli.main(args=argv, prog_name="contend", standalone_mode=False)
    except (click.exceptions.Abort, KeyboardInterrupt) as exc:
        # A command that can go on names its own way on (`contend verify` raises
        # KeyboardInterrupt("contend verify --resume RUN_DIR …"), which click wraps in
        # Abort); else review's.
        cause = exc if isinstance(exc, KeyboardInterrupt) else exc.__cause__
        how = str(cause.args[0]) if isinstance(cause, KeyboardInterrupt) and cause.args else ""
        click.echo(
            "contend: interrupted; the ledger keeps every acknowledged event — "
            f"continue with `{how or 'contend review --resume'}`",
            err=True,
        )
        return 130
    except click.UsageError as exc:
        # One line, like every other error; --help has the usage.
        where = exc.ctx.command_path if exc.ctx is not None else "contend"
        click.echo(f"contend: error: {exc.format_message()} (see `{where} --help`)", err=True)
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except ContendError as exc:
        click.echo(f"contend: error: {exc}", err=True)
        return exc.exit_code
    return int(result) if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
