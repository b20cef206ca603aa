"""The static round in author mode (review/static_round.py) as a pure planner, review after
review: what becomes of an attack whose findings stay, move, grow, shrink, go, are waived,
sit in a file that was skipped or left the diff; the events written (as the ledger holds
them) and the verdict the fold of them gives. Written where the mutation run
(bench/mutation/) found the planner unguarded."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

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
    assert grouped.fingerprint == group_fingerprint(
        str(SF), ("bare-except-pass", "src/a.py", Severity.MAJOR)
    )
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
