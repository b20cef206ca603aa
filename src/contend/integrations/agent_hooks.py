"""`contend hook install/uninstall`: contend's Stop hook in the coding agent's own hook
configuration, written idempotently with a backup and removed exactly.

Both agents read the same shape (`{"hooks": {"Stop": [{"hooks": [{"type": "command",
"command": ..., "timeout": ...}]}]}}`) from a JSON file:

    claude  user: $CLAUDE_CONFIG_DIR/settings.json (else ~/.claude/settings.json)
            project: <repo>/.claude/settings.json
    codex   user: $CODEX_HOME/hooks.json (else ~/.codex/hooks.json)
            project: <repo>/.codex/hooks.json (loaded only when codex trusts the project;
            codex asks the person to review and trust a new hook in `/hooks` before it runs)

contend's entry is recognised by its command (`-m contend.integrations.stop_hook`); every
other key and hook of the file is kept as it was. A file that is not a JSON object with the
expected shape is refused and left untouched. Before a file is changed, its previous bytes
are copied to `<file>.contend-backup`; writes are atomic (temporary file, then rename).
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contend.errors import UserError

HOOK_MODULE = "contend.integrations.stop_hook"
AGENTS = ("claude", "codex")
SCOPES = ("user", "project")
BACKUP_SUFFIX = ".contend-backup"
# A review with model critics takes minutes; the agents' default hook timeout is 60 s.
HOOK_TIMEOUT_S = 1800


@dataclass(frozen=True)
class Change:
    path: Path
    action: str  # "installed", "already installed", "removed", "not installed"
    backup: Path | None


def settings_path(agent: str, scope: str, repo_root: Path | None) -> Path:
    """The hook file of `agent` at `scope` (project scope needs the repository root)."""
    if scope == "project":
        if repo_root is None:
            raise UserError("--scope project needs a git repository (run it inside one)")
        return repo_root / (".claude/settings.json" if agent == "claude" else ".codex/hooks.json")
    if agent == "claude":
        home = os.environ.get("CLAUDE_CONFIG_DIR")
        return (Path(home) if home else Path.home() / ".claude") / "settings.json"
    home = os.environ.get("CODEX_HOME")
    return (Path(home) if home else Path.home() / ".codex") / "hooks.json"


def hook_command(agent: str, *, feedback: bool = False, python: str | None = None) -> str:
    """The shell command the agent runs on Stop: this interpreter, so the hook finds the
    contend that installed it whatever PATH the agent has."""
    parts = [python or sys.executable, "-m", HOOK_MODULE, "--agent", agent]
    if feedback:
        parts.append("--feedback")
    return shlex.join(parts)


def is_ours(hook: object) -> bool:
    return isinstance(hook, dict) and f"-m {HOOK_MODULE}" in str(hook.get("command", ""))


def _load(path: Path) -> tuple[dict[str, Any], bytes | None]:
    if not path.exists():
        return {}, None
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not raw.strip():
        return {}, raw
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise UserError(f"{path} is not valid JSON ({exc}); left untouched, fix it first") from exc
    if not isinstance(data, dict):
        raise UserError(f"{path} is not a JSON object; left untouched")
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise UserError(f"{path}: `hooks` is not an object; left untouched")
    stop = hooks.get("Stop", [])
    if not isinstance(stop, list) or not all(
        isinstance(group, dict) and isinstance(group.get("hooks", []), list) for group in stop
    ):
        raise UserError(
            f'{path}: `hooks.Stop` is not a list of {{"hooks": [...]}} groups; left untouched'
        )
    return data, raw


def _without_ours(stop: list[dict[str, Any]]) -> list[dict[str, Any]]:
    kept = []
    for group in stop:
        hooks = [h for h in group.get("hooks", []) if not is_ours(h)]
        if hooks or not any(is_ours(h) for h in group.get("hooks", [])):
            kept.append({**group, "hooks": hooks} if "hooks" in group else group)
    return kept


def _write(path: Path, data: dict[str, Any], old: bytes | None) -> Path | None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    backup = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if old is not None:
            backup = path.with_name(path.name + BACKUP_SUFFIX)
            backup.write_bytes(old)
        tmp = path.with_name(f".{path.name}.contend-{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return backup


def install(path: Path, command: str) -> Change:
    """Put contend's Stop hook (`command`) in `path`, replacing an older contend entry."""
    data, raw = _load(path)
    hooks = dict(data.get("hooks", {}))
    stop = list(hooks.get("Stop", []))
    entry = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}
    current = [h for g in stop for h in g.get("hooks", []) if is_ours(h)]
    if current == [entry]:
        return Change(path, "already installed", None)
    hooks["Stop"] = [*_without_ours(stop), {"hooks": [entry]}]
    return Change(path, "installed", _write(path, {**data, "hooks": hooks}, raw))


def uninstall(path: Path) -> Change:
    """Remove contend's Stop hook from `path`; everything else stays."""
    data, raw = _load(path)
    hooks = dict(data.get("hooks", {}))
    stop = list(hooks.get("Stop", []))
    if not any(is_ours(h) for g in stop for h in g.get("hooks", [])):
        return Change(path, "not installed", None)
    kept = _without_ours(stop)
    if kept:
        hooks["Stop"] = kept
    else:
        hooks.pop("Stop")
    new = {**data, "hooks": hooks} if hooks else {k: v for k, v in data.items() if k != "hooks"}
    return Change(path, "removed", _write(path, new, raw))
