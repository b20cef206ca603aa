"""`contend demo`: watch the protocol work on a sample repository, offline."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from contend.config import load_settings


@click.command("demo")
@click.option(
    "--keep",
    type=click.Path(path_type=Path, file_okay=False),
    help="Build the sample repository in DIR and keep it (default: a temp dir).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
    help="How to print each round's report.",
)
def demo(keep: Path | None, fmt: str) -> int:
    """Build a sample repository with planted defects and review it in two rounds.

    Round 1 reviews an agent's change with the static critics. Then the demo edits the
    code as an author would — fixes two defects, waives one with a reason, leaves one —
    and round 2 shows the resolutions by fix, the waiver, a survivor whose contention
    grew, and the verdict. Exits 0 when the demonstration ran as designed.
    """
    from contend.demo import run_demo
    from contend.review.engine import ReviewResult

    def show(title: str, result: ReviewResult) -> None:
        click.echo(click.style(f"\n=== {title} ===\n", bold=True))
        click.echo(result.texts[fmt])
        click.echo(
            f"[verdict {result.outcome.verdict}, exit code {result.outcome.exit_code}; "
            f"ledger {result.run_dir / 'ledger.jsonl'}]"
        )

    settings = load_settings(None, flags={"critics": ["static"]})
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        _, problems = run_demo(keep, settings, show)
    else:
        with tempfile.TemporaryDirectory(prefix="contend-demo-") as tmp:
            _, problems = run_demo(Path(tmp), settings, show)
    if problems:
        for problem in problems:
            click.echo(f"contend demo: {problem}", err=True)
        return 1
    click.echo("\nThe demonstration ran as designed.")
    return 0
