"""The harness's events (seed 004): `subtask_completed` when the implementer is done with a
pass, `subtask_verified` when every critic passes, `subtask_failed` on a blocking failure —
plus the slice's own start, gate, oracle and finish events.

One JSON object per line, appended and flushed as it happens, redacted like every other
string contend writes (DESIGN §9). The same writer serves the slice's own events file and
`--events FILE`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from contend.redaction import redact_json

SCHEMA = "contend.harness-event/v1"
SUBTASK_COMPLETED = "subtask_completed"
SUBTASK_VERIFIED = "subtask_verified"
SUBTASK_FAILED = "subtask_failed"


class EventWriter:
    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = list(paths)
        for path in self.paths:
            path.parent.mkdir(parents=True, exist_ok=True)

    def emit(self, kind: str, slice_id: str, **data: Any) -> dict[str, Any]:
        event = {
            "schema": SCHEMA,
            "event": kind,
            "slice": slice_id,
            "at": datetime.now(UTC).isoformat(timespec="milliseconds"),
            **data,
        }
        line = json.dumps(redact_json(event), sort_keys=True) + "\n"
        for path in self.paths:
            with path.open("a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())
        return event


def read_events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
