"""`contend demo` runs as designed; progress output on and off a terminal; --help and
--version."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from contend import __version__
from contend.cli.main import main
from contend.cli.progress import Progress
from contend.protocol import events as ev
from contend.protocol.events import EventKind
from contend.protocol.state import Reducer


def test_demo_runs_both_rounds_as_designed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--keep", str(tmp_path / "d")]) == 0
    out = capsys.readouterr().out
    assert "Round 1" in out and "Round 2" in out
    assert "contention 1" in out
    assert "waived in code with a reason" in out
    assert "The demonstration ran as designed." in out


def _entries() -> list[dict[str, object]]:
    raw = [
        ev.event(EventKind.THREAD_STARTED, thread="C1", critic="codex", family="openai"),
        ev.event(EventKind.TOPIC_DECLARED, thread="C1", topic="races"),
        ev.event(EventKind.ROUND_STARTED, thread="C1", round=1),
        ev.event(EventKind.ROUND_CLOSED, thread="C1", round=1),
    ]
    return [{**e, "seq": i} for i, e in enumerate(raw)]


def test_plain_progress_lines_without_a_terminal() -> None:
    stream = io.StringIO()
    progress = Progress(stream, live=False)
    reducer = Reducer()
    with progress:
        for entry in _entries():
            reducer.apply(entry)
            progress(entry, reducer.state)
    lines = stream.getvalue().splitlines()
    assert lines == [
        "contend: thread C1: started (codex)",
        "contend: thread C1: topic 'races'",
        "contend: thread C1: round 1 closed, 0 open",
    ]


def test_live_table_lists_threads_rounds_and_spend() -> None:
    reducer = Reducer()
    progress = Progress(io.StringIO(), live=True)
    for entry in _entries():
        reducer.apply(entry)
        progress(entry, reducer.state)
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(progress._table())
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "C1" in text and "codex" in text and "races" in text and "$0.0000" in text


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert __version__ in capsys.readouterr().out
    assert main(["review", "--help"]) == 0
    help_text = capsys.readouterr().out
    for option in ("--base", "--critic", "--proposer", "--gate", "--format", "--resume"):
        assert option in help_text


def test_static_threads_log_only_their_end() -> None:
    stream = io.StringIO()
    progress = Progress(stream, live=False)
    reducer = Reducer()
    raw = [
        ev.event(
            EventKind.THREAD_STARTED,
            thread="static:secrets",
            critic="static:secrets",
            family="static",
            backend="static",
        ),
        ev.event(EventKind.ROUND_STARTED, thread="static:secrets", round=1),
        ev.event(EventKind.ROUND_CLOSED, thread="static:secrets", round=1),
        ev.event(EventKind.THREAD_ENDED, thread="static:secrets", reason="awaiting_author"),
    ]
    for i, e in enumerate(raw):
        entry = {**e, "seq": i}
        reducer.apply(entry)
        progress(entry, reducer.state)
    assert stream.getvalue().splitlines() == [
        "contend: thread static:secrets: ended (awaiting_author), 0 open"
    ]
