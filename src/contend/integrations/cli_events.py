"""What `contend review` adds for the integrations: `--events FILE`, the `contend.hooks`
entry points, and `--format github` — kept here so the command itself stays as it was."""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import click

from contend.integrations.events import EventsFile, EventStream, entry_point_subscribers

if TYPE_CHECKING:
    from contend.integrations.runner import Listener
    from contend.protocol.state import RunState
    from contend.report.model import Report
    from contend.review.engine import ReviewResult


class CliEvents:
    """Subscribers of one `contend review`: the events file (opened now, so an unwritable
    path is refused before anything runs) and the entry points."""

    def __init__(self, events_path: Path | None) -> None:
        subscribers = entry_point_subscribers()
        self.file = EventsFile(events_path) if events_path is not None else None
        if self.file is not None:
            subscribers.append((f"--events {events_path}", self.file))
        self.stream = EventStream(subscribers) if subscribers else None
        self.run_dir: Path | None = None
        self._report: Report | None = None

    def listener(self, progress: Listener) -> Listener:
        stream = self.stream
        if stream is None:
            return progress

        def both(entry: dict[str, Any], state: RunState) -> None:
            progress(entry, state)
            stream(entry, state)

        return both

    def report(self, result: ReviewResult) -> Report:
        from contend.report.model import Report

        if self._report is None:
            self._report = Report.model_validate_json(result.texts["json"])
        return self._report

    def finish(self, result: ReviewResult) -> None:
        self.run_dir = result.run_dir
        if self.stream is not None:
            self.stream.finish(self.report(result), result.run_dir)

    def github(self, result: ReviewResult) -> str:
        from contend.integrations.github import workflow_annotations

        return workflow_annotations(self.report(result))

    def __enter__(self) -> CliEvents:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.file is not None:
            self.file.close()
        errors = self.stream.errors if self.stream is not None else []
        kept = f"; the review's ledger and reports are in {self.run_dir}" if self.run_dir else ""
        for error in errors:
            click.echo(f"contend: error: {error}{kept}", err=True)
