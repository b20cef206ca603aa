"""The events of a review as they happen: `--events FILE` (JSON lines) and in-process
subscribers (Python callables, and the `contend.hooks` entry-point group).

Seed 004's extension interface, on top of the run's own ledger events:

    subtask_completed   consumed: the subtask is done, the review begins (first line)
    <ledger kind>       every event of the run as the ledger acknowledged it (redacted),
                        e.g. run_started, attack_raised, attack_transition, run_finished
    subtask_verified    the verdict lets the subtask proceed: `pass`, or `conditional_pass`
                        (its caveats listed)
    subtask_failed      a blocking failure: a critical/major dispute stands, or a red gate
    subtask_escalated   liveness failed (deadlock, a critic that did not run): a person
                        decides; not in seed 004, which has no third outcome

Every line is one JSON object with `"schema": "contend.events/v1"`, `"event"` and `"ts"`.
A review that stops with an error writes the ledger's `run_interrupted` and no subtask
outcome: there is no verdict to report.

A subscriber that raises, or an events file that cannot be written, never stops the review
(the ledger is the source of truth and loses nothing): the failure is counted, that sink
is closed, and `errors` says what happened so the caller reports it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from contend.errors import UserError

if TYPE_CHECKING:
    from contend.protocol.state import RunState
    from contend.report.model import Report

EVENTS_SCHEMA = "contend.events/v1"
ENTRY_POINT_GROUP = "contend.hooks"
OUTCOME_EVENTS = {
    "pass": "subtask_verified",
    "conditional_pass": "subtask_verified",
    "fail": "subtask_failed",
    "escalate": "subtask_escalated",
}

Event = dict[str, Any]
Subscriber = Callable[[Event], None]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ledger_event(entry: dict[str, Any]) -> Event:
    """A ledger entry as an event line: its kind, sequence number, time, run and data."""
    return {
        "schema": EVENTS_SCHEMA,
        "event": str(entry["kind"]),
        "ts": entry.get("ts") or _now(),
        "run_id": entry.get("run"),
        "seq": entry.get("seq"),
        "data": entry.get("data", {}),
    }


def subtask_completed(entry: dict[str, Any]) -> Event:
    """The consumed event, derived from the run's first entry: what is about to be reviewed."""
    data = entry.get("data", {})
    return {
        "schema": EVENTS_SCHEMA,
        "event": "subtask_completed",
        "ts": entry.get("ts") or _now(),
        "run_id": entry.get("run"),
        "artifact": data.get("artifact"),
        "critics": data.get("critics"),
    }


def outcome_event(report: Report, run_dir: Path | None) -> Event:
    """The subtask's outcome from the finished report (seed 004: verified / failed)."""
    blocking = [d for d in report.disputes if str(d.severity) in ("critical", "major")]
    event: Event = {
        "schema": EVENTS_SCHEMA,
        "event": OUTCOME_EVENTS[report.verdict],
        "ts": _now(),
        "run_id": report.run_id,
        "verdict": report.verdict,
        "exit_code": report.exit_code,
        "reasons": list(report.reasons),
        "unresolved": len(report.disputes),
        "failures": [
            {
                "id": d.id,
                "topic": d.topic,
                "severity": str(d.severity),
                "path": d.location.path,
                "line": d.location.start_line,
                "claim": d.claim,
            }
            for d in blocking
        ],
    }
    if report.verdict == "conditional_pass":
        event["caveats"] = list(report.caveats)
    if run_dir is not None:
        event["reports"] = {
            "json": str(run_dir / "report.json"),
            "markdown": str(run_dir / "report.md"),
            "sarif": str(run_dir / "report.sarif"),
        }
    return event


class EventsFile:
    """`--events FILE`: opened (append, line by line) before the review starts, so a path
    that cannot be written is refused while nothing has happened yet."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._file: IO[str] | None = path.open("a", encoding="utf-8", buffering=1)
        except OSError as exc:
            raise UserError(
                f"cannot write the events file {path}: {exc.strerror or exc}; nothing was reviewed"
            ) from exc
        self.written = 0

    def __call__(self, event: Event) -> None:
        if self._file is None:
            return
        self._file.write(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()
        self.written += 1

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def entry_point_subscribers() -> list[tuple[str, Subscriber]]:
    """The callables installed packages register in the `contend.hooks` group."""
    from importlib.metadata import entry_points

    found: list[tuple[str, Subscriber]] = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            target = ep.load()
        except Exception as exc:
            raise UserError(
                f"the {ENTRY_POINT_GROUP} entry point {ep.name!r} ({ep.value}) cannot be "
                f"loaded: {exc}"
            ) from exc
        if not callable(target):
            raise UserError(
                f"the {ENTRY_POINT_GROUP} entry point {ep.name!r} ({ep.value}) is not callable"
            )
        found.append((f"entry point {ep.name}", target))
    return found


class EventStream:
    """A Recorder listener: each ledger entry becomes an event for every subscriber, with
    `subtask_completed` before the run's first entry; `finish` adds the outcome."""

    def __init__(self, subscribers: Iterable[tuple[str, Subscriber]]) -> None:
        self._subscribers = list(subscribers)
        self._started = False
        self._closed: set[int] = set()
        self.errors: list[str] = []
        self.delivered = 0

    def __call__(self, entry: dict[str, Any], state: RunState) -> None:
        if not self._started and entry.get("kind") in ("run_started", "run_resumed"):
            self._started = True
            self.publish(subtask_completed(entry))
        self.publish(ledger_event(entry))

    def finish(self, report: Report, run_dir: Path | None) -> None:
        self.publish(outcome_event(report, run_dir))

    def publish(self, event: Event) -> None:
        for index, (name, subscriber) in enumerate(self._subscribers):
            if index in self._closed:
                continue
            try:
                subscriber(event)
            # A failing subscriber must not end the review it observes: the failure is
            # recorded in `errors` (the caller reports it) and that subscriber is closed.
            except Exception as exc:
                self.errors.append(f"{name} failed on {event['event']!r}: {exc}")
                self._closed.add(index)
        self.delivered += 1
