"""The figures of `contend stats` (ledger/stats.py) on rows built by hand (issue 18): each
figure worked out here from its definition, so a wrong count, a wrong divisor, a wrong
grouping key or a rate with nothing to divide by shows."""

from __future__ import annotations

from contend.ledger.index import StatsRows
from contend.ledger.index_rows import AttackRow, EscapeRow, RunRow, ThreadRow
from contend.ledger.stats import BY_CHOICES, compute, group, totals


def _run(run_id: str, *, branch: str = "", cost: float = 0.0, wall: float = 0.0) -> RunRow:
    return RunRow(
        run_id=run_id,
        started="2026-12-01T00:00:00Z",
        key=branch,
        sessions=1,
        verdict="fail",
        exit_code=1,
        attacks=0,
        unresolved=0,
        families="",
        tokens=0,
        cost=cost,
        branch=branch,
        wall_s=wall,
    )


def _attack(
    attack_id: str,
    *,
    topic: str = "arith",
    family: str = "fam",
    critic: str = "c1",
    status: str = "open",
    resolved: bool = False,
    found: bool = False,
    decision: str = "",
    rounds: int = 0,
) -> AttackRow:
    return AttackRow(
        attack_id=attack_id,
        thread="T",
        critic=critic,
        family=family,
        topic=topic,
        severity="major",
        status=status,
        resolved=resolved,
        found=found,
        decision=decision,
        rounds=rounds,
    )


def _thread(topic: str, *, family: str = "fam", critic: str = "c1", cost: float = 0.0) -> ThreadRow:
    return ThreadRow(thread="T", critic=critic, family=family, topic=topic, cost=cost, tokens=0)


def _escape(topic: str = "", path: str = "", seq: int = 9) -> EscapeRow:
    return EscapeRow(
        seq=seq, ts="2026-12-01T01:00:00Z", note="got through", path=path, line=None,
        topic=topic, person="dana",
    )  # fmt: skip


def rows() -> StatsRows:
    """Two runs. r1 (branch b1, $0.30, 10 s): threads on arith and io; four attacks —
    open, fixed and accepted after 2 rounds, overruled by a person after 1, upheld and
    still open — and one escape on io. r2 (no branch, $0.10, 4 s): one arith thread, one
    attack withdrawn after 3 rounds, one escape naming no topic."""
    return StatsRows(
        runs=[_run("r1", branch="b1", cost=0.3, wall=10.0), _run("r2", cost=0.1, wall=4.0)],
        attacks={
            "r1": [
                _attack("a1"),
                _attack("a2", status="fixed", resolved=True, found=True, rounds=2),
                _attack(
                    "a3",
                    topic="io",
                    family="other",
                    critic="c2",
                    status="overruled",
                    resolved=True,
                    decision="overrule",
                    rounds=1,
                ),
                _attack("a4", status="upheld", decision="uphold"),
            ],
            "r2": [_attack("b1", status="withdrawn", resolved=True, rounds=3)],
        },
        threads={
            "r1": [
                _thread("arith", cost=0.2),
                _thread("io", family="other", critic="c2", cost=0.1),
            ],
            "r2": [_thread("arith", cost=0.1)],
        },
        escapes={"r1": [_escape(topic="io", path="app.py")], "r2": [_escape(seq=4)]},
    )


def test_the_totals_over_every_run() -> None:
    assert totals(rows()) == {
        "runs": 2,
        "raised": 5,
        "found": 1,
        "found_rate": 0.2,
        # a1 and a4 unresolved, a3 resolved only by a person's overrule
        "survived": 3,
        "survival_rate": 0.6,
        "resolved": 3,
        "rounds_to_resolution_mean": 2.0,
        "rounds_to_resolution_median": 2,
        "decided": 2,
        "overruled": 1,
        "false_alarm_rate": 0.5,
        "escapes": 2,
        "cost_per_review": 0.2,
        "time_per_review_s": 7.0,
    }


def test_the_figures_by_topic_count_each_attack_and_escape_once() -> None:
    by_topic = group(rows(), "topic")
    assert sorted(by_topic) == ["arith", "io"]
    arith, io = by_topic["arith"], by_topic["io"]
    assert (arith["runs"], arith["raised"], arith["found"], arith["survived"]) == (2, 4, 1, 2)
    assert (arith["resolved"], arith["rounds_to_resolution_mean"]) == (2, 2.5)
    assert arith["rounds_to_resolution_median"] == 2.5
    assert (arith["decided"], arith["overruled"], arith["false_alarm_rate"]) == (1, 0, 0.0)
    # r1's escape names io; r2's names no topic, so it counts against every thread of r2.
    assert (arith["escapes"], io["escapes"]) == (1, 1)
    assert arith["cost_per_review"] == round((0.2 + 0.1) / 2, 6)
    assert arith["time_per_review_s"] == 7.0
    assert (io["runs"], io["raised"], io["survived"], io["false_alarm_rate"]) == (1, 1, 1, 1.0)
    assert io["cost_per_review"] == 0.1 and io["time_per_review_s"] == 10.0


def test_the_figures_by_family_critic_and_branch() -> None:
    data = rows()
    assert sorted(group(data, "family")) == ["fam", "other"]
    assert sorted(group(data, "critic")) == ["c1", "c2"]
    by_branch = group(data, "branch")
    assert sorted(by_branch) == ["(no branch)", "b1"]
    assert by_branch["b1"]["raised"] == 4 and by_branch["(no branch)"]["raised"] == 1
    assert by_branch["b1"]["escapes"] == 1 and by_branch["(no branch)"]["escapes"] == 1


def test_unnamed_groups_are_named_as_such() -> None:
    data = StatsRows(
        runs=[_run("r1", wall=2.0)],
        attacks={"r1": [_attack("a1", topic="", family="")]},
        threads={"r1": [_thread("", family="")]},
        escapes={"r1": []},
    )
    assert list(group(data, "topic")) == ["(no topic)"]
    assert list(group(data, "family")) == ["(unknown)"]


def test_a_rate_with_nothing_to_divide_by_is_none_not_zero() -> None:
    empty = totals(StatsRows(runs=[], attacks={}, threads={}, escapes={}))
    for figure in (
        "found_rate",
        "survival_rate",
        "false_alarm_rate",
        "rounds_to_resolution_mean",
        "rounds_to_resolution_median",
        "cost_per_review",
        "time_per_review_s",
    ):
        assert empty[figure] is None, figure
    assert (empty["runs"], empty["raised"], empty["escapes"]) == (0, 0, 0)


def test_compute_names_its_schema_and_lists_every_escape() -> None:
    out = compute(rows(), BY_CHOICES)
    assert out["schema"] == "contend.stats/v1"
    assert list(out["by"]) == ["topic", "family", "critic", "branch"]
    assert out["totals"] == totals(rows())
    assert out["escapes"] == [
        {
            "run": "r1",
            "seq": 9,
            "ts": "2026-12-01T01:00:00Z",
            "note": "got through",
            "path": "app.py",
            "line": None,
            "topic": "io",
            "person": "dana",
        },
        {
            "run": "r2",
            "seq": 4,
            "ts": "2026-12-01T01:00:00Z",
            "note": "got through",
            "path": None,
            "line": None,
            "topic": None,
            "person": "dana",
        },
    ]


def test_a_group_counts_a_run_by_its_threads_alone_or_by_its_attacks_alone() -> None:
    """A topic with a thread but no attack in a run, and one with an attack but no thread
    (a static finding filed under another topic): each counts that run, and its time."""
    data = StatsRows(
        runs=[_run("r1", wall=10.0), _run("r2", wall=4.0)],
        attacks={"r1": [_attack("a1", topic="orphan")], "r2": []},
        threads={"r1": [], "r2": [_thread("quiet", cost=0.5)]},
        escapes={"r1": [], "r2": []},
    )
    by_topic = group(data, "topic")
    assert (by_topic["orphan"]["runs"], by_topic["orphan"]["time_per_review_s"]) == (1, 10.0)
    assert (by_topic["quiet"]["runs"], by_topic["quiet"]["time_per_review_s"]) == (1, 4.0)
    assert by_topic["quiet"]["cost_per_review"] == 0.5
    assert by_topic["orphan"]["cost_per_review"] == 0.0


def test_figures_are_rounded_to_their_stated_precision() -> None:
    """Rates to 4 places, money to the millionth, seconds to the millisecond."""
    data = StatsRows(
        runs=[_run("r1", cost=0.1234567, wall=1.2345)],
        attacks={
            "r1": [
                _attack("a1", found=True, decision="overrule"),
                _attack("a2", decision="uphold"),
                _attack("a3", decision="uphold"),
            ]
        },
        threads={"r1": []},
        escapes={"r1": []},
    )
    figures = totals(data)
    assert (figures["found_rate"], figures["false_alarm_rate"]) == (0.3333, 0.3333)
    assert figures["cost_per_review"] == 0.123457
    assert figures["time_per_review_s"] == round(1.2345, 3) == 1.234


def test_survivors_are_the_unresolved_and_the_mean_rounds_are_to_the_thousandth() -> None:
    open_only = StatsRows(
        runs=[_run("r1")],
        attacks={
            "r1": [_attack("a1"), _attack("a2"), _attack("a3", status="waived", resolved=True)]
        },
        threads={"r1": []},
        escapes={"r1": []},
    )
    # Unresolved, or resolved only by a person's waiver: each reached a person.
    assert totals(open_only)["survived"] == 3
    resolved = StatsRows(
        runs=[_run("r1")],
        attacks={
            "r1": [
                _attack(name, status="withdrawn", resolved=True, rounds=rounds)
                for name, rounds in (("a1", 1), ("a2", 1), ("a3", 2))
            ]
        },
        threads={"r1": []},
        escapes={"r1": []},
    )
    figures = totals(resolved)
    assert (figures["survived"], figures["rounds_to_resolution_mean"]) == (0, 1.333)
