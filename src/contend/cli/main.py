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


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
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


def _register() -> None:
    """Add every command to the group; each lives in its own module of contend.cli, imported
    here (at the first call of `main`), so importing this module stays cheap."""
    for module_name, attr in _COMMANDS:
        module = importlib.import_module(f"contend.cli.{module_name}")
        cli.add_command(getattr(module, attr))


# Every command: (its module in contend.cli, the click command that module defines).
_COMMANDS: list[tuple[str, str]] = [
    ("ledger_cmd", "ledger"),
    ("config_cmd", "config"),
    ("review_cmd", "review"),
    ("respond_cmd", "respond"),
    ("respond_cmd", "decide_cmd"),
    ("demo_cmd", "demo"),
    ("status_cmd", "status"),
    ("verify_cmd", "verify"),
    ("experiment_cmd", "experiment"),
    ("run_cmd", "run"),
    ("serve_cmd", "serve"),
    ("gate_cmd", "gate"),
    ("stats_cmd", "stats"),
    ("escape_cmd", "escape"),
    ("comment_cmd", "comment"),
    ("hook_cmd", "hook"),
    ("mcp_cmd", "mcp"),
]


def main(argv: list[str] | None = None) -> int:
    _register()
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
