"""One-line messages for configuration errors, naming the source and the key.

Turns pydantic's validation errors into what a user can act on:
`contend.toml: unknown key 'max_round' (did you mean 'max_rounds'?)` or
`contend.toml: 'max_rounds' must be an integer, got "three"`. Formatting only; raising is
the loader's job.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Sequence

from pydantic_core import ErrorDetails

from contend.config.model import keys_of, model_at

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_MAX_SHOWN = 60

# pydantic error type -> what the value must be, in the user's words.
_EXPECTED = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "string_type": "a string",
    "bool_type": "a boolean (true or false)",
    "list_type": "a list",
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
}


def format_key(loc: Sequence[str | int]) -> str:
    """A key path as written in TOML: prices."gpt-4.1".input_per_mtok, critics[0]."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        text = part if _BARE_KEY.fullmatch(part) else json.dumps(part)
        out = f"{out}.{text}" if out else text
    return out


def show_value(value: object) -> str:
    """A value as the user wrote it, shortened: strings in double quotes, TOML booleans."""
    if isinstance(value, float) and not math.isfinite(value):
        text = repr(value)  # TOML spells these inf and nan, as Python does
    else:
        text = json.dumps(value, default=repr, ensure_ascii=False)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def unknown_key_message(source: str, loc: Sequence[str | int]) -> str:
    """`SOURCE: unknown key 'a.b' (did you mean 'a.c'?)`, with a hint for inline API keys."""
    parent = tuple(loc[:-1])
    last = loc[-1]
    model = model_at(parent)
    message = f"{source}: unknown key '{format_key(loc)}'"
    if parent[:1] == ("providers",) and last == "api_key":
        return (
            f"{message}: API keys never go in config files; set 'api_key_env' to the NAME "
            "of the environment variable that holds the key"
        )
    if model is not None and isinstance(last, str):
        close = difflib.get_close_matches(last, keys_of(model), n=1, cutoff=0.6)
        if close:
            message += f" (did you mean '{format_key((*parent, close[0]))}'?)"
    return message


def describe(source: str, error: ErrorDetails) -> str:
    """One line for one pydantic error found in `source` (a file path or a variable)."""
    loc = error["loc"]
    kind = error["type"]
    if kind == "extra_forbidden":
        return unknown_key_message(source, loc)
    key = f"'{format_key(loc)}'"
    got = show_value(error.get("input"))
    ctx = error.get("ctx") or {}
    if kind == "missing":
        return f"{source}: {key} is required"
    if kind in _EXPECTED:
        return f"{source}: {key} must be {_EXPECTED[kind]}, got {got}"
    if kind == "literal_error":
        return f"{source}: {key} must be one of {ctx.get('expected')}, got {got}"
    bounds = {
        "greater_than_equal": ">=",
        "greater_than": ">",
        "less_than_equal": "<=",
        "less_than": "<",
    }
    if kind in bounds:
        bound = next(iter(ctx.values()), "?")
        if isinstance(bound, float) and bound.is_integer():
            bound = int(bound)  # "> 0", not "> 0.0": the user wrote no decimal point
        return f"{source}: {key} must be {bounds[kind]} {bound}, got {got}"
    if kind in ("too_short", "string_too_short"):
        return f"{source}: {key} must not be empty"
    if kind == "value_error":
        return f"{source}: {key}: {ctx.get('error', error['msg'])}"
    return f"{source}: {key}: {error['msg']}, got {got}"


def describe_first(source: str, errors: Sequence[ErrorDetails]) -> str:
    """The first error in one line, with a count of the rest so none is hidden."""
    message = describe(source, errors[0])
    if len(errors) > 1:
        more = len(errors) - 1
        message += f" (and {more} more error{'s' if more > 1 else ''} in the same source)"
    return message
