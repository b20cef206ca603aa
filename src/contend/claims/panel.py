"""Who speaks in a claim's rounds: `--agent`, `--proposer` and `--meta-judge` turned into a
panel per card, through the one backend registry (contend.backends, agents.registry).

    --agent SPEC            the agent for every assigned axis not named otherwise
    --agent AXIS=SPEC       the agent for one axis (`internal-fact=internal-fact` is the
                            deterministic checker, the default on that axis)
    --proposer SPEC         the proponent between rounds (a proposer backend); none: the
                            evidence stays fixed; human: a person, across invocations
                            (claims/resume.py)
    --meta-judge SPEC       the meta-judge at deadlock (an oracle backend); none: contend's
                            mechanical report, and the verdict stays `escalate`
    --web-access            axis agents may search and read the web, where their backend's
                            capabilities allow it (claude, codex); others stay without

Two agents on one axis are refused here already (axes.seat_agents says why), before any
agent is built; specs are checked against the registry up front, so a typo fails before
any card runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from contend.agents.base import BackendContext, Role
from contend.agents.registry import resolve
from contend.backends import parse_spec
from contend.claims.axes import AXES, DEFAULT_POLICY, Axis, AxisPolicy, seat_agents
from contend.claims.findings import CitedRegion
from contend.claims.load import LoadedCard, LoadResult
from contend.claims.speakers import (
    INTERNAL_FACT,
    AgentSpeaker,
    InternalFactSpeaker,
    Panel,
    PanelFor,
    PersonProponent,
    Speaker,
)
from contend.config import Settings
from contend.errors import ProtocolError, UserError

PERSON = "human"  # the registry's backend for "a person answers later (`contend respond`)"


@dataclass(frozen=True, slots=True)
class AgentChoice:
    default: str | None
    by_axis: Mapping[Axis, str]
    proposer: str | None
    meta_judge: str | None
    web_access: bool = False  # axis agents get web access where their backend allows it

    @property
    def specs(self) -> list[str]:
        named = [f"{axis}={spec}" for axis, spec in self.by_axis.items()]
        return [*([self.default] if self.default else []), *named]


def parse_choice(
    agents: Sequence[str],
    proposer: str | None,
    meta_judge: str | None,
    *,
    web_access: bool = False,
) -> AgentChoice:
    """The command line's choice of agents; UserError for what cannot be seated."""
    default: str | None = None
    pairs: list[tuple[Axis, str]] = []
    for value in agents:
        axis_text, sep, spec = value.partition("=")
        if not sep:
            if default is not None:
                raise UserError(
                    f"--agent {value}: a default agent ({default}) is given already; name the "
                    "axis for the others (--agent AXIS=SPEC)"
                )
            default = _checked(value, "critic")
            continue
        if axis_text not in AXES:
            raise UserError(f"--agent {value}: unknown axis {axis_text!r} ({', '.join(AXES)})")
        axis: Axis = axis_text
        if spec == INTERNAL_FACT and axis != "internal-fact":
            raise UserError(f"--agent {value}: the deterministic checker speaks on internal-fact")
        pairs.append((axis, spec if spec == INTERNAL_FACT else _checked(spec, "critic")))
    try:
        # Refused in code, never by prompt: one agent per axis.
        seat_agents([a for a, _ in pairs], pairs)
    except ProtocolError as exc:
        raise UserError(f"--agent: {exc}") from exc
    none = (None, "none")
    return AgentChoice(
        default,
        dict(pairs),
        None
        if proposer in none
        else PERSON
        if proposer == PERSON
        else _checked(proposer or "", "proposer"),
        None if meta_judge in none else _checked(meta_judge or "", "oracle"),
        web_access,
    )


def _checked(spec: str, role: Role) -> str:
    try:
        _, backend = parse_spec(spec, role)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    if backend.kind != "agent":
        raise UserError(f"{spec!r} builds no agent (backend kind {backend.kind!r}) for the {role}")
    return spec


def check_coverage(
    choice: AgentChoice, loaded: LoadResult, axes: AxisPolicy = DEFAULT_POLICY
) -> None:
    """UserError naming the first card with an assigned axis no agent would speak for,
    before any agent is built or any round runs."""
    for card in loaded.cards:
        assigned = axes.assign(card.card.verification_complexity, card.card.domain_axes)
        for axis in assigned.axes:
            if axis in choice.by_axis or axis == "internal-fact" or choice.default:
                continue
            raise UserError(
                f"claim {card.card.claim_id}: no agent for axis {axis} (give --agent SPEC "
                f"for every axis, or --agent {axis}=SPEC)"
            )


def panel_factory(choice: AgentChoice, settings: Settings, *, timeout_s: float) -> PanelFor:
    def panel_for(
        loaded: LoadedCard,
        axes: tuple[Axis, ...],
        regions: Sequence[CitedRegion],
        unchecked: Sequence[str],
    ) -> Panel:
        card_dir = Path(loaded.source.file).resolve().parent

        def build(spec: str, role: Role) -> AgentSpeaker:
            return AgentSpeaker(spec, resolve(spec, BackendContext(card_dir, settings, role)))

        seats: dict[str, Speaker] = {}
        web: set[str] = set()
        for axis in axes:
            spec = choice.by_axis.get(axis)
            if spec is None:
                spec = INTERNAL_FACT if axis == "internal-fact" else choice.default
            if spec is None:
                raise UserError(
                    f"claim {loaded.card.claim_id}: no agent for axis {axis} (give --agent SPEC "
                    f"for every axis, or --agent {axis}=SPEC)"
                )
            if spec == INTERNAL_FACT:
                seats[axis] = InternalFactSpeaker(regions, unchecked)
                continue
            speaker = build(spec, "critic")
            seats[axis] = speaker
            # Web access only where the backend says it can give it without write access;
            # elsewhere the claim keeps its "unverified echo" marker.
            if choice.web_access and speaker.agent.capabilities.web_access:
                web.add(axis)
        proponent: Speaker | None = None
        if choice.proposer == PERSON:
            proponent = PersonProponent()
        elif choice.proposer:
            proponent = build(choice.proposer, "proposer")
        return Panel(
            seats,
            proponent=proponent,
            meta_judge=build(choice.meta_judge, "oracle") if choice.meta_judge else None,
            worktree=card_dir,
            timeout_s=timeout_s,
            web_access=frozenset(web),
            web_asked=choice.web_access,
        )

    return panel_for
