"""Shared setup of the review benchmarks: a temp repository and scripted agents."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def make_repo(root: Path, files: dict[str, tuple[str, str]], spec: str) -> Path:
    """files: path → (base text, changed text). The change is one commit on `feature`."""
    repo = root / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "bench")
    git(repo, "config", "user.email", "bench@contend.invalid")
    for name, (base, _) in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(base)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    for name, (_, changed) in files.items():
        (repo / name).write_text(changed)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", spec)
    return repo


def debate_scripts(
    root: Path, index: int, latency_s: float, *, claim_pad: str = ""
) -> tuple[str, str]:
    """A critic that raises one objection and presses it twice; a proposer that defends."""
    objection = {
        "severity": "major",
        "path": "app.py",
        "start_line": 2,
        "end_line": 2,
        "claim": f"objection {index}: divides by zero on empty input{claim_pad}",
        "evidence": "return total(items) / len(items)",
        "expected": "raise ValueError",
    }

    def turn(objs: list[Any], judgements: list[Any]) -> dict[str, Any]:
        return {
            "output": {
                "topic": f"axis number {index} {'xyzw'[index % 4] * 3}",
                "no_defect_found": not objs,
                "objections": objs,
                "judgements": judgements,
            }
        }

    press = {
        "objection_id": f"C{index}-1",
        "action": "re_attack",
        "reason": "the defense names no test that covers the empty list",
    }
    critic = {
        "family": f"family-{index}",
        "model": "scripted",
        "latency_s": latency_s,
        "critic": [turn([objection], []), turn([], [press]), turn([], [press])],
    }
    defend = {
        "output": {
            "answers": [
                {
                    "objection_id": "{thread}-1",
                    "action": "defend",
                    "text": "callers filter empty lists upstream",
                    "evidence": "see caller in api.py",
                }
            ]
        }
    }
    proposer = {
        "family": "family-author",
        "model": "scripted",
        "latency_s": latency_s,
        "proposer": [defend, defend],
    }
    c = root / f"critic{index}.json"
    p = root / f"proposer{index}.json"
    c.write_text(json.dumps(critic))
    p.write_text(json.dumps(proposer))
    return f"scripted:{c}", f"scripted:{p}"
