"""Checking read JSON against a TypedDict of protocol/event_types.py, once, at the boundary.

`shape_of(DataType)` compiles a checker from the TypedDict's annotations: required keys
present, every known key of its type (str, int, float, bool, None, list[T], dict[str, T],
Literal[...], unions, nested TypedDicts; Any is anything). Extra keys are left alone, as a
versioned log's reader must. The fold checks the records it keeps (gates, skips, failures,
the spec, …) this way, so every consumer reads them typed, without coercing again.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from typing import Any, Generic, Literal, TypeVar, Union, cast, get_args, get_origin

from typing_extensions import get_type_hints, is_typeddict

from contend.errors import ProtocolError

T = TypeVar("T")
_Check = Callable[[Any], bool]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_SIMPLE: dict[Any, _Check] = {
    str: lambda v: isinstance(v, str),
    int: _is_int,
    float: _is_number,
    bool: lambda v: isinstance(v, bool),
    type(None): lambda v: v is None,
    Any: lambda v: True,
}


def _check_of(annotation: Any) -> _Check:
    simple = _SIMPLE.get(annotation)
    if simple is not None:
        return simple
    if is_typeddict(annotation):
        fields = _fields(annotation)
        return lambda v: isinstance(v, dict) and _problem(fields, v) is None
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        allowed = frozenset(args)
        return lambda v: isinstance(v, str | int) and v in allowed
    if origin in (Union, types.UnionType):
        checks = [_check_of(a) for a in args]
        return lambda v: any(c(v) for c in checks)
    if origin is list:
        (item,) = [_check_of(a) for a in args]
        return lambda v: isinstance(v, list) and all(item(x) for x in v)
    if origin is dict:
        key, value = (_check_of(a) for a in args)
        return lambda v: isinstance(v, dict) and all(key(k) and value(x) for k, x in v.items())
    raise TypeError(f"shapes: no check for {annotation!r}")


_Fields = tuple[tuple[str, bool, _Check, str], ...]  # key, required, check, annotation


def _fields(data_type: type) -> _Fields:
    required = cast(frozenset[str], data_type.__required_keys__)  # type: ignore[attr-defined]
    hints = get_type_hints(data_type)
    return tuple(
        (key, key in required, _check_of(annotation), _name(annotation))
        for key, annotation in hints.items()
    )


def _name(annotation: Any) -> str:
    # A parametrized type by its parameters (`list[int]`, `Literal['a', 'b']`): its bare
    # `__name__` ("list", "Literal") would not say what the value should have been.
    if get_origin(annotation) is None:
        named = getattr(annotation, "__name__", None)
        if named:
            return str(named)
    return str(annotation).replace("typing.", "")


def _problem(fields: _Fields, value: Mapping[str, Any]) -> str | None:
    for key, required, check, name in fields:
        if key not in value:
            if required:
                return f"{key!r} is missing"
        elif not check(value[key]):
            return f"{key!r} is not {name}: {value[key]!r:.80}"
    return None


class Shape(Generic[T]):
    """A compiled check of one TypedDict."""

    def __init__(self, data_type: type[T]) -> None:
        self._fields = _fields(data_type)

    def check(self, value: Any, where: str) -> T:
        """`value` as the TypedDict, or ProtocolError naming the first key that breaks it."""
        if not isinstance(value, dict):
            raise ProtocolError(f"{where}: expected an object, got {type(value).__name__}")
        problem = _problem(self._fields, value)
        if problem is not None:
            raise ProtocolError(f"{where}: {problem}")
        return cast(T, value)


def shape_of(data_type: type[T]) -> Shape[T]:
    return Shape(data_type)
