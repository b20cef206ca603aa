"""`contend ledger verify RUN`: check a run's hash chain; `contend ledger show RUN`."""

from __future__ import annotations

from pathlib import Path

import click

from contend.ledger.runs import resolve_ledger
from contend.ledger.verify import verify


def _state_dir() -> Path | None:
    from contend.cli.context import state_dir_for_cwd

    return state_dir_for_cwd()


@click.group()
def ledger() -> None:
    """Inspect and verify run ledgers."""


@ledger.command("verify")
@click.argument("run")
def verify_cmd(run: str) -> int:
    """Verify the hash chain of RUN (a run id, a run directory or a ledger file).

    Exits 0 when every line is intact (a torn last line from a crash is reported, and
    accepted: it was never acknowledged), 1 when any line was edited, removed, reordered
    or inserted, naming the first bad line.
    """
    path = resolve_ledger(run, _state_dir())
    result = verify(path)
    if result.ok:
        click.echo(result.message)
        return 0
    click.echo(result.message, err=True)
    return 1
