"""What runs when a coding session stops (`python -m contend.integrations.stop_hook`, also
`contend hook run`): review the session's change, tell the person one line, and leave the
session alone.

The agent (Claude Code or Codex) passes the hook input as JSON on stdin: `session_id`,
`transcript_path`, `cwd`, `stop_hook_active`. The root session must stay byte-identical, so
by default the hook writes nothing on stdout (no decision, no added context) and exits 0;
the one line (verdict, unresolved disputes, report.md) goes to stderr, which the agent shows
the person and never gives the model. `--feedback` is the documented opt-in that changes
the session: a `fail` or `escalate` is handed back as a `block` decision with the disputes,
so the agent keeps working on them.

Guards, in order, each ending the hook with one line and exit 0:
- CONTEND_HOOK_ACTIVE in the environment, or a session in one of contend's own worktrees
  (`<state_dir>/worktrees/<run>/...`): this session was started by contend itself (a
  critic, a proposer fork) — contend never reviews its own change;
- `stop_hook_active`: the agent is already continuing because of a stop hook;
- not a git repository, no change, or a trivial one (fewer than `--trivial-lines` changed
  lines, default 10): decided by `quickdiff` with git alone, before the engine is imported;
- the same session already had this exact change reviewed (fingerprint kept under the git
  directory, `contend-hooks/`): at most one review per stop, none for a stop that changed
  nothing since.
Anything else that goes wrong is one `contend: error:` line and exit 1, which both agents
treat as a non-blocking hook error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

ACTIVE_ENV = "CONTEND_HOOK_ACTIVE"
DEFAULT_TRIVIAL_LINES = 10
_SESSION = re.compile(r"[A-Za-z0-9._-]{1,200}")


class HookError(Exception):
    """One line for the person; the hook exits 1 (a non-blocking hook error)."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="contend hook run", add_help=True)
    parser.add_argument("--agent", choices=("claude", "codex"), required=True)
    parser.add_argument("--feedback", action="store_true")
    parser.add_argument("--trivial-lines", type=int, default=DEFAULT_TRIVIAL_LINES)
    return parser


def read_input(stdin: TextIO) -> dict[str, Any]:
    raw = stdin.read()
    try:
        payload = json.loads(raw) if raw.strip() else None
    except ValueError as exc:
        raise HookError(f"the hook input on stdin is not JSON ({exc}); nothing reviewed") from exc
    if not isinstance(payload, dict):
        raise HookError("the hook input on stdin is not a JSON object; nothing reviewed")
    return payload


def run_hook(
    agent: str,
    payload: dict[str, Any],
    *,
    feedback: bool = False,
    trivial_lines: int = DEFAULT_TRIVIAL_LINES,
    env: dict[str, str] | None = None,
) -> tuple[str, dict[str, Any] | None]:
    """(the line for the person, the decision to print on stdout — only with feedback)."""
    from contend.integrations.quickdiff import NotARepository, quick_diff

    environ = os.environ if env is None else env
    if environ.get(ACTIVE_ENV):
        return "contend: a session contend started itself; not reviewed", None
    if payload.get("stop_hook_active") is True:
        return "contend: the agent is continuing because of a stop hook; not reviewed again", None
    session = payload.get("session_id")
    if not isinstance(session, str) or not _SESSION.fullmatch(session):
        raise HookError(f"the hook input has no usable session_id ({session!r}); nothing reviewed")
    cwd = Path(str(payload.get("cwd") or os.getcwd()))
    try:
        change = quick_diff(cwd, trivial_lines)
    except NotARepository as exc:
        return f"contend: {cwd} is not in a git repository ({exc}); not reviewed", None
    if _contend_worktree(change.root):
        return f"contend: {change.root} is a worktree of a contend run; not reviewed", None
    if change.changed_lines == 0:
        return "contend: no change to review", None
    if change.changed_lines < trivial_lines:
        return (
            f"contend: trivial change ({change.changed_lines} changed lines < {trivial_lines}); "
            "not reviewed",
            None,
        )
    seen_file = change.git_dir / "contend-hooks" / f"{agent}-{session}.json"
    seen = _read_seen(seen_file)
    if seen.get("fingerprint") == change.fingerprint:
        return (
            f"contend: this change of session {session} was already reviewed "
            f"(run {seen.get('run_id')}); not reviewed again",
            None,
        )
    report, report_md = _review(agent, session, change.root)
    _write_seen(seen_file, {"fingerprint": change.fingerprint, "run_id": report.run_id})
    unresolved = len(report.disputes)
    line = (
        f"contend: {report.verdict} — {unresolved} unresolved dispute"
        f"{'' if unresolved == 1 else 's'} — {report_md}"
    )
    decision = None
    if feedback and report.verdict in ("fail", "escalate"):
        decision = {"decision": "block", "reason": _feedback_reason(report, report_md)}
    return line, decision


def _contend_worktree(root: Path) -> bool:
    """Is `root` one of the worktrees contend makes for its agents
    (`<state_dir>/worktrees/<run-id>/<name>`, next to `<state_dir>/runs/`)? A critic or
    proposer session stopping there must not start a review of its own."""
    return any(p.name == "worktrees" and (p.parent / "runs").is_dir() for p in root.parents)


def _review(agent: str, session: str, root: Path) -> tuple[Any, Path]:
    from contend.integrations.runner import ReviewArgs, run_review
    from contend.report.model import Report

    # Every agent contend starts for this review inherits this: their own stop hooks see
    # it and stand down (contend never reviews a change it made).
    os.environ[ACTIVE_ENV] = "1"
    args = ReviewArgs(
        path=root,
        proposer=f"{agent}-fork:{session}",
        new=True,  # every stop is its own review; an earlier run of this tree is not resumed
        command=f"contend hook run --agent {agent}",
    )
    result, _ = run_review(args)
    report = Report.model_validate_json(result.texts["json"])
    return report, result.run_dir / "report.md"


def _feedback_reason(report: Any, report_md: Path) -> str:
    lines = [f"contend review: {report.verdict}. Unresolved disputes (full report: {report_md}):"]
    for d in report.disputes[:20]:
        where = f"{d.location.path}:{d.location.start_line}" if d.location.path else "(no location)"
        lines.append(f"- [{d.severity}] {where} {d.topic}: {d.claim}")
    if len(report.disputes) > 20:
        lines.append(f"... and {len(report.disputes) - 20} more in the report")
    return "\n".join(lines)


def _read_seen(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HookError(
            f"cannot read the hook's record {path}: {exc}; delete it to continue"
        ) from exc
    return data if isinstance(data, dict) else {}


def _write_seen(path: Path, record: dict[str, Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(record), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise HookError(f"cannot write the hook's record {path}: {exc}") from exc


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        payload = read_input(stdin or sys.stdin)
        line, decision = run_hook(
            args.agent, payload, feedback=args.feedback, trivial_lines=args.trivial_lines
        )
    except HookError as exc:
        print(f"contend: error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:
        # A hook must end with one line, never a traceback inside the agent's UI; exit 1
        # is the agents' non-blocking hook error, so the session is not held.
        from contend.errors import ContendError

        kind = "error" if isinstance(exc, ContendError) else f"unexpected {type(exc).__name__}"
        print(f"contend: {kind}: {exc}", file=sys.stderr)
        return 1
    print(line, file=sys.stderr)
    if decision is not None:
        print(json.dumps(decision))
    return 0


if __name__ == "__main__":
    sys.exit(main())
