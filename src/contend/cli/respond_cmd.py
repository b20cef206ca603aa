"""`contend respond` (the author answers without code) and `contend decide` (a human rules)."""

from __future__ import annotations

from pathlib import Path

import click

from contend.config import load_settings
from contend.gitio.git import repo_root
from contend.protocol.model import Action


@click.command("respond")
@click.argument("attack_id")
@click.option("--defend", metavar="TEXT", help="Defend: the code is right, because TEXT.")
@click.option("--concede", metavar="TEXT", help="Concede without a fix, because TEXT.")
@click.option("--evidence", default="", help="A test, a line or a spec clause.")
@click.option(
    "-C", "path", type=click.Path(path_type=Path), default=".", help="Repository (default: here)."
)
def respond(
    attack_id: str, defend: str | None, concede: str | None, evidence: str, path: Path
) -> int:
    """Answer objection ATTACK_ID of the active review as its author, without code.

    A defense is pressed again by the static critics while the finding stays in the code
    (fix it, or waive it in code with `# contend: allow TOPIC -- REASON`); model critics
    judge it on the next `contend review`.
    """
    from contend.review.respond import answer

    if (defend is None) == (concede is None):
        raise click.UsageError("give exactly one of --defend TEXT or --concede TEXT")
    action, text = (Action.DEFEND, defend) if defend is not None else (Action.CONCEDE, concede)
    assert text is not None
    settings = load_settings(repo_root(path))
    done = answer(path, settings, attack_id, action, text=text, evidence=evidence)
    click.echo(
        f"{done.attack_id}: {done.status} (run {done.run_id}); verdict now {done.outcome.verdict}"
    )
    return 0


@click.command("decide")
@click.argument("attack_id")
@click.option("--uphold", "decision", flag_value="uphold", help="The objection stands.")
@click.option("--overrule", "decision", flag_value="overrule", help="The objection is wrong.")
@click.option("--waive", "decision", flag_value="waive", help="Real, but accepted as is.")
@click.option("--note", required=True, help="Why: recorded in the ledger verbatim.")
@click.option(
    "-C", "path", type=click.Path(path_type=Path), default=".", help="Repository (default: here)."
)
def decide_cmd(attack_id: str, decision: str | None, note: str, path: Path) -> int:
    """Record a human decision on objection ATTACK_ID: uphold, overrule or waive."""
    from contend.review.respond import answer

    if decision is None:
        raise click.UsageError("give one of --uphold, --overrule or --waive")
    settings = load_settings(repo_root(path))
    done = answer(path, settings, attack_id, Action(decision), text=note, by="human")
    click.echo(
        f"{done.attack_id}: {done.status} (run {done.run_id}); verdict now {done.outcome.verdict}"
    )
    return done.outcome.exit_code if decision == "uphold" else 0
