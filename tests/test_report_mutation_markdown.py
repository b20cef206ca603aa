"""report.md as a person reads it: tests written against the survivors of mutation runs on
report/markdown.py (issue 18).

They assert the facts a reader needs and their order — the headline, the verdict, the
tiers of unresolved disputes, who said what, how each resolved one left, failures, gates,
stats — and that escaping keeps code spans as code, not the exact sentences around them.
"""

from __future__ import annotations

from typing import Any

import pytest

from contend.protocol.model import Action, Severity, Status
from contend.report import render_markdown
from contend.report.model import Person, Report, Skipped, Spec
from report_mutation_helpers import (
    dispute,
    exchange,
    failure,
    gate,
    headings,
    report,
    section,
    site,
    stats,
    thread,
    tokens,
)

ANN = Person(name="Ann Lee", email="ann@example.org", source="git config")


def _fences(md: str) -> list[tuple[str, str]]:
    return [(t.info, t.content) for t in tokens(md) if t.type == "fence"]


def _code_spans(md: str) -> list[str]:
    return [
        c.content for t in tokens(md) if t.children for c in t.children if c.type == "code_inline"
    ]


def _rich() -> Report:
    headline = dispute(
        "H1",
        contention=3,
        re_attacked=True,
        sites=[site(4, symbol="parse"), site(9, 12, symbol="load")],
        critic="claude",
        thread="claude-2",
        family="anthropic",
        claim="`parse` swallows *every* error",
    )
    minors = [
        dispute("M1", severity=Severity.MINOR, path="src/b.py", line=3, rule="r-minor"),
        dispute("M2", severity=Severity.MINOR, path="src/b.py", line=7, rule="r-minor"),
        dispute("M3", severity=Severity.MINOR, path="src/b.py", line=7, rule="r-other"),
    ]
    return report(
        disputes=[headline, *minors],
        resolved=[
            dispute("F1", status=Status.FIXED, path="src/z.py", line=2),
            dispute("W1", status=Status.WAIVED, path="src/a.py", line=30),
        ],
        headline="H1",
        confidence={"H1": "high"},
        ways_out={"H1": ["add a test"], "M1": ["raise", "log"]},
        history={
            "H1": [
                exchange(Action.DEFEND, "author", "it is fine", round=2, evidence="x = 1"),
                exchange(Action.RE_ATTACK, "claude", "no, it is not"),
            ],
            "W1": [exchange(Action.WAIVE, "human", "legacy callers", person=ANN)],
        },
        old_evidence={"H1": "old code"},
        spec=Spec(source="file", path="SPEC.md"),
    )


# --- title, headline, verdict ------------------------------------------------------------


def test_the_title_names_the_verdict_in_words_and_the_page_ends_in_one_newline() -> None:
    md = render_markdown(report(verdict="conditional_pass", exit_code=0))
    assert md.splitlines()[0] == "# contend review: conditional pass"
    assert md.endswith("\n") and not md.endswith("\n\n")


def test_the_sections_come_in_reading_order() -> None:
    r = _rich().model_copy(
        update={
            "failures": [failure()],
            "gates": [gate()],
            "deadlocks": [{"attack": "H1"}],
            "merges": [{"merged": "m"}],
        }
    )
    got = [h for h in headings(render_markdown(r)) if not h.startswith(("Contention", "`"))]
    assert [h.split(" (")[0].split(":")[0] for h in got] == [
        "contend review",
        "Headline",
        "Verdict",
        "Unresolved disputes",
        "Deadlock reports",
        "Resolved",
        "Critic failures",
        "Gates",
        "Merges",
        "Skipped files",
        "Stats",
    ]


def test_the_headline_gives_claim_place_symbol_rule_confidence_critic_and_contention() -> None:
    head = section(render_markdown(_rich()), "Headline")
    lines = [ln for ln in head.splitlines() if ln]
    assert lines[1] == "**[major] `parse` swallows \\*every\\* error**"
    at = lines[2]
    for fact in (
        "`src/app.py:4`",
        "in `parse`",
        "silent-fallback / `swallowing-handler`",
        "confidence high",
        "`claude` (anthropic)",
        "contention 3",
    ):
        assert fact in at, fact
    assert at.startswith("At `src/app.py:4`")
    # Both places, each with its symbol and lines.
    assert "2 places, lines 4 (`parse`), 9-12 (`load`)" in head
    assert "parse" in _code_spans(head)  # the claim's own code span stays code


def test_a_headline_at_one_place_says_nothing_of_other_places() -> None:
    r = report(disputes=[dispute("A")], headline="A")
    head = section(render_markdown(r), "Headline")
    assert "places" not in head
    assert " in `" not in head  # no symbol known
    assert "confidence" not in head  # the critic stated none
    assert "No unresolved dispute." not in head


def test_no_headline_says_there_is_no_unresolved_dispute() -> None:
    head = section(render_markdown(report(verdict="pass", exit_code=0)), "Headline")
    assert "No unresolved dispute." in head.splitlines()
    assert "Ways out" not in head


def test_the_evidence_before_and_after_the_change_is_shown_side_by_side() -> None:
    head = section(render_markdown(_rich()), "Headline")
    assert head.index("Before the change:") < head.index("After the change:")
    assert [c for _, c in _fences(head)] == ["old code\n", "return None\n"]
    assert "Evidence:" not in head
    # Every title starts its line: it is not indented into the previous block.
    assert "\nBefore the change:\n" in head and "\nAfter the change:\n" in head


def test_code_the_change_deleted_is_shown_once_as_deleted() -> None:
    r = report(
        disputes=[dispute("A", evidence="x = 1\n")], headline="A", old_evidence={"A": " x = 1"}
    )
    head = section(render_markdown(r), "Headline")
    assert "\nDeleted by the change:\n" in head
    assert "Before the change" not in head and "After the change" not in head
    assert [c for _, c in _fences(head)] == [" x = 1\n"]


def test_plain_evidence_is_titled_evidence() -> None:
    head = section(render_markdown(report(disputes=[dispute("A")], headline="A")), "Headline")
    assert "\nEvidence:\n" in head
    assert [c for _, c in _fences(head)] == ["return None\n"]


def test_the_ways_out_are_a_list_under_their_title() -> None:
    r = report(disputes=[dispute("A")], headline="A", ways_out={"A": ["fix *it*", "waive it"]})
    head = section(render_markdown(r), "Headline")
    assert "\nWays out:\n\n- fix \\*it\\*\n- waive it\n" in head


def test_the_verdict_states_its_exit_code_and_each_reason() -> None:
    r = report(verdict="escalate", exit_code=3, reasons=["no critic ran", "gate *red*"])
    verdict = section(render_markdown(r), "Verdict")
    assert "**escalate** (exit code 3)" in verdict
    assert "- no critic ran\n- gate \\*red\\*" in verdict


def test_up_to_five_caveats_are_listed_and_more_are_counted() -> None:
    few = [f"caveat {n}" for n in range(5)]
    verdict = section(render_markdown(report(caveats=few)), "Verdict")
    assert all(f"- caveat {n}" in verdict for n in range(5))
    assert "Caveats (minor, accepted with this conditional pass):" in verdict.splitlines()
    many = [f"caveat {n}" for n in range(6)]
    verdict = section(render_markdown(report(caveats=many)), "Verdict")
    assert "the 6 minor disputes listed below" in verdict
    assert "- caveat 0" not in verdict
    assert "Caveat" not in section(render_markdown(report()), "Verdict")


def test_the_spec_is_named_with_its_path_or_said_to_be_absent() -> None:
    assert "Spec: from file (`SPEC.md`)." in render_markdown(_rich())
    no_path = render_markdown(report(spec=Spec(source="commits")))
    assert "Spec: from commits." in no_path
    none = "Spec: none was given; critics reviewed the change without one."
    assert none in render_markdown(report()).splitlines()


# --- unresolved disputes -----------------------------------------------------------------


def test_unresolved_disputes_read_in_tiers_each_with_its_count() -> None:
    unresolved = section(render_markdown(_rich()), "Unresolved disputes")
    assert unresolved.startswith("## Unresolved disputes (4)")
    tier_heads = [h for h in headings(unresolved) if h.startswith("Contention")]
    assert tier_heads == ["Contention 3 · major (1)", "Contention 1 · minor (3)"]


def test_no_unresolved_dispute_reads_none() -> None:
    unresolved = section(render_markdown(report()), "Unresolved disputes")
    assert unresolved.startswith("## Unresolved disputes (0)")
    assert "\nNone.\n" in unresolved


def test_a_full_dispute_shows_its_facts_exchange_and_points_to_the_headline() -> None:
    unresolved = section(render_markdown(_rich()), "Unresolved disputes")
    assert "`H1` \\[major\\]" not in unresolved  # the heading is not escaped twice
    assert "#### `H1` [major] `parse` swallows \\*every\\* error" in unresolved
    facts = unresolved[unresolved.index("#### `H1`") :]
    assert "- at `src/app.py:4` in `parse` · silent-fallback / `swallowing-handler`" in facts
    assert "confidence high" in facts
    critic = next(ln for ln in facts.splitlines() if ln.startswith("- critic"))
    for fact in ("`claude` (anthropic)", "thread `claude-2`", "**open**", "contention 3"):
        assert fact in critic, fact
    assert "survived 1 round(s), re-attacked" in critic
    assert "- 2 places, lines 4 (`parse`), 9-12 (`load`)" in facts
    paragraphs = [t.content for t in tokens(facts) if t.type == "inline"]
    assert "Evidence and ways out: in the headline above." in paragraphs
    assert "old code" not in facts  # shown once, in the headline
    assert "No answer yet." not in facts


def test_a_dispute_whose_thread_is_its_critic_does_not_name_it_twice() -> None:
    md = render_markdown(report(disputes=[dispute("A", critic="claude")]))
    critic = next(ln for ln in md.splitlines() if ln.startswith("- critic"))
    assert critic == (
        "- critic `claude` (static) · status **open** · contention 1 (survived 1 round(s))"
    )
    assert "places" not in md  # one place: no list of places


def test_the_exchange_tells_who_said_what_in_order_with_rounds_and_evidence() -> None:
    unresolved = section(render_markdown(_rich()), "Unresolved disputes")
    assert "Exchange on `H1`:" in unresolved
    lines = unresolved.splitlines()
    first = next(ln for ln in lines if ln.startswith("1. "))
    second = next(ln for ln in lines if ln.startswith("2. "))
    assert first == "1. round 2, `author` — **defend**: it is fine"
    assert second == "2. `claude` — **re_attack**: no, it is not"
    assert ("", "x = 1\n") in _fences(unresolved)
    # The evidence is indented under its list item, so it belongs to it.
    assert "it is fine\n\n   ```\n   x = 1\n   ```\n\n2. " in unresolved


def test_an_exchange_names_the_person_and_shows_a_silent_answer_and_a_waiver() -> None:
    d = dispute("A")
    r = report(
        disputes=[d],
        history={
            "A": [
                exchange(Action.CONCEDE, "author", "", in_source=True),
                exchange(Action.UPHOLD, "human", "keep it", person=ANN),
                exchange(
                    Action.UPHOLD,
                    "human",
                    "again",
                    person=Person(name="Bo", email=None, source="os user"),
                ),
            ]
        },
    )
    md = render_markdown(r)
    assert "1. `author` — **concede** (in-code waiver): *(no text)*" in md
    assert "2. `human` (Ann Lee `ann@example.org`, from git config) — **uphold**: keep it" in md
    assert "3. `human` (Bo, from os user) — **uphold**: again" in md
    assert "No answer yet." not in md


def test_an_unanswered_blocking_dispute_shows_its_evidence_and_says_no_answer_yet() -> None:
    r = report(
        disputes=[dispute("H"), dispute("B", line=40)], headline="H", ways_out={"B": ["fix"]}
    )
    unresolved = section(render_markdown(r), "Unresolved disputes")
    b = unresolved[unresolved.index("#### `B`") :]
    assert "\nEvidence:\n" in b and "- fix" in b
    assert "No answer yet." in b
    assert "in the headline above" not in b


def test_disputes_at_the_same_place_read_as_one_item_naming_the_others() -> None:
    main = dispute("A", contention=2, claim="main claim")
    other = dispute(
        "B",
        contention=2,
        rule="other-rule",
        topic="typing",
        status=Status.DEFENDED,
        claim="2nd *claim*",
    )
    r = report(disputes=[main, other], history={"B": [exchange(Action.DEFEND, "author", "ok")]})
    unresolved = section(render_markdown(r), "Unresolved disputes")
    assert [h for h in headings(unresolved) if h.startswith("`")] == ["`A` [major] main claim"]
    assert (
        "- same place: `B` [major] typing / `other-rule`, status **defended**: 2nd \\*claim\\*"
        in unresolved
    )
    # The exchange on the other member is shown with it, and the item has an answer.
    assert "Exchange on `B`:" in unresolved and "Exchange on `A`" not in unresolved
    assert "No answer yet." not in unresolved


def test_a_rule_less_dispute_shows_a_dash_for_its_rule() -> None:
    md = render_markdown(report(disputes=[dispute("A", rule="")]))
    assert "silent-fallback / `-`" in md


def test_minor_untouched_disputes_read_one_line_per_file_then_once_per_rule() -> None:
    unresolved = section(render_markdown(_rich()), "Unresolved disputes")
    brief = unresolved[unresolved.index("Minor and unanswered") :]
    assert brief.startswith("Minor and unanswered, by file (3):")
    # M2 and M3 sit at the same place: one entry, joined; M1 on its own line number.
    assert "- `src/b.py`: `M1` r-minor 3 · `M2` r-minor + `M3` r-other 7" in brief
    rules = brief[brief.index("What each rule says") :]
    lines = [ln for ln in rules.splitlines() if ln.startswith("- ")]
    assert lines[0].startswith(
        "- `r-minor` (silent-fallback), 2 dispute(s); e.g. `M1`: claim of M1."
    )
    assert lines[0].endswith("Ways out: raise; log")
    assert lines[1] == "- `r-other` (silent-fallback), 1 dispute(s); claim of M3."
    # Those read in one line do not also get a full entry.
    assert "#### `M1`" not in unresolved


def test_a_one_line_group_counts_its_other_places() -> None:
    group = dispute("G", severity=Severity.MINOR, sites=[site(3), site(9), site(12)])
    md = render_markdown(report(disputes=[group]))
    assert "- `src/app.py`: `G` swallowing-handler 3 (+2)" in md


def test_a_big_group_lists_eight_places_and_counts_the_rest() -> None:
    group = dispute("G", sites=[site(n, symbol="f" if n == 1 else None) for n in range(1, 12)])
    facts = section(render_markdown(report(disputes=[group])), "Unresolved disputes")
    assert (
        "- 11 places, lines 1 (`f`), 2, 3, 4, 5, 6, 7, 8, and 3 more (all in report.json)" in facts
    )
    eight = dispute("G", sites=[site(n) for n in range(1, 9)])
    facts = section(render_markdown(report(disputes=[eight])), "Unresolved disputes")
    assert "- 8 places, lines 1, 2, 3, 4, 5, 6, 7, 8\n" in facts


# --- deadlocks, resolved, failures, gates, merges, skipped --------------------------------


def test_deadlock_reports_and_merges_are_json_blocks_with_sorted_keys() -> None:
    r = report(deadlocks=[{"b": 1, "a": "é"}], merges=[{"threads": ["C1"], "merged": "m"}])
    md = render_markdown(r)
    fences = _fences(md)
    assert ("json", '{\n  "a": "é",\n  "b": 1\n}\n') in fences
    assert ("json", '{\n  "merged": "m",\n  "threads": [\n    "C1"\n  ]\n}\n') in fences
    assert "## Deadlock reports" in md and "## Merges" in md
    plain = render_markdown(report())
    assert "## Deadlock reports" not in plain and "## Merges" not in plain


def test_resolved_disputes_read_by_file_each_with_how_and_why() -> None:
    resolved = section(render_markdown(_rich()), "Resolved")
    assert resolved.startswith("## Resolved (2)")
    lines = [ln for ln in resolved.splitlines() if ln.startswith("- ")]
    assert [ln.split()[1] for ln in lines] == ["`W1`", "`F1`"]  # src/a.py before src/z.py
    w1, f1 = lines
    assert "**waived** at `src/a.py:30`" in w1
    assert "waived by a human (Ann Lee `ann@example.org`, from git config): legacy callers" in w1
    assert f1.endswith("fixed by the author, fix accepted by the critic: *(no reason given)*")
    assert "\nNone.\n" not in resolved


def test_resolved_disputes_in_one_file_read_by_line() -> None:
    r = report(
        resolved=[
            dispute("B", status=Status.FIXED, line=20),
            dispute("A", status=Status.FIXED, line=5),
        ]
    )
    lines = [
        ln for ln in section(render_markdown(r), "Resolved").splitlines() if ln.startswith("- ")
    ]
    assert [ln.split()[1] for ln in lines] == ["`A`", "`B`"]


def test_no_resolved_dispute_reads_none() -> None:
    resolved = section(render_markdown(report()), "Resolved")
    assert resolved.startswith("## Resolved (0)") and "\nNone.\n" in resolved


def test_a_resolved_group_lists_its_places() -> None:
    group = dispute("G", status=Status.FIXED, sites=[site(3, symbol="f"), site(9)])
    resolved = section(render_markdown(report(resolved=[group])), "Resolved")
    assert "claim of G (2 places, lines 3 (`f`), 9) — fixed by the author" in resolved
    assert "`src/app.py:3` in `f`" in resolved


@pytest.mark.parametrize(
    ("history", "shown"),
    [
        # A lone decision, or the usual answer and judgement: one line says it all.
        ([exchange(Action.FIX, "author", "done")], False),
        (
            [exchange(Action.FIX, "author", "done"), exchange(Action.ACCEPT, "static", "gone")],
            False,
        ),
        ([exchange(Action.WAIVE, "human", "ok")], False),
        # A defense and a re-attack on the way, or more than two answers: the exchange.
        ([exchange(Action.DEFEND, "author", "d"), exchange(Action.FIX, "author", "done")], True),
        (
            [
                exchange(Action.FIX, "author", "a"),
                exchange(Action.ACCEPT, "static", "b"),
                exchange(Action.FIX, "author", "c"),
            ],
            True,
        ),
    ],
)
def test_a_resolved_disputes_exchange_is_shown_when_it_was_contested(
    history: list, shown: bool
) -> None:
    r = report(resolved=[dispute("A", status=Status.FIXED)], history={"A": history})
    resolved = section(render_markdown(r), "Resolved")
    numbered = [ln for ln in resolved.splitlines() if ln.startswith("  1. ")]
    assert bool(numbered) is shown
    if shown:
        assert numbered[0].startswith(f"  1. `{history[0].by}` — **{history[0].action}**")


def test_each_critic_failure_says_which_agent_failed_how_and_in_which_round() -> None:
    r = report(
        failures=[
            failure(round=2, error="HTTP *529*"),
            failure(thread="gem", critic="gem", kind="malformed"),
        ]
    )
    failures = section(render_markdown(r), "Critic failures")
    assert failures.startswith("## Critic failures (2)")
    lines = [ln for ln in failures.splitlines() if ln.startswith("- ")]
    assert (
        lines[0]
        == "- `claude` critic `claude` (claude, claude-x), round 2: **timeout** — HTTP \\*529\\*"
    )
    assert lines[1].startswith("- `gem` critic `gem` (claude, claude-x): **malformed**")
    assert "## Critic failures" not in render_markdown(report())


def test_gates_name_their_command_state_and_exit_and_show_a_red_ones_output() -> None:
    r = report(
        gates=[
            gate("pytest -q", ok=True, exit_code=0),
            gate("make lint", ok=False, exit_code=2, output="E501 line too long", when="entry"),
            gate("true", ok=True, exit_code=None),
        ]
    )
    gates = section(render_markdown(r), "Gates")
    lines = [ln for ln in gates.splitlines() if ln.startswith("- ")]
    assert lines == [
        "- `pytest -q`: green, exit 0",
        "- `make lint` (entry): **RED**, exit 2",
        "- `true`: green",
    ]
    assert "Output of red gate `make lint`:" in gates
    assert _fences(gates) == [("", "E501 line too long\n")]
    assert "Output of red gate `pytest" not in gates
    assert "No gate was configured." in render_markdown(report())
    assert "No gate was configured." not in gates


def test_skipped_files_are_listed_with_their_topic_and_reason() -> None:
    r = report(
        skipped=[
            Skipped(path="img.png", reason="binary *file*", topic="secrets"),
            Skipped(path="big.py", reason="too big", topic=None),
        ]
    )
    skipped = section(render_markdown(r), "Skipped files")
    assert skipped.startswith("## Skipped files (2)")
    assert "- `img.png` [secrets]: binary \\*file\\*" in skipped
    assert "- `big.py`: too big" in skipped
    assert "\nNone.\n" in section(render_markdown(report()), "Skipped files")
    assert "None." not in skipped


# --- stats and threads -------------------------------------------------------------------


def test_the_stats_give_the_found_bug_rate_the_costs_and_the_families() -> None:
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
        threads=2,
        calls=7,
        failures=1,
    )
    md = section(render_markdown(report(run_stats=s)), "Stats")
    assert "fixed or conceded by the author: 3 of 8 (37.5%)" in md
    assert "4 still open, 4 resolved, 2 dropped" in md
    assert "rounds: 3 · tokens: 1200 in, 300 out · cost: $0.1235 · wall time: 42.3 s" in md
    assert "model families (2): anthropic, static" in md
    assert "threads: 2, agent calls: 7, failures: 1" in md
    assert "Run `run-1`, report schema `contend.report/v1`." in md


def test_stats_without_attacks_or_families_or_run_id_say_so() -> None:
    md = section(render_markdown(report(run_id="")), "Stats")
    assert "fixed or conceded by the author: 0 of 0 —" in md  # no rate without attacks
    assert "model families (0): none" in md
    assert "Run " not in md


def test_static_critics_waiting_for_the_author_read_as_one_line() -> None:
    threads = [
        thread("static-a", topic="secrets", rounds=1, ended="awaiting_author"),
        thread("static-b", rounds=2, ended="awaiting_author"),
        thread(
            "claude",
            family="anthropic",
            backend="claude",
            model="claude-x",
            topic="sec",
            ended="round_cap",
            rounds=3,
        ),
    ]
    md = section(render_markdown(report(threads=threads)), "Stats")
    assert (
        "  - static critics `secrets`, `static-b`: 2 round(s), waiting for the author's next review"
        in md
    )
    assert "  - `static-a`:" not in md and "  - `static-b`:" not in md
    assert (
        "  - `claude`: critic `claude` (anthropic, claude-x), topic sec, 3 round(s), "
        "ended: round\\_cap" in md
    )


@pytest.mark.parametrize(
    "odd",
    [
        {"backend": "claude"},
        {"ended": "round_cap"},
        {"failed": True},
        {"violations": ["unknown id X9"]},
    ],
)
def test_a_static_critic_that_did_not_just_wait_is_listed_on_its_own(odd: dict) -> None:
    fields = {"ended": "awaiting_author"} | odd
    md = section(render_markdown(report(threads=[thread("s", **fields)])), "Stats")
    assert "waiting for the author's next review" not in md
    assert "  - `s`: critic `s`" in md


def test_a_thread_shows_failure_same_family_and_violations() -> None:
    threads = [
        thread("gem", backend="gemini", ended="crashed", failed=True),
        thread(
            "claude",
            backend="claude",
            same_family_as_proposer=True,
            violations=["bad *id*", "fix changed nothing"],
        ),
    ]
    md = section(render_markdown(report(threads=threads)), "Stats")
    gem = next(ln for ln in md.splitlines() if ln.startswith("  - `gem`"))
    assert gem.endswith("1 round(s), **failed** (see Critic failures)")
    assert "ended" not in gem  # a failed thread is shown as failed, not by how it ended
    claude = md[md.index("  - `claude`") :]
    assert "\n    - **same model family as the proposer**" in claude
    assert "\n    - protocol violation: bad \\*id\\*" in claude
    assert "\n    - protocol violation: fix changed nothing" in claude
    assert "same model family" not in md[: md.index("  - `claude`")]


def test_untrusted_names_keep_their_code_spans_and_inject_nothing() -> None:
    d = dispute("A", path="src/we`ird.py", claim="uses `eval` on <input>", critic="cr*tic")
    md = render_markdown(report(disputes=[d], headline="A"))
    spans = _code_spans(md)
    assert "src/we`ird.py:10" in spans and "eval" in spans and "cr*tic" in spans
    kinds = {c.type for t in tokens(md) if t.children for c in t.children}
    assert "html_inline" not in kinds and "em_open" not in kinds


@pytest.mark.parametrize(
    "contest",
    [
        Action.DEFEND,
        Action.RE_ATTACK,
        Action.DEADLOCK,
        Action.UPHOLD,
        Action.OVERRULE,
        Action.WAIVE,
    ],
)
def test_any_contest_on_the_way_to_a_resolution_shows_the_exchange(contest: Action) -> None:
    history = [exchange(contest, "someone", "contested"), exchange(Action.FIX, "author", "done")]
    r = report(resolved=[dispute("A", status=Status.FIXED)], history={"A": history})
    resolved = section(render_markdown(r), "Resolved")
    assert f"  1. `someone` — **{contest}**: contested" in resolved
    assert "  2. `author` — **fix**: done" in resolved


def test_agreeing_answers_alone_do_not_show_the_exchange() -> None:
    history = [exchange(Action.CONCEDE, "author", "yes"), exchange(Action.ACCEPT, "critic", "ok")]
    r = report(resolved=[dispute("A", status=Status.CONCEDED)], history={"A": history})
    resolved = section(render_markdown(r), "Resolved")
    assert "1. " not in resolved
    assert "conceded by the author, concession accepted: yes" in resolved


def _everything() -> Report:
    """One report with every section and every kind of entry."""
    base = _rich()
    return base.model_copy(
        update={
            "caveats": ["minor one"],
            "failures": [failure(round=1)],
            "gates": [gate(), gate("make lint", ok=False, exit_code=2, output="E1\nE2")],
            "deadlocks": [{"attack": "H1"}],
            "merges": [{"merged": "m"}],
            "skipped": [Skipped(path="a.png", reason="binary", topic=None)],
            "threads": [
                thread("static", ended="awaiting_author"),
                thread("claude", backend="claude", violations=["unknown id AX"]),
            ],
            "resolved": [
                *base.resolved,
                dispute("D1", status=Status.FIXED, path="src/q.py", sites=[site(1), site(2)]),
            ],
            "history": base.history
            | {
                "D1": [
                    exchange(Action.DEFEND, "author", "no"),
                    exchange(Action.RE_ATTACK, "claude", "yes", evidence="x = 2"),
                    exchange(Action.FIX, "author", "done"),
                ]
            },
        }
    )


@pytest.mark.parametrize(
    "build",
    [
        _everything,
        _rich,
        lambda: report(),
        lambda: report(disputes=[dispute("A")], headline="A", ways_out={"A": ["w"]}),
        lambda: report(caveats=[f"c{n}" for n in range(7)], run_id=""),
    ],
    ids=["everything", "rich", "empty", "one", "many-caveats"],
)
def test_every_block_of_the_page_stands_apart(build: Any) -> None:
    """Headings, paragraphs, lists and code blocks are separated by a blank line, so no
    line of one runs on into the next (a lazy continuation would glue text to a list item
    or a title), and the page holds no line outside a block but blank ones."""
    md = render_markdown(build())
    lines = md.split("\n")
    assert lines[-1] == "" and lines[-2] != ""  # one newline at the end, no blank tail
    blocks = [t.map for t in tokens(md) if t.level == 0 and t.nesting != -1 and t.map]
    assert blocks[0][0] == 0  # the title is the first line
    for start, _ in blocks[1:]:
        assert lines[start - 1] == "", (lines[start - 1], lines[start])
    covered = {n for a, b in blocks for n in range(a, b)}
    assert all(not ln.strip() for n, ln in enumerate(lines) if n not in covered)
    # Every text of these reports is one line, so is every paragraph and list item: a
    # line run on into its neighbour would show as a second line of one of them.
    for t in tokens(md):
        if t.type == "inline":
            assert "\n" not in t.content, t.content


def test_a_place_without_a_symbol_names_none() -> None:
    r = report(disputes=[dispute("A"), dispute("B", line=30)], headline="A")
    md = render_markdown(r)
    at = next(ln for ln in md.splitlines() if ln.startswith("At "))
    assert at.startswith("At `src/app.py:10`: silent-fallback / `swallowing-handler`; raised by")
    facts = next(ln for ln in md.splitlines() if ln.startswith("- at `src/app.py:30`"))
    assert facts == "- at `src/app.py:30` · silent-fallback / `swallowing-handler`"


def test_the_page_ends_with_its_last_line_whole() -> None:
    r = report(run_id="", threads=[thread("claude", backend="claude", violations=["id AX"])])
    assert render_markdown(r).endswith("\n    - protocol violation: id AX\n")


def test_a_headline_without_ways_out_shows_no_ways_out_title() -> None:
    md = render_markdown(report(disputes=[dispute("A")], headline="A"))
    assert "Ways out" not in md


def test_fixed_sentences_stand_as_their_own_lines() -> None:
    minor = dispute("M", severity=Severity.MINOR, line=40)
    md = render_markdown(report(disputes=[dispute("A"), minor]))
    lines = md.splitlines()
    assert "No answer yet." in lines
    assert "What each rule says, and the ways out:" in lines
    assert "No gate was configured." in lines


def test_a_two_place_one_line_group_counts_one_more_place() -> None:
    group = dispute("G", severity=Severity.MINOR, sites=[site(3), site(9)])
    assert "- `src/app.py`: `G` swallowing-handler 3 (+1)\n" in render_markdown(
        report(disputes=[group])
    )


def test_a_resolved_dispute_at_one_place_reads_as_one_line_without_places() -> None:
    r = report(resolved=[dispute("F", status=Status.FIXED, line=2)])
    (line,) = [ln for ln in render_markdown(r).splitlines() if ln.startswith("- `F`")]
    assert line == (
        "- `F` **fixed** at `src/app.py:2` · silent-fallback / `swallowing-handler`: claim of F"
        " — fixed by the author, fix accepted by the critic: *(no reason given)*"
    )


def test_a_thread_line_names_only_what_is_known() -> None:
    threads = [thread("plain", backend="claude"), thread("done", backend="claude", ended="idle")]
    md = section(render_markdown(report(threads=threads)), "Stats")
    assert "  - `plain`: critic `plain` (static), 1 round(s)" in md.splitlines()
    assert "  - `done`: critic `done` (static), 1 round(s), ended: idle" in md.splitlines()
