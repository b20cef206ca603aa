"""End-to-end reviews with scripted critic and proposer agents on real git repositories.

The scripted agents resolve through the same backend registry as real agents
(`scripted:FILE`). Together these cover every transition, termination reason and verdict.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from contend.ledger.verify import verify
from contend.protocol.state import fold
from review_helpers import (
    answer,
    critic_turn,
    git,
    judge,
    make_repo,
    objection,
    report,
    run,
    write_script,
)


def state_of(result):  # type: ignore[no-untyped-def]
    checked = verify(result.run_dir / "ledger.jsonl", keep_entries=True)
    assert checked.ok, checked.message
    return fold(checked.entries)


def test_fix_defend_concede_all_accepted_reaches_steady_state_and_passes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    fixed = (
        (repo / "app.py")
        .read_text()
        .replace(
            "    return total(items) / len(items)",
            '    if not items:\n        raise ValueError("empty")\n'
            "    return total(items) / len(items)",
        )
    )
    critic = write_script(
        tmp_path / "critic.json",
        family="fam-critic",
        critic=[
            critic_turn(
                objections=[
                    objection(),
                    objection(claim="average() loses precision", severity="minor"),
                    objection(claim="no docstring", severity="minor"),
                ]
            ),
            critic_turn(
                judgements=[
                    judge("C1-1", "accept"),
                    judge("C1-2", "accept"),
                    judge("C1-3", "withdraw"),
                ]
            ),
        ],
    )
    proposer = write_script(
        tmp_path / "proposer.json",
        family="fam-author",
        proposer=[
            {
                "output": {
                    "answers": [
                        answer("C1-1", "fix", "guarded"),
                        answer("C1-2", "defend", "ints only", "parse_amount returns int"),
                        answer("C1-3", "concede", "style"),
                    ]
                },
                "edits": {"app.py": fixed},
            },
        ],
    )
    result = run(repo, critics=[critic], proposer=proposer)
    data = report(result)
    assert data["verdict"] == "pass" and result.outcome.exit_code == 0
    statuses = {d["id"]: d["status"] for d in data["resolved"]}
    assert statuses == {"C1-1": "fixed", "C1-2": "accepted", "C1-3": "withdrawn"}
    state = state_of(result)
    assert state.threads["C1"].ended == "steady_state"
    assert state.threads["C1"].closed_rounds == [1, 2, 3]
    # The fix was merged, and the user's working tree was not touched (no --apply).
    assert state.merges and state.merges[0]["conflicts"] == []
    assert "raise ValueError" not in (repo / "app.py").read_text()
    assert git(repo, "status", "--porcelain") == ""


def test_defense_pressed_until_the_cap_is_a_deadlock_and_escalates(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    critic = write_script(
        tmp_path / "critic.json",
        critic=[
            critic_turn(objections=[objection()]),
            critic_turn(judgements=[judge("C1-1", "re_attack", "still divides by zero")]),
            critic_turn(judgements=[judge("C1-1", "re_attack", "still divides by zero")]),
        ],
    )
    proposer = write_script(
        tmp_path / "proposer.json",
        family="fam-author",
        proposer=[
            {"output": {"answers": [answer("C1-1", "defend", "callers never pass []")]}},
            {"output": {"answers": [answer("C1-1", "defend", "see the spec")]}},
        ],
    )
    oracle = write_script(
        tmp_path / "oracle.json",
        oracle=[
            {
                "output": {
                    "agreed": ["average divides by len"],
                    "disputed_leaf": "can items be empty?",
                    "evidence_for": "spec is silent",
                    "evidence_against": "callers filter",
                    "cause": "missing evidence",
                    "human_decision": "is [] a valid input?",
                    "decisive_check": "average([])",
                }
            }
        ]
        * 3,
    )
    result = run(repo, critics=[critic], proposer=proposer, oracle=oracle, max_rounds=2)
    data = report(result)
    assert data["verdict"] == "escalate" and result.outcome.exit_code == 3
    [dispute] = data["disputes"]
    assert dispute["status"] == "deadlocked" and dispute["re_attacked"] is True
    assert dispute["contention"] == dispute["rounds_survived"] + 1 >= 3
    state = state_of(result)
    assert state.threads["C1"].ended == "round_cap"
    assert state.deadlock_reports[0]["report"]["disputed_leaf"] == "can items be empty?"


def test_unresolved_major_without_proposer_fails(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    critic = write_script(tmp_path / "critic.json", critic=[critic_turn(objections=[objection()])])
    result = run(repo, critics=[critic])
    data = report(result)
    assert data["verdict"] == "fail" and result.outcome.exit_code == 1
    assert data["disputes"][0]["status"] == "open"
    assert state_of(result).threads["C1"].ended == "awaiting_author"


def test_only_minor_unresolved_is_a_conditional_pass(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    critic = write_script(
        tmp_path / "critic.json",
        critic=[
            critic_turn(objections=[objection(severity="minor")]),
            critic_turn(judgements=[judge("C1-1", "re_attack", "a concession is not a fix")]),
        ],
    )
    proposer = write_script(
        tmp_path / "proposer.json",
        family="fam-author",
        proposer=[
            {"output": {"answers": [answer("C1-1", "concede", "not now")]}},
            {"output": {"answers": [answer("C1-1", "concede", "still not now")]}},
        ],
    )
    result = run(repo, critics=[critic], proposer=proposer, max_rounds=1)
    data = report(result)
    assert data["verdict"] == "conditional_pass" and result.outcome.exit_code == 0
    assert data["caveats"]


def test_two_malformed_outputs_in_a_row_fail_the_thread_and_escalate(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    critic = write_script(
        tmp_path / "critic.json",
        critic=[
            {"raw": "I think the code is fine!"},
            {"raw": '{"topic": "x", "objections": [ {"sev'},
        ],
    )
    proposer = write_script(tmp_path / "proposer.json", family="fam-author", proposer=[])
    result = run(repo, critics=[critic], proposer=proposer)
    data = report(result)
    assert data["verdict"] == "escalate"
    state = state_of(result)
    assert state.threads["C1"].ended == "malformed_output"
    assert state.threads["C1"].failures == 2


@pytest.mark.parametrize(
    ("clean_turns", "reasons"),
    [
        (0, ("thread(s) failed: C1", "no critic ran", "0 model family(ies), 1 required")),
        # One clean turn, then crashes: the thread failed; the crashed rounds are not
        # quiet rounds, so it never reaches a steady state.
        (1, ("thread(s) failed: C1",)),
    ],
)
def test_a_crashing_critic_never_yields_pass(
    tmp_path: Path, clean_turns: int, reasons: tuple[str, ...]
) -> None:
    repo = make_repo(tmp_path)
    turns = [critic_turn()] * clean_turns + [{"error": "crash"}] * 3
    critic = write_script(tmp_path / "critic.json", critic=turns)
    proposer = write_script(tmp_path / "proposer.json", family="fam-author", proposer=[])
    result = run(repo, critics=[critic], proposer=proposer)
    assert report(result)["verdict"] == "escalate"
    assert result.outcome.reasons == reasons
    thread = state_of(result).threads["C1"]
    assert thread.ended == "crashed"
    assert thread.usable_outputs == clean_turns


def test_cost_cap_stops_the_thread(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    critic = write_script(tmp_path / "critic.json", critic=[critic_turn(objections=[objection()])])
    proposer = write_script(
        tmp_path / "proposer.json",
        family="fam-author",
        proposer=[{"output": {"answers": [answer("C1-1", "defend", "fine")]}}],
    )
    result = run(repo, critics=[critic], proposer=proposer, **{"limits.max_thread_tokens": 10})
    state = state_of(result)
    assert state.threads["C1"].ended == "cost_cap"
    assert report(result)["disputes"][0]["status"] == "unresolved"


def test_unknown_ids_and_illegal_judgements_are_recorded_not_applied(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    critic = write_script(
        tmp_path / "critic.json",
        critic=[
            critic_turn(
                objections=[
                    objection(),
                    {
                        "severity": "major",
                        "path": "",
                        "start_line": 1,
                        "end_line": 1,
                        "claim": "vague",
                        "evidence": "",
                        "expected": "",
                    },
                ],
                judgements=[judge("C9-9", "accept")],
            ),
            critic_turn(judgements=[judge("C1-1", "accept"), judge("NOPE", "re_attack")]),
        ],
    )
    result = run(repo, critics=[critic])
    state = state_of(result)
    thread = state.threads["C1"]
    assert thread.dropped_attacks == 1
    assert any("C9-9" in v for v in thread.violations)
    # C1-1 was never answered; a critic "accept" without a proposer means the author fixed it
    # between sessions only in author mode — here it is the same session, so it still stands.
    assert state.attacks["C1-1"].resolved is False


def test_near_duplicate_topic_is_rejected_in_code_and_the_critic_asked_again(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path)
    first = write_script(
        tmp_path / "c1.json", family="fam-a", critic=[critic_turn(topic="silent fallbacks")]
    )
    second = write_script(
        tmp_path / "c2.json",
        family="fam-b",
        critic=[
            {
                "output": {
                    "topic": "silent fallback",
                    "no_defect_found": True,
                    "objections": [],
                    "judgements": [],
                }
            }
        ],
    )
    result = run(repo, critics=[first, second], parallelism=1)
    state = state_of(result)
    assert state.topic_rejections and state.topic_rejections[0]["topic"] == "silent fallback"


def test_interrupt_leaves_a_resumable_run(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    marker = tmp_path / "interrupted.marker"
    critic = write_script(
        tmp_path / "critic.json",
        critic=[
            critic_turn(objections=[objection()]),
            {**critic_turn(judgements=[judge("C1-1", "accept")]), "interrupt_once": str(marker)},
        ],
    )
    proposer = write_script(
        tmp_path / "proposer.json",
        family="fam-author",
        proposer=[{"output": {"answers": [answer("C1-1", "defend", "callers never pass []")]}}],
    )
    with pytest.raises(KeyboardInterrupt):
        run(repo, critics=[critic], proposer=proposer)
    runs = list((repo / ".contend" / "runs").iterdir())
    ledger = runs[0] / "ledger.jsonl"
    checked = verify(ledger, keep_entries=True)
    assert checked.ok and fold(checked.entries).interrupted
    result = run(repo, critics=[critic], proposer=proposer, resume=True)
    assert result.run_dir == runs[0]
    data = report(result)
    assert data["verdict"] == "pass"
    assert data["resolved"][0]["status"] == "accepted"


def _fixing_proposer(tmp_path: Path, name: str, new_text: str) -> str:
    return write_script(
        tmp_path / name,
        family="fam-author",
        proposer=[
            {
                "output": {"answers": [answer("{thread}-1", "fix", "guarded")]},
                "edits": {"app.py": new_text},
            }
        ],
    )


def test_apply_brings_the_merged_fix_into_the_working_tree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    fixed = (repo / "app.py").read_text() + "\n\nGUARDED = True\n"
    critic = write_script(
        tmp_path / "critic.json",
        critic=[
            critic_turn(objections=[objection()]),
            critic_turn(judgements=[judge("C1-1", "accept")]),
        ],
    )
    proposer = _fixing_proposer(tmp_path, "proposer.json", fixed)
    from contend.config import load_settings
    from contend.review.engine import ReviewRequest, review

    settings = load_settings(repo, flags={"critics": [critic], "proposer": proposer})
    result = review(ReviewRequest(path=repo, apply=True), settings)
    assert report(result)["verdict"] == "pass"
    assert (repo / "app.py").read_text() == fixed


def test_conflicting_fixes_of_two_threads_are_reported_not_dropped(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    original = (repo / "app.py").read_text()
    critics = []
    for index, topic in ((1, "division by zero"), (2, "input parsing")):
        critics.append(
            write_script(
                tmp_path / f"critic{index}.json",
                family=f"fam-{index}",
                critic=[
                    critic_turn(topic=topic, objections=[objection()]),
                    critic_turn(topic=topic, judgements=[judge(f"C{index}-1", "accept")]),
                ],
            )
        )
    # One proposer script for both threads; the edit differs per thread through {thread}.
    proposer = _fixing_proposer(
        tmp_path, "proposer.json", original.replace("len(items)", "max(len(items), {thread})")
    )
    result = run(repo, critics=critics, proposer=proposer, parallelism=2)
    data = report(result)
    [merge] = data["merges"]
    assert len(merge["conflicts"]) == 1
    assert merge["conflicts"][0]["files"] == ["app.py"]
    md = result.texts["markdown"]
    assert "conflict" in md.lower()


def test_family_diversity_is_flagged_refused_or_escalated(tmp_path: Path) -> None:
    from contend.errors import UserError

    repo = make_repo(tmp_path)
    same_family = write_script(
        tmp_path / "c1.json", family="anthropic", model="model-b", critic=[critic_turn()]
    )
    proposer = write_script(tmp_path / "p.json", family="anthropic", model="model-a", proposer=[])
    result = run(repo, critics=[same_family], proposer=proposer)
    [thread] = report(result)["threads"]
    assert thread["same_family_as_proposer"] is True
    assert "same model family as the proposer" in result.texts["markdown"]

    same_model = write_script(
        tmp_path / "c2.json", family="anthropic", model="model-a", critic=[critic_turn()]
    )
    with pytest.raises(UserError, match="proposer's own model"):
        run(repo, critics=[same_model], proposer=proposer, new=True)

    result = run(repo, critics=[same_family], proposer=proposer, min_families=2, new=True)
    assert report(result)["verdict"] == "escalate"
    assert any("famil" in r for r in result.outcome.reasons)


@pytest.mark.parametrize(
    ("turn", "expect"),
    [
        ({"raw": "Looks good to me!"}, "not JSON"),
        ({"raw": '{"topic": "x", "objections": [{"severity": "maj'}, "not JSON"),
        ({"raw": '{"topic": "x"}'}, "schema violation"),
        ({"raw": '{"topic": "' + "x" * 10_000_000 + '"}'}, "schema violation"),
        ({"error": "crash"}, "crash"),
        ({"error": "timeout"}, "timeout"),
        ({"error": "http-429"}, "http-429"),
        ({"error": "http-500"}, "http-500"),
    ],
)
def test_bad_critic_behaviour_is_recorded_and_never_passes(
    tmp_path: Path, turn: dict[str, object], expect: str
) -> None:
    repo = make_repo(tmp_path)
    critic = write_script(tmp_path / "critic.json", critic=[turn, turn, turn])
    proposer = write_script(tmp_path / "proposer.json", family="fam-author", proposer=[])
    result = run(repo, critics=[critic], proposer=proposer)
    data = report(result)
    assert data["verdict"] == "escalate" and result.outcome.exit_code == 3
    state = state_of(result)
    thread = state.threads["C1"]
    # Unusable output ends a thread as malformed_output; a critic that failed otherwise
    # (crash, timeout, HTTP error) ends it as crashed.
    ended = "malformed_output" if "raw" in turn else "crashed"
    assert thread.ended == ended and thread.failures == 2
    assert thread.usable_outputs == 0
    failed = [
        e
        for e in verify(result.run_dir / "ledger.jsonl", keep_entries=True).entries
        if e["kind"] == "agent_failed"
    ]
    assert len(failed) == 2 and expect in failed[0]["data"]["error"]
    # The ledger keeps the raw exchange, bounded: a 10 MB reply does not bloat every fold.
    assert (result.run_dir / "ledger.jsonl").stat().st_size < 2_000_000
    assert data["threads"][0]["failures"] == 2


def test_model_critic_in_author_mode_judges_the_authors_edit_next_session(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path)
    critic = write_script(
        tmp_path / "critic.json",
        critic=[
            critic_turn(objections=[objection(), objection(claim="no docstring", line=10)]),
            critic_turn(
                judgements=[
                    judge("C1-1", "accept", "the guard is there now"),
                    judge("C1-2", "re_attack", "still no docstring"),
                ]
            ),
        ],
    )
    first = run(repo, critics=[critic])
    assert report(first)["verdict"] == "fail"
    (repo / "app.py").write_text(
        (repo / "app.py")
        .read_text()
        .replace(
            "    return total(items) / len(items)",
            "    if not items:\n        raise ValueError('empty')\n"
            "    return total(items) / len(items)",
        )
    )
    second = run(repo, critics=[critic])
    data = report(second)
    assert second.run_id == first.run_id
    assert {d["id"]: d["status"] for d in data["resolved"]} == {"C1-1": "fixed"}
    [survivor] = data["disputes"]
    assert survivor["id"] == "C1-2" and survivor["contention"] == 1
    state = state_of(second)
    assert [h["by"] for h in state.attacks["C1-1"].history] == ["author", "critic"]
