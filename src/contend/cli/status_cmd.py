"""`contend status`: recent reviews of this repository and how they ended."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click

from contend.config import load_settings
from contend.gitio.git import repo_root


@click.command("status")
@click.option(
    "-C", "path", type=click.Path(path_type=Path), default=".", help="Repository (default: here)."
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="How many recent runs to list.",
)
@click.option(
    "--rebuild", is_flag=True, help="Re-verify every ledger and rebuild the index from scratch."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def status(path: Path, limit: int, rebuild: bool, as_json: bool) -> int:
    """Recent review runs, with verdict counts, from the SQLite index of the ledgers.

    The index (`<state_dir>/index.sqlite3`) is a cache: it is brought up to date from the
    ledgers on every call, and `--rebuild` recreates it. A ledger that fails verification
    is listed as unreadable, not indexed.
    """
    from contend.ledger.index import recent, refresh, verdict_counts
    from contend.review.state_dir import open_state_dir

    root = repo_root(path)
    state_dir = open_state_dir(root, load_settings(root))
    refreshed = refresh(state_dir, rebuild=rebuild)
    rows = recent(state_dir, limit)
    counts = verdict_counts(state_dir)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "schema": "contend.status/v1",
                    "counts": counts,
                    "runs": [asdict(r) for r in rows],
                    "unreadable": refreshed.unreadable,
                },
                indent=2,
            )
        )
        return 1 if refreshed.unreadable else 0
    total = sum(counts.values())
    summary = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items())) or "none"
    click.echo(f"{total} run(s): {summary}")
    for r in rows:
        verdict = r.verdict or "unfinished"
        click.echo(
            f"{r.run_id}  {verdict:<16} {r.unresolved}/{r.attacks} unresolved  "
            f"{r.sessions} session(s)  {r.key}  ${r.cost:.4f}"
        )
    for problem in refreshed.unreadable:
        click.echo(f"unreadable: {problem}", err=True)
    return 1 if refreshed.unreadable else 0
