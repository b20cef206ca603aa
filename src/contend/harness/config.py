"""The harness configuration: topology, focus areas, round and gate caps (pure data).

Topologies (seed 001) are configurations of who reviews:
  A  the implementer reviews its own diff (same backend and model, as critic)
  B  a fresh read-only session of the implementer's model: spec + diff only
  C  a critic of another model family
  D  C plus an oracle that rewrites the plan after a deadlock or an exhausted cap
The static critics join every topology unless turned off.

Focus areas (seed 004): correctness and spec_compliance by default; security and
performance are added by config, for every change or only for changes touching paths that
match the configured globs. Seed 004's own config object is accepted as is:
`{"critics": {"focus_areas": [...], "max_attack_rounds": N}}`.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from contend.errors import UserError

Topology = Literal["A", "B", "C", "D"]
TOPOLOGIES: tuple[Topology, ...] = ("A", "B", "C", "D")
FocusArea = Literal["correctness", "security", "performance", "spec_compliance"]
FOCUS_AREAS: tuple[FocusArea, ...] = ("correctness", "security", "performance", "spec_compliance")
DEFAULT_FOCUS: tuple[FocusArea, ...] = ("correctness", "spec_compliance")
# Seed 001: the fix loop flattens after round 3 (seed 004's own default is 2; its config
# object sets it explicitly when a team wants that).
DEFAULT_MAX_ATTACK_ROUNDS = 3
DEFAULT_GATE_CAP = 3
DEFAULT_GATE_TIMEOUT_S = 600.0

ATTACK_PREAMBLE = (
    "Your ONLY job is to find failures. Do NOT suggest improvements. Do NOT be "
    "constructive. ATTACK. Report only defects you can locate and show evidence for; "
    "severity critical or major blocks the change, minor does not."
)
ATTACK_VECTORS: Mapping[FocusArea, str] = {
    "correctness": "Correctness: logic errors, off-by-one, unhandled edges, null "
    "dereferences, type mismatches.",
    "security": "Security: injection, auth bypass, data exposure, missing input validation.",
    "performance": "Performance: N+1 queries, unbounded loops, memory leaks, blocking async.",
    "spec_compliance": "Spec compliance: missing functionality, anti-criteria violations, "
    "scope creep beyond the spec.",
}


def attack_prompt(areas: Iterable[FocusArea]) -> str:
    """The focus-area attack prompt a model critic gets on top of its system prompt."""
    lines = [ATTACK_PREAMBLE, "Attack on these focus areas:"]
    lines += [f"- {ATTACK_VECTORS[a]}" for a in areas]
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class HarnessConfig:
    topology: Topology = "C"
    max_attack_rounds: int = DEFAULT_MAX_ATTACK_ROUNDS
    focus_areas: tuple[FocusArea, ...] = DEFAULT_FOCUS
    # Focus areas added only when the change touches a path matching one of the globs.
    risky: Mapping[str, tuple[FocusArea, ...]] = field(default_factory=dict)
    gate_cap: int = DEFAULT_GATE_CAP  # implementer retries with the gate output
    gate_timeout_s: float = DEFAULT_GATE_TIMEOUT_S
    static: bool = True

    def __post_init__(self) -> None:
        if self.topology not in TOPOLOGIES:
            raise UserError(f"unknown topology {self.topology!r}; topologies: A, B, C, D")
        if self.max_attack_rounds < 0:
            raise UserError(f"max_attack_rounds must be 0 or more, got {self.max_attack_rounds}")
        if self.gate_cap < 0:
            raise UserError(f"the gate cap must be 0 or more, got {self.gate_cap}")
        if not self.gate_timeout_s > 0:
            raise UserError(f"the gate timeout must be positive, got {self.gate_timeout_s:g}")

    def areas_for(self, changed_paths: Iterable[str]) -> tuple[FocusArea, ...]:
        """The focus areas of a change: the configured ones plus those of every risky glob
        one of its paths matches, in FOCUS_AREAS order."""
        chosen = set(self.focus_areas)
        paths = list(changed_paths)
        for glob, areas in self.risky.items():
            if any(fnmatch.fnmatch(p, glob) for p in paths):
                chosen.update(areas)
        return tuple(a for a in FOCUS_AREAS if a in chosen)


def _areas(value: Any, where: str) -> tuple[FocusArea, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UserError(f"{where} must be a list of focus areas ({', '.join(FOCUS_AREAS)})")
    unknown = [v for v in value if v not in FOCUS_AREAS]
    if unknown:
        raise UserError(
            f"{where}: unknown focus area {unknown[0]!r}; focus areas: {', '.join(FOCUS_AREAS)}"
        )
    return tuple(a for a in FOCUS_AREAS if a in value)


def parse_harness_config(data: Any, *, source: str) -> dict[str, Any]:
    """The HarnessConfig fields a config object sets. Seed 004's shape is the whole format:
    `{"critics": {"focus_areas": [...], "max_attack_rounds": N, "risky_paths": {GLOB: [...]}}}`
    (`risky_paths` is contend's one addition). Unknown keys are refused, naming the key."""
    if not isinstance(data, dict) or set(data) - {"critics"}:
        extra = sorted(set(data) - {"critics"}) if isinstance(data, dict) else []
        what = f"unknown key {extra[0]!r}" if extra else "expected an object"
        raise UserError(f'{source}: {what}; the harness config is {{"critics": {{...}}}}')
    critics = data.get("critics", {})
    if not isinstance(critics, dict):
        raise UserError(f"{source}: 'critics' must be an object")
    known = {"focus_areas", "max_attack_rounds", "risky_paths"}
    for key in critics:
        if key not in known:
            raise UserError(
                f"{source}: unknown key critics.{key}; keys: {', '.join(sorted(known))}"
            )
    fields: dict[str, Any] = {}
    if "focus_areas" in critics:
        fields["focus_areas"] = _areas(critics["focus_areas"], f"{source}: critics.focus_areas")
    if "max_attack_rounds" in critics:
        rounds = critics["max_attack_rounds"]
        if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 0:
            raise UserError(f"{source}: critics.max_attack_rounds must be an integer >= 0")
        fields["max_attack_rounds"] = rounds
    if "risky_paths" in critics:
        risky = critics["risky_paths"]
        if not isinstance(risky, dict):
            raise UserError(f"{source}: critics.risky_paths must map globs to focus areas")
        fields["risky"] = {
            str(glob): _areas(areas, f"{source}: critics.risky_paths[{glob!r}]")
            for glob, areas in risky.items()
        }
    return fields


def load_harness_config(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"harness config {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"harness config {path} cannot be read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"harness config {path} is not valid JSON: {exc}") from None
    return parse_harness_config(data, source=str(path))
