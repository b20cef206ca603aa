"""`contend escape RUN --note TEXT`: record a defect that got through a review."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("escape")
@click.argument("run")
@click.option("--note", required=True, help="What got through: recorded in the ledger verbatim.")
@click.option("--path", "file_path", default=None, help="The file where the defect is.")
@click.option("--line", type=int, default=None, help="Its line (with --path).")
@click.option("--topic", default=None, help="The topic it belongs to (e.g. silent-fallback).")
@click.option(
    "-C", "path", type=click.Path(path_type=Path), default=".", help="Repository (default: here)."
)
def escape(
    run: str,
    note: str,
    file_path: str | None,
    line: int | None,
    topic: str | None,
    path: Path,
) -> int:
    """Record that a defect got through review run RUN (a run id of this repository).

    Appended to that run's ledger as an `escape_recorded` event with who recorded it (git
    user.name, else the OS user); `contend stats` counts it against the critics that were
    on the run — those of --topic, when one of them had that topic.
    """
    from contend.config import load_settings
    from contend.gitio.git import repo_root
    from contend.report.escape import visible
    from contend.review.escapes import Escape, record_escape
    from contend.review.state_dir import open_state_dir

    root = repo_root(path)
    state_dir = open_state_dir(root, load_settings(root))
    seq = record_escape(state_dir, run, root, Escape(note, file_path, line, topic))
    click.echo(visible(f"escape recorded in run {run} (ledger entry {seq + 1})", single_line=True))
    return 0
