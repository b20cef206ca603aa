"""The terminal text (`--format text`) as a person reads it: tests written against the
survivors of mutation runs on report/text.py (issue 18).

They assert the facts and their order — verdict and exit code, reasons, headline, the tiers
of unresolved disputes, who said what, how each resolved one left, failures, gates, stats —
that nothing passes 100 columns, and that untrusted text cannot move the cursor.
"""

from __future__ import annotations

import pytest

from contend.protocol.model import Action, Severity, Status
from contend.report import render_text
from contend.report.model import Person, Skipped, Spec
from report_mutation_helpers import (
    dispute,
    exchange,
    failure,
    gate,
    report,
    site,
    stats,
    thread,
)


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _after(text: str, marker: str) -> list[str]:
    lines = _lines(text)
    start = next(i for i, ln in enumerate(lines) if ln.startswith(marker))
    return lines[start:]


def test_the_first_lines_give_verdict_exit_code_reasons_and_spec() -> None:
    r = report(
        verdict="conditional_pass",
        exit_code=0,
        reasons=["one minor dispute", "gates green"],
        caveats=["c1", "c2"],
        spec=Spec(source="file", path="SPEC.md"),
    )
    lines = _lines(render_text(r))
    assert lines[:4] == [
        "contend review: CONDITIONAL_PASS (exit 0)",
        "reasons: one minor dispute; gates green",
        "caveats: the 2 minor dispute(s) below stay open",
        "spec: file (SPEC.md)",
    ]
    text = render_text(report(spec=Spec(source="commits")))
    assert "spec: commits\n" in text
    assert "\nspec: none\n" in render_text(report())
    assert "caveats" not in render_text(report())


def test_long_reasons_wrap_at_the_width_with_an_indent() -> None:
    reasons = [f"reason number {n} is a long sentence about the gate" for n in range(6)]
    lines = _lines(render_text(report(reasons=reasons)))
    block = lines[1 : lines.index("spec: none")]
    assert len(block) > 1
    assert block[0].startswith("reasons: reason number 0")
    assert all(ln.startswith("  ") and not ln.startswith("   ") for ln in block[1:])
    assert all(len(ln) <= 100 for ln in block)
    # Wrapping moves words, it loses none.
    assert " ".join(" ".join(block).split()) == "reasons: " + "; ".join(reasons)


def test_a_hyphenated_word_is_not_broken_at_its_hyphen() -> None:
    word = "silent-fallback-" * 4 + "end"
    claim = "x" * 80 + " " + word
    r = report(disputes=[dispute("A", claim=claim)], headline="A")
    assert any(ln.strip() == word for ln in _lines(render_text(r)))


def test_the_headline_names_severity_place_symbol_and_contention_then_the_claim() -> None:
    d = dispute("H", contention=4, sites=[site(7, 9, symbol="load")], claim="drops errors")
    lines = _lines(render_text(report(disputes=[d], headline="H")))
    i = lines.index("headline: [major] src/app.py:7-9 in load (contention 4)")
    assert lines[i - 1] == ""
    assert lines[i + 1] == "  drops errors"
    assert "headline" not in render_text(report())


def test_no_unresolved_dispute_reads_none() -> None:
    lines = _lines(render_text(report()))
    i = lines.index("Unresolved disputes (0), most contended first:")
    assert lines[i + 1] == "  none"
    assert lines[i - 1] == ""


def test_a_full_dispute_gives_rule_critic_status_claim_places_and_evidence() -> None:
    d = dispute(
        "H",
        contention=3,
        re_attacked=True,
        sites=[site(4, symbol="parse"), site(9, 12)],
        critic="claude",
        family="anthropic",
        claim="swallows every error",
        evidence="try:\n\tx()\nexcept Exception:\n    pass",
    )
    text = render_text(report(disputes=[d, dispute("M", line=50, contention=1)]))
    body = _after(text, "  contention 3 · major:")
    assert body[1] == "  - [major] H src/app.py:4 in parse"
    assert body[2] == (
        "     silent-fallback/swallowing-handler by claude (anthropic); status open; contention 3,"
    )
    assert body[3] == "     re-attacked"
    assert body[4] == "     swallows every error"
    assert body[5] == "     2 places: lines 4 (parse), 9-12"
    assert body[6:10] == [
        "     | try:",
        "     |     x()",  # a tab is four spaces
        "     | except Exception:",
        "     |     pass",
    ]
    assert body[10] == "  contention 1 · major:"


def test_a_rule_less_dispute_names_its_topic() -> None:
    text = render_text(report(disputes=[dispute("A", rule="", topic="typing")]))
    assert "     typing by static (static); status open; contention 1\n" in text


def test_long_evidence_is_cut_to_its_first_lines_and_long_lines_to_the_width() -> None:
    evidence = "\n".join(f"line {n}" for n in range(11))
    text = render_text(report(disputes=[dispute("A", evidence=evidence)]))
    shown = [ln for ln in _lines(text) if ln.startswith("     | line")]
    assert shown == [f"     | line {n}" for n in range(8)]
    assert "     | … 3 more line(s) in report.md" in _lines(text)
    exact = "\n".join(f"line {n}" for n in range(8))
    text = render_text(report(disputes=[dispute("A", evidence=exact + "\n")]))
    assert "more line(s)" not in text
    assert [ln for ln in _lines(text) if ln.startswith("     | ")][-1] == "     | line 7"
    wide = "w" * 200
    (line,) = [
        ln
        for ln in _lines(render_text(report(disputes=[dispute("A", evidence=wide)])))
        if ln.startswith("     | ")
    ]
    assert len(line) == 100 and line.endswith("w…")
    fits = "w" * (100 - len("     | "))
    text = render_text(report(disputes=[dispute("A", evidence=fits)]))
    assert "     | " + fits + "\n" in text


def test_before_and_after_the_change_or_deleted_code_are_titled() -> None:
    d = dispute("A", evidence="except Exception:")
    text = render_text(report(disputes=[d], old_evidence={"A": "except KeyError:"}))
    body = _after(text, "  - [major] A")
    i = body.index("     before the change:")
    assert body[i : i + 4] == [
        "     before the change:",
        "     | except KeyError:",
        "     after the change:",
        "     | except Exception:",
    ]
    text = render_text(report(disputes=[d], old_evidence={"A": " except Exception: \n"}))
    body = _after(text, "  - [major] A")
    i = body.index("     deleted by the change:")
    assert body[i + 1] == "     |  except Exception: "
    assert "before the change" not in text and "after the change" not in text


def test_the_exchange_says_who_said_what_and_a_silent_answer_says_so() -> None:
    ann = Person(name="Ann", email="a@x", source="git config")
    history = [
        exchange(Action.DEFEND, "author", "callers check"),
        exchange(Action.RE_ATTACK, "claude", ""),
        exchange(Action.UPHOLD, "human", "keep it", person=ann),
    ]
    text = render_text(report(disputes=[dispute("A")], history={"A": history}))
    said = [ln for ln in _lines(text) if ln.startswith("     > ")]
    assert said == [
        "     > author defend: callers check",
        "     > claude re_attack: (no text)",
        "     > human (Ann, git config) uphold: keep it",
    ]


def test_disputes_at_the_same_place_read_as_one_item() -> None:
    a = dispute("A", claim="first")
    b = dispute("B", rule="other", claim="second", severity=Severity.MINOR)
    history = {"B": [exchange(Action.DEFEND, "author", "fine")]}
    text = render_text(report(disputes=[a, b], history=history))
    assert "     same place: B silent-fallback/other: second" in _lines(text)
    assert "     > author defend: fine" in _lines(text)
    assert "  - [minor] B" not in text


def test_minor_untouched_disputes_read_one_line_per_file_then_per_rule() -> None:
    minors = [
        dispute("M1", severity=Severity.MINOR, path="src/b.py", line=3, rule="r-minor"),
        dispute("M2", severity=Severity.MINOR, path="src/b.py", line=7, rule="r-minor"),
        dispute("M3", severity=Severity.MINOR, path="src/b.py", line=7, rule="r-other"),
        dispute(
            "G", severity=Severity.MINOR, path="src/a.py", rule="r-other", sites=[
                site(2, path="src/a.py"), site(5, path="src/a.py")
            ]
        ),
    ]  # fmt: skip
    body = _after(render_text(report(disputes=minors)), "  contention 1 · minor:")
    assert body[1:6] == [
        "  minor and unanswered, by file (4):",
        "  - src/a.py: G r-other 2 (+1)",
        "  - src/b.py: M1 r-minor 3, M2 r-minor + M3 r-other 7",
        "  * r-other, 2 dispute(s): e.g. G: claim of G",
        "  * r-minor, 2 dispute(s): e.g. M1: claim of M1",
    ]
    one = render_text(report(disputes=[minors[0]]))
    assert "  * r-minor, 1 dispute(s): claim of M1\n" in one


def test_a_long_one_line_entry_wraps_under_its_bullet() -> None:
    minors = [
        dispute(f"M{n}", severity=Severity.MINOR, line=n, rule=f"rule-{n}") for n in range(1, 15)
    ]
    lines = _lines(render_text(report(disputes=minors)))
    i = next(i for i, ln in enumerate(lines) if ln.startswith("  - src/app.py: "))
    assert lines[i + 1].startswith("      ") and lines[i + 1].strip()
    assert all(len(ln) <= 100 for ln in lines)


def test_resolved_disputes_read_by_file_and_line_with_how_who_and_why() -> None:
    ann = Person(name="Ann", email=None, source="os user")
    resolved = [
        dispute("Z", status=Status.FIXED, path="src/z.py", line=1),
        dispute("B", status=Status.WAIVED, path="src/a.py", line=30, severity=Severity.MINOR),
        dispute(
            "A",
            status=Status.WITHDRAWN,
            path="src/a.py",
            line=3,
            sites=[site(3, path="src/a.py", symbol="f")],
        ),
    ]
    history = {"B": [exchange(Action.WAIVE, "human", "accepted risk", person=ann)]}
    lines = _after(render_text(report(resolved=resolved, history=history)), "Resolved (3):")
    assert lines[1:10] == [
        "  - A withdrawn [major] src/a.py:3 in f",
        "      claim of A",
        "      withdrawn by the critic: (no reason given)",
        "  - B waived [minor] src/a.py:30",
        "      claim of B",
        "      waived by a human (Ann, os user): accepted risk",
        "  - Z fixed [major] src/z.py:1",
        "      claim of Z",
        "      fixed by the author, fix accepted by the critic: (no reason given)",
    ]
    lines = _lines(render_text(report()))
    i = lines.index("Resolved (0):")
    assert (lines[i - 1], lines[i + 1]) == ("", "  none")


def test_each_critic_failure_names_the_agent_its_round_kind_and_words() -> None:
    r = report(
        failures=[
            failure(round=2, error="HTTP 529"),
            failure(
                thread="gem", critic="gem", backend="gemini", kind="malformed", error="not JSON"
            ),
        ]
    )
    lines = _after(render_text(r), "Critic failures (2):")
    assert lines[1:3] == [
        "  claude critic claude (claude) round 2: timeout: HTTP 529",
        "  gem critic gem (gemini): malformed: not JSON",
    ]
    long = failure(error="word " * 40)
    lines = _after(render_text(report(failures=[long])), "Critic failures (1):")
    assert lines[2].startswith("    word") and not lines[2].startswith("     ")
    assert "Critic failures" not in render_text(report())


def test_gates_show_state_exit_and_whole_command_and_the_tail_of_a_red_one() -> None:
    output = "\n".join(f"out {n}" for n in range(25))
    r = report(
        gates=[
            gate("pytest -q", ok=True, exit_code=0),
            gate("make lint", ok=False, exit_code=2, output=output, when="entry"),
            gate("true", ok=True, exit_code=None),
        ]
    )
    lines = _after(render_text(r), "Gates:")
    assert lines[1:5] == [
        "  ok  exit 0:",
        "    $ pytest -q",
        "  RED (entry) exit 2:",
        "    $ make lint",
    ]
    assert lines[5] == "      | … 5 earlier line(s) in report.md"
    assert lines[6] == "      | out 5" and lines[25] == "      | out 24"
    assert lines[26:28] == ["  ok :", "    $ true"]
    assert "Gates:" not in render_text(report())
    short = report(gates=[gate("make", ok=False, exit_code=1, output="boom\n")])
    assert "    $ make\n      | boom\n" in render_text(short)


def test_deadlock_reports_and_merges_list_their_fields_one_a_line() -> None:
    r = report(
        deadlocks=[{"attack": "D1", "cause": "spec"}, {"attack": "D2", "leaves": ["a", "é"]}],
        merges=[{"merged": "m", "map": {"k": 1}}],
    )
    lines = _lines(render_text(r))
    d = _after(render_text(r), "Deadlock reports (2):")
    assert d[1:5] == [
        "  - attack: D1",
        "    cause: spec",
        "  - attack: D2",
        '    leaves: ["a", "é"]',
    ]
    m = _after(render_text(r), "Merges (1):")
    assert m[1:3] == ["  - merged: m", '    map: {"k": 1}']
    assert lines[lines.index("Merges (1):") - 1] == ""
    plain = render_text(report())
    assert "Deadlock reports" not in plain and "Merges" not in plain


def test_skipped_files_give_topic_and_reason() -> None:
    r = report(
        skipped=[
            Skipped(path="img.png", reason="binary", topic="secrets"),
            Skipped(path="big.py", reason="too big", topic=None),
        ]
    )
    lines = _after(render_text(r), "Skipped files (2):")
    assert lines[1:3] == ["  img.png [secrets]: binary", "  big.py: too big"]
    assert "Skipped files" not in render_text(report())


def test_the_stats_close_the_text() -> None:
    s = stats(
        attacks=8,
        fixed=2,
        conceded=1,
        critic_found_bug_rate=3 / 8,
        unresolved=4,
        resolved=4,
        dropped_attacks=2,
        rounds=3,
        tokens_in=1200,
        tokens_out=300,
        cost=0.123456,
        wall_time_s=42.26,
        families=["anthropic", "static"],
    )
    threads = [thread("gem", failed=True), thread("ok"), thread("cl\x1bx", failed=True)]
    lines = _lines(render_text(report(run_stats=s, threads=threads)))
    assert lines[-4:] == [
        "",
        "fixed or conceded by the author: 3 of 8 (37.5%); 4 still open, 4 resolved, 2 dropped",
        "rounds 3 · tokens 1200 in / 300 out · cost $0.1235 · wall 42.3 s · families: anthropic, "
        "static",
        "failed critics: gem, cl\\x1bx",
    ]
    none = _lines(render_text(report()))
    assert (
        none[-2] == "fixed or conceded by the author: 0 of 0; 0 still open, 0 resolved, 0 dropped"
    )
    assert none[-1].endswith("families: none")
    assert not any(ln.startswith("failed critics") for ln in none)


def test_untrusted_text_is_shown_not_sent_and_names_stay_on_one_line() -> None:
    d = dispute(
        "A",
        path="src/evil\nname.py",
        claim="claim \x1b[2J\ttabbed",
        sites=[site(1, path="src/evil\nname.py", symbol="f\ng")],
    )
    text = render_text(report(disputes=[d], headline="A", reasons=["r\x9b"]))
    assert "\x1b" not in text and "\x9b" not in text
    assert "headline: [major] src/evil\\nname.py:1 in f\\ng (contention 1)" in text
    assert "  claim \\x1b[2J    tabbed" in text
    assert "reasons: r\\x9b" in text


@pytest.mark.parametrize("verdict", ["pass", "fail", "escalate"])
def test_the_text_ends_with_one_newline(verdict: str) -> None:
    text = render_text(report(verdict=verdict))
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_the_last_line_of_evidence_is_shown_whole() -> None:
    text = render_text(report(disputes=[dispute("A", evidence="if n > LIMIT:\n    n = MAX\n")]))
    shown = [ln for ln in _lines(text) if ln.startswith("     | ")]
    assert shown == ["     | if n > LIMIT:", "     |     n = MAX"]


def test_an_empty_claim_reads_as_an_empty_line_not_invented_words() -> None:
    d = dispute("A", claim="")
    lines = _lines(render_text(report(disputes=[d], headline="A")))
    i = lines.index("headline: [major] src/app.py:10 (contention 1)")
    assert lines[i + 1] == ""
    body = _after("\n".join(lines), "  - [major] A")
    assert body[2] == ""  # the claim's line, after the rule line


def test_a_dispute_at_one_place_lists_no_places() -> None:
    text = render_text(report(disputes=[dispute("A")]))
    assert "places" not in text
    body = _after(text, "  - [major] A")
    assert body[2:4] == ["     claim of A", "     | return None"]


def test_a_long_rule_line_and_a_long_record_wrap_under_their_bullets() -> None:
    claim = " ".join(["word"] * 40)
    minors = [dispute("M", severity=Severity.MINOR, claim=claim)]
    lines = _lines(render_text(report(disputes=minors, deadlocks=[{"decide": claim}])))
    i = next(i for i, ln in enumerate(lines) if ln.startswith("  * "))
    assert lines[i + 1].startswith("      word") and not lines[i + 1].startswith("       ")
    j = next(i for i, ln in enumerate(lines) if ln.startswith("  - decide: "))
    assert lines[j + 1].startswith("    word") and not lines[j + 1].startswith("     ")


def test_each_section_of_the_text_starts_after_a_blank_line() -> None:
    r = report(
        disputes=[dispute("A")],
        headline="A",
        resolved=[dispute("F", status=Status.FIXED, line=3)],
        deadlocks=[{"attack": "A"}],
        failures=[failure()],
        gates=[gate()],
        merges=[{"merged": "m"}],
        skipped=[Skipped(path="a.png", reason="binary", topic=None)],
    )
    lines = _lines(render_text(r))
    titles = (
        "headline:",
        "Unresolved disputes (",
        "Resolved (",
        "Deadlock reports (",
        "Critic failures (",
        "Gates:",
        "Merges (",
        "Skipped files (",
        "fixed or conceded by the author:",
    )
    starts = [i for i, ln in enumerate(lines) if ln.startswith(titles)]
    assert [lines[i].split(" (")[0].split(":")[0] for i in starts] == [
        "headline",
        "Unresolved disputes",
        "Resolved",
        "Deadlock reports",
        "Critic failures",
        "Gates",
        "Merges",
        "Skipped files",
        "fixed or conceded by the author",
    ]
    assert all(lines[i - 1] == "" for i in starts)
    # Within a section, no blank line: the blank lines are exactly the section breaks.
    assert [i for i, ln in enumerate(lines) if not ln] == [i - 1 for i in starts]
