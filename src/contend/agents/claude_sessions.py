"""Where Claude Code keeps its sessions, laid out as the real client lays them out (checked
against claude 2.1.197 in tests/test_claude_sessions.py).

    $CLAUDE_CONFIG_DIR, else ~/.claude
        projects/<project directory name>/<session id>.jsonl

A working directory's project directory is named after its real path (symlinks resolved,
whatever $PWD says): every UTF-16 code unit that is not an ASCII letter or digit becomes
'-', and a name over 200 characters is cut to 200 and given '-' and a base-36 hash of the
path (Java's String.hashCode, as claude computes it). Looking a project's sessions up,
claude also takes a directory with the cut name and another hash; so does `project_dirs`.

The one place that knows this layout: the spec finder (review.spec) and the fork
(agents.claude_code) both ask here. It only reads.
"""

from __future__ import annotations

import os
from pathlib import Path

from contend.errors import AgentError, UserError

MAX_NAME = 200  # claude's cap on a project directory name, before the hash
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def claude_home() -> Path:
    """Where claude keeps its state: $CLAUDE_CONFIG_DIR, else ~/.claude."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else Path.home() / ".claude"


def encode(path_text: str) -> str:
    """claude's directory name for the path `path_text`, taken as it is."""
    # A character outside the Basic Multilingual Plane is two UTF-16 code units: two '-'.
    name = "".join(c if c in _ALNUM else ("--" if ord(c) > 0xFFFF else "-") for c in path_text)
    if len(name) <= MAX_NAME:
        return name
    return f"{name[:MAX_NAME]}-{_base36(abs(_java_hash(path_text)))}"


def project_dir_name(path: Path) -> str:
    """The name of the project directory claude uses for a working directory `path`."""
    return encode(os.path.realpath(path))


def project_dir(path: Path, home: Path | None = None) -> Path:
    """Where claude records the sessions it runs in `path`."""
    return (home or claude_home()) / "projects" / project_dir_name(path)


def project_dirs(path: Path, home: Path | None = None) -> list[Path]:
    """The existing directories that hold sessions run in `path`: its project directory,
    and for a cut name, those with the same cut and another hash."""
    exact = project_dir(path, home)
    found = [exact] if exact.is_dir() else []
    if len(exact.name) > MAX_NAME and exact.parent.is_dir():
        prefix = exact.name[:MAX_NAME] + "-"
        found += sorted(
            d for d in exact.parent.iterdir() if d.name.startswith(prefix) and d != exact
        )
    return found


def sessions(path: Path, home: Path | None = None) -> list[Path]:
    """The transcripts of sessions run in `path`, newest (by mtime, then name) first."""
    found = [
        (transcript.stat().st_mtime, transcript.name, transcript)
        for folder in project_dirs(path, home)
        for transcript in folder.glob("*.jsonl")
    ]
    found.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [transcript for _, _, transcript in found]


def newest_session(repo: Path) -> str:
    """The id of the newest session run in `repo`; UserError when there is none."""
    found = sessions(repo)
    if not found:
        raise UserError(
            f"claude-fork: no Claude Code session found for {repo} (looked in "
            f"{project_dir(repo)}); name one with claude-fork:SESSION"
        )
    return found[0].stem


def find_transcript(session: str) -> Path:
    """The transcript file of `session`, in whichever project directory holds it."""
    found = sorted((claude_home() / "projects").glob(f"*/{session}.jsonl"))
    if not found:
        raise AgentError(
            f"claude-fork: no transcript for session {session} under {claude_home()}/projects",
            backend="claude-fork",
        )
    return found[0]


def _java_hash(text: str) -> int:
    """Java's String.hashCode over UTF-16 code units, as a signed 32-bit integer."""
    units = text.encode("utf-16-le")
    value = 0
    for index in range(0, len(units), 2):
        value = (value * 31 + int.from_bytes(units[index : index + 2], "little")) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _base36(number: int) -> str:
    digits = ""
    while True:
        number, remainder = divmod(number, 36)
        digits = _BASE36[remainder] + digits
        if number == 0:
            return digits
