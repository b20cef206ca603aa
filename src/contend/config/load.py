"""Loading the effective settings: layers, precedence, merge, and where each value came from.

Precedence, lowest first: built-in defaults < user config < project config < environment
(`CONTEND_*`) < flags. Each layer is validated on its own first, so an error names the file
or variable that holds the bad value; then the layers are merged and validated once more.
Merging replaces scalars and lists whole and merges tables key by key (`[limits]`,
`[providers.*]`, and `[prices]` by model name — each price entry is complete in its layer).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ValidationError

from contend.config.env import read_env_layer
from contend.config.files import Layer, read_project_layer, read_user_layer
from contend.config.messages import describe_first, format_key
from contend.config.model import Settings, is_keyed_table, table_model
from contend.errors import ConfigError


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


def load_settings(
    repo_root: Path | None,
    *,
    flags: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """The effective settings for a repository (None: outside one, so no project config).

    `flags` holds the values really given on the command line, keyed by setting name, or by
    a dotted path for a table key ("limits.max_run_cost"). A value of None, NOT_PASSED or
    an empty tuple (click's value for a repeatable option given zero times) means "not
    passed". `env` defaults to os.environ.
    """
    settings, _ = _load(repo_root, flags, env)
    return settings


def explain_settings(
    repo_root: Path | None,
    *,
    flags: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
) -> list[tuple[str, object, str]]:
    """Every effective value as (key, value, source), in the order of the settings model.

    The source is "default", "user config PATH", "project config PATH", "env VARIABLE" or
    "flag KEY". A price entry appears once per field.
    """
    settings, layers = _load(repo_root, flags, env)
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
) -> tuple[Settings, list[Layer]]:
    environ = os.environ if env is None else env
    candidates = [
        read_user_layer(environ),
        read_project_layer(repo_root) if repo_root is not None else None,
        read_env_layer(environ),
        _flags_layer(flags or {}),
    ]
    layers = [layer for layer in candidates if layer is not None]
    merged: dict[str, Any] = {}
    for layer in layers:
        _validate(layer)
        merged = _merge(Settings, merged, layer.data)
    try:
        settings = Settings.model_validate(merged)
    except ValidationError as exc:
        # Each layer was valid alone, so this is a merge bug, not a user's typo.
        raise ConfigError(describe_first("merged configuration", exc.errors())) from exc
    return settings, layers


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
