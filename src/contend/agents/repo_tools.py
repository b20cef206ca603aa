"""Read-only repository tools for API-model agents, confined to one worktree.

    read_file(path, start_line?, end_line?)   numbered lines, capped in size
    grep(pattern, path_glob?)                  Python `re` over the worktree's text files
    list_dir(path?)                            one directory level

Every path is relative to the worktree root. An absolute path, a path that leaves the root
(through `..` or a symlink), and anything under `.git` (remote URLs can hold credentials)
are refused. A refusal or a bad argument is a ToolResult with `is_error=True` that goes back
to the model as the tool's answer; it never raises, so one bad tool call cannot end a run.
Nothing here writes, runs a process, or reaches the network.

Known limit: `re` has no timeout, so a pathological pattern can be slow on one long line;
lines are cut to MAX_LINE_SCAN characters before matching and the scan stops after
GREP_BUDGET_S, which bounds the common cases.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_READ_CHARS = 60_000
MAX_GREP_MATCHES = 200
MAX_LIST_ENTRIES = 500
MAX_LINE_SCAN = 2_000
MAX_LINE_SHOWN = 300
GREP_BUDGET_S = 5.0
BINARY_PROBE = 8_192

READ_FILE = "read_file"
GREP = "grep"
LIST_DIR = "list_dir"
TOOL_NAMES = (READ_FILE, GREP, LIST_DIR)

_SPECS: tuple[tuple[str, str, dict[str, Any], list[str]], ...] = (
    (
        READ_FILE,
        "Read a text file of the repository under review, with line numbers. "
        "Optionally only lines start_line..end_line (1-based, inclusive).",
        {
            "path": {"type": "string", "description": "path relative to the repository root"},
            "start_line": {"type": "integer", "minimum": 1},
            "end_line": {"type": "integer", "minimum": 1},
        },
        ["path"],
    ),
    (
        GREP,
        "Search the repository's text files with a Python regular expression; returns "
        "path:line: text for each matching line.",
        {
            "pattern": {"type": "string", "description": "Python regular expression"},
            "path_glob": {
                "type": "string",
                "description": "only files whose relative path matches, e.g. 'src/**/*.py'",
            },
        },
        ["pattern"],
    ),
    (
        LIST_DIR,
        "List one directory of the repository (directories end with '/').",
        {"path": {"type": "string", "description": "directory relative to the root; '.'"}},
        [],
    ),
)


def openai_tools() -> list[dict[str, Any]]:
    """The tools in Chat Completions `tools` format."""
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": _object_schema(props, required),
            },
        }
        for name, description, props, required in _SPECS
    ]


def anthropic_tools() -> list[dict[str, Any]]:
    """The tools in Anthropic Messages `tools` format."""
    return [
        {"name": name, "description": description, "input_schema": _object_schema(props, req)}
        for name, description, props, req in _SPECS
    ]


def _object_schema(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


@dataclass(frozen=True, slots=True)
class ToolResult:
    text: str
    is_error: bool = False


class ToolRefusal(Exception):
    """A tool call that cannot be served; its message goes back to the model."""


class RepoTools:
    """The three read-only tools over one worktree."""

    # The tool names `call` serves (a subclass that adds tools extends it).
    names: tuple[str, ...] = TOOL_NAMES

    def __init__(self, root: Path, *, max_file_bytes: int = 1_000_000) -> None:
        self.root = root.resolve()
        self.max_file_bytes = max_file_bytes

    def call(self, name: str, arguments: str | dict[str, Any]) -> ToolResult:
        """Run tool `name`; every failure the model can cause is returned, not raised."""
        try:
            args = _arguments(arguments)
            if name == READ_FILE:
                return ToolResult(
                    self.read_file(
                        _str_arg(args, "path"),
                        _int_arg(args, "start_line"),
                        _int_arg(args, "end_line"),
                    )
                )
            if name == GREP:
                return ToolResult(
                    self.grep(_str_arg(args, "pattern"), _opt_str_arg(args, "path_glob"))
                )
            if name == LIST_DIR:
                return ToolResult(self.list_dir(_opt_str_arg(args, "path") or "."))
            raise ToolRefusal(f"unknown tool {name!r}; available: {', '.join(TOOL_NAMES)}")
        except ToolRefusal as exc:
            return ToolResult(f"error: {exc}", is_error=True)

    # -- tools -------------------------------------------------------------------------
    def read_file(
        self, path: str, start_line: int | None = None, end_line: int | None = None
    ) -> str:
        target = self.confine(path)
        if not target.is_file():
            raise ToolRefusal(f"{path}: no such file")
        size = target.stat().st_size
        if size > self.max_file_bytes:
            raise ToolRefusal(f"{path}: {size} bytes, over the {self.max_file_bytes}-byte limit")
        data = target.read_bytes()
        if b"\0" in data[:BINARY_PROBE]:
            raise ToolRefusal(f"{path}: binary file")
        lines = data.decode("utf-8", errors="replace").splitlines()
        first = start_line or 1
        last = min(end_line or len(lines), len(lines))
        if first > max(len(lines), 1) or last < first:
            raise ToolRefusal(f"{path}: has {len(lines)} lines; asked for {first}..{end_line}")
        out: list[str] = []
        used = 0
        for number in range(first, last + 1):
            line = f"{number:6d}\t{lines[number - 1]}"
            if used + len(line) > MAX_READ_CHARS:
                out.append(f"[output cut at {MAX_READ_CHARS} characters; ask for lines {number}..]")
                break
            out.append(line)
            used += len(line) + 1
        return "\n".join(out) if out else f"{path}: empty file"

    def grep(self, pattern: str, path_glob: str | None = None) -> str:
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise ToolRefusal(f"invalid regular expression {pattern!r}: {exc}") from None
        started = time.monotonic()
        hits: list[str] = []
        skipped: list[str] = []
        for rel, path in self._files():
            if path_glob and not _glob_match(rel, path_glob):
                continue
            if time.monotonic() - started > GREP_BUDGET_S:
                hits.append(f"[search stopped after {GREP_BUDGET_S:g}s; narrow path_glob]")
                break
            try:
                lines = _text_lines(path, self.max_file_bytes)
            except _NotSearched as exc:
                skipped.append(f"{rel} ({exc})")
                continue
            for number, line in lines:
                if regex.search(line[:MAX_LINE_SCAN]):
                    hits.append(f"{rel}:{number}: {line[:MAX_LINE_SHOWN]}")
            if len(hits) >= MAX_GREP_MATCHES:
                hits = [*hits[:MAX_GREP_MATCHES], "[stopped at the match limit; narrow the search]"]
                break
        report = "\n".join(hits) if hits else "no matches"
        if skipped:
            shown = ", ".join(skipped[:20]) + (", ..." if len(skipped) > 20 else "")
            report += f"\n[{len(skipped)} files not searched: {shown}]"
        return report

    def list_dir(self, path: str = ".") -> str:
        target = self.confine(path)
        if not target.is_dir():
            raise ToolRefusal(f"{path}: not a directory")
        entries: list[str] = []
        for child in sorted(target.iterdir(), key=lambda p: p.name):
            if child.name == ".git":
                continue
            entries.append(child.name + ("/" if child.is_dir() else ""))
        if len(entries) > MAX_LIST_ENTRIES:
            more = len(entries) - MAX_LIST_ENTRIES
            entries = [*entries[:MAX_LIST_ENTRIES], f"[{more} more entries not shown]"]
        return "\n".join(entries) if entries else f"{path}: empty directory"

    # -- confinement -------------------------------------------------------------------
    def confine(self, path: str) -> Path:
        """The resolved path of `path` inside the root; ToolRefusal when it would leave it."""
        if not path or "\0" in path:
            raise ToolRefusal("a non-empty relative path is required")
        if os.path.isabs(path) or path.startswith("~"):
            raise ToolRefusal(
                f"{path}: absolute paths are refused; use a path relative to the repository root"
            )
        target = (self.root / path).resolve()
        if not target.is_relative_to(self.root):
            raise ToolRefusal(f"{path}: outside the repository under review; refused")
        rel = target.relative_to(self.root)
        if rel.parts and rel.parts[0] == ".git":
            raise ToolRefusal(f"{path}: git metadata is not readable through this tool")
        return target

    def _files(self) -> list[tuple[str, Path]]:
        found: list[tuple[str, Path]] = []
        for dirpath, dirnames, filenames in os.walk(self.root):  # never follows dir symlinks
            dirnames[:] = sorted(d for d in dirnames if d != ".git")
            for name in sorted(filenames):
                path = Path(dirpath, name)
                if path.is_symlink() and not path.resolve().is_relative_to(self.root):
                    continue  # a link out of the worktree is not part of it
                found.append((path.relative_to(self.root).as_posix(), path))
        return found


def _glob_match(rel: str, glob: str) -> bool:
    # fnmatch's "*" crosses "/", so "src/**/*.py" and "*.py" both match nested files.
    return fnmatch.fnmatchcase(rel, glob) or fnmatch.fnmatchcase(rel, glob.replace("**/", ""))


class _NotSearched(Exception):
    """A file grep leaves out (too large, unreadable); counted and named in the result."""


def _text_lines(path: Path, max_bytes: int) -> list[tuple[int, str]]:
    """The numbered lines of a text file; [] for a binary file (grep ignores those)."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise _NotSearched(f"{size} bytes, over the limit")
        data = path.read_bytes()
    except OSError as exc:
        raise _NotSearched(exc.strerror or type(exc).__name__) from None
    if b"\0" in data[:BINARY_PROBE]:
        return []
    return list(enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1))


def _arguments(arguments: str | dict[str, Any]) -> dict[str, Any]:
    if isinstance(arguments, dict):
        return arguments
    try:
        parsed = json.loads(arguments or "{}")
    except json.JSONDecodeError as exc:
        raise ToolRefusal(f"tool arguments are not valid JSON: {exc}") from None
    if not isinstance(parsed, dict):
        raise ToolRefusal("tool arguments must be a JSON object")
    return parsed


def _str_arg(args: dict[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str):
        raise ToolRefusal(f"argument {key!r} is required and must be a string")
    return value


def _opt_str_arg(args: dict[str, Any], key: str) -> str | None:
    value = args.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ToolRefusal(f"argument {key!r} must be a string")
    return value


def _int_arg(args: dict[str, Any], key: str) -> int | None:
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ToolRefusal(f"argument {key!r} must be a positive integer")
    return value
