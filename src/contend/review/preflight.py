"""Everything a review can check before it writes anything: the spec, every agent, the
`--out` directory and whether git's directory takes the snapshot's writes.

A broken invocation fails here — one line, exit 2 — before the state directory is created,
before the review lock is taken and before any `run_started`; with `--new` it therefore
never replaces the active run.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from contend.backends import Role, parse_spec
from contend.config import Settings
from contend.errors import UserError
from contend.gitio.git import git_path
from contend.review.outputs import check_out_dir
from contend.review.spec import Spec, load_spec
from contend.review.target import Target
from contend.topics import Topic, topics_named

AgentFactory = Callable[[str, str], Any]  # (spec, role) -> Agent


@dataclass(frozen=True)
class ThreadAgents:
    """The agents of one agent-critic thread."""

    spec: str
    critic: Any
    proposer: Any | None


@dataclass(frozen=True)
class Plan:
    spec: Spec
    static_topics: frozenset[Topic]
    threads: list[ThreadAgents] = field(default_factory=list)
    oracle: Any | None = None
    # What contend does in place of what an agent cannot do in its role, one line each.
    notes: tuple[str, ...] = ()

    @property
    def needs_tree(self) -> bool:
        return bool(self.threads)


def preflight(
    settings: Settings,
    target: Target,
    *,
    spec_arg: str | None,
    transcript: Path | None,
    stdin: TextIO | None,
    out: Path | None,
    force: bool,
    agent_factory: AgentFactory | None,
) -> Plan:
    """Check and prepare everything the review needs; raises UserError, writes nothing."""
    static_topics, agent_specs = split_critics(settings.critics)
    spec = load_spec(target, spec_arg=spec_arg, transcript=transcript, stdin=stdin)
    if out is not None:
        check_out_dir(out, force=force)
    notes: list[str] = []
    threads, oracle = _agents(settings, target.repo_root, agent_specs, agent_factory, notes)
    if threads or settings.gates:
        check_git_writable(target.repo_root)
    return Plan(
        spec=spec, static_topics=static_topics, threads=threads, oracle=oracle, notes=tuple(notes)
    )


def split_critics(specs: Sequence[str]) -> tuple[frozenset[Topic], list[str]]:
    """The static topics selected and the agent critic specs, in order, as the backend
    registry reads them."""
    topics: set[Topic] = set()
    agents: list[str] = []
    for text in specs:
        try:
            spec, backend = parse_spec(text, "critic")
        except ValueError as exc:
            raise UserError(str(exc)) from exc
        if backend.kind == "static":
            topics |= topics_named(spec.arg) if spec.arg is not None else set(Topic)
        else:
            agents.append(text)
    return frozenset(topics), agents


def _agents(
    settings: Settings,
    repo_root: Path,
    specs: list[str],
    factory: AgentFactory | None,
    notes: list[str],
) -> tuple[list[ThreadAgents], Any | None]:
    if not specs:
        return [], None
    from contend.agents import registry
    from contend.agents.base import BackendContext

    def make(agent_spec: str, role: Role) -> Any:
        if factory is not None:
            agent = factory(agent_spec, role)
        else:
            agent = registry.resolve(agent_spec, BackendContext(repo_root, settings, role))
        # Test doubles too: every agent is held against what its role needs.
        registry.refuse_unfit(agent, agent_spec, role)
        notes.extend(registry.adaptations(agent, agent_spec, role))
        return agent

    proposer_spec = settings.proposer
    answers_later = parse_spec(proposer_spec, "proposer")[1].kind == "author"
    threads: list[ThreadAgents] = []
    for agent_spec in specs:
        critic = make(agent_spec, "critic")
        proposer = None if answers_later else make(proposer_spec, "proposer")
        if (
            proposer is not None
            and proposer.family == critic.family
            and proposer.model == critic.model
        ):
            raise UserError(
                f"critic {agent_spec!r} is the proposer's own model ({critic.model}, "
                f"family {critic.family}): it would share every blind spot; use another "
                "model, or better another family"
            )
        threads.append(ThreadAgents(agent_spec, critic, proposer))
    oracle = make(settings.oracle, "oracle") if settings.oracle else None
    return threads, oracle


def check_git_writable(repo_root: Path) -> None:
    """The snapshot and the worktrees write into git's directory (a temporary index, objects,
    worktree records); a read-only one is refused now, not halfway through a run."""
    for name in ("index", "objects"):
        where = git_path(repo_root, name)
        folder = where if name == "objects" else where.parent
        try:
            handle, probe = tempfile.mkstemp(prefix=".contend-probe-", dir=folder)
            os.close(handle)
            os.unlink(probe)
        except OSError as exc:
            raise UserError(
                f"cannot write to git's directory {folder} ({exc.strerror or exc}): gates and "
                "agent critics review a snapshot that git stores there; make it writable, or "
                "review with the static critics and no gate"
            ) from exc
