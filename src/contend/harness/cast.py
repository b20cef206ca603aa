"""The agents of a slice, as its topology makes them (docs/harness.md): the implementer,
the model critics with their focus areas, the oracle — built through the one backend
registry (or the request's test double) and held against the topology's rule before
anything is written; and `Focused`, a model critic as the review engine sees it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from contend.agents.base import Agent, AgentReply, AgentRequest, BackendContext, Role
from contend.backends import parse_spec
from contend.config import Settings
from contend.errors import UserError
from contend.harness.api_implementers import API_IMPLEMENTERS, api_implementer
from contend.harness.config import FocusArea
from contend.harness.implementers import CLI_IMPLEMENTERS, cli_implementer, self_reviewer
from contend.harness.request import SliceRequest


@dataclass(frozen=True)
class Cast:
    """The agents of a slice, as the topology makes them."""

    implementer: Agent
    critics: dict[str, Agent]  # model critic spec → agent
    areas: dict[str, tuple[FocusArea, ...]]  # model critic spec → its focus areas
    oracle: Agent | None
    critic_specs: list[str]  # what the review's settings name, static first
    notes: list[str]


def cast_for(req: SliceRequest, root: Path, settings: Settings, areas: Sequence[FocusArea]) -> Cast:
    """Build every agent and hold it against the topology; UserError (exit 2) when the
    topology's rule is broken, before anything is written."""
    topology = req.config.topology

    def make(spec: str, role: Role) -> Agent:
        if req.agent_factory is not None:
            agent: Agent = req.agent_factory(spec, role)
            return agent
        from contend.agents import registry

        name, _, arg = spec.partition(":")
        ctx = BackendContext(root, settings, role)
        if role == "proposer" and name in API_IMPLEMENTERS:
            return api_implementer(spec, ctx)
        if role == "proposer" and name in CLI_IMPLEMENTERS:
            return cli_implementer(name, arg or None, ctx, keep_session=topology == "A")
        if role == "critic" and topology == "A" and name == "claude":
            return self_reviewer(arg or None, ctx)
        try:
            parse_spec(spec, role)
        except ValueError as exc:
            raise UserError(str(exc)) from exc
        return registry.resolve(spec, ctx)

    implementer = make(req.implementer, "proposer")
    if not implementer.capabilities.can_fix:
        raise UserError(
            f"implementer {req.implementer!r} cannot edit files: an implementer needs write "
            "access (confined to the slice's worktree)"
        )
    model_specs: list[str] = []
    static: list[str] = []
    for spec in req.critics:
        (static if spec.split(":", 1)[0] == "static" else model_specs).append(spec)
    notes: list[str] = []
    if topology == "A":
        if model_specs:
            raise UserError(
                "topology A is the implementer reviewing its own diff: give no --critic "
                "besides static ones"
            )
        model_specs = [req.implementer]
        if req.agent_factory is None and req.implementer.split(":", 1)[0] == "codex":
            notes.append(
                "codex keeps no session: topology A's self-review is a fresh read-only "
                "session of the same model (in effect topology B)"
            )
    elif topology == "B" and not model_specs:
        model_specs = [req.implementer]
    elif topology in ("C", "D") and not model_specs:
        raise UserError(f"topology {topology} needs a model critic of another family: --critic")
    critics = {spec: make(spec, "critic") for spec in dict.fromkeys(model_specs)}
    for spec, critic in critics.items():
        same = critic.family == implementer.family
        if topology == "B" and not same:
            raise UserError(
                f"topology B is a fresh session of the implementer's model; critic {spec!r} "
                f"is of family {critic.family}, the implementer of {implementer.family}"
            )
        if topology in ("C", "D") and same:
            raise UserError(
                f"topology {topology} needs a critic of another model family; {spec!r} is of "
                f"the implementer's family {implementer.family}"
            )
    oracle = None
    if topology == "D":
        if req.oracle is None:
            raise UserError("topology D needs an oracle: --oracle AGENT")
        oracle = make(req.oracle, "oracle")
    elif req.oracle is not None:
        notes.append(f"--oracle {req.oracle} is only called in topology D; not used here")
    if req.config.static and not static:
        static = ["static"]
    specs = list(critics)
    return Cast(
        implementer=implementer,
        critics=critics,
        areas=spread(specs, areas),
        oracle=oracle,
        critic_specs=[*static, *specs],
        notes=notes,
    )


def spread(specs: Sequence[str], areas: Sequence[FocusArea]) -> dict[str, tuple[FocusArea, ...]]:
    """Each model critic's focus areas: every area has a critic, each critic an area."""
    if not specs or not areas:
        return {s: tuple(areas) for s in specs}
    n = len(specs)
    if n <= len(areas):
        return {s: tuple(areas[i::n]) for i, s in enumerate(specs)}
    return {s: (areas[i % len(areas)],) for i, s in enumerate(specs)}


class Focused:
    """A model critic as the review engine sees it: its focus areas' attack prompt added to
    the system prompt, the harness's review number as its round (each review is a fresh
    engine run), and in topology A the implementer's own session."""

    def __init__(
        self,
        inner: Agent,
        prompt: str,
        review_no: Callable[[], int],
        session: Callable[[], str | None],
    ) -> None:
        self.inner = inner
        self.backend = inner.backend
        self.model = inner.model
        self.family = inner.family
        self.capabilities = inner.capabilities
        self._prompt = prompt
        self._review_no = review_no
        self._session = session

    async def run(self, request: AgentRequest) -> AgentReply:
        request = dataclasses.replace(
            request,
            system=f"{request.system}\n\n{self._prompt}",
            round=self._review_no() + request.round - 1,
            session=self._session() or request.session,
        )
        return await self.inner.run(request)
