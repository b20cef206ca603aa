"""report.json, report.md and terminal text, built from run states folded from real events.

The scenario builders here are shared with test_sarif.py and test_report_schema.py: every
state is produced by applying protocol events through the Reducer, exactly as a run would.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from contend.errors import ProtocolError
from contend.protocol.events import EventKind, attack_raised, event, transition
from contend.protocol.model import Action, Attack, Location, Severity
from contend.protocol.state import Reducer, RunState
from contend.protocol.verdict import Outcome, decide
from contend.report import build_report, render_markdown, render_text
from contend.report.markdown import code, fence, inline
from contend.report.model import Report

DISPUTE_KEYS = {
    "id",
    "thread",
    "critic",
    "family",
    "topic",
    "rule",
    "severity",
    "status",
    "location",
    "claim",
    "evidence",
    "contention",
    "rounds_survived",
    "re_attacked",
    "locations",  # every place of a grouped finding (issue 8); the first is `location`
}
TRICKY_EVIDENCE = "```python\nvalue = cache.get(key) or ``default``\n````\n`x`\n"
WAIVER_REASON = "legacy callers rely on None here; tracked in ADR-7"


class Run:
    """Feeds events to a Reducer; threads get round bookkeeping helpers."""

    def __init__(self, run_id: str = "run-1") -> None:
        self.reducer = Reducer()
        self.apply(event(EventKind.RUN_STARTED, run_id=run_id, artifact={"kind": "change"}))

    @property
    def state(self) -> RunState:
        return self.reducer.state

    def apply(self, ev: dict[str, Any]) -> None:
        self.reducer.apply(ev)

    def spec(self, source: str, path: str, text: str) -> None:
        self.apply(event(EventKind.SPEC_LOADED, source=source, path=path, text=text))

    def gate(self, name: str, ok: bool, output: str = "", exit_code: int = 0) -> None:
        self.apply(
            event(
                EventKind.GATE_RAN,
                name=name,
                cmd=["pytest", "-q", "tests dir"],
                ok=ok,
                exit_code=exit_code,
                output=output,
                when="entry",
            )
        )

    def thread(self, name: str, family: str, model: str = "", cost: float = 0.0) -> None:
        self.apply(
            event(
                EventKind.THREAD_STARTED,
                thread=name,
                critic=name,
                family=family,
                model=model,
                backend=name,
            )
        )
        self.apply(event(EventKind.TOPIC_DECLARED, thread=name, topic=f"{name}-topic"))
        self.apply(
            event(
                EventKind.AGENT_CALL,
                thread=name,
                tokens_in=1000,
                tokens_out=250,
                cost=cost,
                usable=True,
                role="critic",
            )
        )

    def start(self, thread: str, rnd: int) -> None:
        self.apply(event(EventKind.ROUND_STARTED, thread=thread, round=rnd))

    def close(self, thread: str, rnd: int) -> None:
        self.apply(event(EventKind.ROUND_CLOSED, thread=thread, round=rnd))

    def raise_(
        self,
        attack_id: str,
        thread: str,
        severity: Severity,
        *,
        rnd: int = 1,
        line: int = 10,
        evidence: str = "return None",
        claim: str = "",
        topic: str = "silent-fallback",
    ) -> None:
        family = self.state.threads[thread].family
        attack = Attack(
            id=attack_id,
            thread=thread,
            critic=thread,
            family=family,
            topic=topic,
            rule=f"{topic[:2].upper()}001",
            severity=severity,
            location=Location("src/app.py", line, line + 2),
            claim=claim or f"claim of {attack_id}",
            evidence=evidence,
            raised_round=rnd,
            raised_seq=0,
            fingerprint=f"fp-{attack_id}",
        )
        self.apply(attack_raised(attack))

    def act(self, attack_id: str, action: Action, by: str, text: str = "", **extra: Any) -> None:
        self.apply(transition(attack_id, action, by=by, text=text, **extra))


def report_of(state: RunState, outcome: Outcome | None = None, wall: float = 12.5) -> Report:
    return build_report(state, outcome or decide(state), wall_time_s=wall)


def no_attacks() -> RunState:
    run = Run()
    run.spec("file", "SPEC.md", "Add a cache.")
    run.gate("pytest", ok=True)
    run.thread("static", "static")
    run.start("static", 1)
    run.close("static", 1)
    return run.state


def fixed_attack() -> RunState:
    run = Run()
    run.thread("static", "static")
    run.start("static", 1)
    run.raise_("A1", "static", Severity.MAJOR)
    run.close("static", 1)
    run.start("static", 2)
    run.act("A1", Action.FIX, "author", "raise KeyError instead of returning None")
    run.act("A1", Action.ACCEPT, "static", "finding gone after the fix")
    run.close("static", 2)
    return run.state


def waived_static() -> RunState:
    run = Run()
    run.thread("static", "static")
    run.start("static", 1)
    run.raise_("W1", "static", Severity.MAJOR)
    run.close("static", 1)
    run.start("static", 2)
    run.act("W1", Action.CONCEDE, "author", WAIVER_REASON, in_source=True)
    run.act("W1", Action.ACCEPT, "static", "waiver with a reason")
    run.close("static", 2)
    return run.state


def re_attacked_major() -> RunState:
    run = Run()
    run.thread("claude", "anthropic", model="claude-x", cost=0.25)
    run.start("claude", 1)
    run.raise_("R1", "claude", Severity.MAJOR, evidence=TRICKY_EVIDENCE)
    run.close("claude", 1)
    run.start("claude", 2)
    run.act("R1", Action.DEFEND, "author", "the caller checks for None", evidence="app.py:40")
    run.act("R1", Action.RE_ATTACK, "claude", "the second caller at app.py:77 does not")
    run.close("claude", 2)
    run.start("claude", 3)
    run.act("R1", Action.MARK_UNRESOLVED, "engine", "round cap")
    run.close("claude", 3)
    run.apply(event(EventKind.THREAD_ENDED, thread="claude", reason="round_cap"))
    return run.state


def deadlock() -> RunState:
    run = Run()
    run.thread("claude", "anthropic")
    run.start("claude", 1)
    run.raise_("D1", "claude", Severity.MAJOR)
    run.close("claude", 1)
    run.start("claude", 2)
    run.act("D1", Action.DEFEND, "author", "spec clause 3 allows it")
    run.act("D1", Action.RE_ATTACK, "claude", "clause 3 is about reads, not writes")
    run.act("D1", Action.DEFEND, "author", "writes are reads of the journal")
    run.act("D1", Action.DEADLOCK, "engine", "round cap on a defended attack")
    run.close("claude", 2)
    run.apply(
        event(
            EventKind.DEADLOCK_REPORT,
            attack="D1",
            cause="interpretation",
            disputed_leaf="does clause 3 cover writes?",
            decide="whether clause 3 applies to writes",
        )
    )
    return run.state


def red_gate() -> RunState:
    run = Run()
    run.gate("pytest", ok=False, output="FAILED tests/test_x.py::test_y - ```boom```", exit_code=1)
    return run.state


def mixed() -> RunState:
    """Two threads, two families, every kind of outcome, for ranking and stats."""
    run = Run()
    run.spec("commits", "", "Make the cache strict.")
    run.gate("pytest", ok=True)
    run.thread("static", "static")
    run.thread("claude", "anthropic", model="claude-x", cost=0.125)
    for t in ("static", "claude"):
        run.start(t, 1)
    run.raise_("A1", "static", Severity.MAJOR, line=1)
    run.raise_("W1", "static", Severity.MINOR, line=5)
    run.raise_("R1", "claude", Severity.MAJOR, line=20, evidence=TRICKY_EVIDENCE)
    run.raise_("M1", "claude", Severity.MAJOR, line=30)
    run.raise_("N1", "claude", Severity.MINOR, line=40)
    run.raise_("X1", "claude", Severity.CRITICAL, line=50)
    for t in ("static", "claude"):
        run.close(t, 1)
        run.start(t, 2)
    run.act("A1", Action.FIX, "author", "raise instead")
    run.act("A1", Action.ACCEPT, "static", "gone")
    run.act("W1", Action.CONCEDE, "author", WAIVER_REASON, in_source=True)
    run.act("W1", Action.ACCEPT, "static", "waived with reason")
    run.act("R1", Action.DEFEND, "author", "callers check")
    run.act("R1", Action.RE_ATTACK, "claude", "not all callers")
    run.act("X1", Action.WITHDRAW, "claude", "false positive: validated at line 3")
    run.raise_("L1", "claude", Severity.MINOR, rnd=2, line=60)
    for t in ("static", "claude"):
        run.close(t, 2)
        run.start(t, 3)
    run.close("claude", 3)
    return run.state


def grouped_and_failed() -> RunState:
    """A grouped static finding (three places, one moved later), a widened handler with
    its old code, and a model critic whose call failed."""
    run = Run()
    run.thread("static", "static")
    run.thread("claude", "anthropic", model="claude-x")
    run.start("static", 1)
    places = tuple(Location("src/conv.py", n, n + 1, f"parse_{n}") for n in (4, 11, 18))
    grouped = Attack(
        id="G1",
        thread="static",
        critic="static",
        family="static",
        topic="silent-fallback",
        rule="swallowing-handler",
        severity=Severity.MINOR,
        location=places[0],
        claim="`parse_4` returns None on any error",
        evidence="except Exception:\n    return None",
        raised_round=1,
        raised_seq=0,
        fingerprint="group-fp",
        confidence="high",
        locations=places,
        members=("m1", "m1", "m2"),
    )
    run.apply(attack_raised(grouped))
    widened = Attack(
        id="W2",
        thread="static",
        critic="static",
        family="static",
        topic="silent-fallback",
        rule="widened-except",
        severity=Severity.MAJOR,
        location=Location("src/io.py", 4, 5, "load"),
        claim="`load` widened `except FileNotFoundError` to `except Exception`",
        evidence="except Exception:\n    return ''",
        raised_round=1,
        raised_seq=0,
        fingerprint="fp-w2",
        confidence="low",
        old_evidence="except FileNotFoundError:\n    return ''",
    )
    run.apply(attack_raised(widened))
    run.close("static", 1)
    run.start("claude", 1)
    run.apply(
        event(
            EventKind.AGENT_FAILED,
            thread="claude",
            role="critic",
            round=1,
            backend="claude",
            model="claude-x",
            error="HTTP 529: overloaded",
            retryable=True,
        )
    )
    run.close("claude", 1)
    run.apply(event(EventKind.THREAD_ENDED, thread="claude", reason="awaiting_author"))
    return run.state


def test_grouped_attack_lists_its_places_and_failures_carry_their_reason() -> None:
    data = json.loads(report_of(grouped_and_failed()).to_json())
    group = next(d for d in data["disputes"] if d["id"] == "G1")
    assert [(s["start_line"], s["symbol"], s["fingerprint"]) for s in group["locations"]] == [
        (4, "parse_4", "m1"),
        (11, "parse_11", "m1"),
        (18, "parse_18", "m2"),
    ]
    assert group["location"] == {"path": "src/conv.py", "start_line": 4, "end_line": 5}
    assert data["confidence"] == {"G1": "high", "W2": "low"}
    assert data["old_evidence"] == {"W2": "except FileNotFoundError:\n    return ''"}
    assert data["failures"] == [
        {
            "thread": "claude",
            "critic": "claude",
            "role": "critic",
            "round": 1,
            "backend": "claude",
            "model": "claude-x",
            "kind": "error",
            "error": "HTTP 529: overloaded",
        }
    ]
    threads = {t["name"]: t for t in data["threads"]}
    assert threads["claude"]["failed"] is True and threads["static"]["failed"] is False
    assert data["verdict"] == "fail"


def test_a_ledger_without_the_new_fields_still_folds_and_ranks() -> None:
    """Ledgers written before confidence, old evidence and grouping fold unchanged; an
    attack with no stated confidence ranks as medium; an unknown confidence is refused."""
    legacy = {
        "id": "L1",
        "thread": "static",
        "critic": "static",
        "family": "static",
        "topic": "silent-fallback",
        "rule": "r",
        "severity": "major",
        "location": {"path": "a.py", "start_line": 3, "end_line": 3},
        "claim": "c",
        "evidence": "e",
        "round": 1,
        "fingerprint": "fp",
        "ways_out": [],
    }
    run = Run()
    run.thread("static", "static")
    run.start("static", 1)
    run.apply(event(EventKind.ATTACK_RAISED, **legacy))
    for attack_id, confidence in (("H1", "high"), ("M1", "medium"), ("W1", "low")):
        run.apply(
            event(EventKind.ATTACK_RAISED, **{**legacy, "id": attack_id, "confidence": confidence})
        )
    report = report_of(run.state)
    assert report.disputes[0].locations[0].fingerprint == "fp"
    # Ties on contention and severity: high, then medium (stated or not, oldest first), low.
    assert [d.id for d in report.disputes] == ["H1", "L1", "M1", "W1"]
    assert report.headline == "H1"
    with pytest.raises(ProtocolError, match="confidence"):
        run.apply(event(EventKind.ATTACK_RAISED, **{**legacy, "id": "X1", "confidence": "sure"}))


def test_no_attacks_passes_with_empty_lists_and_null_rate() -> None:
    report = report_of(no_attacks())
    data = json.loads(report.to_json())
    assert data["schema"] == "contend.report/v1"
    assert data["verdict"] == "pass"
    assert data["exit_code"] == 0
    assert data["disputes"] == [] and data["resolved"] == []
    assert data["headline"] is None
    assert data["stats"]["attacks"] == 0
    assert data["stats"]["critic_found_bug_rate"] is None
    assert data["stats"]["rounds"] == 1
    assert data["stats"]["wall_time_s"] == 12.5
    assert data["spec"] == {"source": "file", "path": "SPEC.md", "chars": len("Add a cache.")}
    assert data["gates"] == [
        {
            "name": "pytest",
            "cmd": "pytest -q 'tests dir'",
            "ok": True,
            "exit_code": 0,
            "output": "",
            "when": "entry",
            "thread": None,
        }
    ]


def test_top_level_keys_come_first_in_contract_order() -> None:
    data = json.loads(report_of(mixed()).to_json())
    keys = list(data)
    assert keys[0] == "schema"
    for required in ("verdict", "disputes", "resolved", "gates", "stats"):
        assert required in keys
    assert keys.index("verdict") < keys.index("disputes") < keys.index("resolved")
    assert keys.index("gates") < keys.index("stats")


def test_every_dispute_has_exactly_the_contract_keys() -> None:
    data = json.loads(report_of(mixed()).to_json())
    for d in [*data["disputes"], *data["resolved"]]:
        assert set(d) == DISPUTE_KEYS
        assert set(d["location"]) == {"path", "start_line", "end_line"}
    assert len(data["disputes"]) + len(data["resolved"]) == 7


def test_json_is_stable_between_builds() -> None:
    assert report_of(mixed()).to_json() == report_of(mixed()).to_json()


def test_fixed_attack_is_resolved_as_fixed_and_counts_as_found_bug() -> None:
    data = json.loads(report_of(fixed_attack()).to_json())
    assert data["verdict"] == "pass"
    assert data["disputes"] == []
    [a1] = data["resolved"]
    assert a1["status"] == "fixed"
    assert a1["rounds_survived"] == 0  # resolved within round 2, before it closed
    assert data["stats"]["fixed"] == 1
    assert data["stats"]["critic_found_bug_rate"] == 1.0
    assert [x["action"] for x in data["history"]["A1"]] == ["fix", "accept"]


def test_waived_static_finding_is_conceded_with_its_reason() -> None:
    report = report_of(waived_static())
    [w1] = report.resolved
    assert w1.status == "conceded"
    concede = report.history["W1"][0]
    assert concede.in_source is True
    assert concede.text == WAIVER_REASON
    md = render_markdown(report)
    assert "waived in code with a reason" in md
    assert inline(WAIVER_REASON) in md


def test_re_attacked_major_stays_open_with_contention_and_fails() -> None:
    report = report_of(re_attacked_major())
    assert report.verdict == "fail"
    assert report.exit_code == 1
    [r1] = report.disputes
    assert (r1.status, r1.re_attacked, r1.rounds_survived, r1.contention) == (
        "unresolved",
        True,
        2,
        3,
    )
    assert report.headline == "R1"
    assert report.threads[0].ended == "round_cap"
    assert report.stats.cost == 0.25
    assert report.stats.families == ["anthropic"]


def test_deadlock_escalates_and_carries_the_oracle_report() -> None:
    report = report_of(deadlock())
    assert report.verdict == "escalate"
    assert report.exit_code == 3
    assert report.disputes[0].status == "deadlocked"
    assert report.deadlocks == [
        {
            "attack": "D1",
            "cause": "interpretation",
            "disputed_leaf": "does clause 3 cover writes?",
            "decide": "whether clause 3 applies to writes",
        }
    ]
    md = render_markdown(report)
    assert "## Deadlock reports" in md
    assert "does clause 3 cover writes?" in md


def test_red_gate_fails_with_its_output_fenced() -> None:
    report = report_of(red_gate())
    assert (report.verdict, report.reasons, report.exit_code) == ("fail", ["gate"], 1)
    assert report.gates[0].ok is False
    md = render_markdown(report)
    assert "**RED**" in md
    fences = _fences(md)
    assert "FAILED tests/test_x.py::test_y - ```boom```\n" in fences


def test_ranking_follows_contention_then_severity_then_age() -> None:
    report = report_of(mixed())
    # R1: survived 2 closes + re-attack = 3; M1 major and N1 minor both 2 (severity breaks
    # the tie); L1 was raised in round 2 and survived one close.
    assert [d.id for d in report.disputes] == ["R1", "M1", "N1", "L1"]
    assert [d.contention for d in report.disputes] == [3, 2, 2, 1]
    assert report.headline == "R1"
    assert {d.id: d.status for d in report.resolved} == {
        "A1": "fixed",
        "W1": "conceded",
        "X1": "withdrawn",
    }


def test_stats_arithmetic() -> None:
    stats = report_of(mixed(), wall=3.14159).stats
    assert stats.attacks == 7
    assert (stats.fixed, stats.conceded, stats.resolved, stats.unresolved) == (1, 1, 3, 4)
    assert stats.critic_found_bug_rate == round(2 / 7, 4)
    assert stats.rounds == 3
    assert (stats.tokens_in, stats.tokens_out) == (2000, 500)
    assert stats.cost == 0.125
    assert stats.wall_time_s == 3.142
    assert stats.families == ["anthropic", "static"]
    assert stats.threads == 2


def test_markdown_sections_come_in_order() -> None:
    md = render_markdown(report_of(mixed()))
    heads = [
        "## Headline",
        "## Verdict",
        "## Unresolved disputes (4)",
        "## Resolved (3)",
        "## Gates",
        "## Skipped files",
        "## Stats",
    ]
    positions = [md.index(h) for h in heads]
    assert positions == sorted(positions)
    unresolved = md[md.index("## Unresolved") : md.index("## Resolved")]
    order = [unresolved.index(f"`{i}`") for i in ("R1", "M1", "N1", "L1")]
    assert order == sorted(order)
    stats = md[md.index("## Stats") :]
    assert "fixed or conceded by the author: 2 of 7 (28.6%) — the critic-found-bug rate" in stats
    assert "model families (2): anthropic, static" in stats


def test_markdown_headline_shows_claim_location_and_evidence() -> None:
    md = render_markdown(report_of(re_attacked_major()))
    head = md[md.index("## Headline") : md.index("## Verdict")]
    assert "claim of R1" in head
    assert "`src/app.py:10-12`" in head
    assert TRICKY_EVIDENCE in _fences(head)


def test_markdown_shows_who_said_what() -> None:
    md = render_markdown(report_of(re_attacked_major()))
    unresolved = md[md.index("## Unresolved") : md.index("## Resolved")]
    assert "`author` — **defend**: the caller checks for None" in unresolved
    assert "`claude` — **re\\_attack**" not in unresolved  # the action word is not escaped
    assert "`claude` — **re_attack**: the second caller at app.py:77 does not" in unresolved
    assert "app.py:40\n" in _fences(unresolved)


def test_evidence_with_backticks_stays_fenced() -> None:
    md = render_markdown(report_of(mixed()))
    tokens = MarkdownIt("commonmark").parse(md)
    fenced = [t.content for t in tokens if t.type == "fence"]
    # The headline shows R1's evidence byte for byte, once: its entry points back to it.
    assert fenced.count(TRICKY_EVIDENCE) == 1
    assert "Evidence and ways out: in the headline above." in md
    assert "`````" in md  # the longest run inside is four backticks, so the fence is five


def test_untrusted_text_cannot_inject_markup() -> None:
    run = Run()
    run.thread("claude", "anthropic")
    run.start("claude", 1)
    hostile = "<img src=x onerror=alert(1)> **bold** [link](http://x)\n# heading\n- item"
    run.raise_("H1", "claude", Severity.MAJOR, claim=hostile)
    run.close("claude", 1)
    md = render_markdown(report_of(run.state))
    tokens = MarkdownIt("commonmark").parse(md)
    kinds = {t.type for t in tokens}
    inline_kinds = {c.type for t in tokens if t.children for c in t.children}
    assert "html_block" not in kinds and "html_inline" not in inline_kinds
    assert "link_open" not in inline_kinds
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert not any(h.startswith("heading") for h in headings)


def test_markdown_helpers() -> None:
    assert fence("a ``` b") == "````\na ``` b\n````"
    assert fence("plain") == "```\nplain\n```"
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"
    assert inline("1. one\n<b>") == "1\\. one  \n\\<b\\>"


def test_skipped_files_and_spec_absence_are_reported() -> None:
    run = Run()
    run.thread("static", "static")
    run.apply(event(EventKind.FILE_SKIPPED, path="img.png", reason="binary file", topic="secrets"))
    report = report_of(run.state)
    assert report.spec.source is None
    assert [(s.path, s.reason, s.topic) for s in report.skipped] == [
        ("img.png", "binary file", "secrets")
    ]
    md = render_markdown(report)
    assert "Spec: none was given" in md
    assert "- `img.png` [secrets]: binary file" in md
    assert report.stats.skipped_files == 1


def test_text_rendering_fits_100_columns_and_neutralises_escapes() -> None:
    state = mixed()
    state.attacks["R1"].claim = "evil \x1b[31mred\x1b[0m " + "word " * 60
    text = render_text(report_of(state))
    assert "\x1b" not in text
    assert "\\x1b[31mred" in text
    assert max(len(line) for line in text.splitlines()) <= 100
    lines = text.splitlines()
    assert lines[0] == "contend review: FAIL (exit 1)"
    assert any(line.startswith("headline: [major] src/app.py:20-22") for line in lines)
    assert "fixed or conceded by the author: 2 of 7 (28.6%)" in text
    assert text.index("Unresolved disputes (4)") < text.index("Resolved (3)")
    assert "waived in code with a reason (in-source concession): " + WAIVER_REASON[:20] in text


def test_report_round_trips_through_json() -> None:
    report = report_of(mixed())
    again = Report.model_validate_json(report.to_json())
    assert again == report


def _fences(md: str) -> list[str]:
    return [t.content for t in MarkdownIt("commonmark").parse(md) if t.type == "fence"]


def test_conditional_pass_lists_caveats() -> None:
    run = Run()
    run.thread("static", "static")
    run.start("static", 1)
    run.raise_("C1", "static", Severity.MINOR, topic="boundary-typing")
    run.close("static", 1)
    report = report_of(run.state)
    assert (report.verdict, report.exit_code, report.headline) == ("conditional_pass", 0, "C1")
    assert report.caveats == ["[minor] src/app.py:10 claim of C1"]
    md = render_markdown(report)
    assert "- \\[minor\\] src/app.py:10 claim of C1" in md


def test_text_shows_gate_tail_deadlocks_and_spec() -> None:
    state = red_gate()
    state.gates[0]["output"] = "\n".join(f"line {i}" for i in range(30))
    text = render_text(report_of(state))
    assert "      | … 10 earlier line(s) in report.md\n      | line 10\n" in text
    assert "      | line 29\n\nfixed or conceded by the author: 0 of 0" in text
    assert "spec: none" in text
    text = render_text(report_of(deadlock()))
    assert "Deadlock reports (1):\n  - attack: D1\n    cause: interpretation\n" in text
    assert "spec: none" in text
    assert "spec: file (SPEC.md)" in render_text(report_of(no_attacks()))


_HOSTILE = st.text(
    alphabet=st.sampled_from(list("`~ \n\t#*_-+=>|[]()<>!&\\:/.1aZ")), min_size=0, max_size=80
)


@settings(max_examples=150, deadline=None)
@given(evidence=_HOSTILE)
def test_property_any_evidence_stays_fenced_byte_for_byte(evidence: str) -> None:
    tokens = MarkdownIt("commonmark").parse("intro\n\n" + fence(evidence) + "\n\nafter\n")
    fenced = [t.content for t in tokens if t.type == "fence"]
    expected = evidence if evidence.endswith("\n") else evidence + "\n"
    assert fenced == [expected]
    assert tokens[-2].content == "after"


@settings(max_examples=150, deadline=None)
@given(text=_HOSTILE)
def test_property_inline_text_stays_one_plain_list_item(text: str) -> None:
    tokens = MarkdownIt("commonmark").parse("- claim: " + inline(text) + "\n\nafter\n")
    kinds = [t.type for t in tokens]
    assert kinds.count("list_item_open") == 1
    assert "heading_open" not in kinds and "fence" not in kinds and "html_block" not in kinds
    children = [c for t in tokens if t.children for c in t.children]
    # Code spans the text holds stay code (issue 8); nothing else becomes markup.
    assert not {c.type for c in children} & {"html_inline", "link_open", "image", "em_open"}
    assert tokens[-2].content == "after"
    # Nothing is dropped or added: the shown characters are the text's own, backticks and
    # blanks aside (they delimit code spans and line breaks).
    [item] = [t for t in tokens if t.type == "inline" and t.content.startswith("claim:")]
    shown = "".join(c.content for c in item.children or [] if c.type in ("text", "code_inline"))
    assert _bare(shown.removeprefix("claim:")) == _bare(text)


def _bare(text: str) -> str:
    return "".join(ch for ch in text if ch not in "` \t\n")
