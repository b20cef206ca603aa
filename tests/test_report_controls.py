"""Terminal control bytes never reach a screen (issue 9): every renderer escapes them once.

`cat report.md`, `contend review` (text, markdown, json, sarif on stdout) and a SARIF viewer
must not receive a raw ESC, OSC, CSI, C1 control or bidi override from a file name,
evidence, a claim, gate output or an answer typed with `respond --defend`; a newline in a
name (a file name may hold one) must not start a new line or Markdown block.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from contend.cli.main import main
from contend.protocol.events import EventKind, event
from contend.protocol.model import Action, Severity
from contend.protocol.verdict import decide
from contend.report import build_report, render_markdown, render_sarif, render_text
from contend.report.escape import visible
from review_helpers import make_repo
from test_report import Run

# What a hostile change can plant: set the window title (OSC), clear the screen (CSI),
# the same through 8-bit C1 controls, a bell, a carriage return and a bidi override.
PLANTS = "\x1b]0;pwned\x07\x1b[2J\x9b31m\x9d0;t\x9c\r\u202e"
# Characters no rendered output may carry raw (tab and newline are layout).
RAW_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]"
)
NAME_BREAK = "x\n# forged heading\n"


def planted_state() -> Any:
    """A run with a planted sequence in every string field a report renders."""
    run = Run()
    run.spec("file" + PLANTS, "SPEC" + PLANTS + NAME_BREAK + ".md", "spec text")
    run.apply(
        event(
            EventKind.GATE_RAN,
            name="pytest" + PLANTS,
            cmd="pytest -q" + PLANTS + NAME_BREAK,
            ok=True,
            exit_code=0,
            output="ok" + PLANTS,
            when="entry" + PLANTS,
        )
    )
    critic = "claude" + PLANTS
    run.apply(
        event(
            EventKind.THREAD_STARTED,
            thread="C1",
            critic=critic,
            family="anthropic" + PLANTS,
            model="model" + PLANTS,
            backend="claude",
        )
    )
    run.apply(event(EventKind.TOPIC_DECLARED, thread="C1", topic="topic" + PLANTS + NAME_BREAK))
    run.apply(event(EventKind.AGENT_CALL, thread="C1", role="critic", usable=True))
    run.start("C1", 1)
    run.apply(
        event(
            EventKind.ATTACK_RAISED,
            id="A1",
            thread="C1",
            critic=critic,
            family="anthropic" + PLANTS,
            topic="topic" + PLANTS + NAME_BREAK,
            rule="rule" + PLANTS + NAME_BREAK,
            severity="major",
            location={
                "path": "src/evil" + PLANTS + NAME_BREAK + ".py",
                "start_line": 3,
                "end_line": 3,
                "symbol": "fn" + PLANTS + NAME_BREAK,
            },
            claim="claim" + PLANTS + NAME_BREAK,
            evidence="evidence" + PLANTS,
            old_evidence="before" + PLANTS,
            round=1,
            fingerprint="fp",
            ways_out=["way" + PLANTS + NAME_BREAK],
        )
    )
    run.raise_("A2", "C1", Severity.MINOR, claim="second" + PLANTS)
    run.close("C1", 1)
    run.start("C1", 2)
    run.act("A1", Action.DEFEND, "author", "defended" + PLANTS, evidence="proof" + PLANTS)
    run.act(
        "A2",
        Action.WAIVE,
        "human",
        "waived" + PLANTS,
        person={"name": "Eve" + PLANTS + NAME_BREAK, "email": "e@x" + PLANTS, "source": "os"},
    )
    run.apply(
        event(
            EventKind.AGENT_FAILED,
            thread="C1",
            role="critic",
            round=2,
            backend="claude",
            model="m",
            error="crash" + PLANTS + NAME_BREAK,
        )
    )
    run.close("C1", 2)
    run.apply(event(EventKind.FILE_SKIPPED, path="bin" + PLANTS + NAME_BREAK, reason="r" + PLANTS))
    run.apply(event(EventKind.DEADLOCK_REPORT, attack="A1", cause="c" + PLANTS))
    run.apply(event(EventKind.MERGE, merged="m" + PLANTS, threads=["C1"], conflicts=[]))
    run.apply(event(EventKind.THREAD_ENDED, thread="C1", reason="awaiting_author" + PLANTS))
    return run.state


def test_no_renderer_lets_a_planted_control_sequence_through() -> None:
    state = planted_state()
    report = build_report(state, decide(state), wall_time_s=1.0)
    outputs = {
        "markdown": render_markdown(report),
        "text": render_text(report),
        "sarif": render_sarif(report),
        "json": report.to_json(),
    }
    for name, rendered in outputs.items():
        assert not RAW_CONTROL.search(rendered), (name, RAW_CONTROL.findall(rendered))
        # The sequences are shown, not dropped: a reader can see what was planted.
        if name in ("markdown", "text"):
            assert "\\x1b]0;pwned\\x07" in rendered, name
            assert "\\x9b31m" in rendered and "\\u202e" in rendered, name
    # report.json keeps the data itself (escaped by JSON, not altered).
    data = json.loads(outputs["json"])
    assert data["disputes"][0]["claim"] == "claim" + PLANTS + NAME_BREAK
    sarif = json.loads(outputs["sarif"])
    messages = [r["message"]["text"] for r in sarif["runs"][0]["results"]]
    assert all(not RAW_CONTROL.search(m) for m in messages)


def test_a_newline_in_a_name_starts_no_line_or_block() -> None:
    state = planted_state()
    report = build_report(state, decide(state), wall_time_s=1.0)
    md = render_markdown(report)
    tokens = MarkdownIt("commonmark").parse(md)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert not any(h.lstrip("#\\ ").startswith("forged") for h in headings)
    assert not any(line.lstrip("#> -").startswith("forged") for line in md.splitlines())
    text = render_text(report)
    # Multi-line prose (a claim, an error) keeps its lines, indented under its item; a
    # single-line field (a path, a name, a command, a rule) never breaks its line.
    assert not any(line.startswith(("#", "forged")) for line in text.splitlines()[1:])
    for rendered in (md, text):
        flat = " ".join(rendered.split())  # undo the text renderer's wrapping at 100 columns
        for single in ("src/evil", "SPEC", "pytest -q", "Eve", "bin", "fn", "rule", "topic"):
            shown = re.escape(single) + r"\S*x\\n\\?# forged heading\\n"
            assert re.search(shown, flat), single


def test_visible_escapes() -> None:
    assert visible("a\x1bb") == "a\\x1bb"
    assert visible("a\nb") == "a\nb"
    assert visible("a\nb", single_line=True) == "a\\nb"
    assert visible("t\tx") == "t\tx"
    assert visible("\u202eabc") == "\\u202eabc"
    assert visible("é ü 中") == "é ü 中"


# --- through the CLI, as a user meets it ------------------------------------------------

EVIL_NAME = "evil\x1b]0;pwned\x07\nname.py"
EVIL_SOURCE = (
    "def load(raw):\n    try:\n        return int(raw)\n"
    "    except Exception:\n        return '\x1b[2J\x1b]0;pwned\x07'\n"
)


@pytest.fixture
def evil_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = make_repo(tmp_path, change={EVIL_NAME: EVIL_SOURCE}, commit_change=False)
    monkeypatch.chdir(repo)
    return repo


def _all_outputs(repo: Path, run_id: str) -> dict[str, str]:
    run_dir = repo / ".contend" / "runs" / run_id
    return {
        name: (run_dir / name).read_text(encoding="utf-8")
        for name in ("report.md", "report.json", "report.sarif")
    }


def test_file_names_evidence_and_defenses_reach_no_terminal_raw(
    evil_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    printed: dict[str, str] = {}
    for fmt in ("text", "markdown", "sarif", "json"):
        main(["review", "-q", "--format", fmt])
        printed[fmt] = capsys.readouterr().out
    data = json.loads(printed["json"])
    ids = [d["id"] for d in data["disputes"] if d["location"]["path"] == EVIL_NAME]
    assert ids, "the critics reviewed the file with the hostile name"
    assert main(["respond", ids[0], "--defend", "fine\x1b]0;owned\x07\x9b2J"]) == 0
    answered = capsys.readouterr()
    for fmt, out in printed.items():
        assert not RAW_CONTROL.search(out), fmt
    assert not RAW_CONTROL.search(answered.out + answered.err)
    for name, text in _all_outputs(evil_repo, data["run_id"]).items():
        assert not RAW_CONTROL.search(text), name
    md = _all_outputs(evil_repo, data["run_id"])["report.md"]
    html = MarkdownIt("commonmark").render(md)
    assert "fine\\x1b]0;owned\\x07\\x9b2J" in html  # shown, as the person typed it
    assert "evil\\x1b]0;pwned\\x07\\nname.py" in html


def test_gate_output_reaches_no_terminal_raw(
    evil_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gate = "printf 'boom\\033]0;pwned\\007\\033[2J\\n'; exit 4"
    assert main(["review", "-q", "--format", "markdown", "--gate", gate]) == 1
    md = capsys.readouterr().out
    assert not RAW_CONTROL.search(md)
    assert "boom\\x1b]0;pwned\\x07\\x1b[2J" in md
    assert main(["review", "-q", "--format", "text", "--gate", gate]) == 1
    text = capsys.readouterr().out
    assert not RAW_CONTROL.search(text)
    assert "boom\\x1b]0;pwned" in text
