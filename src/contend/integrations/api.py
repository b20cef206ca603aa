"""The typed Python API, for harnesses that import contend rather than shell out:

    import contend
    report = contend.review("path/to/repo", critics=["static"])
    report.verdict, report.disputes            # contend.report.model.Report (report.v1)
    claims = contend.verify(["cards/"])         # contend.claims.report.ClaimsReport

Both do exactly what `contend review` / `contend verify` do (same settings, same engine,
same ledger and report files) and raise the errors those commands turn into exit code 2
(`contend.errors.UserError` and its subclasses). A verdict is data, never an exception:
`fail` and `escalate` come back as reports.

`on_event` receives every event of the review as it happens (the `--events` lines, seed
004's subtask_* events included), as do the callables registered in the `contend.hooks`
entry-point group. A subscriber that raises does not stop the review: after it finished,
`EventDeliveryError` is raised carrying the report and what failed.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contend.errors import ContendError

if TYPE_CHECKING:
    from contend.claims.report import ClaimsReport
    from contend.integrations.events import Subscriber
    from contend.report.model import Report


class EventDeliveryError(ContendError):
    """The review finished, but an event subscriber failed; `report` is its result."""

    def __init__(self, message: str, report: Report, errors: Sequence[str]) -> None:
        super().__init__(message)
        self.report = report
        self.errors = list(errors)


class ReviewFunction:
    """`contend.review`: a function that is also the way to the `contend.review` package.

    The engine's package has the same name; attribute access on this object reaches it
    (`contend.review.engine` still works), calling it runs a review.
    """

    def __call__(
        self,
        path: str | Path = ".",
        *,
        base: str | None = None,
        head: str | None = None,
        staged: bool = False,
        commit_range: str | None = None,
        spec: str | Path | None = None,
        spec_text: str | None = None,
        transcript: str | Path | None = None,
        critics: Sequence[str] = (),
        proposer: str | None = None,
        oracle: str | None = None,
        gates: Sequence[str] = (),
        max_rounds: int | None = None,
        min_families: int | None = None,
        new: bool = False,
        resume: bool = False,
        out: str | Path | None = None,
        force: bool = False,
        wait_s: float = 0.0,
        on_event: Subscriber | None = None,
        entry_points: bool = True,
    ) -> Report:
        """Review the change in the git repository at `path`; return report.json's model.

        `critics` are specs as on the command line (`static`, `static:security`,
        `claude`, ...); empty means the configured ones. `spec` is a file with the task,
        `spec_text` the task itself. The reports and the ledger are in the run directory
        (`.contend/runs/<report.run_id>/`) and, with `out`, in that directory too.
        """
        from contend.integrations.events import EventStream, entry_point_subscribers
        from contend.integrations.runner import ReviewArgs, run_review
        from contend.report.model import Report

        subscribers = entry_point_subscribers() if entry_points else []
        if on_event is not None:
            subscribers.append(("on_event", on_event))
        stream = EventStream(subscribers)
        args = ReviewArgs(
            path=Path(path),
            base=base,
            head=head,
            staged=staged,
            commit_range=commit_range,
            spec=None if spec is None else str(spec),
            spec_text=spec_text,
            transcript=None if transcript is None else Path(transcript),
            critics=tuple(critics),
            proposer=proposer,
            oracle=oracle,
            gates=tuple(gates),
            max_rounds=max_rounds,
            min_families=min_families,
            new=new,
            resume=resume,
            out=None if out is None else Path(out),
            force=force,
            wait_s=wait_s,
            command="contend.review()",
        )
        result, _ = run_review(args, listener=stream)
        report = Report.model_validate_json(result.texts["json"])
        stream.finish(report, result.run_dir)
        if stream.errors:
            raise EventDeliveryError(
                "the review finished (verdict "
                f"{report.verdict}, run {report.run_id}) but an event subscriber failed: "
                + "; ".join(stream.errors),
                report,
                stream.errors,
            )
        return report

    def __getattr__(self, name: str) -> Any:
        # Only reached for names this object lacks: the engine package's modules.
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(importlib.import_module("contend.review"), name)

    def __repr__(self) -> str:
        return "<function contend.review>"


review = ReviewFunction()


def verify(
    cards: Sequence[str | Path] | str | Path, *, out: str | Path | None = None
) -> ClaimsReport:
    """Verify claim cards (files, or directories of YAML/JSON cards) as `contend verify`
    does; return the claims report model (`contend.claims/v1`). The run is written to
    `out`, else to the user state directory."""
    from contend.cli.verify_cmd import run_verify

    paths = [cards] if isinstance(cards, str | Path) else list(cards)
    done = run_verify([Path(p) for p in paths], None if out is None else Path(out))
    return done.report
