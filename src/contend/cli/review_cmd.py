"""`contend review`: the adversarial review of a change, end to end."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import click

from contend.cli.progress import Progress


def _wait_seconds(_ctx: click.Context, _param: click.Parameter, value: float) -> float:
    if not math.isfinite(value) or value < 0:
        raise click.BadParameter(f"{value!r} is not a number of seconds (0 or more)")
    return value


@click.command("review")
@click.argument("path", type=click.Path(path_type=Path), default=".", required=False)
@click.option(
    "--base",
    metavar="REV",
    help="Base revision (default: merge-base with the "
    "default branch; HEAD~1 when the tree is clean and there is no other base).",
)
@click.option("--head", metavar="REV", help="Review this commit instead of the working tree.")
@click.option("--staged", is_flag=True, help="Review the index (staged changes) only.")
@click.option("--range", "commit_range", metavar="A..B", help="Review a commit range.")
@click.option(
    "--spec",
    metavar="FILE",
    help="The task spec: a file, or - for stdin "
    "(default: commit messages, else the first turn of a Claude Code session).",
)
@click.option(
    "--transcript",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    help="Claude Code transcript (.jsonl) whose first user turn is the spec.",
)
@click.option(
    "--critic",
    "critics",
    multiple=True,
    metavar="SPEC",
    help="Critic (repeatable): static, static:TOPIC, claude[:MODEL], codex[:MODEL], "
    "gemini[:MODEL], openai:MODEL, anthropic:MODEL, ollama:MODEL, "
    "openai-compatible:MODEL, scripted:FILE. Default: static.",
)
@click.option(
    "--proposer",
    metavar="SPEC",
    help="Author side: none (you answer between "
    "runs), human, claude-fork[:SESSION], codex-fork[:SESSION], or a model.",
)
@click.option("--oracle", metavar="SPEC", help="Agent called at deadlock for a report.")
@click.option(
    "--gate",
    "gates",
    multiple=True,
    metavar="CMD",
    help="Mechanical gate, e.g. 'pytest -q' (repeatable); runs before any critic "
    "and after every fix.",
)
@click.option("--max-rounds", type=int, help="Fix rounds per thread (default 3).")
@click.option("--parallelism", type=int, help="Threads running at once (default 4).")
@click.option("--min-families", type=int, help="Escalate when fewer model families ran.")
@click.option("--new", is_flag=True, help="Start a fresh review instead of continuing.")
@click.option("--resume", is_flag=True, help="Resume an interrupted review.")
@click.option("--apply", is_flag=True, help="Apply the merged fixes to your working tree.")
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    help="Also write the reports and the ledger into DIR (new, empty, or written by "
    "contend before).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Let --out overwrite report and ledger files contend did not write.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown", "sarif", "github"]),
    help="What to print on stdout (default: text); github: workflow-command annotations.",
)
@click.option(
    "--events",
    "events_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Append the review's events to FILE as JSON lines while it runs "
    "(subtask_completed, the ledger's events, subtask_verified/failed/escalated).",
)
@click.option(
    "--wait",
    "wait_s",
    type=float,
    default=0.0,
    show_default=True,
    callback=_wait_seconds,
    help="Seconds to wait for another review on this repository to finish.",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress output on stderr.")
def review(
    path: Path,
    base: str | None,
    head: str | None,
    staged: bool,
    commit_range: str | None,
    spec: str | None,
    transcript: Path | None,
    critics: tuple[str, ...],
    proposer: str | None,
    oracle: str | None,
    gates: tuple[str, ...],
    max_rounds: int | None,
    parallelism: int | None,
    min_families: int | None,
    new: bool,
    resume: bool,
    apply: bool,
    out: Path | None,
    force: bool,
    fmt: str | None,
    events_path: Path | None,
    wait_s: float,
    quiet: bool,
) -> int:
    """Review the change in the git repository at PATH (default: here).

    Critics attack the change, the author answers (fix, concede, defend), critics press or
    withdraw; the verdict, the disputes that survived (ranked by contention) and a
    verifiable ledger land in .contend/runs/<run-id>/.

    Without a proposer agent you are the author: edit the code and run `contend review`
    again. Findings that disappeared are resolved by fix, findings still present survive
    another round, and `# contend: allow TOPIC -- REASON` waives one with a reason.

    \b
    Exit codes: 0 pass or conditional_pass, 1 fail, 2 usage error, 3 escalate.
    """
    from contend.integrations.runner import ReviewArgs, load_review_settings
    from contend.review.engine import ReviewRequest
    from contend.review.engine import review as run_review

    # Settings are resolved by the one function the API, MCP server and hook use too.
    settings = load_review_settings(
        ReviewArgs(
            path=path,
            base=base,
            head=head,
            staged=staged,
            commit_range=commit_range,
            critics=critics,
            proposer=proposer,
            oracle=oracle,
            gates=gates,
            max_rounds=max_rounds,
            parallelism=parallelism,
            min_families=min_families,
            # `github` is rendered here from report.json, not a configurable format.
            format=None if fmt == "github" else fmt,
        )
    )
    request = ReviewRequest(
        path=path,
        base=None if commit_range is not None else settings.base,
        head=head,
        staged=staged,
        commit_range=commit_range,
        spec=spec,
        transcript=transcript,
        new=new,
        resume=resume,
        apply=apply,
        out=out,
        force=force,
        wait_s=wait_s,
        stdin=sys.stdin if spec == "-" else None,
        command="contend " + " ".join(sys.argv[1:]),
    )
    from contend.integrations.cli_events import CliEvents

    with CliEvents(events_path) as events, Progress(quiet=quiet) as progress:
        request.on_note = progress.note
        result = run_review(request, settings, listener=events.listener(progress))
        events.finish(result)
    text = events.github(result) if fmt == "github" else result.texts[settings.format]
    click.echo(text, nl=False)
    if not quiet:
        click.echo(f"contend: run {result.run_id} → {result.run_dir}", err=True)
    return result.outcome.exit_code
