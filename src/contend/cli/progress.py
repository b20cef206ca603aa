"""Progress of a review: a live table on a terminal (rich), plain log lines otherwise."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any, TextIO, cast

from rich.console import Console
from rich.live import Live
from rich.table import Table

from contend.protocol.event_types import Event
from contend.protocol.state import RunState, failure_kind
from contend.report.escape import visible

# The static critics finish in well under a second: only their end is worth a line.
_STATIC_LOGGED = frozenset({"thread_ended", "agent_failed"})


def _line(event: Event, state: RunState) -> str | None:
    """Without a terminal, one line per step that takes time or changes the outcome (the
    objections themselves are in the report, not repeated here); None for the rest. The
    entry has just been folded into `state`, so its data is of its kind's TypedDict."""
    if event["kind"] == "gate_ran":
        gate = event["data"]
        status = "green" if gate.get("ok") else "RED"
        return f"gate {gate.get('name', '?')}: {status} ({gate.get('when')})"
    if event["kind"] == "merge":
        merge = event["data"]
        threads, conflicts = merge.get("threads") or [], merge.get("conflicts") or []
        return f"merge: {len(threads)} thread(s), {len(conflicts)} conflict(s)"
    if event["kind"] == "topic_rejected":
        rejected = event["data"]
        return (
            f"thread {rejected.get('thread', '?')}: topic {rejected.get('topic')!r} rejected "
            f"(duplicates {rejected.get('duplicates')!r})"
        )
    if (
        event["kind"] == "thread_started"
        or event["kind"] == "topic_declared"
        or event["kind"] == "round_closed"
        or event["kind"] == "agent_failed"
        or event["kind"] == "thread_ended"
    ):
        thread = state.threads.get(event["data"]["thread"])
    else:
        return None
    if thread is None or (thread.backend == "static" and event["kind"] not in _STATIC_LOGGED):
        return None
    name = thread.name
    if event["kind"] == "thread_started":
        return f"thread {name}: started ({thread.critic})"
    if event["kind"] == "topic_declared":
        return f"thread {name}: topic {event['data']['topic']!r}"
    if event["kind"] == "agent_failed":
        failed = event["data"]
        error = failed.get("error") or failure_kind(failed)
        return f"thread {name}: {failed.get('role', 'critic')} failed: {error}"
    opened = sum(1 for a in state.attacks.values() if a.thread == name and not a.resolved)
    if event["kind"] == "round_closed":
        return f"thread {name}: round {event['data']['round']} closed, {opened} open"
    if event["kind"] == "thread_ended":
        return f"thread {name}: ended ({event['data']['reason']}), {opened} open"
    return None


class Progress:
    """A listener for Recorder events. Use as a context manager around the review."""

    def __init__(
        self, stream: TextIO | None = None, *, live: bool | None = None, quiet: bool = False
    ) -> None:
        self.stream = stream or sys.stderr
        self.live_mode = self.stream.isatty() if live is None else live
        self.quiet = quiet
        self.state: RunState | None = None
        self._live: Live | None = None
        self._console = Console(file=self.stream)

    def __call__(self, entry: dict[str, Any], state: RunState) -> None:
        self.state = state
        if self.quiet:
            return
        if self.live_mode:
            if self._live is not None:
                self._live.update(self._table())
            return
        # The Recorder calls after folding the entry: it holds its kind's data.
        line = _line(cast(Event, entry), state)
        if line is None:
            return
        # Names, errors and gate commands come from the change and the agents: no raw
        # control sequence or newline of theirs may reach the terminal (DESIGN §9).
        print(f"contend: {visible(line, single_line=True)}", file=self.stream, flush=True)

    def note(self, text: str) -> None:
        """A note of the review (always shown, even when quiet): above the live table on a
        terminal, else one line."""
        line = f"contend: note: {visible(text, single_line=True)}"
        if self._live is not None:
            self._console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            print(line, file=self.stream, flush=True)

    def _table(self) -> Table:
        table = Table(title="contend review", expand=False)
        for col in ("thread", "critic", "topic", "round", "open", "tokens", "cost", "state"):
            table.add_column(col)
        state = self.state
        if state is None:
            return table
        for t in state.threads.values():
            open_count = sum(
                1 for a in state.attacks.values() if a.thread == t.name and not a.resolved
            )
            cells = (
                t.name,
                t.critic,
                t.topic or "…",
                str(t.round),
                str(open_count),
                str(t.tokens_in + t.tokens_out),
                f"${t.cost:.4f}",
                t.ended or "running",
            )
            table.add_row(*(visible(c, single_line=True) for c in cells))
        return table

    def __enter__(self) -> Progress:
        if self.live_mode and not self.quiet:
            self._live = Live(
                self._table(), console=self._console, refresh_per_second=8, transient=True
            )
            self._live.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._live is not None:
            self._live.__exit__(exc_type, exc, tb)
            self._live = None
