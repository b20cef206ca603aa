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

    The index (`<state_dir>/index.sqlite3`) is a cache. Every call checks each run's
    ledger, ledger.head and anchor against what the index read (size, inode, times, head
    hashes) and re-verifies what changed; `--rebuild` re-verifies every ledger. A run whose
    ledger fails verification is listed first as TAMPERED with the first bad line, never
    with a verdict, and the command exits 1.
    """
    from contend.ledger.index import INTACT, recent, refresh, verdict_counts
    from contend.review.state_dir import open_state_dir

    root = repo_root(path)
    settings = load_settings(root)
    state_dir = open_state_dir(root, settings)
    refreshed = refresh(state_dir, rebuild=rebuild, min_families=settings.min_families)
    rows = recent(state_dir, limit)
    counts = verdict_counts(state_dir)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "schema": "contend.status/v1",
                    "counts": counts,
                    "runs": [asdict(r) for r in rows],
                    "problems": refreshed.problems,
                },
                indent=2,
            )
        )
        return 1 if refreshed.problems else 0
    total = sum(counts.values())
    summary = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items())) or "none"
    click.echo(f"{total} run(s): {summary}")
    for r in rows:
        if r.integrity != INTACT:
            click.echo(f"{r.run_id}  {r.integrity.upper():<16} {r.problem}")
            continue
        verdict = r.verdict or "unfinished"
        unkeyed = "  (unkeyed ledger)" if r.chain in ("unkeyed", "mixed") else ""
        click.echo(
            f"{r.run_id}  {verdict:<16} {r.unresolved}/{r.attacks} unresolved  "
            f"{r.sessions} session(s)  {r.key}  ${r.cost:.4f}{unkeyed}"
        )
    for problem in refreshed.problems:
        click.echo(f"contend: not intact: {problem}", err=True)
    return 1 if refreshed.problems else 0
