"""Builders for harness tests: a real git repository, scripted agents, a spec."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from contend.harness.config import HarnessConfig
from contend.harness.slice import SliceRequest, SliceResult, run_slice
from review_helpers import APP_BASE, critic_turn, git, objection

FIXED = APP_BASE + (
    "\n\ndef average(items):\n"
    "    if not items:\n"
    "        raise ValueError('average of no amounts')\n"
    "    return total(items) / len(items)\n"
)
NAIVE = APP_BASE + "\n\ndef average(items):\n    return total(items) / len(items)\n"
SPEC = "Add average(items): the mean of the amounts; an empty list raises ValueError.\n"


def main_repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "app.py").write_text(APP_BASE)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def spec_file(root: Path, text: str = SPEC) -> Path:
    path = root / "SPEC.md"
    path.write_text(text)
    return path


def script(path: Path, **body: Any) -> str:
    path.write_text(json.dumps(body))
    return f"scripted:{path}"


def implement(*contents: str | None, family: str = "fam-a") -> dict[str, Any]:
    """An implementer script: one pass per content of app.py (None: a pass that changes
    nothing)."""
    turns = [
        {"output": {"summary": f"pass {n}"}, **({"edits": {"app.py": c}} if c is not None else {})}
        for n, c in enumerate(contents, start=1)
    ]
    return {"family": family, "model": f"{family}-model", "proposer": turns}


def attack(severity: str = "major", line: int = 11) -> dict[str, Any]:
    return critic_turn("edge cases", [objection(severity=severity, line=line)])


def clean() -> dict[str, Any]:
    return critic_turn("edge cases", [])


def critic(*turns: dict[str, Any], family: str = "fam-b") -> dict[str, Any]:
    return {"family": family, "model": f"{family}-model", "critic": list(turns)}


def run(
    tmp: Path,
    repo: Path,
    *,
    implementer: dict[str, Any],
    critics: list[dict[str, Any]] | None = None,
    oracle: dict[str, Any] | None = None,
    spec: Path | None = None,
    **kwargs: Any,
) -> SliceResult:
    config = kwargs.pop("config", None) or HarnessConfig(
        topology=kwargs.pop("topology", "C"), static=kwargs.pop("static", False)
    )
    critic_specs = [script(tmp / f"critic{i}.json", **c) for i, c in enumerate(critics or [])]
    return run_slice(
        SliceRequest(
            repo=repo,
            spec_path=spec or spec_file(tmp),
            implementer=script(tmp / "implementer.json", **implementer),
            critics=critic_specs + kwargs.pop("extra_critics", []),
            oracle=script(tmp / "oracle.json", **oracle) if oracle else None,
            config=config,
            **kwargs,
        )
    )
