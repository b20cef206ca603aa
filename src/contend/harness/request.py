"""What a slice of `contend run` is asked (`SliceRequest`) and what it gives back
(`SliceResult`), and reading its spec: the data slice.py runs on and cast.py casts from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contend.errors import UserError
from contend.harness import core
from contend.harness.config import HarnessConfig

AgentFactory = Callable[[str, str], Any]  # (spec, role) -> Agent; tests inject doubles


@dataclass
class SliceRequest:
    repo: Path
    spec_path: Path
    implementer: str
    critics: Sequence[str] = ()
    oracle: str | None = None
    gates: Sequence[str] = ()
    config: HarnessConfig = field(default_factory=HarnessConfig)
    slice_id: str | None = None
    events_path: Path | None = None
    agent_timeout_s: float | None = None
    agent_factory: AgentFactory | None = None
    # A batch re-runs a slice a crash cut off (it has no record yet) from the start.
    restart_unfinished: bool = False


@dataclass
class SliceResult:
    slice_id: str
    branch: str
    outcome: core.Outcome
    record: dict[str, Any]
    events_path: Path
    # Event subscribers that failed (each closed after its failure; the slice went on).
    event_errors: list[str] = field(default_factory=list)


def read_spec(path: Path) -> str:
    """The spec's text; a missing, unreadable or empty spec is one clear error."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"spec {path} does not exist") from None
    except IsADirectoryError:
        raise UserError(f"spec {path} is a directory, not a file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"spec {path} cannot be read: {exc}") from None
    if not text.strip():
        raise UserError(f"spec {path} is empty: write the task first")
    return text
