"""`contend gate [RUN]`: may this change merge? For CI and merge queues.

Exit 0 when no blocking dispute is left (pass, conditional_pass); 1 while a blocking
(critical or major) dispute is unresolved — nobody resolved it and no person overruled or
waived it — or a gate was red, or the run's ledger is not intact; 3 when the run escalated
(a deadlock, a failed critic, an unreviewed file) and no decision of a person changed
that, or when its last session has not finished. One line per open dispute on stderr.
"""

from __future__ import annotations

from pathlib import Path

import click

from contend.errors import UserError


def _default_run(state_dir: Path, key: str, min_families: int) -> str:
    """The run this branch's next review would continue, else the newest indexed for it."""
    from contend.ledger.index import recent, refresh
    from contend.review.active import active_run

    active = active_run(state_dir, key)
    if active is not None:
        return active
    refresh(state_dir, min_families=min_families)
    for row in recent(state_dir, limit=1_000_000):
        if row.kind == "review" and row.branch == key:
            return row.run_id
    raise UserError(f"no review run on {key}: run `contend review` first, or name a RUN")


@click.command("gate")
@click.argument("run", required=False)
@click.option(
    "-C", "path", type=click.Path(path_type=Path), default=".", help="Repository (default: here)."
)
def gate(run: str | None, path: Path) -> int:
    """Exit 1 while a blocking dispute of RUN is open, 3 if it escalated, 0 otherwise.

    RUN defaults to the latest review run of the current branch. A dispute is closed by
    its resolution (a verified fix, an accepted answer, a withdrawal) or by a person's
    overrule or waiver (`contend decide`, `contend serve`); one a person upheld stays open
    until it is fixed. A ledger that fails verification exits 1, named.

    \b
    Exit codes: 0 nothing blocks, 1 blocked (or tampered), 2 usage, 3 escalated.
    """
    from contend.config import load_settings
    from contend.gitio.git import git_text, repo_root
    from contend.protocol.model import Status
    from contend.protocol.verdict import Verdict
    from contend.report.escape import visible
    from contend.review.runread import RunTampered, read_run
    from contend.review.state_dir import open_state_dir

    root = repo_root(path)
    settings = load_settings(root)
    state_dir = open_state_dir(root, settings)
    if run is None:
        branch = git_text(root, ["branch", "--show-current"]).strip()
        key = branch or f"detached@{git_text(root, ['rev-parse', 'HEAD']).strip()[:12]}"
        run = _default_run(state_dir, key, settings.min_families)
    try:
        read = read_run(state_dir, run, min_families=settings.min_families)
    except RunTampered as exc:
        click.echo(f"contend gate: {visible(str(exc), single_line=True)}", err=True)
        return 1
    if read.kind != "review" or read.standing is None:
        raise UserError(f"run {run} is a {read.kind} run, not a review: nothing to gate")
    now = read.standing
    open_blocking = sorted(
        (
            a
            for a in now.state.unresolved()
            if a.severity.blocks and a.status is not Status.DEADLOCKED
        ),
        key=lambda a: (-a.contention, -a.severity.rank, a.raised_seq),
    )
    liveness = [a for a in now.state.unresolved() if a.status is Status.DEADLOCKED]
    for a in [*open_blocking, *liveness]:
        how = "upheld by a person" if a.status is Status.UPHELD else str(a.status)
        click.echo(
            visible(
                f"open {a.id} [{a.severity}] {a.location.path}:{a.location.start_line} "
                f"{a.topic} ({how}): {a.claim}",
                single_line=True,
            ),
            err=True,
        )
    if now.verdict is None:
        click.echo(f"gate: run {run} has not finished ({now.phase}): escalate (exit 3)")
        return 1 if open_blocking else 3
    if open_blocking or now.verdict is Verdict.FAIL:
        why = (
            f"{len(open_blocking)} blocking dispute(s) open"
            if open_blocking
            else "; ".join(now.reasons)
        )
        click.echo(visible(f"gate: blocked (run {run}): {why} (exit 1)", single_line=True))
        return 1
    if now.verdict is Verdict.ESCALATE:
        click.echo(
            visible(
                f"gate: escalated (run {run}): {'; '.join(now.reasons)} (exit 3)", single_line=True
            )
        )
        return 3
    click.echo(f"gate: open (run {run}): {now.verdict} (exit 0)")
    return 0
