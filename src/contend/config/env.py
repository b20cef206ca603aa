"""Settings from `CONTEND_*` environment variables, parsed explicitly per field type.

Names: `CONTEND_<KEY>` for a top-level key (CONTEND_MAX_ROUNDS), `CONTEND_LIMITS_<KEY>` for
`[limits]`, `CONTEND_PROVIDERS_<PROVIDER>_<KEY>` for the string keys of `[providers.*]`
(CONTEND_PROVIDERS_OPENAI_COMPATIBLE_BASE_URL). Tables of free-form keys (`prices`,
`extra_headers`) cannot be set from the environment.

Values are strings and are parsed here, never guessed: integers and numbers by their exact
syntax, booleans as 1/true/yes or 0/false/no, lists as comma-separated items or as a JSON
array of strings (for items that hold commas, e.g. a gate command); an empty value means
None for an optional key and an empty list for a list. Any other `CONTEND_*` variable is
rejected, naming it, unless it is in RESERVED_ENV_VARS.
"""

from __future__ import annotations

import difflib
import json
import re
import types
from collections.abc import Mapping
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from contend.config.files import Layer
from contend.config.messages import format_key, show_value
from contend.config.model import Settings, table_model
from contend.errors import ConfigError

PREFIX = "CONTEND_"

# CONTEND_* variables that are not settings and are read elsewhere:
#   CONTEND_CONFIG_HOME            where the user config lives (read by files.py)
#   CONTEND_ALLOW_MODEL_REQUESTS   switch that lets real model calls out (tests turn it off)
RESERVED_ENV_VARS = frozenset(
    {
        "CONTEND_CONFIG_HOME",
        "CONTEND_ALLOW_MODEL_REQUESTS",
        "CONTEND_KEY_FILE",  # the ledger key (contend.ledger.keys)
        "CONTEND_ANCHOR_DIR",  # the ledger head anchors (contend.ledger.anchor)
        "CONTEND_HOOK_ACTIVE",  # set for agents a stop-hook review starts (integrations)
    }
)

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
_TRUE = frozenset({"1", "true", "yes"})
_FALSE = frozenset({"0", "false", "no"})


def env_var_table() -> dict[str, tuple[tuple[str, ...], Any]]:
    """Every settable variable: name -> (key path, field annotation)."""
    table: dict[str, tuple[tuple[str, ...], Any]] = {}
    _collect(Settings, (), table)
    return table


def _collect(
    model: type[BaseModel], path: tuple[str, ...], table: dict[str, tuple[tuple[str, ...], Any]]
) -> None:
    for name, field in model.model_fields.items():
        key = field.alias or name
        annotation = field.annotation
        if get_origin(annotation) is dict:
            continue  # free-form keys have no fixed variable name
        sub = table_model(field)
        if sub is not None:
            _collect(sub, (*path, key), table)
            continue
        var = PREFIX + "_".join(part.upper().replace("-", "_") for part in (*path, key))
        table[var] = ((*path, key), annotation)


def read_env_layer(env: Mapping[str, str]) -> Layer | None:
    """The environment layer, or None when no CONTEND_* setting is set."""
    table = env_var_table()
    data: dict[str, Any] = {}
    origins: dict[tuple[str, ...], str] = {}
    for var in sorted(name for name in env if name.startswith(PREFIX)):
        if var in RESERVED_ENV_VARS:
            continue
        if var not in table:
            raise ConfigError(_unknown_var_message(var, table))
        path, annotation = table[var]
        value = parse_env_value(env[var], annotation, var=var, key=format_key(path))
        _set(data, path, value)
        origins[path] = var
    if not data:
        return None
    return Layer("env", "environment", data, origins)


def parse_env_value(raw: str, annotation: Any, *, var: str, key: str) -> Any:
    """Parse one variable's text as `annotation`; ConfigError names the variable."""
    args = get_args(annotation)
    if _is_union(annotation):
        inner = [arg for arg in args if arg is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"no environment parser for {annotation!r}")  # a bug in Settings
        if raw == "":
            return None
        return parse_env_value(raw, inner[0], var=var, key=key)
    if annotation is bool:
        word = raw.strip().lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
        raise _bad(var, key, "a boolean (1/true/yes or 0/false/no)", raw)
    if annotation is int:
        if _INT.fullmatch(raw.strip()) is None:
            raise _bad(var, key, "an integer", raw)
        return int(raw.strip())
    if annotation is float:
        if _FLOAT.fullmatch(raw.strip()) is None:
            raise _bad(var, key, "a number", raw)
        return float(raw.strip())
    if annotation is str or get_origin(annotation) is Literal:
        return raw  # a Literal is checked against its choices by the model
    if get_origin(annotation) is list and (args == (str,) or get_origin(args[0]) is Literal):
        return _parse_list(raw, var=var, key=key)
    raise TypeError(f"no environment parser for {annotation!r}")  # a bug in Settings


def _parse_list(raw: str, *, var: str, key: str) -> list[str]:
    text = raw.strip()
    if text.startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{var}: '{key}' is not a valid JSON array: {exc.msg}") from exc
        if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
            raise _bad(var, key, "a JSON array of strings", raw)
        return [str(item) for item in items]
    if not text:
        return []
    items = [item.strip() for item in text.split(",")]
    if any(not item for item in items):
        raise ConfigError(f"{var}: '{key}' has an empty item in {show_value(raw)}")
    return items


def _bad(var: str, key: str, expected: str, raw: str) -> ConfigError:
    return ConfigError(f"{var}: '{key}' must be {expected}, got {show_value(raw)}")


def _is_union(annotation: Any) -> bool:
    return isinstance(annotation, types.UnionType) or get_origin(annotation) is Union


def _set(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for part in path[:-1]:
        data = data.setdefault(part, {})
    data[path[-1]] = value


def _unknown_var_message(var: str, table: Mapping[str, object]) -> str:
    message = f"{var}: unknown contend environment variable"
    close = difflib.get_close_matches(var, [*table, *RESERVED_ENV_VARS], n=1, cutoff=0.8)
    if close:
        message += f" (did you mean {close[0]}?)"
    return message + "; `contend config show` lists the settings"
