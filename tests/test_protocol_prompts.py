"""What a critic is shown on its first turn (protocol/prompts.py): the spec, the diff and
each declared invariant in its own fenced block, in that order. The mutation run (issue 18)
found the invariants block written by no test of the core."""

from __future__ import annotations

from contend.protocol.prompts import critic_first_turn, fence


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
