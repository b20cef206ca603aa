"""The index's rows built from a fold (ledger/index_rows.py), tested against its mutants
(issue 18): a run's row, its attack, thread and escape rows, each field worked out from
the events written, on a run with two critic families, spend, a fix, a person's decision
and an escape."""

from __future__ import annotations

from dataclasses import replace

from contend.ledger.index_rows import attack_rows, escape_rows, summarise, thread_rows
from contend.protocol import events as ev
from contend.protocol.model import Action, Actor
from contend.protocol.state import Reducer
from contend.protocol.turns import Identity
from contend.protocol.verdict import Verdict
from contend.review.standing import Standing
from test_planner_mutation_turns import Script, answers, brief, critic, objection, run_thread
from test_planner_properties import Run


def _run() -> Run:
    """C1 (fam-critic) raises two objections, the proposer fixes one and defends the
    other and leaves the third; a person upholds, then waives, the defended one and
    overrules the one left unresolved; two escapes, one with nothing but its note."""
    run = Run(Reducer(), [])
    artifact = {"kind": "change", "repo": "/nonexistent", "key": "feature"}
    run.append(ev.run_started(run_id="r", artifact=artifact))
    run.append(ev.thread_started(thread="C0", critic="other"))
    run.append(ev.topic_declared(thread="C0", topic="edge cases"))
    script = Script(
        critic=[
            critic(
                objection("divides by zero"),
                objection("loses input", start=9, end=9),
                objection("leaks a handle", start=20, end=21),
            ),
            critic(judge=(("C1-1", "accept"), ("C1-2", "re_attack"))),
        ],
        proposer=[answers(("C1-1", "fix"), ("C1-2", "defend"))],
        commits=["f" * 40],
        gates=[({"name": "tests", "ok": True},)],
        cost=0.1234569,
    )
    run_thread(brief(max_rounds=1), script, run)
    # A second critic of another family, in author mode, that finds nothing.
    other = replace(brief(author=True), name="C2", critic=Identity("scripted", "m", "fam-other"))
    run_thread(other, Script(critic=[critic(topic="io")]), run)
    decisions = (("C1-2", Action.UPHOLD), ("C1-2", Action.WAIVE), ("C1-3", Action.OVERRULE))
    for attack, action in decisions:
        run.append(ev.transition(attack, action, by="human", actor=Actor.HUMAN, text="decided"))
    run.append(ev.thread_started(thread="C3", critic="static:x"))  # never declared a topic
    run.append(
        {
            "kind": "escape_recorded",
            "data": {
                "note": "None leaked",
                "path": "app.py",
                "line": 4,
                "topic": "arithmetic",
                "person": {"name": "Dana", "email": None, "source": "git config"},
            },
        }
    )
    run.append({"kind": "escape_recorded", "data": {"note": "bare"}})
    return run


def _standing(run: Run, headline: str | None) -> Standing:
    return Standing(
        state=run.state,
        phase="finished",
        verdict=Verdict.FAIL,
        reasons=("1 blocking attack(s) unresolved",),
        headline=headline,
        decided_since=1,
    )


def test_a_runs_row_sums_up_its_fold() -> None:
    run = _run()
    state = run.state
    row = summarise("r1", "2026-12-01T00:00:00Z", _standing(run, "C1-2"), "keyed", 1.23456)
    assert (row.key, row.branch) == ("feature", "feature")
    assert (row.run_id, row.started, row.chain, row.kind) == (
        "r1",
        "2026-12-01T00:00:00Z",
        "keyed",
        "review",
    )
    assert (row.verdict, row.exit_code, row.phase) == ("fail", 1, "finished")
    assert (row.attacks, row.unresolved) == (3, 0)
    # The families of the critics with usable output, sorted and joined by commas.
    assert row.families == "fam-critic,fam-other"
    # Tokens in and out: each of the four agent calls took 10 in and 5 out.
    assert row.tokens == 60 == state.tokens_in + state.tokens_out
    assert row.cost == 0.370371  # C1's three calls, to the millionth
    assert row.headline == "[major] app.py:9 loses input"
    assert row.wall_s == 1.235
    # Every person's decision counts: an uphold, an overrule and a waiver.
    assert (row.decided, row.escapes) == (3, 2)
    assert row.sessions == state.sessions


def test_a_run_without_a_headline_has_an_empty_one() -> None:
    row = summarise("r1", "", _standing(_run(), None))
    assert (row.headline, row.integrity, row.problem) == ("", "intact", "")
    assert (row.chain, row.wall_s) == ("", 0.0)


def test_attack_thread_and_escape_rows() -> None:
    state = _run().state
    rows = {a.attack_id: a for a in attack_rows(state)}
    fixed, upheld = rows["C1-1"], rows["C1-2"]
    assert (fixed.status, fixed.resolved, fixed.found, fixed.decision) == (
        "fixed",
        True,
        True,
        "",
    )
    assert (upheld.status, upheld.resolved, upheld.found, upheld.decision) == (
        "waived",
        True,
        False,
        "waive",
    )
    assert (rows["C1-3"].status, rows["C1-3"].decision) == ("overruled", "overrule")
    assert (fixed.severity, fixed.topic, fixed.critic) == ("major", "arithmetic", "scripted:critic")
    threads = {t.thread: t for t in thread_rows(state)}
    assert (threads["C1"].topic, threads["C1"].tokens) == ("arithmetic", 45)
    assert threads["C1"].cost == 0.370371
    assert threads["C0"].topic == "edge cases"
    assert threads["C3"].topic == ""
    escape, bare = escape_rows(state)
    assert (bare.note, bare.path, bare.line, bare.topic, bare.person) == ("bare", "", None, "", "")
    assert (escape.note, escape.path, escape.line, escape.topic, escape.person) == (
        "None leaked",
        "app.py",
        4,
        "arithmetic",
        "Dana",
    )
