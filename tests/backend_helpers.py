"""Building agents in tests the way the engine does: a factory gets a BackendContext."""

from __future__ import annotations

from pathlib import Path

from contend.agents.base import BackendContext, Role
from contend.config import Settings

# A real repository for factories that never look at it (critics, API models).
THIS_REPO = Path(__file__).resolve().parents[1]


def context(
    settings: Settings | None = None, role: Role = "critic", repo: Path = THIS_REPO
) -> BackendContext:
    return BackendContext(repo, settings if settings is not None else Settings(), role)
