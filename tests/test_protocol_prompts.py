"""What a critic is shown on its first turn (protocol/prompts.py): the spec, the diff and
each declared invariant in its own fenced block, in that order. The mutation run (issue 18)
found the invariants block written by no test of the core."""

from __future__ import annotations

from pathlib import Path

import pytest

from contend.protocol import prompts
from contend.protocol.prompts import critic_first_turn, critic_next_turn, fence


def test_each_declared_invariant_is_shown_fenced_under_its_name() -> None:
    prompt = critic_first_turn(
        spec="charge once",
        diff="-a\n+b\n",
        invariants=[("money", "amounts are Decimal"), ("ids", "ids are ``uuid``")],
        taken_topics=[],
    )
    money = "## Declared invariants: money\n" + fence("amounts are Decimal")
    ids = "## Declared invariants: ids\n" + fence("ids are ``uuid``")
    assert money in prompt and ids in prompt
    assert prompt.index("## Task spec") < prompt.index("## The change") < prompt.index(money)
    assert prompt.index(money) < prompt.index(ids)
    assert fence("ids are ``uuid``").startswith("```\n")  # longer than the text's own run


def test_without_invariants_there_is_no_invariants_block() -> None:
    prompt = critic_first_turn(spec=None, diff="+x\n", invariants=[], taken_topics=[])
    assert "Declared invariants" not in prompt
    assert "(none was given: judge the change on its own terms)" in prompt


AGENTS_DOC = Path(__file__).resolve().parents[1] / "docs" / "agents.md"


@pytest.mark.parametrize("name", ["CRITIC_SYSTEM", "PROPOSER_SYSTEM", "ORACLE_SYSTEM"])
def test_the_system_text_of_each_role_is_published_verbatim(name: str) -> None:
    """docs/agents.md ("What each role is told") shows each role's system text as a fenced
    block: a user can read exactly what their critics are told, and the page cannot drift."""
    text = getattr(prompts, name).rstrip("\n")
    assert f"````\n{text}\n````" in AGENTS_DOC.read_text(encoding="utf-8"), (
        f"docs/agents.md no longer shows {name} as the code has it"
    )


def test_a_fence_is_longer_than_the_longest_backtick_run_inside() -> None:
    assert fence("plain") == "```\nplain\n```"
    assert fence("``a") == "```\n``a\n```"  # a run of 2 at the very start
    assert fence("a ```` b") == "`````\na ```` b\n`````"


def test_a_critics_first_turn_reads_exactly_so() -> None:
    """The whole first turn, as the critic reads it: the spec, the change, the axes other
    critics took and the one it was refused, then what to do."""
    prompt = critic_first_turn(
        spec="charge once",
        diff="-a\n+b",
        invariants=[],
        taken_topics=["error handling", "input validation"],
        rejected_topic="errors",
    )
    assert prompt == (
        "## Task spec\n```\ncharge once\n```\n\n"
        "## The change (unified diff)\n```\n-a\n+b\n```\n\n"
        "## Axes already taken by other reviewers (choose a different one)\n"
        "- error handling\n- input validation\n\n"
        "Your previous axis 'errors' duplicates one already taken. "
        "Declare a clearly different axis.\n\n"
        "Declare your axis in `topic`, then list your objections. Leave `judgements` empty."
    )


def test_the_first_critic_is_shown_no_taken_axes_and_no_refusal() -> None:
    prompt = critic_first_turn(spec=None, diff="+x", invariants=[], taken_topics=[])
    assert prompt == (
        "## Task spec\n(none was given: judge the change on its own terms)\n\n"
        "## The change (unified diff)\n```\n+x\n```\n\n"
        "Declare your axis in `topic`, then list your objections. Leave `judgements` empty."
    )


def test_a_critics_later_turn_reads_exactly_so() -> None:
    prompt = critic_next_turn(
        spec="charge once", diff="+y", topic="error handling", exchange="O1: fixed"
    )
    assert prompt == (
        "## Task spec\n```\ncharge once\n```\n\n"
        "## The change as it stands now (unified diff)\n```\n+y\n```\n\n"
        "## Your axis\nerror handling\n\n"
        "## The exchange so far on your objections\nO1: fixed\n\n"
        "Judge every answered objection in `judgements`: accept (the fix or defense holds), "
        "withdraw (your objection was wrong), or re_attack (it still stands; say why in "
        "`reason`). Then add any new objection on your axis, or set no_defect_found."
    )
