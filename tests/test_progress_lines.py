"""Progress lines off a terminal read each kind's typed data: gates, failures, merges."""

from __future__ import annotations

import io

from contend.cli.progress import Progress
from contend.protocol import events as ev
from contend.protocol.events import EventKind
from contend.protocol.state import Reducer


def test_gate_failure_and_merge_lines() -> None:
    stream = io.StringIO()
    progress = Progress(stream, live=False)
    reducer = Reducer()
    raw = [
        ev.event(EventKind.THREAD_STARTED, thread="C1", critic="codex", family="openai"),
        ev.event(EventKind.GATE_RAN, name="pytest", ok=False, cmd="pytest", when="entry"),
        ev.event(EventKind.AGENT_FAILED, thread="C1", role="proposer", failure="timeout"),
        ev.event(EventKind.AGENT_FAILED, thread="C1", error="exit 2"),
        ev.event(EventKind.MERGE, merged=None, threads=["C1", "C2"], conflicts=[]),
    ]
    for i, e in enumerate(raw):
        entry = {**e, "seq": i}
        reducer.apply(entry)
        progress(entry, reducer.state)
    assert stream.getvalue().splitlines() == [
        "contend: thread C1: started (codex)",
        "contend: gate pytest: RED (entry)",
        "contend: thread C1: proposer failed: timeout",
        "contend: thread C1: critic failed: exit 2",
        "contend: merge: 2 thread(s), 0 conflict(s)",
    ]
