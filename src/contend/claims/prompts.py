"""The words an axis agent, the proponent and the meta-judge are given: pure text from the
round context (claims/round_state.py). Every agent of a round gets the same context; only the
line naming its own axis differs.

The seed's external-tool requirement is injected into every axis agent's prompt, word for
word, so a claim about a library, CLI or version is never judged on official docs alone
without saying so.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from contend.claims.axes import agent_name

EXTERNAL_TOOL_REQUIREMENT = (
    "Identify Category B/C external-tool claims. For each, run at least three\n"
    "independent community-report searches: `<tool> github issue <year>`,\n"
    "`<tool> reddit`, and `<tool> not working <version>`. Cite accessible URLs and\n"
    "source-locators. Treat official-doc-only evidence as an unverified echo."
)

AXIS_FOCUS: Mapping[str, str] = {
    "internal-logic": "whether the conclusion follows from the claim's own evidence and "
    "assumptions: assumptions weaker than the conclusion, guarantees mixed with "
    "non-guarantees, abstraction levels merged to exaggerate a result",
    "external-fact": "whether the facts the claim takes from outside (sources, tools, "
    "versions, prior results) are as stated and still hold",
    "internal-fact": "whether every number, quote and name of the claim is what its cited "
    "evidence region says",
    "external-logic": "whether the claim fits what holds outside it: interfaces of composed "
    "parts, legal or standard constraints, conflicts with accepted results",
    "edge-case": "the boundary cases, conditions and inputs under which the claim fails",
    "prior-art": "novelty inflated with 'first' or 'only' wording; earlier work that "
    "already shows it",
    "incentive": "who gains if the claim is believed, and what that pressure may have overstated",
}

AXIS_SYSTEM = """You are {name}, one of several independent adversarial agents verifying a \
claim (adversarial verification, seeds/002). Your axis: {focus}.

Rules:
- Attack the claim from your axis, or set no_attack_point=true — silence is not allowed.
  "No attack point" means no semantically new attack remains, not unwillingness.
- You may attack other agents' positions or attacks (meta_attacks, target = their axis).
- Your open attacks stay open until you withdraw or concede them: do not restate them. A
  restated attack escalates the claim unless it carries a narrower claim (narrowing).
- A concession must read: "my evidence X was specifically defeated by opposing evidence Y"
  with X evidence your attack cited and Y evidence on record; any other concession is
  refused.
- position: reject if an attack of yours that should sink the claim stands, else accept.
- Evidence ids: E1, E2, … from the card, P<round>-<n> from the proponent.

{external_tool}

Answer with JSON matching the schema only."""

PROPONENT_SYSTEM = """You are the proponent of a claim under adversarial verification. \
Attacks stand against it. You may add evidence (with a complete source locator), say which \
open attacks (by id) it answers, narrow the claim to what the evidence supports, add \
required assumptions, or withdraw evidence. Answer with JSON matching the schema only."""

META_JUDGE_SYSTEM = """You are the meta-judge of a deadlocked adversarial verification. You \
have no decision authority: do not accept or reject the claim. Write the deadlock report: \
agreed sub-claims, and per unresolved sub-claim a one-sentence issue, the final supporting \
evidence and argument, the final opposing attack and its evidence, the cause \
(missing-evidence, evidence-interpretation, domain-expertise, value-judgment, other) and \
the information or judgment a person must give. Answer with JSON matching the schema only."""


def axis_system(axis: str) -> str:
    return AXIS_SYSTEM.format(
        name=agent_name(axis),  # type: ignore[arg-type]
        focus=AXIS_FOCUS.get(axis, axis),
        external_tool=EXTERNAL_TOOL_REQUIREMENT,
    )


def render_context(context: Mapping[str, Any]) -> str:
    """The round context as the prompt's body: the same bytes for every agent of a round."""
    return (
        "Round context (JSON; the same for every agent this round):\n"
        + json.dumps(context, indent=2, sort_keys=True, ensure_ascii=False)
        + "\n"
    )


def axis_prompt(axis: str, context: Mapping[str, Any]) -> str:
    return f"{render_context(context)}\nSpeak now as {agent_name(axis)}.\n"  # type: ignore[arg-type]
