"""The harness's events (seed 004): `subtask_completed` when the implementer is done with a
pass, `subtask_verified` when every critic passes, `subtask_failed` on a blocking failure —
plus the slice's own start, gate, oracle and finish events.

Written by the integrations' writer (`contend.integrations.events`), so a slice's lines
have the same format as `contend review --events` (`contend.events/v1`: `event`, `ts`,
`run_id` — the slice's id) and reach the same `contend.hooks` subscribers. Every line is
redacted like every other string contend writes (DESIGN §9) and goes to the slice's own
events file and to `--events FILE`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from contend.integrations import events as integration_events
from contend.redaction import redact_json

SCHEMA = integration_events.EVENTS_SCHEMA
SUBTASK_COMPLETED = "subtask_completed"
SUBTASK_VERIFIED = "subtask_verified"
SUBTASK_FAILED = "subtask_failed"


class EventWriter:
    """Every file is opened now, so a path that cannot be written is refused (UserError)
    before the slice has a branch; `close` when the slice is done."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self._files: list[integration_events.EventsFile] = []
        try:
            for path in paths:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._files.append(integration_events.EventsFile(path))
        except BaseException:
            self.close()
            raise
        subscribers: list[tuple[str, integration_events.Subscriber]] = [
            (f"events file {f.path}", f) for f in self._files
        ]
        subscribers += integration_events.entry_point_subscribers()
        self._stream = integration_events.EventStream(subscribers)

    @property
    def errors(self) -> list[str]:
        """Subscribers that failed (each closed after its failure); the caller reports them."""
        return self._stream.errors

    def emit(self, kind: str, slice_id: str, **data: Any) -> dict[str, Any]:
        now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        event: dict[str, Any] = redact_json(
            {"schema": SCHEMA, "event": kind, "ts": now, "run_id": slice_id, **data}
        )
        self._stream.publish(event)
        return event

    def close(self) -> None:
        for file in self._files:
            file.close()


def read_events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
