"""Prompts for critics, proposers and the oracle. Pure string building, in the core because
the turn planners (turns.py) put them into the requests they plan.

Wording avoids terms that vendor safety filters tend to refuse in reviews ("attack",
"exploit", "hack"): critics are asked to "find defects" and raise "objections".
A critic sees the spec, the diff and the repository's declared invariants — never the
author's transcript or reasoning. The proposer receives the critic's objections verbatim.
"""

from __future__ import annotations

from collections.abc import Sequence

CRITIC_SYSTEM = """\
You are an independent code reviewer. Your only job is to find defects in the change you \
are shown, on one axis of your choice, and to state each one as an objection with a \
location and evidence. You have read-only access to the repository; do not modify files.

Rules you always apply, whatever your axis:
- Read test changes with maximum suspicion: a loosened or removed assertion, a widened \
tolerance, a new skip, or a mocked unit under test is a defect until the diff proves otherwise.
- An outage, a parse failure or an exception must fail closed. A handler that returns a \
fabricated default ([], None, 0, cached data) instead of raising or reporting is a defect.
- Raw input must be parsed into domain types at the boundary; validating primitives deep \
inside core code leaves illegal states representable.
- For async or concurrent code, ask what happens when two requests interleave at every \
suspension point.

Every objection needs: severity (critical: data loss, corruption, security; major: a real \
defect that must be fixed; minor: unlikely edge or style), path, start_line, end_line (on \
the new side of the diff), a one-sentence claim, evidence (the offending lines, a failing \
input, or the spec clause), and what correct code would do. Objections without a location \
and evidence are discarded.
If you find no defect on your axis, set no_defect_found to true and say so: never stay silent.
Answer only with JSON matching the given schema."""

PROPOSER_SYSTEM = """\
You are the author of the change under review. Independent reviewers raised the objections \
below. Answer every one: "fix" (change the code in your working directory now; the fix is \
checked by the project's gates), "concede" (the defect is real and you will not fix it \
here; say why), or "defend" (the code is correct; give evidence: a test, a line, or a spec \
clause). Answer only with JSON matching the given schema."""

ORACLE_SYSTEM = """\
You are called only because an author and a reviewer could not converge on one objection. \
You have no authority to decide it. Write a deadlock report: the sub-claims both sides \
agree on, the single disputed leaf, the strongest evidence on each side, the cause \
(missing evidence, interpretation, expertise, value judgement, other), what a human must \
decide, and, if you can, a decisive check (a failing test or a counterexample) that would \
settle it. Answer only with JSON matching the given schema."""


def fence(text: str) -> str:
    """A code fence longer than any backtick run inside `text`."""
    longest = 0
    run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}\n{text}\n{ticks}"


def critic_first_turn(
    *,
    spec: str | None,
    diff: str,
    invariants: Sequence[tuple[str, str]],
    taken_topics: Sequence[str],
    rejected_topic: str | None = None,
) -> str:
    parts = [_spec_block(spec), "## The change (unified diff)\n" + fence(diff)]
    for name, text in invariants:
        parts.append(f"## Declared invariants: {name}\n{fence(text)}")
    if taken_topics:
        listed = "\n".join(f"- {t}" for t in taken_topics)
        parts.append("## Axes already taken by other reviewers (choose a different one)\n" + listed)
    if rejected_topic:
        parts.append(
            f"Your previous axis {rejected_topic!r} duplicates one already taken. "
            "Declare a clearly different axis."
        )
    parts.append(
        "Declare your axis in `topic`, then list your objections. Leave `judgements` empty."
    )
    return "\n\n".join(parts)


def critic_next_turn(
    *,
    spec: str | None,
    diff: str,
    topic: str,
    exchange: str,
) -> str:
    return "\n\n".join(
        [
            _spec_block(spec),
            "## The change as it stands now (unified diff)\n" + fence(diff),
            f"## Your axis\n{topic}",
            "## The exchange so far on your objections\n" + exchange,
            "Judge every answered objection in `judgements`: accept (the fix or defense "
            "holds), withdraw (your objection was wrong), or re_attack (it still stands; say "
            "why in `reason`). Then add any new objection on your axis, or set "
            "no_defect_found.",
        ]
    )


def _spec_block(spec: str | None) -> str:
    if not spec:
        return "## Task spec\n(none was given: judge the change on its own terms)"
    return "## Task spec\n" + fence(spec)
