"""`contend demo` runs as designed; progress output on and off a terminal; --help and
--version."""

from __future__ import annotations

import io
import json
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


def test_under_the_default_the_demo_fails_on_the_committed_key_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Under the earned blocking policy the key is the one blocker of round 1; the fallback,
    # the removed guard and the weakened test are listed as minor disputes.
    assert main(["demo", "--keep", str(tmp_path / "d"), "--format", "json"]) == 0
    out = capsys.readouterr().out
    first = json.loads(out[out.index("{") : out.index("\n[verdict ")])
    assert first["verdict"] == "fail"
    severities = {(d["topic"], d["severity"]) for d in first["disputes"]}
    assert severities == {
        ("secrets", "critical"),
        ("silent-fallback", "minor"),
        ("boundary-typing", "minor"),
        ("test-weakening", "minor"),
    }


def test_the_demo_also_runs_as_designed_when_static_findings_block_by_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CONTEND_STATIC_BLOCKING", "rule")
    assert main(["demo", "--keep", str(tmp_path / "d")]) == 0
    assert "The demonstration ran as designed." in capsys.readouterr().out


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


def test_progress_never_prints_raw_control_sequences() -> None:
    """Agent errors, topics and notes come from the change and the agents: an ESC, an OSC
    or a newline of theirs must not reach the terminal raw (DESIGN §9)."""
    planted = "x\x1b]0;owned\x07y\x1b[2Jz\nforged line"
    raw = [
        ev.event(EventKind.THREAD_STARTED, thread="C1", critic="codex", family="openai"),
        ev.event(EventKind.TOPIC_DECLARED, thread="C1", topic=planted),
        ev.event(EventKind.AGENT_FAILED, thread="C1", role="critic", round=1, error=planted),
    ]
    stream = io.StringIO()
    progress = Progress(stream, live=False)
    reducer = Reducer()
    for i, e in enumerate(raw):
        entry = {**e, "seq": i}
        reducer.apply(entry)
        progress(entry, reducer.state)
    progress.note(planted)
    table_console = Console(file=io.StringIO(), width=200, color_system=None)
    table_console.print(progress._table())
    for text in (stream.getvalue(), table_console.file.getvalue()):  # type: ignore[attr-defined]
        assert "\x1b" not in text and "\x07" not in text
        assert "\\x1b]0;owned\\x07" in text
    assert all(line.startswith("contend: ") for line in stream.getvalue().splitlines())
