"""Loading the effective settings: layers, precedence, merge, and where each value came from.

Precedence, lowest first: built-in defaults < user config < project config < environment
(`CONTEND_*`) < flags. Each layer is validated on its own first, so an error names the file
or variable that holds the bad value; then the layers are merged and validated once more.
Merging replaces scalars and lists whole and merges tables key by key (`[limits]`,
`[providers.*]`, and `[prices]` by model name — each price entry is complete in its layer).

The project config is read from git at the review's base revision, never from the working
tree (DESIGN §9): a change cannot configure the review of itself. By default that is the
base a plain `contend review` would use (`gitio.base.trusted_base`, honouring a `base` set
by the user, the environment or a flag, else one set by the project config at the default
base); `contend review --head/--staged/--range` passes the base of its own target.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ValidationError

from contend.config.env import read_env_layer
from contend.config.files import Layer, read_project_layer_at, read_user_layer
from contend.config.messages import describe_first, format_key
from contend.config.model import Origin, Settings, is_keyed_table, table_model
from contend.errors import ConfigError
from contend.gitio.base import trusted_base
from contend.gitio.git import repo_root as find_repo_root


class _NotPassed:
    """Type of NOT_PASSED; a flag left at this value was not given on the command line."""

    _instance: _NotPassed | None = None

    def __new__(cls) -> _NotPassed:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_PASSED"


NOT_PASSED: Final = _NotPassed()

DEFAULT_SOURCE = "default"

# (the configured base or None, repository-relative paths to exclude) -> the review's base.
BaseOf = Callable[[str | None, Sequence[str]], str | None]


def load_settings(
    repo_root: Path | None,
    *,
    flags: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
    project_rev: str | _NotPassed | None = NOT_PASSED,
    base_of: BaseOf | None = None,
) -> Settings:
    """The effective settings for a repository (None: outside one, so no project config).

    `flags` holds the values really given on the command line, keyed by setting name, or by
    a dotted path for a table key ("limits.max_run_cost"). A value of None, NOT_PASSED or
    an empty tuple (click's value for a repeatable option given zero times) means "not
    passed". `env` defaults to os.environ. `project_rev` is the revision to read the project
    config at (None: read none); by default the base of a plain `contend review`, or what
    `base_of(configured base, paths to exclude)` says the review's base is (a review of
    --head, --staged or a range passes its own). `settings.origin` records the revision and
    which layer set each key.
    """
    settings, _ = _load(repo_root, flags, env, project_rev, base_of)
    return settings


def explain_settings(
    repo_root: Path | None,
    *,
    flags: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
    project_rev: str | _NotPassed | None = NOT_PASSED,
    base_of: BaseOf | None = None,
) -> list[tuple[str, object, str]]:
    """Every effective value as (key, value, source), in the order of the settings model.

    The source is "default", "user config PATH", "project config FILE at base revision
    REV", "env VARIABLE" or "flag KEY". A price entry appears once per field.
    """
    settings, layers = _load(repo_root, flags, env, project_rev, base_of)
    sources: dict[tuple[str, ...], str] = {}
    for layer in layers:
        for path in _leaf_paths(Settings, layer.data, ()):
            sources[path] = _source_label(layer, path)
    rows: list[tuple[str, object, str]] = []
    effective = settings.model_dump(by_alias=True, mode="json")
    for path in _leaf_paths(Settings, effective, ()):
        value: Any = effective
        for part in path:
            value = value[part]
        rows.append((format_key(path), value, sources.get(path, DEFAULT_SOURCE)))
    return rows


def _load(
    repo_root: Path | None,
    flags: Mapping[str, object] | None,
    env: Mapping[str, str] | None,
    project_rev: str | _NotPassed | None,
    base_of: BaseOf | None,
) -> tuple[Settings, list[Layer]]:
    environ = os.environ if env is None else env
    user = read_user_layer(environ)
    env_layer = read_env_layer(environ)
    flags_layer = _flags_layer(flags or {})
    trusted = [layer for layer in (user, env_layer, flags_layer) if layer is not None]
    for layer in trusted:
        _validate(layer)
    rev: str | None = None
    project: list[Layer] = []
    if repo_root is not None:
        rev, project = _project_layers(repo_root, trusted, project_rev, base_of)
    candidates = [user, *project, env_layer, flags_layer]
    layers = [layer for layer in candidates if layer is not None]
    merged: dict[str, Any] = {}
    for layer in layers:
        merged = _merge(Settings, merged, layer.data)
    try:
        settings = Settings.model_validate(merged)
    except ValidationError as exc:
        # Each layer was valid alone, so this is a merge bug, not a user's typo.
        raise ConfigError(describe_first("merged configuration", exc.errors())) from exc
    kinds = {key: layer.kind for layer in layers for key in layer.data}
    return settings.with_origin(Origin(project_rev=rev, kinds=kinds)), layers


def _project_layers(
    repo_root: Path,
    trusted: list[Layer],
    project_rev: str | _NotPassed | None,
    base_of: BaseOf | None,
) -> tuple[str | None, list[Layer]]:
    """The revision the project config is read at, and its layers there.

    By default the revision is the base a plain `contend review` of `repo_root` compares
    with (None: no commit yet). A `base` from the trusted layers decides it; else the project
    config at the default base may name one — then that config's `base` stands (as its own
    layer, so `config show` names where it came from) and everything else is read at the
    base it names. A `state_dir` (whose files never count as uncommitted work) is taken
    from the same layers."""
    if not isinstance(project_rev, _NotPassed):
        at_rev = read_project_layer_at(repo_root, project_rev) if project_rev else None
        return project_rev, _validated(at_rev)
    root = find_repo_root(repo_root)
    if base_of is None:

        def base_of(base: str | None, exclude: Sequence[str]) -> str | None:
            return trusted_base(root, base, exclude=exclude)

    chosen: dict[str, Any] = {}
    for layer in trusted:
        chosen = _merge(Settings, chosen, layer.data)
    state_dir = chosen.get("state_dir", ".contend")
    rev = base_of(chosen.get("base"), _inside(root, state_dir))
    if rev is None or "base" in chosen:
        return rev, _validated(read_project_layer_at(root, rev) if rev else None)
    first = _validated(read_project_layer_at(root, rev))
    named = first[0].data if first else {}
    if "base" in named:
        rev = base_of(named["base"], ())
        if rev is None:  # HEAD was there a moment ago: the repository changed under us
            raise ConfigError(f"{first[0].source}: base {named['base']!r} names no commit")
        rest = [
            Layer("project", layer.source, {k: v for k, v in layer.data.items() if k != "base"})
            for layer in _validated(read_project_layer_at(root, rev))
        ]
        return rev, [*rest, Layer("project", first[0].source, {"base": named["base"]})]
    if "state_dir" in named and "state_dir" not in chosen:
        moved = base_of(None, _inside(root, named["state_dir"]))
        if moved != rev and moved is not None:
            return moved, _validated(read_project_layer_at(root, moved))
    return rev, first


def _validated(layer: Layer | None) -> list[Layer]:
    if layer is None:
        return []
    _validate(layer)
    return [layer]


def _inside(root: Path, state_dir: object) -> list[str]:
    """`state_dir` relative to `root` when it lies inside it (for excluding), else []."""
    path = Path(str(state_dir)).expanduser()
    full = path if path.is_absolute() else root / path
    try:
        relative = full.resolve().relative_to(root.resolve())
    # contend: allow silent-fallback -- a state dir outside the repository needs no exclusion
    except ValueError:
        return []
    return [] if str(relative) == "." else [relative.as_posix()]


def _validate(layer: Layer) -> None:
    try:
        Settings.model_validate(layer.data)
    except ValidationError as exc:
        errors = exc.errors()
        source = layer.origin_of(tuple(errors[0]["loc"]))
        raise ConfigError(describe_first(source, errors)) from exc


def _flags_layer(flags: Mapping[str, object]) -> Layer | None:
    data: dict[str, Any] = {}
    origins: dict[tuple[str, ...], str] = {}
    for key, value in flags.items():
        if value is None or value is NOT_PASSED or value == ():
            continue
        path = tuple(key.split("."))
        target = data
        for part in path[:-1]:
            nested = target.setdefault(part, {})
            if not isinstance(nested, dict):
                raise ConfigError(f"flag {key}: {part!r} is also given as a plain value")
            target = nested
        # click hands repeatable options over as tuples; the settings hold lists.
        target[path[-1]] = list(value) if isinstance(value, tuple) else value
        origins[path] = f"flag {key}"
    if not data:
        return None
    return Layer("flags", "command-line flags", data, origins)


class _KeyedTable:
    """Stands for `dict[str, Model]` while walking: every key leads to `entry`."""

    def __init__(self, entry: type[BaseModel]) -> None:
        self.entry = entry


# Where a walk through the settings is: a model, a keyed table, or a plain value (None).
_Node = type[BaseModel] | _KeyedTable | None


def _merge(node: _Node, base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`over` on top of `base`: tables merge key by key, anything else is replaced."""
    merged = dict(base)
    for key, value in over.items():
        sub = _child(node, key)
        if sub is not None and isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(sub, merged[key], value)
        else:
            merged[key] = value
    return merged


def _child(node: _Node, key: str) -> _Node:
    """The node of the table `key` inside `node`; None when `key` holds a plain value."""
    if node is None:
        return None
    if isinstance(node, _KeyedTable):
        return node.entry
    for name, field in node.model_fields.items():
        if key in (name, field.alias):
            entry = table_model(field)
            if entry is None:
                return None
            return _KeyedTable(entry) if is_keyed_table(field) else entry
    return None


def _leaf_paths(
    node: _Node, data: Mapping[str, Any], path: tuple[str, ...]
) -> list[tuple[str, ...]]:
    """Paths of the values `data` sets: down through tables, stopping at plain values."""
    out: list[tuple[str, ...]] = []
    for key, value in data.items():
        sub = _child(node, key)
        if sub is not None and isinstance(value, dict) and value:
            out.extend(_leaf_paths(sub, value, (*path, key)))
        else:
            out.append((*path, key))
    return out


def _source_label(layer: Layer, path: tuple[str, ...]) -> str:
    if layer.kind == "user":
        return f"user config {layer.source}"
    if layer.kind == "project":
        return f"project config {layer.source}"
    origin = layer.origin_of(path)
    return f"env {origin}" if layer.kind == "env" else origin
