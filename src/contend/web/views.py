"""What each page shows, shaped from verified ledgers, the index and report files.

A review run's page is built with the same fold → report path as report.json
(`report.build_report`) over the run's verified ledger, with the verdict that stands now
(review/standing.py): what the page shows and what `contend gate` answers agree. A claim
run's report.json (`contend.claims/v1`) is shown only when it validates and agrees with its
intact ledger. Experiment reports are shown from their analysis.json, marked as not
ledger-backed. Nothing here writes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from contend.claims.report import ClaimsReport
from contend.claims.report import build_report as build_claims_report
from contend.errors import UserError
from contend.protocol.contention import headline
from contend.protocol.model import Action
from contend.protocol.verdict import Outcome, decide
from contend.report import build_report
from contend.report.model import Dispute, Exchange, Report, Resolution, how_resolved
from contend.review.runread import RunRead
from contend.web.excerpt import Excerpt, excerpt

_ANSWERS = frozenset({Action.FIX, Action.CONCEDE, Action.DEFEND})
_JUDGEMENTS = frozenset({Action.ACCEPT, Action.RE_ATTACK, Action.WITHDRAW})
_HUMAN = frozenset({Action.UPHOLD, Action.OVERRULE, Action.WAIVE})
EXPERIMENTS_DIR = "experiments"
SUITE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
FIGURE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}\.png")


@dataclass(frozen=True, slots=True)
class DisputeView:
    dispute: Dispute
    history: list[Exchange]
    answer: Exchange | None  # the author's latest answer
    judgement: Exchange | None  # the critic's latest judgement
    decision: Exchange | None  # a person's latest decision
    resolution: Resolution | None  # how it left the open set, when it did
    ways_out: list[str]
    confidence: str | None
    old_evidence: str | None
    excerpt: Excerpt


@dataclass(frozen=True, slots=True)
class RunView:
    read: RunRead
    report: Report
    verdict: str | None  # standing verdict; None while unfinished
    phase: str
    reasons: list[str]
    artifact: dict[str, Any]
    open: list[DisputeView]
    resolved: list[DisputeView]
    escapes: list[dict[str, Any]]
    unchecked: list[str] = field(default_factory=list)


def _latest(history: list[Exchange], actions: frozenset[Action]) -> Exchange | None:
    for step in reversed(history):
        if step.action in actions:
            return step
    return None


def review_view(read: RunRead, repo: Path | None, *, min_families: int) -> RunView:
    now = read.standing
    assert now is not None, "review runs carry a standing verdict"
    state = now.state
    if now.verdict is not None:
        top = headline(state.attacks.values())
        outcome = Outcome(now.verdict, now.reasons, top.id if top is not None else None)
    else:
        # A run in progress has no verdict yet; the report needs one to be built, and the
        # page shows the phase instead of it.
        outcome = decide(state, min_families=min_families)
    wall = sum(
        float(e["data"].get("wall_s", 0.0)) for e in read.entries if e["kind"] == "run_finished"
    )
    report = build_report(state, outcome, wall_time_s=wall)
    artifact = dict(state.artifact)

    def view(d: Dispute) -> DisputeView:
        history = report.history.get(d.id, [])
        loc = d.location
        return DisputeView(
            dispute=d,
            history=history,
            answer=_latest(history, _ANSWERS),
            judgement=_latest(history, _JUDGEMENTS),
            decision=_latest(history, _HUMAN),
            resolution=how_resolved(d, history) if d in report.resolved else None,
            ways_out=report.ways_out.get(d.id, []),
            confidence=report.confidence.get(d.id),
            old_evidence=report.old_evidence.get(d.id),
            excerpt=(
                excerpt(repo, artifact, loc.path, loc.start_line, loc.end_line)
                if repo is not None
                else Excerpt("none", why="no repository is served")
            ),
        )

    return RunView(
        read=read,
        report=report,
        verdict=None if now.verdict is None else str(now.verdict),
        phase=now.phase,
        reasons=list(now.reasons) if now.verdict is not None else [],
        artifact=artifact,
        open=[view(d) for d in report.disputes],
        resolved=[view(d) for d in report.resolved],
        escapes=list(state.escapes),
        unchecked=list(read.checked.unchecked),
    )


def dispute_view(view: RunView, attack_id: str) -> DisputeView:
    for d in (*view.open, *view.resolved):
        if d.dispute.id == attack_id:
            return d
    raise UserError(f"no dispute {attack_id!r} in run {view.read.run_id}")


# --- claim runs ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClaimsView:
    read: RunRead
    report: ClaimsReport


def claims_view(read: RunRead) -> ClaimsView:
    """report.json of a claim run, only when it agrees with the intact ledger."""
    path = read.run_dir / "report.json"
    try:
        report = ClaimsReport.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise UserError(f"run {read.run_id}: report.json cannot be read ({exc})") from exc
    except ValidationError as exc:
        raise UserError(
            f"run {read.run_id}: report.json is not a contend.claims/v1 report "
            f"({exc.error_count()} error(s)): refused"
        ) from exc
    recorded: dict[str, str] = {}
    decided = False
    for e in read.entries:
        if e["kind"] == "claim_verdict":
            recorded[str(e["data"].get("claim_id"))] = str(e["data"].get("verdict"))
        elif e["kind"] == "claim_decided":
            # A person's later ruling (`contend decide --run`) is the claim's verdict now.
            recorded[str(e["data"].get("claim_id"))] = str(e["data"].get("decision"))
            decided = True
    finished = [e["data"] for e in read.entries if e["kind"] == "claims_run_finished"]
    shown = {c.claim_id: str(c.verdict) for c in report.claims}
    if decided:
        # The run's verdict after a ruling is the report's fold of the claims' verdicts,
        # each of which was just checked against the ledger.
        overall: str | None = str(build_claims_report(report.claims, report.card_errors).verdict)
    else:
        overall = str(finished[-1].get("verdict")) if finished else None
    if shown != recorded or overall != str(report.verdict):
        raise UserError(
            f"run {read.run_id}: report.json does not match its ledger (verdicts "
            f"{shown} / {report.verdict} against {recorded} / {overall}): refused"
        )
    return ClaimsView(read, report)


# --- experiment runs -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExperimentView:
    name: str
    title: str
    finding: str
    status: dict[str, Any]
    tables: list[dict[str, Any]]
    figures: list[str]


def experiments_root(state_dir: Path) -> Path:
    return state_dir / EXPERIMENTS_DIR


def experiment_dirs(state_dir: Path) -> list[Path]:
    root = experiments_root(state_dir)
    if not root.is_dir():
        return []
    real_root = root.resolve()
    return sorted(
        p
        for p in root.iterdir()
        if SUITE_NAME.fullmatch(p.name)
        and not p.is_symlink()
        and p.resolve().is_relative_to(real_root)
        and (p / "report" / "analysis.json").is_file()
    )


def experiment_dir(state_dir: Path, name: str) -> Path:
    for path in experiment_dirs(state_dir):
        if path.name == name:
            return path
    raise UserError(f"no experiment report {name!r}")


def experiment_view(folder: Path) -> ExperimentView:
    path = folder / "report" / "analysis.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(f"{folder.name}: analysis.json cannot be read ({exc})") from exc
    if not isinstance(data, dict) or data.get("schema") != "contend.experiment-report/v1":
        raise UserError(f"{folder.name}: analysis.json is not a contend.experiment-report/v1")
    tables = [t for t in data.get("tables", []) if isinstance(t, dict)]
    figures = [
        f"{f['name']}.png"
        for f in data.get("figures", [])
        if isinstance(f, dict) and FIGURE_NAME.fullmatch(f"{f.get('name')}.png")
    ]
    return ExperimentView(
        name=folder.name,
        title=str(data.get("title", folder.name)),
        finding=str(data.get("finding", "")),
        status=data.get("status", {}) if isinstance(data.get("status"), dict) else {},
        tables=tables,
        figures=[name for name in figures if (folder / "report" / name).is_file()],
    )


def figure_path(state_dir: Path, suite: str, name: str) -> Path:
    """A figure of an experiment report; nothing outside the report directory."""
    if not FIGURE_NAME.fullmatch(name):
        raise UserError(f"{name!r} is not a figure name")
    folder = experiment_dir(state_dir, suite) / "report"
    path = folder / name
    if (
        path.is_symlink()
        or not path.is_file()
        or not path.resolve().is_relative_to(folder.resolve())
        or name not in experiment_view(folder.parent).figures
    ):
        raise UserError(f"no figure {name!r} in {suite}")
    return path
