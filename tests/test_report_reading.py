"""The report as a person reads it (issue 8), driven through the real CLI on real git
repositories: what the headline is, what a `fail` report lists, how repeated findings are
grouped and carried across author-mode invocations, in which order items come, how code
reads, and how long the report of a large typing sweep is.

Where a behaviour depends on a finding's confidence or its own ways out (which the critics
fill in), the findings are injected at the one seam the engine has for the static critics
(`contend.review.engine.run_static`), so the test pins the report, not a critic's calibration.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from markdown_it import MarkdownIt

from contend.cli.main import main
from contend.critics.static.base import (
    Confidence,
    FileChange,
    Finding,
    StaticResult,
    Topic,
)
from contend.protocol.model import Severity
from review_helpers import git, make_repo

# These tests are about the report as a person reads it, not about which static findings may block:
# the change they plant as the one that fails (a broad `except Exception: return 0`) is a
# `swallowing-handler`, which the default earned policy lists as minor. They let static findings
# block at each rule's own severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


SCHEMA = json.loads(
    (Path(__file__).resolve().parents[1] / "schemas" / "report.v1.schema.json").read_text()
)


def review(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any], str]:
    """One `contend review` through the CLI; returns exit code, report.json and report.md."""
    code = main(["review", "-q", "--format", "json", *args])
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    errors = [e.message for e in Draft202012Validator(SCHEMA).iter_errors(data)]
    assert errors == [], errors
    md = (Path(".contend") / "runs" / data["run_id"] / "report.md").read_text(encoding="utf-8")
    return code, data, md


def text_report(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    main(["review", "-q", "--format", "text", *args])
    return capsys.readouterr().out


def inject(monkeypatch: pytest.MonkeyPatch, findings: Sequence[Finding]) -> None:
    """Make the static critics return exactly `findings` (the seam the engine calls)."""

    def fake_run_static(
        changes: Sequence[FileChange], topics: Any, **_options: Any
    ) -> StaticResult:
        return StaticResult(findings=[f for f in findings if f.topic in topics])

    monkeypatch.setattr("contend.review.engine.run_static", fake_run_static)


def finding(
    line: int,
    *,
    rule: str = "swallowing-handler",
    topic: Topic = Topic.SILENT_FALLBACK,
    severity: Severity = Severity.MAJOR,
    confidence: Confidence = Confidence.MEDIUM,
    path: str = "app.py",
    claim: str = "",
    evidence: str = "",
    symbol: str | None = None,
    ways_out: tuple[str, ...] | None = None,
) -> Finding:
    extra: dict[str, Any] = {} if ways_out is None else {"ways_out": ways_out}
    return Finding(
        topic=topic,
        rule=rule,
        severity=severity,
        path=path,
        start_line=line,
        end_line=line,
        claim=claim or f"finding of {rule} at line {line}",
        evidence=evidence or f"evidence line {line}",
        confidence=confidence,
        symbol=symbol,
        **extra,
    )


@pytest.fixture
def any_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with an uncommitted change; what the critics find is injected."""
    repo = make_repo(tmp_path, commit_change=False)
    monkeypatch.chdir(repo)
    return repo


def ledger_events(data: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    path = Path(".contend") / "runs" / data["run_id"] / "ledger.jsonl"
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    return [e["data"] for e in entries if e["kind"] == kind]


# --- the headline ---------------------------------------------------------------------


def test_headline_is_the_surest_finding_when_contention_and_severity_tie(
    any_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    inject(
        monkeypatch,
        [
            finding(3, rule="low-rule", confidence=Confidence.LOW),
            finding(7, rule="medium-rule", confidence=Confidence.MEDIUM),
            finding(9, rule="high-rule", confidence=Confidence.HIGH),
        ],
    )
    code, data, md = review(capsys)
    assert code == 1
    by_rule = {d["rule"]: d["id"] for d in data["disputes"]}
    assert data["headline"] == by_rule["high-rule"]
    assert [d["rule"] for d in data["disputes"]] == ["high-rule", "medium-rule", "low-rule"]
    assert data["confidence"] == {
        by_rule["high-rule"]: "high",
        by_rule["medium-rule"]: "medium",
        by_rule["low-rule"]: "low",
    }
    raised = {e["rule"]: e["confidence"] for e in ledger_events(data, "attack_raised")}
    assert raised == {"low-rule": "low", "medium-rule": "medium", "high-rule": "high"}
    headline = md[md.index("## Headline") : md.index("## Verdict")]
    assert "high-rule" in headline and "confidence high" in headline


# --- a fail report ----------------------------------------------------------------------

FALLBACK_BASE = """\
def parse_amount(raw):
    if not isinstance(raw, str):
        raise TypeError("amount must be text")
    return int(raw)


def parse_rate(raw):
    if not isinstance(raw, str):
        raise TypeError("rate must be text")
    return float(raw)
"""
FALLBACK = FALLBACK_BASE.replace(
    "    return int(raw)\n",
    "    try:\n        return int(raw)\n    except Exception:\n        return 0\n",
).replace('    if not isinstance(raw, str):\n        raise TypeError("rate must be text")\n', "")


@pytest.fixture
def fallback_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = make_repo(
        tmp_path,
        base={"app.py": FALLBACK_BASE},
        change={"app.py": FALLBACK},
        commit_change=False,
    )
    monkeypatch.chdir(repo)
    return repo


def test_a_fail_report_lists_no_majors_as_caveats(
    fallback_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data, md = review(capsys)
    assert code == 1 and data["verdict"] == "fail"
    assert data["caveats"] == []
    assert "Caveats" not in md and "caveat" not in text_report(capsys).lower()


def test_markdown_code_spans_render_as_code(
    fallback_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, md = review(capsys)
    assert "\\`" not in md, "inline code must not be escaped into literal backticks"
    tokens = MarkdownIt("commonmark").parse(md)
    spans = {c.content for t in tokens if t.children for c in t.children if c.type == "code_inline"}
    # The critics' claims quote code with backticks: it reads as code.
    assert "parse_amount" in spans and "parse_rate" in spans
    plain = "".join(c.content for t in tokens if t.children for c in t.children if c.type == "text")
    assert "\\" not in plain


def test_the_stats_line_says_what_it_measures(
    fallback_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, md = review(capsys)
    text = text_report(capsys)
    for rendered in (md, text):
        assert "critic-found-bug rate 0.0%" not in rendered
        assert "critic-found-bug rate: 0.0%" not in rendered
        assert "fixed or conceded by the author: 0 of 2" in rendered
        assert "2 still open" in rendered


def test_before_and_after_are_shown_for_a_widened_handler(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    base = "def load(path):\n    try:\n        return open(path).read()\n"
    base += "    except FileNotFoundError:\n        return ''\n"
    widened = base.replace("except FileNotFoundError:", "except Exception:")
    repo = make_repo(tmp_path, base={"io.py": base}, change={"io.py": widened}, commit_change=False)
    monkeypatch.chdir(repo)
    _, data, md = review(capsys)
    [widen] = [d for d in data["disputes"] if d["rule"] == "widened-except"]
    assert "before the change" not in widen["evidence"]
    assert "except FileNotFoundError" in data["old_evidence"][widen["id"]]
    fences = [t for t in MarkdownIt("commonmark").parse(md) if t.type == "fence"]
    contents = [t.content for t in fences]
    assert any("except FileNotFoundError:" in c and "Exception" not in c for c in contents)
    assert any("except Exception:" in c and "FileNotFound" not in c for c in contents)
    assert md.index("Before the change") < md.index("After the change")


def test_deleted_code_is_shown_once_as_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tests = (
        "from app import parse_amount\n\n\n"
        "def test_parses_digits():\n    assert parse_amount('12') == 12\n\n\n"
        "def test_rejects_bytes_distinctly():\n"
        "    import pytest\n\n    with pytest.raises(TypeError):\n        parse_amount(b'1')\n"
    )
    kept = tests[: tests.index("def test_rejects_bytes_distinctly")].rstrip() + "\n"
    repo = make_repo(
        tmp_path,
        base={"app.py": FALLBACK_BASE, "tests/test_app.py": tests},
        change={"tests/test_app.py": kept},
        commit_change=False,
    )
    monkeypatch.chdir(repo)
    _, data, md = review(capsys)
    [deleted] = [d for d in data["disputes"] if d["rule"] == "test-deleted"]
    assert md.count("def test_rejects_bytes_distinctly") == 1
    assert "Deleted by the change" in md
    text = text_report(capsys)
    assert text.count("def test_rejects_bytes_distinctly") == 1
    assert deleted["evidence"]


# --- grouping ---------------------------------------------------------------------------


def _handlers(names: Sequence[str], *, waived: Sequence[str] = ()) -> str:
    blocks = []
    for name in names:
        comment = "  # contend: allow silent-fallback -- legacy callers" if name in waived else ""
        blocks.append(
            f"def {name}(raw):\n    try:\n        return int(raw)\n"
            f"    except Exception:{comment}\n        return None\n"
        )
    return "\n\n".join(blocks)


NAMES = ["parse_a", "parse_b", "parse_c", "parse_d", "parse_e"]


@pytest.fixture
def repeated_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = make_repo(
        tmp_path,
        base={"conv.py": "def keep():\n    return 1\n"},
        change={"conv.py": _handlers(NAMES)},
        commit_change=False,
    )
    monkeypatch.chdir(repo)
    return repo


def _swallowing(data: dict[str, Any], key: str = "disputes") -> list[dict[str, Any]]:
    return [d for d in data[key] if d["rule"] == "swallowing-handler"]


def _handler_lines(text: str) -> list[int]:
    return [n for n, line in enumerate(text.split("\n"), start=1) if "except Exception" in line]


def test_repeated_findings_of_one_rule_in_one_file_are_one_dispute(
    repeated_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data, md = review(capsys)
    assert code == 1
    [group] = _swallowing(data)
    starts = [loc["start_line"] for loc in group["locations"]]
    assert starts == _handler_lines(_handlers(NAMES))
    first = group["locations"][0]
    assert group["location"] == {k: first[k] for k in ("path", "start_line", "end_line")}
    assert len({loc["fingerprint"] for loc in group["locations"]}) == 1  # identical lines
    assert len(ledger_events(data, "attack_raised")) == len(data["disputes"])
    # The person reads one entry listing every place, not five copies of one finding.
    assert md.count("now catches Exception") == 1 + (data["headline"] == group["id"])
    places = ", ".join(f"{n}-{n + 1} (`{name}`)" for n, name in zip(starts, NAMES, strict=True))
    assert "5 places, lines " + places in md  # each place named by its function


def test_a_group_names_the_function_or_class_of_each_place(
    any_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    inject(
        monkeypatch,
        [
            finding(line, symbol=symbol, evidence="except Exception:")
            for line, symbol in ((4, "Cache.get"), (12, "Cache.put"), (30, "load"))
        ],
    )
    _, data, md = review(capsys)
    [group] = data["disputes"]
    assert [loc["symbol"] for loc in group["locations"]] == ["Cache.get", "Cache.put", "load"]
    assert "3 places, lines 4 (`Cache.get`), 12 (`Cache.put`), 30 (`load`)" in md
    assert "At `app.py:4` in `Cache.get`" in md
    text = text_report(capsys)
    assert "app.py:4 in Cache.get" in text
    assert "3 places: lines 4 (Cache.get), 12 (Cache.put), 30 (load)" in text


def test_a_group_shrinks_as_occurrences_are_fixed_and_resolves_when_all_are(
    repeated_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, first, _ = review(capsys)
    [group] = _swallowing(first)
    shrunk_text = "# two fixed\n\n" + _handlers(["parse_b", "parse_d", "parse_e"])
    (repeated_repo / "conv.py").write_text(shrunk_text)
    code, second, md = review(capsys)
    [shrunk] = _swallowing(second)
    assert shrunk["id"] == group["id"]
    assert [loc["start_line"] for loc in shrunk["locations"]] == _handler_lines(shrunk_text)
    # Lines moved: the report follows the code, it does not keep stale line numbers.
    assert shrunk["location"]["start_line"] == _handler_lines(shrunk_text)[0]
    assert shrunk["rounds_survived"] == 1 and shrunk["contention"] == 1
    assert "parse_a" not in md[md.index("## Unresolved") : md.index("## Resolved")]
    assert len(ledger_events(second, "attack_relocated")) == 1

    (repeated_repo / "conv.py").write_text("def keep():\n    return 2\n")
    code, third, _ = review(capsys)
    assert code == 0 and _swallowing(third) == []
    [fixed] = _swallowing(third, "resolved")
    assert (fixed["id"], fixed["status"]) == (group["id"], "fixed")


def test_a_waiver_concedes_only_the_occurrences_it_sits_on(
    repeated_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, first, _ = review(capsys)
    [group] = _swallowing(first)
    partly = _handlers(NAMES, waived=["parse_b", "parse_c"])
    (repeated_repo / "conv.py").write_text(partly)
    lines = _handler_lines(partly)
    code, second, _ = review(capsys)
    [still] = _swallowing(second)
    assert still["id"] == group["id"]
    assert [loc["start_line"] for loc in still["locations"]] == [lines[0], lines[3], lines[4]]
    [waived] = _swallowing(second, "resolved")
    assert waived["status"] == "conceded"
    assert [loc["start_line"] for loc in waived["locations"]] == lines[1:3]
    assert second["history"][waived["id"]][0]["text"] == "legacy callers"

    # Waiving the rest concedes the original dispute itself; nothing is raised twice.
    (repeated_repo / "conv.py").write_text(_handlers(NAMES, waived=NAMES))
    code, third, _ = review(capsys)
    assert code == 0 and _swallowing(third) == []
    statuses = {d["id"]: d["status"] for d in _swallowing(third, "resolved")}
    assert statuses == {group["id"]: "conceded", waived["id"]: "conceded"}
    code, fourth, _ = review(capsys)
    assert {d["id"] for d in _swallowing(fourth, "resolved")} == set(statuses)
    assert len(ledger_events(fourth, "attack_raised")) == len(ledger_events(third, "attack_raised"))


# --- order and merging -----------------------------------------------------------------


def test_items_read_in_path_and_line_order_within_a_rank(
    any_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    inject(
        monkeypatch,
        [
            finding(30, path="b.py", rule="r1", severity=Severity.MINOR),
            finding(5, path="b.py", rule="r2", severity=Severity.MINOR),
            finding(40, path="a.py", rule="r3", severity=Severity.MINOR),
            finding(9, path="c.py", rule="r4", severity=Severity.MAJOR),
        ],
    )
    _, data, md = review(capsys)
    ids = {
        d["location"]["path"] + ":" + str(d["location"]["start_line"]): d["id"]
        for d in data["disputes"]
    }
    reading = [ids[w] for w in ("c.py:9", "a.py:40", "b.py:5", "b.py:30")]
    body = md[md.index("## Unresolved") : md.index("## Resolved")]
    order = [body.index(f"`{i}`") for i in reading]
    assert order == sorted(order), body
    assert body.index("`a.py`") < body.index("`b.py`")  # the minor ones, file by file
    text = text_report(capsys)
    block = text[text.index("Unresolved") : text.index("Resolved")]
    order = [block.index(f"{i} ") for i in reading]
    assert order == sorted(order), block


def test_two_rules_on_one_line_read_as_one_item(
    any_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    inject(
        monkeypatch,
        [
            finding(6, rule="swallowing-handler", claim="handler returns a default"),
            finding(6, rule="widened-except", claim="except widened to Exception"),
            finding(
                6,
                topic=Topic.BOUNDARY_TYPING,
                rule="any-annotation-added",
                severity=Severity.MINOR,
                claim="Any on the boundary",
            ),
        ],
    )
    _, data, md = review(capsys)
    assert len(data["disputes"]) == 3  # the ledger and report.json keep each rule's dispute
    body = md[md.index("## Unresolved") : md.index("## Resolved")]
    assert body.count("`app.py:6`") == 1
    for claim in ("handler returns a default", "except widened to Exception", "Any on the"):
        assert claim in body
    assert md.count("evidence line 6") == 1


def test_ways_out_are_the_findings_own(
    any_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    inject(
        monkeypatch,
        [
            finding(
                4,
                topic=Topic.BOUNDARY_TYPING,
                rule="any-annotation-added",
                severity=Severity.MAJOR,
                ways_out=("annotate `amount` with the type callers really pass (`Decimal`)",),
            )
        ],
    )
    _, data, md = review(capsys)
    [d] = data["disputes"]
    assert data["ways_out"][d["id"]] == [
        "annotate `amount` with the type callers really pass (`Decimal`)"
    ]
    assert "raised, reported or tested" not in md
    assert "annotate `amount` with the type callers really pass (`Decimal`)" in md


# --- size -------------------------------------------------------------------------------

SWEEP_FILES = 20
SWEEP_FUNCS = 25


def _module(index: int, *, swept: bool) -> str:
    lines = ["from typing import Any, cast", ""]
    for f in range(SWEEP_FUNCS):
        if swept:
            lines += [
                f"def f{index}_{f}(value: Any, scale: Any) -> Any:",
                "    result = cast(Any, value)  # type: ignore",
                "    return result * scale",
                "",
            ]
        else:
            lines += [
                f"def f{index}_{f}(value: int, scale: int) -> int:",
                "    result = value",
                "    return result * scale",
                "",
            ]
    return "\n".join(lines) + "\n"


def _rows(text: str, width: int = 100) -> int:
    """Terminal rows `text` takes at `width` columns (long lines wrap)."""
    return sum(max(1, -(-len(line) // width)) for line in text.splitlines())


def test_the_report_of_a_thousand_line_typing_sweep_fits_on_a_screen_or_two(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    base = {f"pkg/mod{i}.py": _module(i, swept=False) for i in range(SWEEP_FILES)}
    change: dict[str, str | None] = {
        f"pkg/mod{i}.py": _module(i, swept=True) for i in range(SWEEP_FILES)
    }
    repo = make_repo(tmp_path, base=base, change=change, commit_change=False)
    monkeypatch.chdir(repo)
    changed = git(repo, "diff", "--numstat")
    lines_changed = sum(
        int(a) + int(d) for a, d, _ in (r.split("\t") for r in changed.splitlines())
    )
    assert lines_changed >= 1000
    _, data, md = review(capsys)
    occurrences = sum(len(d["locations"]) for d in [*data["disputes"], *data["resolved"]])
    text = text_report(capsys)
    md_rows = _rows(md)
    print(
        f"typing sweep: {lines_changed} changed lines, {occurrences} findings in "
        f"{len(data['disputes'])} disputes; report.md {len(md.splitlines())} lines "
        f"({md_rows} rows at 100 columns), text {len(text.splitlines())} lines"
    )
    # A screen or two: at most 120 lines, and 120 rows of a 100-column terminal.
    assert len(md.splitlines()) <= 120 and md_rows <= 120
    assert len(text.splitlines()) <= 120 and max(len(line) for line in text.splitlines()) <= 100
    # Every occurrence is still in report.json.
    assert all(len(d["locations"]) >= 1 for d in data["disputes"])


def test_markdown_keeps_every_location_of_a_big_group_in_report_json(
    any_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    inject(
        monkeypatch,
        [
            finding(
                line,
                rule="type-ignore-added",
                topic=Topic.BOUNDARY_TYPING,
                severity=Severity.MINOR,
                symbol=f"fn_{line}",
                evidence=f"x = y  # type: ignore  ({line})",
            )
            for line in range(1, 201)
        ],
    )
    _, data, md = review(capsys)
    [group] = data["disputes"]
    assert len(group["locations"]) == 200
    assert len(md.splitlines()) <= 80
    assert re.search(r"and 1\d\d more", md)


# --- the planner, on ledgers written before grouping ------------------------------------


def test_an_attack_raised_before_grouping_keeps_its_identity() -> None:
    from contend.protocol.events import EventKind, event
    from contend.protocol.state import fold
    from contend.review.static_round import plan_static_round

    old = finding(6, evidence="except Exception:\n    return 0")
    legacy_events = [
        event(EventKind.RUN_STARTED, run_id="r", artifact={}),
        event(
            EventKind.THREAD_STARTED,
            thread="static:silent-fallback",
            critic="static:silent-fallback",
            family="static",
        ),
        event(EventKind.TOPIC_DECLARED, thread="static:silent-fallback", topic="silent-fallback"),
        event(EventKind.ROUND_STARTED, thread="static:silent-fallback", round=1),
        event(
            EventKind.ATTACK_RAISED,
            id="SF-1",
            thread="static:silent-fallback",
            critic="static:silent-fallback",
            family="static",
            topic="silent-fallback",
            rule=old.rule,
            severity="major",
            location={"path": "app.py", "start_line": 6, "end_line": 6},
            claim=old.claim,
            evidence=old.evidence,
            round=1,
            fingerprint=old.fingerprint(),
            ways_out=[],
        ),
        event(EventKind.ROUND_CLOSED, thread="static:silent-fallback", round=1),
    ]
    state = fold(legacy_events)
    # The same handler moved down two lines, and a copy of it appeared further on.
    now = [finding(8, evidence=old.evidence), finding(20, evidence=old.evidence)]
    planned = plan_static_round(
        state,
        Topic.SILENT_FALLBACK,
        now,
        skipped_paths=(),
        model="m",
        wall_s=0.0,
        changed_paths=["app.py"],
    )
    kinds = [e["kind"] for e in planned]
    assert "attack_raised" not in kinds and "attack_transition" not in kinds
    [moved] = [e["data"] for e in planned if e["kind"] == "attack_relocated"]
    assert moved["attack"] == "SF-1"
    assert [loc["start_line"] for loc in moved["locations"]] == [8, 20]
    assert moved["members"] == [old.fingerprint(), old.fingerprint()]
    after = fold([*legacy_events, *planned])
    assert [loc.start_line for loc in after.attacks["SF-1"].locations] == [8, 20]
    assert after.attacks["SF-1"].location.start_line == 8
