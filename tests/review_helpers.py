"""Shared builders for end-to-end review tests: real git repositories in tmp_path."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from contend.config import load_settings
from contend.review.engine import ReviewRequest, ReviewResult, review

APP_BASE = """\
def parse_amount(raw):
    if not isinstance(raw, str):
        raise TypeError("amount must be text")
    return int(raw)


def total(items):
    return sum(parse_amount(i) for i in items)
"""

APP_CHANGED = APP_BASE.replace(
    "def total(items):\n    return sum(parse_amount(i) for i in items)\n",
    "def total(items):\n    return sum(parse_amount(i) for i in items)\n\n\n"
    "def average(items):\n    return total(items) / len(items)\n",
)


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def make_repo(
    root: Path,
    *,
    base: dict[str, str] | None = None,
    change: dict[str, str | None] | None = None,
    commit_change: bool = True,
) -> Path:
    """main: one commit of `base`; branch feature: `change` (committed unless told not)."""
    repo = root / "repo"
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    for name, text in ({"app.py": APP_BASE} if base is None else base).items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    for name, text in ({"app.py": APP_CHANGED} if change is None else change).items():
        path = repo / name
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if commit_change:
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "Add average()\n\nTask: add an average of the amounts.")
    return repo


def write_script(path: Path, **script: Any) -> str:
    path.write_text(json.dumps(script))
    return f"scripted:{path}"


def objection(
    path: str = "app.py",
    line: int = 11,
    severity: str = "major",
    claim: str = "average() divides by zero on an empty list",
    evidence: str = "return total(items) / len(items)",
) -> dict[str, Any]:
    return {
        "severity": severity,
        "path": path,
        "start_line": line,
        "end_line": line,
        "claim": claim,
        "evidence": evidence,
        "expected": "raise ValueError on empty input",
    }


def critic_turn(
    topic: str = "edge cases",
    objections: list[dict[str, Any]] | None = None,
    judgements: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    objs = objections or []
    return {
        "output": {
            "topic": topic,
            "no_defect_found": not objs,
            "objections": objs,
            "judgements": judgements or [],
        }
    }


def judge(attack_id: str, action: str, reason: str = "because") -> dict[str, Any]:
    return {"objection_id": attack_id, "action": action, "reason": reason}


def answer(attack_id: str, action: str, text: str = "answer", evidence: str = "") -> dict[str, Any]:
    return {"objection_id": attack_id, "action": action, "text": text, "evidence": evidence}


def run(
    repo: Path, *, new: bool = False, resume: bool = False, out: Path | None = None, **flags: Any
) -> ReviewResult:
    settings = load_settings(repo, flags=flags)
    return review(ReviewRequest(path=repo, new=new, resume=resume, out=out), settings)


def report(result: ReviewResult) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.texts["json"])
    return data
