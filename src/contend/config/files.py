"""Finding and reading the TOML config files: the user's and the project's.

User config: `$CONTEND_CONFIG_HOME/config.toml`, else `$XDG_CONFIG_HOME/contend/config.toml`,
else `$HOME/.config/contend/config.toml`. Project config: `contend.toml` at the repository
root, or the `[tool.contend]` table of the root `pyproject.toml`. Both at once is an error:
one of them would be silently ignored. Every failure (unreadable file, invalid UTF-8 or
TOML, both project sources) raises ConfigError naming the file.

The project config that governs a review is read from git at the review's base revision
(`read_project_layer_at`), never from the working tree: the change under review must not
configure its own reviewer (DESIGN §9). `read_project_layer` reads the working tree, for
`contend config path` and for comparing what a change would alter.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from contend.change import CONFIG_FILES
from contend.errors import ConfigError
from contend.gitio.git import GitError, run_git

LayerKind = Literal["user", "project", "env", "flags"]

_TOML_POSITION = re.compile(r"^(?P<what>.*) \(at line (?P<line>\d+), column (?P<col>\d+)\)$")
_AT_END = " (at end of document)"


@dataclass(frozen=True, slots=True)
class Layer:
    """Raw settings from one source, before validation.

    `source` names the source in messages (a file path); `origins` names, per top-level or
    table key, a finer source when there is one (the environment variable that set it).
    """

    kind: LayerKind
    source: str
    data: dict[str, Any]
    origins: dict[tuple[str, ...], str] = field(default_factory=dict)

    def origin_of(self, loc: tuple[str | int, ...]) -> str:
        """The name to put in front of an error at `loc`: the variable, else the source."""
        for length in range(len(loc), 0, -1):
            found = self.origins.get(tuple(str(part) for part in loc[:length]))
            if found is not None:
                return found
        return self.source


def user_config_path(env: Mapping[str, str]) -> Path | None:
    """Where the user config lives, from `env` only; None when no location can be named
    (HOME unset and no override), which `contend config path` reports as such."""
    home = env.get("CONTEND_CONFIG_HOME")
    if home is not None:
        if not home:
            raise ConfigError("CONTEND_CONFIG_HOME is set but empty; unset it or name a directory")
        return Path(home).expanduser() / "config.toml"
    xdg = env.get("XDG_CONFIG_HOME", "")
    # The XDG spec says a relative or empty XDG_CONFIG_HOME is invalid and must be ignored.
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "contend" / "config.toml"
    user_home = env.get("HOME")
    if not user_home:
        return None
    return Path(user_home) / ".config" / "contend" / "config.toml"


def read_user_layer(env: Mapping[str, str]) -> Layer | None:
    """The user config layer, or None when there is no user config file."""
    path = user_config_path(env)
    if path is None or not _present(path):
        return None
    return Layer("user", str(path), read_toml(path, str(path)))


def project_config_paths(repo_root: Path) -> tuple[Path, Path]:
    """Candidate project config files: contend.toml and pyproject.toml at the root."""
    contend_toml, pyproject = CONFIG_FILES
    return repo_root / contend_toml, repo_root / pyproject


def read_project_layer(repo_root: Path) -> Layer | None:
    """The project config layer of the working tree, or None when it configures nothing."""
    contend_toml, pyproject = project_config_paths(repo_root)
    contend_data = read_toml(contend_toml, str(contend_toml)) if _present(contend_toml) else None
    pyproject_data = read_toml(pyproject, str(pyproject)) if _present(pyproject) else None
    return project_layer(contend_data, pyproject_data, str(contend_toml), str(pyproject))


def read_project_layer_at(repo_root: Path, rev: str) -> Layer | None:
    """The project config layer as committed at `rev` (a commit or tree id), read from git;
    None when the project configures nothing there. Sources read "contend.toml at base
    revision <id>", so every message and `contend config show` say where a value came from."""
    where = f"at base revision {rev[:12]}"
    contend_name, pyproject_name = (p.name for p in project_config_paths(repo_root))
    contend_data = _toml_at(repo_root, rev, contend_name, f"{contend_name} {where}")
    pyproject_data = _toml_at(repo_root, rev, pyproject_name, f"{pyproject_name} {where}")
    return project_layer(
        contend_data, pyproject_data, f"{contend_name} {where}", f"{pyproject_name} {where}"
    )


def project_layer(
    contend_data: dict[str, Any] | None,
    pyproject_data: dict[str, Any] | None,
    contend_source: str,
    pyproject_source: str,
) -> Layer | None:
    """The project layer from the parsed `contend.toml` and `pyproject.toml` (None: absent)."""
    from_pyproject: dict[str, Any] | None = None
    if pyproject_data is not None:
        tool = pyproject_data.get("tool", {})
        if not isinstance(tool, dict):
            raise ConfigError(f"{pyproject_source}: 'tool' must be a table")
        if "contend" in tool:
            if not isinstance(tool["contend"], dict):
                raise ConfigError(f"{pyproject_source}: 'tool.contend' must be a table")
            from_pyproject = tool["contend"]
    if contend_data is not None:
        if from_pyproject is not None:
            raise ConfigError(
                f"both {contend_source} and [tool.contend] in {pyproject_source} configure "
                "contend; keep one of them"
            )
        return Layer("project", contend_source, contend_data)
    if from_pyproject is not None:
        return Layer("project", f"{pyproject_source} [tool.contend]", from_pyproject)
    return None


def _toml_at(repo_root: Path, rev: str, name: str, source: str) -> dict[str, Any] | None:
    """Parse file `name` at the top of `rev`'s tree; None when the tree has no such entry."""
    listing = run_git(repo_root, ["ls-tree", "-z", rev, "--", name])
    if not listing:
        return None
    meta, _, _path = listing.rstrip(b"\0").partition(b"\t")
    mode, kind, sha = meta.decode("ascii").split()
    if kind != "blob" or mode not in ("100644", "100755"):
        raise ConfigError(f"{source}: not a regular file (git mode {mode})")
    try:
        raw = run_git(repo_root, ["cat-file", "blob", sha])
    except GitError as exc:
        raise ConfigError(f"{source}: cannot read: {exc}") from exc
    return parse_toml_bytes(raw, source)


def _present(path: Path) -> bool:
    """True when something sits at `path`; a dangling symlink counts, so that it is
    reported by read_toml instead of being taken for "no config"."""
    return path.is_symlink() or path.exists()


def read_toml(path: Path, source: str) -> dict[str, Any]:
    """Parse one TOML file; ConfigError names the file and, for bad syntax, the line."""
    if not path.is_file():
        raise ConfigError(f"{source}: not a regular file")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read: {exc.strerror}") from exc
    return parse_toml_bytes(raw, source)


def parse_toml_bytes(raw: bytes, source: str) -> dict[str, Any]:
    """Parse TOML bytes; ConfigError names `source` and, for bad syntax, the line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: not valid UTF-8 (byte {exc.start})") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: invalid TOML {_position(str(exc), text)}") from exc


def _position(message: str, text: str) -> str:
    """tomllib's "What (at line L, column C)" as "at line L, column C: What"."""
    match = _TOML_POSITION.match(message)
    if match is not None:
        return f"at line {match['line']}, column {match['col']}: {match['what']}"
    if message.endswith(_AT_END):
        last_line = max(len(text.splitlines()), 1)
        return f"at line {last_line} (end of file): {message.removesuffix(_AT_END)}"
    return f"(position unknown): {message}"
