"""What the implementer and the oracle are told (pure text builders).

The implementer gets the spec, then — one brief per pass — the gate output, the critics'
findings verbatim (never softened), or the oracle's plan. Critics get nothing from here:
the review engine hands them the spec and the diff only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

IMPLEMENTER_SYSTEM = (
    "You implement a task spec in the git worktree you are working in. Change only files "
    "inside it. Make the repository's gates (tests, linters) pass honestly: never weaken a "
    "test, never turn a failure into a default value. When done, reply with a short summary."
)
# Strict, as structured-output modes want it (every property required, nothing extra).
IMPLEMENTER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["summary"],
    "properties": {"summary": {"type": "string"}},
}
ORACLE_SYSTEM = (
    "You are the architectural oracle of a coding harness. The implementer and the critics "
    "could not converge within the fix-round cap. Read the spec, the failed diffs and the "
    "unresolved objections, then write a revised structural plan for one more implementer "
    "pass. Do not write code; write the plan."
)
ORACLE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["plan"],
    "properties": {"plan": {"type": "string", "minLength": 1}},
}
GATE_TAIL = 8000


def spec_brief(spec: str) -> str:
    return f"# Task spec\n\n{spec}\n"


def gates_brief(spec: str, failed: Sequence[Mapping[str, Any]]) -> str:
    parts = [spec_brief(spec), "# The gates are red; make them pass\n"]
    for gate in failed:
        parts.append(
            f"## `{gate['cmd']}` (exit {gate['exit_code']})\n\n"
            f"```\n{str(gate['output'])[-GATE_TAIL:]}\n```\n"
        )
    return "\n".join(parts)


def finding_line(d: Mapping[str, Any]) -> str:
    loc = d.get("location") or {}
    where = f"{loc.get('path')}:{loc.get('start_line')}-{loc.get('end_line')}"
    return (
        f"[{d['id']}] {d['severity']} at {where} ({d.get('topic')}, by {d.get('critic')}): "
        f"{d.get('claim')}\n  evidence: {d.get('evidence')}"
    )


def findings_brief(spec: str, blocking: Sequence[Mapping[str, Any]]) -> str:
    lines = [
        spec_brief(spec),
        "# Review findings — fix each one (critical and major block the change)\n",
        *(finding_line(d) for d in blocking),
    ]
    return "\n".join(lines) + "\n"


def plan_brief(spec: str, plan: str) -> str:
    return f"{spec_brief(spec)}\n# Revised plan from the oracle — follow it\n\n{plan}\n"


def oracle_prompt(spec: str, diffs: Sequence[str], objections: Sequence[Mapping[str, Any]]) -> str:
    parts = [spec_brief(spec), "# Failed diffs, oldest first\n"]
    for number, diff in enumerate(diffs, start=1):
        parts.append(f"## Attempt {number}\n\n```diff\n{diff}\n```\n")
    parts.append("# Unresolved objections\n")
    parts += [finding_line(d) for d in objections]
    return "\n".join(parts) + "\n"
