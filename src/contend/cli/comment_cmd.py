"""`contend comment RUN`: a run's report as a pull-request comment body, printed or posted."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from contend.errors import UserError

if TYPE_CHECKING:
    from contend.report.model import Report


def load_run_report(run: str) -> tuple[Path, Report]:
    """RUN (a run id, a run directory or a report.json) → (its directory, the Report)."""
    from pydantic import ValidationError

    from contend.cli.context import state_dir_for_cwd
    from contend.ledger.runs import runs_dir
    from contend.report.model import Report

    candidate = Path(run)
    if candidate.is_file():
        path = candidate
    elif candidate.is_dir():
        path = candidate / "report.json"
    else:
        state_dir = state_dir_for_cwd()
        if state_dir is None:
            raise UserError(f"no run {run!r}: outside a repository give a run directory")
        path = runs_dir(state_dir) / run / "report.json"
    if not path.is_file():
        raise UserError(f"no report for {run!r}: {path} does not exist (did the run finish?)")
    try:
        report = Report.model_validate_json(path.read_bytes())
    except (OSError, ValidationError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UserError(f"{path} is not a contend.report/v1 report: {first}") from exc
    return path.parent, report


@click.command("comment")
@click.argument("run")
@click.option(
    "--key",
    default="default",
    show_default=True,
    help="Names the comment: a later run with the same key updates it (one per workflow).",
)
@click.option("--post", is_flag=True, help="Post it (or update contend's earlier comment).")
@click.option("--repo", metavar="OWNER/NAME", help="Repository (default: $GITHUB_REPOSITORY).")
@click.option("--pr", "number", type=click.IntRange(min=1), help="Pull request number.")
@click.option("--api-url", metavar="URL", help="REST API root (default: $GITHUB_API_URL).")
@click.option("--where", metavar="TEXT", help="Where the whole report is, for the truncation note.")
def comment(
    run: str,
    key: str,
    post: bool,
    repo: str | None,
    number: int | None,
    api_url: str | None,
    where: str | None,
) -> int:
    """Render RUN's report as a PR comment body (Markdown, at most 65,536 characters, a
    hidden marker on its first line) and print it, or with --post create or update the
    comment on the pull request.

    RUN is a run id, a run directory or a report.json. The token comes from the
    environment only: GITHUB_TOKEN, else GH_TOKEN.
    """
    from contend.integrations.github import comment_body, marker
    from contend.integrations.github_post import post_comment, target_from_env, token_from_env

    try:
        marker_line = marker(key)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--key") from exc
    run_dir, loaded = load_run_report(run)
    md_path = run_dir / "report.md"
    markdown = md_path.read_text(encoding="utf-8") if md_path.is_file() else None
    body = comment_body(
        loaded, key=key, where=where or str(run_dir / "report.md"), markdown=markdown
    )
    if not post:
        click.echo(body, nl=False)
        return 0
    target = target_from_env(repo, number, api_url)
    token = token_from_env()
    done = post_comment(body, marker_line, target, token)
    click.echo(
        f"contend: comment {done.action} on {target.repository}#{target.number}: {done.url}",
        err=True,
    )
    return 0
