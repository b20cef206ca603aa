"""`contend respond` (the author answers without code) and `contend decide` (a human rules)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from contend.config import load_settings
from contend.gitio.git import repo_root
from contend.protocol.model import Action, Actor
from contend.report.escape import visible

if TYPE_CHECKING:
    from contend.review.respond import Answered


@click.command("respond")
@click.argument("attack_id")
@click.option("--defend", metavar="TEXT", help="Defend: the code is right, because TEXT.")
@click.option("--concede", metavar="TEXT", help="Concede without a fix, because TEXT.")
@click.option("--evidence", default="", help="A test, a line or a spec clause.")
@click.option(
    "-C", "path", type=click.Path(path_type=Path), default=".", help="Repository (default: here)."
)
@click.option(
    "--run",
    "claims_run",
    type=click.Path(path_type=Path, file_okay=False),
    help="A `contend verify` run: answer as the proponent of its claim ATTACK_ID (--reply).",
)
@click.option(
    "--reply",
    "reply_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="With --run: the proponent's answer, a JSON or YAML file (docs/claims.md).",
)
def respond(
    attack_id: str,
    defend: str | None,
    concede: str | None,
    evidence: str,
    path: Path,
    claims_run: Path | None,
    reply_file: Path | None,
) -> int:
    """Answer objection ATTACK_ID of the active review as its author, without code.

    A defense is pressed again by the static critics while the finding stays in the code
    (fix it, or waive it in code with `# contend: allow TOPIC -- REASON`); model critics
    judge it on the next `contend review`.
    """
    from contend.review.respond import answer

    if claims_run is not None or reply_file is not None:
        if claims_run is None or reply_file is None or defend or concede:
            raise click.UsageError("a claims run takes --run DIR and --reply FILE, nothing else")
        from contend.cli.verify_cmd import respond_claim_cmd

        return respond_claim_cmd(claims_run, attack_id, reply_file)
    if (defend is None) == (concede is None):
        raise click.UsageError("give exactly one of --defend TEXT or --concede TEXT")
    action, text = (Action.DEFEND, defend) if defend is not None else (Action.CONCEDE, concede)
    assert text is not None
    settings = load_settings(repo_root(path))
    done = answer(path, settings, attack_id, action, text=text, evidence=evidence)
    click.echo(_said(done))
    return 0


@click.command("decide")
@click.argument("attack_id")
@click.option("--uphold", is_flag=True, help="The objection stands.")
@click.option("--overrule", is_flag=True, help="The objection is wrong.")
@click.option("--waive", is_flag=True, help="Real, but accepted as is.")
@click.option("--note", required=True, help="Why: recorded in the ledger verbatim.")
@click.option(
    "-C", "path", type=click.Path(path_type=Path), default=".", help="Repository (default: here)."
)
@click.option(
    "--run",
    "claims_run",
    type=click.Path(path_type=Path, file_okay=False),
    help="A `contend verify` run: decide its escalated claim ATTACK_ID (--uphold: the "
    "objection stands, the claim is rejected; --overrule: the claim is accepted).",
)
def decide_cmd(
    attack_id: str,
    uphold: bool,
    overrule: bool,
    waive: bool,
    note: str,
    path: Path,
    claims_run: Path | None,
) -> int:
    """Record a human decision on objection ATTACK_ID: uphold, overrule or waive.

    The decision records who made it (git user.name and user.email of the repository, else
    the OS user) and carries to the next `contend review`: a waived or overruled finding
    that is still in the code stays resolved.
    """
    from contend.review.respond import answer

    chosen = [
        flag for flag, on in (("uphold", uphold), ("overrule", overrule), ("waive", waive)) if on
    ]
    if len(chosen) != 1:
        given = " and ".join(f"--{c}" for c in chosen)
        raise click.UsageError(
            f"{given} are mutually exclusive: give exactly one"
            if chosen
            else "give one of --uphold, --overrule or --waive"
        )
    [decision] = chosen
    if claims_run is not None:
        from contend.cli.verify_cmd import decide_claim_cmd

        return decide_claim_cmd(claims_run, attack_id, decision, note)
    settings = load_settings(repo_root(path))
    done = answer(
        path, settings, attack_id, Action(decision), text=note, by="human", actor=Actor.HUMAN
    )
    click.echo(_said(done))
    return done.outcome.exit_code if decision == "uphold" else 0


def _said(done: Answered) -> str:
    # The id is what the user typed: echo it escaped, never as raw control bytes.
    return visible(
        f"{done.attack_id}: {done.status} (run {done.run_id}); verdict now {done.outcome.verdict}",
        single_line=True,
    )
