"""`contend ledger verify RUN [--strict]`: check a run's ledger and say what was checked."""

from __future__ import annotations

from pathlib import Path

import click

from contend.ledger.runs import resolve_ledger, runs_dir
from contend.ledger.verify import verify


def _state_dir() -> Path | None:
    from contend.cli.context import state_dir_for_cwd

    return state_dir_for_cwd()


@click.group()
def ledger() -> None:
    """Inspect and verify run ledgers."""


@ledger.command("verify")
@click.argument("run")
@click.option(
    "--strict",
    is_flag=True,
    help="Also fail unless every entry is keyed and its MAC verified with your key, "
    "and ledger.head and the run's anchor are both present and match.",
)
def verify_cmd(run: str, strict: bool) -> int:
    """Verify the ledger of RUN (a run id, a run directory or a ledger file).

    Exits 0 when every line is intact, 1 when a line was edited, removed, reordered,
    inserted, duplicated a key, carried bytes outside its canonical form, or the ledger
    was cut shorter than its last acknowledged entry — naming the first bad line — and
    1 for a file that is not a contend ledger. A torn last line after the last
    acknowledged entry (a crash mid-write) is reported and accepted.

    Then it says what it checked and what it could not: entries written before ledger
    keys (sha256) can be recomputed by anyone; keyed entries (hmac-sha256) only with your
    key; lines cut from the end together with ledger.head only against the run's anchor.
    With --strict anything left unchecked is a failure (exit 1).
    """
    state_dir = _state_dir()
    path = resolve_ledger(run, state_dir)
    # A file outside this repository's runs may be an earlier `--out` copy of a run.
    own = state_dir is not None and path.resolve().is_relative_to(runs_dir(state_dir).resolve())
    result = verify(path, may_be_copy=not own, run=path.parent.name if own else None)
    if not result.ok:
        click.echo(result.message, err=True)
        return 1
    failed = strict and not result.strict_ok
    click.echo(result.message, err=failed)
    for what in result.checked:
        click.echo(f"  checked: {what}", err=failed)
    for what in result.unchecked:
        click.echo(f"  not checked: {what}", err=failed)
    if failed:
        click.echo(
            f"strict: {len(result.unchecked)} check(s) could not be made; see above", err=True
        )
        return 1
    return 0
