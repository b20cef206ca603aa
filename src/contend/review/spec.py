"""Where the review's spec comes from, first found wins: `--spec FILE` or `-` (stdin); an
explicit `--transcript`; the commit messages of the reviewed range; the newest Claude Code
session of this repository; else no spec (and the report says so).

A Claude Code transcript is JSONL; its spec is the first user turn written by a person: plain
text, not a tool result, not a meta record, not a slash-command or caveat wrapper.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TextIO

from contend.errors import UserError
from contend.gitio.git import git_text
from contend.review.target import Target

SpecSource = Literal["file", "stdin", "commits", "transcript"]
# Text blocks Claude Code itself puts in user records around or beside a person's words.
_WRAPPERS = ("<command-", "<local-command", "Caveat:", "<system-reminder>", "<ide_")


@dataclass(frozen=True, slots=True)
class Spec:
    source: SpecSource | None
    text: str | None
    path: str | None
    notes: tuple[str, ...] = ()


def load_spec(
    target: Target,
    *,
    spec_arg: str | None,
    transcript: Path | None,
    stdin: TextIO | None,
    claude_home: Path | None = None,
) -> Spec:
    """The spec for `target`, with where it came from (`source` None: no spec found)."""
    if spec_arg is not None and transcript is not None:
        raise UserError("give the spec once: --spec or --transcript, not both")
    if spec_arg == "-":
        return _from_stdin(stdin)
    if spec_arg is not None:
        return _from_file(Path(spec_arg))
    if transcript is not None:
        # Named on the command line, it outranks the commit messages: the user chose it.
        text = first_user_turn(transcript)
        if text is None:
            raise UserError(f"transcript {transcript} has no user turn with plain text")
        return Spec("transcript", text, str(transcript))
    commits = _from_commits(target)
    if commits is not None:
        return commits
    return _from_sessions(target.repo_root, claude_home)


def _from_stdin(stdin: TextIO | None) -> Spec:
    if stdin is None:
        raise UserError("--spec - reads the spec from standard input, but there is none")
    text = stdin.read()
    if not text.strip():
        raise UserError("--spec -: standard input was empty")
    return Spec("stdin", text, None)


def _from_file(path: Path) -> Spec:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise UserError(f"spec file not found: {path}") from exc
    except UnicodeDecodeError as exc:
        raise UserError(f"spec file {path} is not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise UserError(f"cannot read spec file {path}: {exc.strerror}") from exc
    if not text.strip():
        raise UserError(f"spec file {path} is empty")
    return Spec("file", text, str(path))


def _from_commits(target: Target) -> Spec | None:
    head = target.head if target.head is not None else target.head_sha
    root = target.repo_root
    # The empty tree is not a commit: every commit up to head is in the range.
    is_commit = git_text(root, ["cat-file", "-t", target.base]).strip() == "commit"
    rev_range = f"{target.base}..{head}" if is_commit else head
    out = git_text(root, ["log", "--no-merges", "--reverse", "--format=%B%x00", rev_range, "--"])
    messages = [m.strip() for m in out.split("\0") if m.strip()]
    if not messages:
        return None
    shown = f"{target.base[:12]}..{head[:12]}" if is_commit else head[:12]
    return Spec("commits", "\n\n".join(messages), shown)


def _from_sessions(repo_root: Path, claude_home: Path | None) -> Spec:
    home = claude_home if claude_home is not None else _default_claude_home()
    sessions = find_sessions(repo_root, home)
    notes: list[str] = []
    for session in sessions:
        text = first_user_turn(session)
        if text is not None:
            return Spec("transcript", text, str(session), tuple(notes))
        notes.append(f"session {session} has no user turn with plain text; skipped")
    return Spec(None, None, None, tuple(notes))


def _default_claude_home() -> Path:
    # Claude Code itself honours CLAUDE_CONFIG_DIR in place of ~/.claude.
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else Path.home() / ".claude"


def encode_project_path(path: Path) -> str:
    """Claude Code's directory name for a project: every non-alphanumeric becomes '-'."""
    return re.sub(r"[^a-zA-Z0-9]", "-", str(path))


def find_sessions(repo_root: Path, claude_home: Path) -> list[Path]:
    """This repository's Claude Code sessions, newest (by mtime) first."""
    candidates = {str(repo_root), os.path.realpath(repo_root)}
    found: list[tuple[float, str, Path]] = []
    for candidate in sorted(candidates):
        folder = claude_home / "projects" / encode_project_path(Path(candidate))
        if folder.is_dir():
            found.extend((p.stat().st_mtime, p.name, p) for p in folder.glob("*.jsonl"))
    found.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [path for _, _, path in found]


def first_user_turn(transcript: Path) -> str | None:
    """The first plain-text user turn of a Claude Code JSONL transcript; None if it has none."""
    try:
        handle = transcript.open(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot read transcript {transcript}: {exc.strerror}") from exc
    with handle:
        try:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise UserError(
                        f"transcript {transcript} line {number} is not JSON: {exc.msg}"
                    ) from exc
                text = _user_text(record)
                if text is not None:
                    return text
        except UnicodeDecodeError as exc:
            raise UserError(f"transcript {transcript} is not UTF-8 text") from exc
    return None


def _user_text(record: Any) -> str | None:
    if not isinstance(record, dict) or record.get("type") != "user":
        return None
    if record.get("isMeta") or record.get("isSidechain"):
        return None
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, str):
        parts = [content]
    elif isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return None
        parts = [
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
    else:
        return None
    kept = [p.strip() for p in parts if p.strip() and not p.lstrip().startswith(_WRAPPERS)]
    return "\n\n".join(kept) if kept else None
