"""What a critic is shown on its first turn (protocol/prompts.py): the spec, the diff and
each declared invariant in its own fenced block, in that order. The mutation run (issue 18)
found the invariants block written by no test of the core."""

from __future__ import annotations

from pathlib import Path

import pytest

from contend.protocol import prompts
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
