"""Answers and decisions given by a person between reviews, appended to the active run.

`contend respond ID --defend TEXT | --concede TEXT` answers as the author (no code change);
`contend decide ID --uphold | --overrule | --waive --note TEXT` records a human decision.
Each carries who gave it (`person`: the repository's git `user.name`/`user.email`, else the
OS user, and which of the two in `source`). The reports are re-folded from the ledger
afterwards, so they never go stale. A decision attaches to the finding, not to this run's
id alone: the next review's static round keeps a waived or overruled finding resolved.
"""

from __future__ import annotations

import getpass
from dataclasses import dataclass
from pathlib import Path

from contend.config import Settings
from contend.errors import IllegalTransition, UserError
from contend.gitio.git import run_git
from contend.ledger.runs import LEDGER_FILE, runs_dir
from contend.ledger.store import Ledger
from contend.ledger.verify import verify
from contend.protocol import events as ev
from contend.protocol.event_types import PersonData
from contend.protocol.machine import next_status
from contend.protocol.model import Action, Actor
from contend.protocol.state import fold
from contend.protocol.verdict import Outcome, decide
from contend.review.active import active_run
from contend.review.lock import review_lock
from contend.review.outputs import write_outputs
from contend.review.recorder import Recorder
from contend.review.state_dir import open_state_dir
from contend.review.target import resolve_target


@dataclass(frozen=True)
class Answered:
    run_id: str
    attack_id: str
    status: str
    outcome: Outcome


def answer(
    path: Path,
    settings: Settings,
    attack_id: str,
    action: Action,
    *,
    text: str,
    evidence: str = "",
    by: str = "author",
    actor: Actor = Actor.PROPOSER,
    wait_s: float = 0.0,
) -> Answered:
    if not text.strip():
        raise UserError(f"{action} needs a text: say why (it goes into the ledger verbatim)")
    target = resolve_target(path)
    state_dir = open_state_dir(target.repo_root, settings)
    run_id = active_run(state_dir, target.continuation_key)
    if run_id is None:
        raise UserError(f"no review run on {target.continuation_key}: run `contend review` first")
    return answer_in_run(
        state_dir,
        run_id,
        target.repo_root,
        settings,
        attack_id,
        action,
        text=text,
        evidence=evidence,
        by=by,
        actor=actor,
        wait_s=wait_s,
    )


def answer_in_run(
    state_dir: Path,
    run_id: str,
    repo_root: Path,
    settings: Settings,
    attack_id: str,
    action: Action,
    *,
    text: str,
    evidence: str = "",
    by: str = "author",
    actor: Actor = Actor.PROPOSER,
    wait_s: float = 0.0,
) -> Answered:
    """Append one answer or decision to run `run_id` (the one path `contend respond`,
    `contend decide` and the web page share) and rewrite its reports."""
    if not text.strip():
        raise UserError(f"{action} needs a text: say why (it goes into the ledger verbatim)")
    with review_lock(state_dir, command=f"contend {by} {action} {attack_id}", wait_s=wait_s):
        run_dir = runs_dir(state_dir) / run_id
        ledger_path = run_dir / LEDGER_FILE
        if not ledger_path.is_file():
            raise UserError(f"no run {run_id!r} in {runs_dir(state_dir)}")
        with Ledger.open(ledger_path, run_id) as ledger:
            result = verify(ledger_path, keep_entries=True)
            rec = Recorder(ledger, fold(result.entries))
            attack = rec.state.attacks.get(attack_id)
            if attack is None:
                known = ", ".join(a.id for a in rec.state.unresolved()) or "none"
                raise UserError(f"no objection {attack_id!r} in run {run_id} (unresolved: {known})")
            try:
                next_status(attack, action, actor)
            except IllegalTransition as exc:
                raise UserError(str(exc)) from None
            person = who_is_answering(repo_root)
            rec.emit(
                ev.transition(
                    attack_id,
                    action,
                    by=by,
                    actor=actor,
                    text=text,
                    evidence=evidence,
                    person=person,
                )
            )
            rec.checkpoint()
            outcome = decide(rec.state, min_families=settings.min_families)
            # The reports keep the review session's own wall time, recorded in the ledger.
            finished = rec.state.finished
            wall_s = finished.get("wall_s", 0.0) if finished is not None else 0.0
            write_outputs(rec.state, outcome, run_dir, None, wall_time_s=wall_s)
            return Answered(run_id, attack_id, str(attack.status), outcome)


def who_is_answering(repo: Path) -> PersonData:
    """The person behind an answer or decision: git's identity for this repository (the
    one their commits carry), else the OS user. `source` says which."""
    name = _git_config(repo, "user.name")
    if name:
        return {
            "name": name,
            "email": _git_config(repo, "user.email") or None,
            "source": "git config",
        }
    try:
        user = getpass.getuser()
    except (OSError, KeyError) as exc:
        raise UserError(
            "cannot tell who is deciding: git user.name is not set and the OS user has no "
            "name; set it with `git config user.name NAME`"
        ) from exc
    return {"name": user, "email": None, "source": "os user"}


def _git_config(repo: Path, key: str) -> str:
    # --default "" makes an unset key an empty answer rather than an error exit.
    return (
        run_git(repo, ["config", "--default", "", "--get", key]).decode("utf-8", "replace").strip()
    )
