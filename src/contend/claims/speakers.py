"""Who speaks for a claim's axes, its proponent and its meta-judge, as the driver
(claims/driver.py) calls them: an agent of the registry (`AgentSpeaker`), contend's
deterministic internal-fact checker (`InternalFactSpeaker`), or a person who answers between
invocations (`PersonProponent`); and the `Panel` that seats them for one card
(claims/panel.py builds it from the command line).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from contend.agents.base import Agent, AgentRequest
from contend.agents.scripted import ScriptedAgent
from contend.claims.axes import Axis
from contend.claims.findings import CitedRegion
from contend.claims.internal_fact import check_claim
from contend.claims.load import LoadedCard
from contend.claims.round_state import INTERNAL_FACT as INTERNAL_FACT  # panel.py's name
from contend.claims.round_state import AgentOutput
from contend.errors import AgentError


class Speaker(Protocol):
    """Who speaks for an axis: an agent of the registry, or the deterministic checker."""

    name: str

    async def speak(self, request: AgentRequest, context: Mapping[str, Any]) -> AgentOutput: ...


@dataclass(slots=True)
class AgentSpeaker:
    name: str  # the spec, e.g. "claude" or "scripted:il.json"
    agent: Agent

    async def speak(self, request: AgentRequest, context: Mapping[str, Any]) -> AgentOutput:
        del context  # rendered into request.prompt already
        exhausted = script_exhausted(self.agent, request)
        if exhausted is not None:
            # A critic with no turn left is silent (a protocol error naming the script); a
            # proponent or meta-judge gives no reply, with the same reason.
            return AgentOutput(self.name, None, exhausted, silent=request.role == "critic")
        try:
            reply = await self.agent.run(request)
        except AgentError as exc:
            return AgentOutput(self.name, None, f"backend failed: {exc}")
        if reply.error is not None or reply.output is None:
            return AgentOutput(
                self.name, None, reply.error or "no structured output", reply.raw_text
            )
        return AgentOutput(self.name, reply.output, None, reply.raw_text)


def script_exhausted(agent: Agent, request: AgentRequest) -> str | None:
    """Why a scripted agent has no turn for this request, or None. The scripted backend
    answers a round past the end of its list with code review's quiet turn, which no claims
    schema accepts: in a claim's rounds that is the script's end, said as such."""
    if not isinstance(agent, ScriptedAgent):
        return None
    turns = agent.script.get(request.role, [])
    if not isinstance(turns, list) or request.round <= len(turns):
        return None
    return (
        f"scripted:{agent.source} has no {request.role} turn for round {request.round} (its "
        f"script holds {len(turns)}): a scripted claims agent needs a turn for every round "
        "it speaks in"
    )


@dataclass(slots=True)
class InternalFactSpeaker:
    """The deterministic internal-fact checker as an axis agent (no model)."""

    regions: Sequence[CitedRegion]
    unchecked: Sequence[str]
    name: str = INTERNAL_FACT

    async def speak(self, request: AgentRequest, context: Mapping[str, Any]) -> AgentOutput:
        del request  # it reads the context, not a prompt
        return AgentOutput(self.name, self.turn(context))

    def turn(self, context: Mapping[str, Any]) -> dict[str, Any]:
        fact = check_claim(str(context["surviving_claim"]), self.regions, self.unchecked)
        own_open = {
            a["text"]: a["id"] for a in context["open_attacks"] if a["axis"] == "internal-fact"
        }
        current = {a.message: a for a in fact.attacks}
        attacks = [
            {
                "text": message,
                "decisive": a.verdict == "reject",
                "evidence": [a.finding.evidence_id]
                if a.finding is not None and a.finding.evidence_id
                else [],
                "narrowing": "",
            }
            for message, a in current.items()
            if message not in own_open
        ]
        return {
            "no_attack_point": not attacks,
            "position": "reject" if any(a.verdict == "reject" for a in fact.attacks) else "accept",
            "attacks": attacks,
            "meta_attacks": [],
            "withdrawn": [i for text, i in own_open.items() if text not in current],
            "concessions": [],
            "external_tools": [],
            "community_sources": [],
        }


@dataclass(slots=True)
class Panel:
    seats: Mapping[str, Speaker]  # axis → who speaks for it
    proponent: Speaker | None = None
    meta_judge: Speaker | None = None
    worktree: Path = Path(".")
    timeout_s: float = 600.0
    web_access: frozenset[str] = frozenset()  # axes whose agent is given web access
    web_asked: bool = False  # `--web-access`: given where the backend allows it
    cap: int | None = None


PanelFor = Callable[[LoadedCard, tuple[Axis, ...], Sequence[CitedRegion], Sequence[str]], Panel]


@dataclass(slots=True)
class PersonProponent:
    """The proponent is a person (`--proposer human`): when the planner asks for the
    proponent, the claim's rounds pause; the person answers with `contend respond CLAIM
    --run DIR --reply FILE` and `contend verify --resume DIR` continues them."""

    name: str = "human"

    async def speak(self, request: AgentRequest, context: Mapping[str, Any]) -> AgentOutput:
        raise AssertionError("a person answers between invocations, never inside a call")
