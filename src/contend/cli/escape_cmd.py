"""`contend escape RUN --note TEXT`: record a defect that got through a review."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from contend.review.escapes import Escape


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
    """Record that a defect got through review run RUN (a run id of this repository, or
    a `contend run` slice).

    Appended to that run's ledger as an `escape_recorded` event with who recorded it (git
    user.name, else the OS user); `contend stats` counts it against the critics that were
    on the run — those of --topic, when one of them had that topic.
    """
    from contend.config import load_settings
    from contend.gitio.git import repo_root
    from contend.harness.metrics import is_slice
    from contend.report.escape import visible
    from contend.review.escapes import Escape, record_escape
    from contend.review.state_dir import open_state_dir

    root = repo_root(path)
    state_dir = open_state_dir(root, load_settings(root))
    if is_slice(state_dir, run):
        return _slice_escape(state_dir, run, root, Escape(note, file_path, line, topic))
    seq = record_escape(state_dir, run, root, Escape(note, file_path, line, topic))
    click.echo(visible(f"escape recorded in run {run} (ledger entry {seq + 1})", single_line=True))
    return 0


def _slice_escape(state_dir: Path, slice_id: str, root: Path, escape: Escape) -> int:
    """A `contend run` slice: the escape goes into its record (`contend stats --by topology`
    counts it); the slice's reviews ran in its removed worktree, not in the runs here."""
    from contend.harness.metrics import record_escape
    from contend.report.escape import visible
    from contend.review.respond import who_is_answering

    escape.check()
    fields = {"note": escape.note, "path": escape.path, "line": escape.line, "topic": escape.topic}
    record = record_escape(state_dir, slice_id, {**fields, "person": who_is_answering(root)})
    count = len(record["escapes"])
    click.echo(visible(f"escape recorded in slice {slice_id} ({count} so far)", single_line=True))
    return 0
