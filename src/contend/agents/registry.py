"""Build the agent a spec such as "claude:opus" or "scripted:critic.json" names, and check
that it can play its role.

    resolve(spec, BackendContext) -> Agent

The name is looked up in the one backend registry (contend.backends: contend's own
backends and installed packages' entry points alike) and the declared factory is called
with the spec's argument and the context. The agent's `Capabilities` are then held against
what its role needs (`NEEDS`): what it cannot do without breaking the protocol is refused
(UserError), what contend can make up for is adapted, and `adaptations` says how, in
words the run shows. Nothing here imports a backend module by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from contend.agents.base import Agent, BackendContext, Capabilities, Role
from contend.backends import parse_spec
from contend.errors import UserError


@dataclass(frozen=True, slots=True)
class Need:
    """One thing a role needs of an agent: `lacks` tells when it is missing; then the agent
    is refused, or kept with `says` shown (formatted with spec and role)."""

    roles: frozenset[Role]
    lacks: Callable[[Capabilities], bool]
    refuse: bool
    says: str


_READERS: frozenset[Role] = frozenset({"critic", "oracle"})
NEEDS: tuple[Need, ...] = (
    Need(
        _READERS,
        lambda caps: caps.can_fix and not caps.read_only_enforced,
        refuse=True,
        says="{spec} cannot be the {role}: it can edit files and does not enforce read-only "
        "access, and a {role} only reads the change",
    ),
    Need(
        _READERS,
        lambda caps: not caps.structured_output,
        refuse=False,
        says="{spec} cannot enforce the reply's JSON Schema: the schema goes into its prompt "
        "and contend validates the reply itself (one that does not fit is unusable output)",
    ),
    Need(
        frozenset({"proposer"}),
        lambda caps: not caps.can_fix,
        refuse=False,
        says="proposer {spec} cannot edit files: it can concede or defend; a fix it claims "
        "changes nothing and is recorded as a protocol violation",
    ),
)


def resolve(spec: str, ctx: BackendContext) -> Agent:
    """The agent `spec` names, built for `ctx.role`; UserError when the spec is invalid for
    the role, the backend cannot be built, or it cannot play the role."""
    try:
        parsed, backend = parse_spec(spec, ctx.role)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    if backend.kind != "agent":
        raise UserError(f"{spec!r} names no agent to build (backend kind {backend.kind!r})")
    agent: Agent = backend.load_factory()(parsed.arg, ctx)
    refuse_unfit(agent, spec, ctx.role)
    return agent


def refuse_unfit(agent: Agent, spec: str, role: Role) -> None:
    """UserError when `agent` lacks what `role` cannot do without."""
    for need in NEEDS:
        if need.refuse and role in need.roles and need.lacks(agent.capabilities):
            raise UserError(need.says.format(spec=spec, role=role))


def adaptations(agent: Agent, spec: str, role: Role) -> list[str]:
    """What contend does in place of what `agent` cannot do as `role`, one note each."""
    return [
        need.says.format(spec=spec, role=role)
        for need in NEEDS
        if not need.refuse and role in need.roles and need.lacks(agent.capabilities)
    ]
