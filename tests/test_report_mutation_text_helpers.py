"""Escaping and layout shared by every renderer: tests written against the survivors of
mutation runs on report/escape.py, report/mdtext.py and report/layout.py (issue 18).

Each test says what a reader of report.md or the terminal text relies on: a control
character shows as a visible escape, untrusted prose stays one plain paragraph while the
code spans it holds stay code, a fence or code span cannot be broken out of, and disputes
read in tiers, by file and line, with their places listed compactly.
"""

from __future__ import annotations

import pytest

from contend.protocol.model import Severity
from contend.report.escape import json_text, visible
from contend.report.layout import (
    by_file,
    by_rule,
    in_full,
    items,
    lines_of,
    path_key,
    shown_places,
    symbol_of,
    tiers,
    where,
)
from contend.report.mdtext import code, fence, inline, label, one_line
from report_mutation_helpers import dispute, report, site, tokens

# --- escape.py ---------------------------------------------------------------------------


def test_a_tab_in_a_single_line_field_shows_as_backslash_t() -> None:
    assert visible("pytest\t-q", single_line=True) == "pytest\\t-q"
    # In multi-line text a tab is layout, and stays.
    assert visible("pytest\t-q") == "pytest\t-q"


def test_a_windows_line_ending_is_a_newline_and_a_lone_carriage_return_is_shown() -> None:
    assert visible("one\r\ntwo") == "one\ntwo"
    assert visible("one\r\ntwo", single_line=True) == "one\\ntwo"
    assert visible("100%\roverprinted") == "100%\\x0doverprinted"


def test_every_control_class_is_shown_with_its_code() -> None:
    shown = visible("\x00\x08\x0b\x1f\x7f\x80\x9f\u200e\u200f\u202a\u2066\u2069\u2028\u2029")
    assert shown == (
        "\\x00\\x08\\x0b\\x1f\\x7f\\x80\\x9f\\u200e\\u200f\\u202a\\u2066\\u2069\\u2028\\u2029"
    )
    # Printable text around them, Latin-1 and beyond, is left alone.
    assert visible("a\xa0\xffĀ€b") == "a\xa0\xffĀ€b"


def test_json_text_writes_no_raw_control_and_keeps_the_data() -> None:
    import json

    value = {"claim": "a\x1b[2Jb\x85c\u2028d", "n": 1}
    text = json_text(value)
    assert "\x1b" not in text and "\x85" not in text and "\u2028" not in text
    assert "\\u001b" in text and "\\u0085" in text and "\\u2028" in text
    assert json.loads(text) == value
    # Readable UTF-8, not \u escapes, for ordinary text; indented by default.
    assert json_text({"k": "é"}) == '{\n  "k": "é"\n}'
    assert json_text({"k": "é"}, indent=None) == '{"k": "é"}'


# --- mdtext.py ---------------------------------------------------------------------------


def test_a_fence_is_three_backticks_unless_the_text_holds_a_longer_run() -> None:
    assert fence("plain").split("\n")[0] == "```"
    assert fence("a `` b").split("\n")[0] == "```"
    assert fence("a ``` b").split("\n")[0] == "````"
    assert fence("a ````` b").split("\n")[0] == "``````"


def test_a_fence_ends_its_text_with_one_newline_and_carries_its_info_string() -> None:
    assert fence("line\n") == "```\nline\n```"
    assert fence("line") == "```\nline\n```"
    assert fence('{"a": 1}', "json").split("\n")[0] == "```json"
    [block] = [t for t in tokens(fence("x = 1", "python")) if t.type == "fence"]
    assert (block.info, block.content) == ("python", "x = 1\n")


def test_a_fence_shows_control_characters() -> None:
    assert fence("a\x1bb") == "```\na\\x1bb\n```"


def test_a_code_span_is_one_backtick_longer_than_any_run_inside() -> None:
    assert code("name") == "`name`"
    assert code("a`b") == "``a`b``"
    assert code("a``b") == "```a``b```"
    for text in ("name", "a`b", "a``b", "`lead", "trail`", "`both`"):
        [inline_tok] = [t for t in tokens(code(text)) if t.type == "inline"]
        [span] = inline_tok.children or []
        assert (span.type, span.content) == ("code_inline", text)


def test_an_empty_or_blank_code_span_is_still_a_code_span() -> None:
    for text in ("", "   "):
        [inline_tok] = [t for t in tokens("see " + code(text)) if t.type == "inline"]
        kinds = [c.type for c in inline_tok.children or []]
        assert kinds == ["text", "code_inline"], text


@pytest.mark.parametrize("text", [" x ", " X ", "  ", " ", " `a` ", " x", "x ", "`x ", " x`"])
def test_a_code_span_shows_its_leading_and_trailing_spaces_as_they_are(text: str) -> None:
    """CommonMark strips one space from each end of a span that begins and ends with one
    (unless it is all spaces): a command or a name must not lose or gain a space."""
    [inline_tok] = [t for t in tokens("see " + code(text)) if t.type == "inline"]
    [_, span] = inline_tok.children or []
    assert (span.type, span.content) == ("code_inline", text)


def test_a_newline_in_a_code_span_shows_as_backslash_n() -> None:
    assert code("a\nb") == "`a\\nb`"


def test_inline_prose_escapes_markup_but_keeps_its_code_spans() -> None:
    md = "- " + inline("use `x*y` not *x* or [a](b)") + "\n"
    [item] = [t for t in tokens(md) if t.type == "inline"]
    kinds = [c.type for c in item.children or []]
    assert "code_inline" in kinds and "em_open" not in kinds and "link_open" not in kinds
    [span] = [c for c in item.children or [] if c.type == "code_inline"]
    assert span.content == "x*y"
    # Two spans on one line: each stays code, the text between them stays text.
    md = inline("`a` and *b* and `c`")
    assert md == "`a` and \\*b\\* and `c`"


def test_a_code_span_of_blanks_is_escaped_as_text() -> None:
    assert inline("a ` ` b") == "a \\` \\` b"


def test_line_starts_that_would_open_a_block_are_escaped() -> None:
    for text, shown in (
        ("- item", "\\- item"),
        ("+ item", "\\+ item"),
        ("> quote", "\\> quote"),
        ("= setext", "\\= setext"),
        ("1. one", "1\\. one"),
        ("2) two", "2\\) two"),
        ("a\n  - nested", "a  \n  \\- nested"),
    ):
        assert inline(text) == shown, text
        kinds = {t.type for t in tokens("para\n\n" + inline(text))}
        assert not kinds & {"bullet_list_open", "ordered_list_open", "blockquote_open"}, text


def test_inline_prose_keeps_its_lines_as_hard_breaks_and_drops_blank_ones() -> None:
    assert inline("one\r\n\r\n  \ntwo\nthree") == "one  \ntwo  \nthree"
    assert inline("\n\nonly\n\n") == "only"


def test_inline_prose_shows_control_characters_once() -> None:
    # The Markdown escaping comes first, so the shown escape has one backslash.
    assert inline("a\x1bb") == "a\\x1bb"


def test_a_label_is_escaped_prose_on_one_line() -> None:
    assert label("Eve *admin*\nforged") == "Eve \\*admin\\*\\nforged"
    assert label("a\r\nb") == "a\\nb"
    assert label("a\r\r\nb") == "a\\x0d\\nb"  # a lone CR before a CRLF is shown
    assert label("1. first") == "1\\. first"


def test_one_line_flattens_every_run_of_blanks() -> None:
    assert one_line("a\n  b\t\tc\r\n d") == "a b c d"


# --- layout.py ---------------------------------------------------------------------------


def test_paths_sort_as_a_person_reads_them() -> None:
    paths = ["src/mod10.py", "src/mod2.py", "src/mod1a.py", "src/a.py"]
    assert sorted(paths, key=path_key) == [
        "src/a.py",
        "src/mod1a.py",
        "src/mod2.py",
        "src/mod10.py",
    ]


def test_a_file_name_with_superscript_digits_sorts_and_renders() -> None:
    """`²` is a digit to str.isdigit but not to the regex that splits paths into runs of
    decimal digits: a file named like that must not crash the report of a review."""
    from contend.report import render_markdown, render_text

    paths = ["src/x10", "src/x1²", "src/x2", "src/x\u0661"]  # the last: ARABIC-INDIC DIGIT ONE
    assert sorted(paths, key=path_key) == ["src/x\u0661", "src/x1²", "src/x2", "src/x10"]
    r = report(disputes=[dispute(p, path=p, severity=Severity.MINOR) for p in paths])
    md, text = render_markdown(r), render_text(r)
    assert md.index("`src/x1²`") < md.index("`src/x2`") < md.index("`src/x10`")
    assert text.index("src/x1²:") < text.index("src/x2:") < text.index("src/x10:")


def test_where_a_dispute_is_reads_as_path_line_or_range() -> None:
    assert where(dispute("A", line=7)) == "src/app.py:7"
    assert where(dispute("A", line=7, end=9)) == "src/app.py:7-9"
    assert where(dispute("A", line=0, end=0)) == "src/app.py"
    # An end before the start (a critic's slip) is not shown as a backwards range.
    assert where(dispute("A", line=7, end=5)) == "src/app.py:7"
    assert lines_of(site(7)) == "7"
    assert lines_of(site(7, 9)) == "7-9"
    assert lines_of(site(7, 5)) == "7"
    assert lines_of(site(0, 0)) == "whole file"
    assert lines_of(site(1, 1)) == "1"


def test_a_big_group_shows_its_first_places_and_counts_the_rest() -> None:
    many = dispute("G", sites=[site(n) for n in range(1, 12)])
    shown, more = shown_places(many)
    assert [s.start_line for s in shown] == list(range(1, 9))
    assert more == 3
    exact = dispute("G", sites=[site(n) for n in range(1, 9)])
    assert shown_places(exact) == (exact.locations, 0)


def test_the_symbol_is_the_first_places() -> None:
    assert symbol_of(dispute("A", sites=[site(1, symbol="f"), site(5, symbol="g")])) == "f"
    assert symbol_of(dispute("A")) is None


def test_tiers_go_most_contended_then_most_severe_first_and_by_file_and_line_within() -> None:
    ds = [
        dispute("C", contention=3, severity=Severity.MINOR, path="src/b.py", line=5),
        dispute("B", contention=3, severity=Severity.MINOR, path="src/a.py", line=9),
        dispute("A", contention=3, severity=Severity.MINOR, path="src/a.py", line=2),
        dispute("X", contention=2, severity=Severity.CRITICAL),
        dispute("M", contention=1, severity=Severity.MAJOR, line=1),
        dispute("K", contention=1, severity=Severity.CRITICAL, line=50),
        dispute("N", contention=1, severity=Severity.MINOR, line=3),
    ]
    got = [
        (t.contention, str(t.severity), [i.main.id for i in t.items])
        for t in tiers(report(disputes=ds))
    ]
    assert got == [
        (3, "minor", ["A", "B", "C"]),
        (2, "critical", ["X"]),
        (1, "critical", ["K"]),
        (1, "major", ["M"]),
        (1, "minor", ["N"]),
    ]


def test_disputes_at_exactly_the_same_places_are_one_item() -> None:
    first = dispute("A", rule="r1", sites=[site(3), site(8)])
    same = dispute("B", rule="r2", sites=[site(8), site(3)])
    other_lines = dispute("C", rule="r3", sites=[site(3)])
    other_file = dispute("D", rule="r4", sites=[site(3, path="src/b.py"), site(8, path="src/b.py")])
    grouped = items([first, same, other_lines, other_file])
    assert [(i.main.id, [d.id for d in i.also]) for i in grouped] == [
        ("A", ["B"]),
        ("C", []),
        ("D", []),
    ]
    assert [d.id for d in grouped[0].disputes] == ["A", "B"]


def test_a_dispute_is_in_full_when_it_can_block_was_re_attacked_or_answered() -> None:
    from contend.protocol.model import Action
    from report_mutation_helpers import exchange

    minor = dispute("A", severity=Severity.MINOR)
    (item,) = items([minor])
    assert not in_full(item, report(disputes=[minor]))
    (blocking,) = items([dispute("B", severity=Severity.MAJOR)])
    assert in_full(blocking, report())
    (pressed,) = items([dispute("C", severity=Severity.MINOR, re_attacked=True)])
    assert in_full(pressed, report())
    answered = report(history={"A": [exchange(Action.DEFEND, "author", "fine")]})
    assert in_full(item, answered)
    # One disputed member of a same-place item is enough.
    also = dispute("D", severity=Severity.MINOR, rule="other")
    (merged,) = items([minor, also])
    assert in_full(merged, report(history={"D": [exchange(Action.DEFEND, "author", "x")]}))


def test_one_line_disputes_gather_per_file_and_per_rule_in_reading_order() -> None:
    ds = [
        dispute("Z", path="src/mod10.py", line=1, rule="r2"),
        dispute("Y", path="src/mod2.py", line=9, rule="r1"),
        dispute("X", path="src/mod2.py", line=3, rule="r2"),
        dispute("W", path="src/mod2.py", line=5, rule="", topic="typing"),
    ]
    assert [(p, [d.id for d in found]) for p, found in by_file(ds)] == [
        ("src/mod2.py", ["X", "W", "Y"]),
        ("src/mod10.py", ["Z"]),
    ]
    assert [(r, [d.id for d in found]) for r, found in by_rule(ds)] == [
        ("r2", ["X", "Z"]),
        ("typing", ["W"]),
        ("r1", ["Y"]),
    ]


@pytest.mark.parametrize("end", [3, 4])
def test_a_range_is_ordered_by_its_end_after_its_start(end: int) -> None:
    short = dispute("S", line=3, end=3)
    long = dispute("L", line=3, end=end)
    files = by_file([long, short])
    assert [d.id for d in files[0][1]] == (["S", "L"] if end > 3 else ["L", "S"])
