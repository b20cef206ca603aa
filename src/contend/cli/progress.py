"""Progress of a review: a live table on a terminal (rich), plain log lines otherwise."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any, TextIO

from rich.console import Console
from rich.live import Live
from rich.table import Table

from contend.protocol.state import RunState
from contend.report.escape import visible

# Without a terminal, one line per step that takes time or changes the outcome; the
# objections themselves are in the report, not repeated here.
_LOGGED = {
    "thread_started": "thread {thread}: started ({critic})",
    "topic_declared": "thread {thread}: topic {topic!r}",
    "topic_rejected": "thread {thread}: topic {topic!r} rejected (duplicates {duplicates!r})",
    "round_closed": "thread {thread}: round {round} closed, {open} open",
    "agent_failed": "thread {thread}: {role} failed: {error}",
    "gate_ran": "gate {name}: {status} ({when})",
    "thread_ended": "thread {thread}: ended ({reason}), {open} open",
    "merge": "merge: {n} thread(s), {c} conflict(s)",
}
# The static critics finish in well under a second: only their end is worth a line.
_STATIC_LOGGED = frozenset({"thread_ended", "agent_failed"})


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
        template = _LOGGED.get(entry["kind"])
        if template is None:
            return
        data = dict(entry["data"])
        thread = state.threads.get(str(data.get("thread", "")))
        if (
            thread is not None
            and thread.backend == "static"
            and entry["kind"] not in _STATIC_LOGGED
        ):
            return
        if thread is not None:
            data["open"] = sum(
                1 for a in state.attacks.values() if a.thread == thread.name and not a.resolved
            )
        if entry["kind"] == "gate_ran":
            data["status"] = "green" if data.get("ok") else "RED"
        if entry["kind"] == "merge":
            data["n"] = len(data.get("threads", []))
            data["c"] = len(data.get("conflicts", []))
        try:
            line = template.format(**data)
        except (KeyError, IndexError, TypeError):
            line = f"{entry['kind']}: {data}"
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
