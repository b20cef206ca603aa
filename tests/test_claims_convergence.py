"""Step 4 convergence over scripted round states: every verdict path, consensus rules,
evidence-bound concessions, silence, repeated attacks and the 50-round cap."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from contend.claims.convergence import (
    SAFETY_CAP,
    Attack,
    ClaimRounds,
    Concession,
    ProponentReply,
    Round,
    Turn,
    check_concession,
    consensus,
    converge,
    exit_code,
    open_attacks,
    parse_concession,
    verdict_of,
)

AXES = ("internal-logic", "external-fact", "internal-fact")
QUIET = tuple(Turn(axis, "no-attack-point") for axis in AXES)
ATTACK = Attack("A1", "internal-fact", "the table says 62, not 64", evidence=("X1",))


def state(*rounds: tuple[Turn, ...] | Round, **kw: object) -> ClaimRounds:
    built = tuple(r if isinstance(r, Round) else Round(n, r) for n, r in enumerate(rounds, start=1))
    return ClaimRounds(AXES, built, frozenset({"E1", "E2"}), **kw)  # type: ignore[arg-type]


def with_turn(turns: tuple[Turn, ...], turn: Turn) -> tuple[Turn, ...]:
    return tuple(turn if t.axis == turn.axis else t for t in turns)


def all_reject() -> tuple[Turn, ...]:
    """internal-fact attacks; the others see no new point but stand on reject."""
    return tuple(
        Turn(a, "attack", "reject", attacks=(ATTACK,))
        if a == "internal-fact"
        else Turn(a, "no-attack-point", "reject")
        for a in AXES
    )


def test_nothing_ran_is_partial_never_accept() -> None:
    assert converge(state()).kind == "partial"


def test_accept_after_one_quiet_cycle() -> None:
    result = converge(state(QUIET))
    assert result.kind == "accept" and "unanimity" in result.reasons[0]


def test_a_new_attack_goes_on_to_the_next_round() -> None:
    first = with_turn(QUIET, Turn("internal-fact", "attack", attacks=(ATTACK,)))
    result = converge(state(first))
    assert result.kind == "partial" and "new attacks" in result.reasons[0]
    assert [a.id for a in result.open_attacks] == ["A1"]


def test_reject_when_a_decisive_attack_stands_and_all_reject() -> None:
    first = all_reject()
    result = converge(state(first))
    assert result.kind == "reject"
    assert "A1" in result.reasons[0] and "supports rejection" in result.reasons[1]


def test_one_attacker_under_unanimity_deadlocks_instead_of_being_outvoted() -> None:
    first = with_turn(QUIET, Turn("internal-fact", "attack", attacks=(ATTACK,)))
    second = with_turn(QUIET, Turn("internal-fact", "no-attack-point"))
    result = converge(state(first, second))
    assert result.kind == "judge-deadlock"
    assert "does not reject" in result.reasons[0]
    assert verdict_of(result.kind, deadlock_reported=True) == "escalate-human"
    assert verdict_of(result.kind, deadlock_reported=False) == "escalate"


def test_majority_rejects_only_when_configured() -> None:
    first = (
        Turn("internal-logic", "attack", "reject", attacks=(ATTACK,)),
        Turn("external-fact", "no-attack-point", "reject"),
        Turn("internal-fact", "no-attack-point", "accept"),
    )
    assert converge(state(first)).kind != "reject"
    assert converge(state(first, consensus="majority")).kind == "reject"


def test_weighted_consensus() -> None:
    standing = {"internal-logic": "accept", "external-fact": "reject", "internal-fact": "reject"}
    weights = {"internal-logic": 5.0, "external-fact": 1.0, "internal-fact": 1.0}
    assert consensus(standing, "weighted", weights) == "accept"  # type: ignore[arg-type]
    assert consensus(standing, "majority") == "reject"  # type: ignore[arg-type]
    assert consensus(standing, "unanimity") is None  # type: ignore[arg-type]


def test_conflicting_positions_without_an_attack_point_deadlock() -> None:
    split = with_turn(QUIET, Turn("internal-logic", "no-attack-point", "reject"))
    result = converge(state(split))
    assert result.kind == "judge-deadlock" and "positions conflict" in result.reasons[0]


def test_new_evidence_from_the_proponent_answers_and_goes_on() -> None:
    first = Round(
        1,
        with_turn(QUIET, Turn("internal-fact", "attack", "reject", attacks=(ATTACK,))),
        ProponentReply(("E3",), ("A1",), decision_relevant=True),
    )
    assert converge(state(first)).kind == "partial"


def test_evidence_that_changes_nothing_is_no_answer() -> None:
    first = all_reject()
    irrelevant = Round(1, first, ProponentReply(("E3",), ("A1",), decision_relevant=False))
    assert converge(state(irrelevant)).kind == "reject"


def test_one_silent_round_is_not_yet_an_error_two_are_escalate() -> None:
    silent = with_turn(QUIET, Turn("external-fact", "silent"))
    once = converge(state(silent))
    assert once.kind == "partial" and "external-fact" in once.reasons[0]
    garbled = with_turn(QUIET, Turn("external-fact", "unparseable"))
    twice = converge(state(silent, garbled))
    assert twice.kind == "escalate" and "protocol error" in twice.reasons[0]
    absent = tuple(t for t in QUIET if t.axis != "external-fact")
    assert converge(state(absent, absent)).kind == "escalate"
    empty_attack = with_turn(QUIET, Turn("external-fact", "attack"))
    assert converge(state(empty_attack, empty_attack)).kind == "escalate"


def test_silence_is_never_accepted_even_at_the_cap() -> None:
    silent = with_turn(QUIET, Turn("external-fact", "silent"))
    rounds = [QUIET] * (SAFETY_CAP - 1) + [silent]
    assert converge(state(*rounds)).kind == "judge-deadlock"


def test_a_repeated_attack_without_narrowing_escalates() -> None:
    first = with_turn(QUIET, Turn("internal-fact", "attack", attacks=(ATTACK,)))
    again = Attack("A2", "internal-fact", "The table says 62, not 64!")
    second = with_turn(QUIET, Turn("internal-fact", "attack", attacks=(again,)))
    result = converge(state(first, second), surviving_claim="the table says 64")
    assert result.kind == "escalate" and "repeated" in result.reasons[0]
    narrowing = Attack("A3", "internal-fact", ATTACK.text, narrowing="the table says 62 or 64")
    third = with_turn(QUIET, Turn("internal-fact", "attack", attacks=(narrowing,)))
    assert converge(state(first, third), surviving_claim="the table says 64").kind == "partial"


def test_the_fifty_round_cap_deadlocks() -> None:
    churn = [
        with_turn(
            QUIET,
            Turn(
                "internal-fact",
                "attack",
                attacks=(Attack(f"A{n}", "internal-fact", f"objection {n}"),),
            ),
        )
        for n in range(SAFETY_CAP)
    ]
    assert converge(state(*churn[: SAFETY_CAP - 1])).kind == "partial"
    result = converge(state(*churn))
    assert result.kind == "judge-deadlock" and "safety cap of 50 rounds" in result.reasons[0]


def test_concessions_must_be_evidence_bound() -> None:
    good = parse_concession(
        "internal-fact", "My evidence X1 was specifically defeated by opposing evidence E2.", "A1"
    )
    assert (good.own_evidence, good.defeated_by) == ("X1", "E2")
    assert check_concession(good, {"X1"}, {"E1", "E2"}) is None
    vague = parse_concession("internal-fact", "Fine, the others convinced me.", "A1")
    assert "not evidence-bound" in (check_concession(vague, {"X1"}, {"E2"}) or "")
    not_own = Concession("internal-fact", "A1", "E1", "E2")
    assert "not evidence this agent put forward" in (
        check_concession(not_own, {"X1"}, {"E1", "E2"}) or ""
    )
    unknown = Concession("internal-fact", "A1", "X1", "E9")
    assert "no evidence on record" in (check_concession(unknown, {"X1"}, {"E1"}) or "")
    itself = Concession("internal-fact", "A1", "X1", "X1")
    assert "cannot defeat itself" in (check_concession(itself, {"X1"}, {"X1"}) or "")


def test_a_refused_concession_resolves_nothing_and_is_recorded() -> None:
    first = with_turn(QUIET, Turn("internal-fact", "attack", attacks=(ATTACK,)))
    vague = Concession("internal-fact", "A1", None, None, "ok, majority wins")
    second = with_turn(QUIET, Turn("internal-fact", "no-attack-point", concessions=(vague,)))
    s = state(first, second)
    assert [a.id for a in open_attacks(s)] == ["A1"]
    result = converge(s)
    assert result.refused_concessions and "not evidence-bound" in result.refused_concessions[0][1]
    bound = Concession("internal-fact", "A1", "X1", "E2")
    third = with_turn(QUIET, Turn("internal-fact", "no-attack-point", concessions=(bound,)))
    assert open_attacks(state(first, third)) == []


def test_withdrawal_only_by_the_attacker() -> None:
    first = with_turn(QUIET, Turn("internal-fact", "attack", attacks=(ATTACK,)))
    by_other = with_turn(QUIET, Turn("internal-logic", "no-attack-point", withdrawn=("A1",)))
    assert [a.id for a in open_attacks(state(first, by_other))] == ["A1"]
    by_owner = with_turn(QUIET, Turn("internal-fact", "no-attack-point", withdrawn=("A1",)))
    assert open_attacks(state(first, by_owner)) == []
    assert converge(state(first, by_owner, QUIET)).kind == "accept"


def test_exit_codes() -> None:
    assert exit_code(["accept", "accept"]) == 0
    assert exit_code(["accept", "reject", "escalate"]) == 1
    assert exit_code(["accept", "escalate-human"]) == 3
    assert exit_code(["accept"], bad_cards=1) == 2
    assert exit_code([]) == 3


turns = st.builds(
    Turn,
    axis=st.sampled_from(AXES),
    kind=st.sampled_from(["attack", "no-attack-point", "silent", "unparseable"]),
    position=st.sampled_from([None, "accept", "reject"]),
    attacks=st.lists(
        st.builds(
            Attack,
            id=st.sampled_from(["A1", "A2", "A3"]),
            axis=st.sampled_from(AXES),
            text=st.sampled_from(["x", "y", "z"]),
        ),
        max_size=2,
    ).map(tuple),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(turns, max_size=4).map(tuple), min_size=1, max_size=6))
def test_never_accept_with_an_open_attack_or_an_unusable_turn(
    rounds: list[tuple[Turn, ...]],
) -> None:
    s = state(*rounds)
    result = converge(s)
    if result.kind == "accept":
        assert not open_attacks(s)
        last = s.rounds[-1]
        usable = {t.axis for t in last.turns if t.usable}
        assert usable >= set(AXES)
