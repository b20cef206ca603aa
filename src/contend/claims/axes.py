"""Step 2 of seeds/002: which axes attack a claim, and one agent per axis — never two.

Level 1 has no agents (precheck only). Level 2 has the three base axes: internal-logic,
external-fact, internal-fact. Level 3 adds two of external-logic, edge-case, prior-art and
incentive, chosen by the claim's domain axes through a map the caller may replace; when
the domains name fewer than two, the rest come from a fixed order, and the reasons say so.

`seat_agents` turns an axis → agent mapping into the panel; a second agent on an axis is a
`ProtocolError` (seed gotcha: "Do not assign two agents to the same axis"), checked in code
so no prompt or configuration can get around it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, cast, get_args

from contend.errors import ProtocolError

Axis = Literal[
    "internal-logic",
    "external-fact",
    "internal-fact",
    "external-logic",
    "edge-case",
    "prior-art",
    "incentive",
]
AXES: tuple[Axis, ...] = get_args(Axis)
BASE_AXES: tuple[Axis, ...] = ("internal-logic", "external-fact", "internal-fact")
EXTRA_AXES: tuple[Axis, ...] = ("external-logic", "edge-case", "prior-art", "incentive")
LEVEL_3_EXTRA = 2

# Domain words (the card's domain-axes, lowercased) → the level-3 axis they call for.
DEFAULT_DOMAIN_MAP: Mapping[str, Axis] = {
    **dict.fromkeys(
        ("patent", "patents", "novelty", "prior-art", "paper", "papers", "research",
         "citation", "state-of-the-art"),
        "prior-art",
    ),
    **dict.fromkeys(
        ("investor", "investor-relations", "grant", "grants", "financial", "finance",
         "funding", "marketing", "sales", "incentive", "incentives"),
        "incentive",
    ),
    **dict.fromkeys(
        ("numeric", "numbers", "safety", "security", "reliability", "boundary", "edge-case",
         "performance", "benchmark", "experiment"),
        "edge-case",
    ),
    **dict.fromkeys(
        ("legal", "law", "regulation", "compliance", "composition", "compatibility",
         "integration", "standards", "external-logic", "fact-checking"),
        "external-logic",
    ),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class AxisAssignment:
    axes: tuple[Axis, ...]
    reasons: tuple[str, ...]


def assign_axes(
    level: int,
    domain_axes: Sequence[str] = (),
    *,
    domain_map: Mapping[str, Axis] = DEFAULT_DOMAIN_MAP,
    fill_order: Sequence[Axis] = EXTRA_AXES,
) -> AxisAssignment:
    """The axes of a claim at `level`, with why each level-3 extra was chosen."""
    if level == 1:
        return AxisAssignment((), ("level 1: precheck only, no agents",))
    if level == 2:
        return AxisAssignment(BASE_AXES, ("level 2: the three base axes",))
    if level != 3:
        raise ProtocolError(f"verification level {level} does not exist (1, 2 or 3)")
    chosen: list[Axis] = []
    reasons: list[str] = ["level 3: the three base axes plus two"]
    for domain in domain_axes:
        key = domain.strip().lower()
        axis = next((a for a in EXTRA_AXES if a == key), None) or domain_map.get(key)
        if axis is None:
            reasons.append(f"domain {domain!r} calls for no extra axis")
        elif axis not in chosen and len(chosen) < LEVEL_3_EXTRA:
            chosen.append(axis)
            reasons.append(f"{axis} for domain {domain!r}")
    for axis in fill_order:
        if len(chosen) >= LEVEL_3_EXTRA:
            break
        if axis not in chosen:
            chosen.append(axis)
            reasons.append(f"{axis} by the default order (the domains named fewer than two)")
    return AxisAssignment((*BASE_AXES, *chosen), tuple(reasons))


@dataclass(frozen=True, slots=True)
class AxisPolicy:
    """How level 3 picks its two extra axes: `domain_map` (a domain word → an axis) and
    `fill_order` (the rest). `contend verify` builds it from the `[verify]` settings."""

    domain_map: Mapping[str, Axis] = field(default_factory=lambda: DEFAULT_DOMAIN_MAP)
    fill_order: tuple[Axis, ...] = EXTRA_AXES

    def assign(self, level: int, domain_axes: Sequence[str] = ()) -> AxisAssignment:
        return assign_axes(
            level, domain_axes, domain_map=self.domain_map, fill_order=self.fill_order
        )


DEFAULT_POLICY = AxisPolicy()


def axis_policy(domain_axes: Mapping[str, str], fill_order: Sequence[str]) -> AxisPolicy:
    """The policy of configured words (over the built-in map, word by word, lowercased)
    and order; ProtocolError for a name that is not a level-3 extra axis."""
    for axis in (*domain_axes.values(), *fill_order):
        if axis not in EXTRA_AXES:
            raise ProtocolError(f"{axis!r} is not a level-3 axis ({', '.join(EXTRA_AXES)})")
    words: dict[str, Axis] = dict(DEFAULT_DOMAIN_MAP)
    words.update({w.strip().lower(): cast(Axis, a) for w, a in domain_axes.items()})
    return AxisPolicy(words, tuple(cast(Axis, a) for a in fill_order))


def agent_name(axis: Axis) -> str:
    """The seed's name for the agent of an axis: agent-C-internal-logic."""
    return f"agent-C-{axis}"


@dataclass(frozen=True, slots=True)
class Seat:
    axis: Axis
    agent: str  # the backend spec that speaks for this axis


def seat_agents(axes: Sequence[Axis], agents: Iterable[tuple[Axis, str]]) -> tuple[Seat, ...]:
    """One seat per assigned axis. Refused (ProtocolError): a second agent on an axis, an
    agent on an axis the claim was not assigned, an assigned axis left without an agent."""
    seats: dict[Axis, Seat] = {}
    for axis, agent in agents:
        if axis not in AXES:
            raise ProtocolError(f"unknown axis {axis!r} (one of {', '.join(AXES)})")
        if axis in seats:
            raise ProtocolError(
                f"two agents on axis {axis}: {seats[axis].agent} and {agent}; each axis has "
                "exactly one agent"
            )
        if axis not in axes:
            raise ProtocolError(f"axis {axis} is not assigned to this claim")
        seats[axis] = Seat(axis, agent)
    missing = [axis for axis in axes if axis not in seats]
    if missing:
        raise ProtocolError(f"no agent for axis {', '.join(missing)}")
    return tuple(seats[axis] for axis in axes)
