"""The static round in author mode (review/static_round.py) as a pure planner, review after
review: what becomes of an attack whose findings stay, move, grow, shrink, go, are waived,
sit in a file that was skipped or left the diff; the events written (as the ledger holds
them) and the verdict the fold of them gives. Written where the mutation run
(bench/mutation/) found the planner unguarded."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import pytest

from contend.critics.static.base import Finding
from contend.protocol import events as ev
from contend.protocol.events import Event
from contend.protocol.model import Action, Actor, Severity, Status
from contend.protocol.state import Reducer, RunState
from contend.protocol.verdict import Verdict, decide
from contend.review.static_round import (
    group_fingerprint,
    plan_change_withdrawn,
    plan_static_round,
    thread_name,
)
from contend.topics import Topic

SF = Topic.SILENT_FALLBACK
THREAD = "static:silent-fallback"


def finding(
    line: int,
    evidence: str = "except Exception: pass",
    *,
    path: str = "src/a.py",
    rule: str = "bare-except-pass",
    severity: Severity = Severity.MAJOR,
    waived: bool = False,
    reason: str | None = None,
    **kw: Any,
) -> Finding:
    return Finding(
        SF,
        rule,
        severity,
        path,
        line,
        line,
        f"{rule} swallows the failure",
        evidence,
        waived=waived,
        waiver_reason=reason,
        **kw,
    )


class Run:
    """A run folded event by event, reviewed by the static critic again and again."""

    def __init__(self) -> None:
        self.reducer = Reducer()
        self.reducer.apply(ev.run_started(run_id="r"))

    @property
    def state(self) -> RunState:
        return self.reducer.state

    def apply(self, events: Iterable[Event]) -> list[Event]:
        applied = list(events)
        for event in applied:
            self.reducer.apply(event)
        return applied

    def review(
        self,
        findings: Sequence[Finding],
        *,
        skipped: Iterable[str] = (),
        changed: Iterable[str] | None = None,
    ) -> list[Event]:
        return self.apply(
            plan_static_round(
                self.state,
                SF,
                findings,
                skipped_paths=skipped,
                model="contend-static/test",
                wall_s=0.1234567,
                changed_paths=changed,
            )
        )

    def author(self, attack_id: str, action: Action, text: str = "it is intended") -> None:
        self.apply([ev.transition(attack_id, action, by="author", text=text)])

    def verdict(self) -> Verdict:
        return decide(self.state).verdict


def transitions(events: list[Event]) -> list[tuple[str, str, str]]:
    return [
        (e["data"]["attack"], e["data"]["action"], e["data"]["by"])
        for e in events
        if e["kind"] == "attack_transition"
    ]


def of_kind(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [dict(e["data"]) for e in events if e["kind"] == kind]


# --- the first review -----------------------------------------------------------------------


def test_the_first_round_declares_the_topic_and_raises_one_attack_per_rule_file_and_severity() -> (
    None
):
    run = Run()
    events = run.review(
        [
            finding(30, "except ValueError: pass"),
            finding(10),
            finding(5, path="src/b.py"),
            finding(7, severity=Severity.MINOR),
        ]
    )
    assert [e["kind"] for e in events] == [
        "thread_started",
        "topic_declared",
        "round_started",
        "agent_call",
        "attack_raised",
        "attack_raised",
        "attack_raised",
        "round_closed",
        "thread_ended",
    ]
    [call] = of_kind(events, "agent_call")
    assert call["wall_s"] == 0.123457 and call["findings"] == 4 and call["usable"] is True
    assert of_kind(events, "round_started") == [{"thread": THREAD, "round": 1}]
    raised = of_kind(events, "attack_raised")
    assert [(a["id"], a["location"]["path"], a["location"]["start_line"]) for a in raised] == [
        ("SF-1", "src/a.py", 7),
        ("SF-2", "src/a.py", 10),
        ("SF-3", "src/b.py", 5),
    ]
    grouped = run.state.attacks["SF-2"]
    assert [loc.start_line for loc in grouped.locations] == [10, 30]
    assert len(grouped.members) == 2
    # A group's identity (kept in every ledger, matched across reviews): topic, rule, path and
    # severity, not its lines.
    identity = b"group\0silent-fallback\0bare-except-pass\0src/a.py\0major"
    assert grouped.fingerprint == hashlib.sha256(identity).hexdigest()[:16]
    assert grouped.fingerprint == group_fingerprint(
        str(SF), ("bare-except-pass", "src/a.py", Severity.MAJOR)
    )
    assert run.state.attacks["SF-1"].fingerprint != grouped.fingerprint
    assert grouped.raised_round == 1
    assert of_kind(events, "thread_ended") == [{"thread": THREAD, "reason": "awaiting_author"}]
    assert run.verdict() is Verdict.FAIL


def test_a_waived_finding_is_raised_and_conceded_in_code_with_its_reason() -> None:
    run = Run()
    events = run.review([finding(10, waived=True, reason="the cache may be cold")])
    assert transitions(events) == [("SF-1", "concede", "author"), ("SF-1", "accept", "static")]
    concede = of_kind(events, "attack_transition")[0]
    assert concede["text"] == "the cache may be cold"
    assert concede["in_source"] is True
    assert concede["evidence"] == (
        "src/a.py:10: # contend: allow silent-fallback -- the cache may be cold"
    )
    conceded = run.state.attacks["SF-1"]
    assert conceded.resolved and conceded.status is Status.CONCEDED
    assert run.verdict() is Verdict.PASS


# --- the next reviews -------------------------------------------------------------------------


def test_a_finding_that_stays_in_place_writes_nothing_but_the_round() -> None:
    run = Run()
    run.review([finding(10)])
    events = run.review([finding(10)])
    assert [e["kind"] for e in events] == [
        "thread_started",
        "round_started",
        "agent_call",
        "round_closed",
        "thread_ended",
    ]
    assert of_kind(events, "round_started") == [{"thread": THREAD, "round": 2}]
    assert run.verdict() is Verdict.FAIL


def test_a_defended_finding_still_in_the_code_is_pressed_again() -> None:
    run = Run()
    run.review([finding(10)])
    run.author("SF-1", Action.DEFEND)
    events = run.review([finding(12)])
    assert transitions(events) == [("SF-1", "re_attack", "static")]
    [relocated] = of_kind(events, "attack_relocated")
    assert [loc["start_line"] for loc in relocated["locations"]] == [12]
    assert run.state.attacks["SF-1"].status is Status.RE_ATTACKED
    assert run.verdict() is Verdict.FAIL


def test_a_finding_that_is_gone_is_fixed_and_accepted_and_the_run_passes() -> None:
    run = Run()
    run.review([finding(10)])
    events = run.review([])
    assert transitions(events) == [("SF-1", "fix", "author"), ("SF-1", "accept", "static")]
    assert run.state.attacks["SF-1"].resolved
    assert run.verdict() is Verdict.PASS


def test_a_defended_finding_that_is_gone_is_withdrawn_by_the_critic() -> None:
    run = Run()
    run.review([finding(10)])
    run.author("SF-1", Action.DEFEND)
    events = run.review([])
    assert transitions(events) == [("SF-1", "withdraw", "static")]
    assert run.verdict() is Verdict.PASS


def test_a_finding_in_a_skipped_file_stays_open() -> None:
    run = Run()
    run.review([finding(10)])
    events = run.review([], skipped=["src/a.py"])
    assert transitions(events) == []
    assert run.state.attacks["SF-1"].status is Status.OPEN
    assert run.verdict() is Verdict.FAIL


def test_a_finding_whose_file_left_the_diff_is_withdrawn_with_the_change_not_fixed() -> None:
    run = Run()
    run.review([finding(10)])
    events = run.review([], changed=["src/other.py"])
    assert transitions(events) == [("SF-1", "withdraw", "static")]
    [withdrawn] = of_kind(events, "attack_transition")
    assert withdrawn["change_withdrawn"] is True
    assert withdrawn["text"] == "src/a.py is no longer part of the reviewed diff"
    # Still in the diff: gone from the code, so fixed.
    again = Run()
    again.review([finding(10)])
    assert transitions(again.review([], changed=["src/a.py"]))[0] == ("SF-1", "fix", "author")


def test_new_places_of_an_open_attack_join_it_and_fixed_ones_leave_it() -> None:
    run = Run()
    run.review([finding(10), finding(20, "except KeyError: pass")])
    grown = run.review(
        [finding(10), finding(20, "except KeyError: pass"), finding(40, "except OSError: pass")]
    )
    assert of_kind(grown, "attack_raised") == []
    [relocated] = of_kind(grown, "attack_relocated")
    assert [loc["start_line"] for loc in relocated["locations"]] == [10, 20, 40]
    assert len(run.state.attacks["SF-1"].members) == 3
    shrunk = run.review([finding(40, "except OSError: pass")])
    [relocated] = of_kind(shrunk, "attack_relocated")
    assert [loc["start_line"] for loc in relocated["locations"]] == [40]
    assert transitions(shrunk) == []
    assert run.verdict() is Verdict.FAIL


def test_an_open_attack_whose_findings_are_now_all_waived_is_conceded_in_code() -> None:
    run = Run()
    run.review([finding(10)])
    events = run.review([finding(11, waived=True, reason="retried by the caller")])
    assert transitions(events) == [("SF-1", "concede", "author"), ("SF-1", "accept", "static")]
    assert of_kind(events, "attack_transition")[0]["text"] == "retried by the caller"
    assert run.verdict() is Verdict.PASS


def test_a_defended_attack_waived_in_code_is_accepted_with_the_waivers_reason() -> None:
    run = Run()
    run.review([finding(10)])
    run.author("SF-1", Action.DEFEND)
    events = run.review(
        [finding(10, waived=True, reason="a"), finding(10, "except OSError: pass", waived=True)]
    )
    assert transitions(events)[0] == ("SF-1", "accept", "static")
    assert of_kind(events, "attack_transition")[0]["text"] == "waived in code: a"


def test_a_waived_occurrence_of_an_open_group_leaves_it_as_a_conceded_attack() -> None:
    run = Run()
    run.review([finding(10), finding(20, "except KeyError: pass")])
    events = run.review(
        [finding(10), finding(21, "except KeyError: pass", waived=True, reason="r")]
    )
    raised = of_kind(events, "attack_raised")
    assert [a["id"] for a in raised] == ["SF-2"]
    assert transitions(events) == [("SF-2", "concede", "author"), ("SF-2", "accept", "static")]
    [relocated] = of_kind(events, "attack_relocated")
    assert relocated["attack"] == "SF-1"
    assert [loc["start_line"] for loc in relocated["locations"]] == [10]
    # Next time the waiver stays: the conceded attack keeps claiming its finding.
    again = run.review([finding(10), finding(21, "except KeyError: pass", waived=True, reason="r")])
    assert of_kind(again, "attack_raised") == [] and transitions(again) == []


def test_a_persons_waiver_keeps_claiming_its_finding_wherever_it_moves() -> None:
    run = Run()
    run.review([finding(10)])
    run.apply([ev.transition("SF-1", Action.WAIVE, by="ann", actor=Actor.HUMAN, text="risk")])
    assert run.state.attacks["SF-1"].status is Status.WAIVED
    events = run.review([finding(15)])
    assert of_kind(events, "attack_raised") == [] and transitions(events) == []
    [relocated] = of_kind(events, "attack_relocated")
    assert relocated["attack"] == "SF-1"


def test_a_fixed_finding_that_comes_back_is_a_new_attack() -> None:
    run = Run()
    run.review([finding(10)])
    run.review([])
    events = run.review([finding(10)])
    assert [a["id"] for a in of_kind(events, "attack_raised")] == ["SF-2"]
    raised = run.state.attacks["SF-2"]
    assert raised.raised_round == 3


def test_a_changed_claim_or_evidence_of_the_same_finding_is_recorded() -> None:
    run = Run()
    run.review([finding(10, old_evidence="x = 1")])
    moved = replace(finding(10, old_evidence="x = 1"), evidence="except Exception:  pass  # now")
    events = run.review([moved])
    [relocated] = of_kind(events, "attack_relocated")
    assert relocated["evidence"] == "except Exception:  pass  # now"
    assert relocated["old_evidence"] == "x = 1"
    assert run.state.attacks["SF-1"].evidence == "except Exception:  pass  # now"


def test_an_empty_diff_withdraws_every_open_dispute_as_a_withdrawn_change() -> None:
    run = Run()
    run.review([finding(10), finding(5, path="src/b.py")])
    run.review([finding(10)], changed=["src/a.py", "src/b.py"])  # b fixed
    events = run.apply(plan_change_withdrawn(run.state))
    assert transitions(events) == [("SF-1", "withdraw", "engine")]
    assert of_kind(events, "attack_transition")[0]["change_withdrawn"] is True
    assert run.verdict() is Verdict.PASS


def test_the_thread_is_named_after_its_topic() -> None:
    assert thread_name(Topic.SECRETS) == "static:secrets"


@pytest.mark.parametrize(
    ("topic", "prefix"),
    [
        (Topic.SILENT_FALLBACK, "SF"),
        (Topic.TEST_WEAKENING, "TW"),
        (Topic.BOUNDARY_TYPING, "BT"),
        (Topic.CONCURRENCY, "CC"),
        (Topic.SECURITY, "SE"),
        (Topic.SECRETS, "SK"),
    ],
)
def test_each_topics_attacks_are_numbered_under_its_own_prefix(topic: Topic, prefix: str) -> None:
    found = [replace(finding(3), topic=topic), replace(finding(9, path="src/b.py"), topic=topic)]
    events = plan_static_round(
        RunState(), topic, found, skipped_paths=(), model="m", wall_s=0.0, changed_paths=None
    )
    raised = of_kind(events, "attack_raised")
    assert [a["id"] for a in raised] == [f"{prefix}-1", f"{prefix}-2"]
    assert {a["thread"] for a in raised} == {f"static:{topic}"}
    assert {a["topic"] for a in raised} == {str(topic)}


def test_the_round_header_names_the_static_critic_its_backend_and_its_call() -> None:
    run = Run()
    events = run.review([finding(10)])
    assert of_kind(events, "thread_started") == [
        {
            "thread": THREAD,
            "critic": THREAD,
            "family": "static",
            "model": "contend-static/test",
            "backend": "static",
        }
    ]
    assert of_kind(events, "topic_declared") == [{"thread": THREAD, "topic": "silent-fallback"}]
    [call] = of_kind(events, "agent_call")
    assert {k: call[k] for k in ("thread", "role", "backend", "model", "family")} == {
        "thread": THREAD,
        "role": "critic",
        "backend": "static",
        "model": "contend-static/test",
        "family": "static",
    }
    assert (call["tokens_in"], call["tokens_out"], call["cost"]) == (0, 0, 0.0)
    assert run.state.families() == {"static"}
    # The next review continues the thread: no topic declared again.
    assert of_kind(run.review([finding(10)]), "topic_declared") == []


def test_a_group_that_stays_in_place_is_not_relocated() -> None:
    run = Run()
    group = [finding(10), finding(20, "except KeyError: pass")]
    run.review(group)
    assert len(run.state.attacks["SF-1"].locations) == 2
    events = run.review(group)
    assert of_kind(events, "attack_relocated") == [] and transitions(events) == []


def test_an_attack_raised_before_grouping_that_stays_in_place_is_not_relocated() -> None:
    # A ledger written before grouping: the attack holds one place and no locations.
    run = Run()
    run.review([finding(10)])
    attack = run.state.attacks["SF-1"]
    attack.locations = ()
    attack.members = ()
    attack.fingerprint = finding(10).fingerprint()
    events = run.review([finding(10)])
    assert of_kind(events, "attack_relocated") == [] and transitions(events) == []


def test_a_waived_open_attack_that_moved_is_relocated_to_the_waived_lines() -> None:
    run = Run()
    run.review([finding(10)])
    events = run.review([finding(14, waived=True, reason="r")])
    [relocated] = of_kind(events, "attack_relocated")
    assert (relocated["attack"], [loc["start_line"] for loc in relocated["locations"]]) == (
        "SF-1",
        [14],
    )
    assert [e["kind"] for e in events].index("attack_relocated") < [
        e["kind"] for e in events
    ].index("attack_transition")


def test_a_concession_in_words_then_a_waiver_in_code_is_accepted_as_the_waiver() -> None:
    run = Run()
    run.review([finding(10)])
    run.author("SF-1", Action.CONCEDE, "fair, it should log")
    assert not run.state.attacks["SF-1"].resolved
    events = run.review([finding(10, waived=True, reason="logged by the caller")])
    assert transitions(events) == [("SF-1", "accept", "static")]
    [accepted] = of_kind(events, "attack_transition")
    assert accepted["text"] == "waived in code: logged by the caller"
    assert run.state.attacks["SF-1"].resolved
    assert run.verdict() is Verdict.PASS


def test_a_persons_waiver_claims_its_finding_once_waived_in_code_too() -> None:
    run = Run()
    run.review([finding(10)])
    run.apply([ev.transition("SF-1", Action.WAIVE, by="ann", actor=Actor.HUMAN, text="risk")])
    events = run.review([finding(10, waived=True, reason="risk")])
    assert of_kind(events, "attack_raised") == [] and transitions(events) == []


def test_the_withdrawn_change_says_why_each_dispute_is_withdrawn() -> None:
    run = Run()
    run.review([finding(10)])
    [withdrawn] = of_kind(plan_change_withdrawn(run.state), "attack_transition")
    assert withdrawn == {
        "attack": "SF-1",
        "action": "withdraw",
        "by": "engine",
        "actor": "engine",
        "text": "the reviewed diff is empty: the author withdrew the change",
        "evidence": "",
        "change_withdrawn": True,
    }


def _texts(events: list[Event]) -> list[tuple[str, str]]:
    return [(d["action"], d["text"]) for d in of_kind(events, "attack_transition")]


def test_each_move_of_the_static_critic_says_why_in_the_ledger() -> None:
    gone = Run()
    gone.review([finding(10)])
    assert _texts(gone.review([])) == [
        ("fix", "the code no longer contains it"),
        ("accept", "verified: a re-run of the critic no longer finds it"),
    ]
    pressed = Run()
    pressed.review([finding(10)])
    pressed.author("SF-1", Action.DEFEND)
    events = pressed.review([finding(10)])
    assert _texts(events) == [
        (
            "re_attack",
            "still present in the code: a static finding is answered in code — fix it, "
            "or waive it in code with a reason",
        )
    ]
    assert of_kind(events, "attack_transition")[0]["evidence"] == "except Exception: pass"
    withdrawn = Run()
    withdrawn.review([finding(10)])
    withdrawn.author("SF-1", Action.DEFEND)
    assert _texts(withdrawn.review([])) == [("withdraw", "no longer present in the code")]


def test_a_waiver_names_every_waived_line_and_each_reason_once() -> None:
    run = Run()
    events = run.review(
        [
            finding(10, waived=True, reason="a"),
            finding(20, "except KeyError: pass", waived=True, reason="b"),
            finding(30, "except OSError: pass", waived=True, reason="a"),
            finding(40, "except IOError: pass", waived=True),
        ]
    )
    concede, accept = of_kind(events, "attack_transition")
    assert concede["text"] == "a; b"
    assert concede["evidence"] == "\n".join(
        [
            "src/a.py:10: # contend: allow silent-fallback -- a",
            "src/a.py:20: # contend: allow silent-fallback -- b",
            "src/a.py:30: # contend: allow silent-fallback -- a",
            "src/a.py:40: # contend: allow silent-fallback -- ",
        ]
    )
    assert accept["text"] == "an in-code waiver with a reason is an evidence-bound concession"
    assert (accept["by"], accept["actor"]) == ("static", "critic")


def test_a_waiver_without_a_reason_gives_no_reason() -> None:
    run = Run()
    [concede, _] = of_kind(run.review([finding(10, waived=True)]), "attack_transition")
    assert concede["text"] == ""


def test_an_attack_tells_the_ways_out_for_its_own_topic() -> None:
    run = Run()
    run.review([finding(10)])
    assert run.state.attacks["SF-1"].ways_out == (
        "fix it so the failure is raised, reported or tested rather than hidden",
        "or waive it in code with a reason: `# contend: allow silent-fallback -- <reason>`",
    )


def test_a_persons_waiver_whose_finding_is_gone_writes_nothing_about_it() -> None:
    run = Run()
    run.review([finding(10)])
    run.apply([ev.transition("SF-1", Action.WAIVE, by="ann", actor=Actor.HUMAN, text="risk")])
    events = run.review([])
    assert of_kind(events, "attack_relocated") == [] and transitions(events) == []
    assert run.state.attacks["SF-1"].status is Status.WAIVED
