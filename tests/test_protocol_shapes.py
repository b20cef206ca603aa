"""Checking read JSON against an event TypedDict (protocol/shapes.py): what each annotation
admits, the first key that breaks it named, and `Any` admitting anything — found unchecked
by the mutation run (issue 18): `Any`'s check turned to "nothing" survived."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

import pytest

from contend.errors import ProtocolError
from contend.protocol.shapes import shape_of


class _Place(TypedDict):
    path: str
    line: int


class _Optional(TypedDict, total=False):
    note: str | None
    place: _Place


class _Record(_Optional):
    name: str
    count: int
    kind: Literal["a", "b"]
    extra: Any
    table: dict[str, Any]
    items: list[int]
    ratio: float
    flag: bool


GOOD: dict[str, Any] = {
    "name": "x",
    "count": 2,
    "kind": "a",
    "extra": None,
    "table": {"k": [1, {"nested": object()}]},
    "items": [1, 2],
    "ratio": 1,  # an int is a JSON number too
    "flag": False,
}


@pytest.mark.parametrize("extra", [None, 0, "s", [1], {"a": 1}, 1.5, True])
def test_any_admits_every_value(extra: Any) -> None:
    record = {**GOOD, "extra": extra, "table": {"v": extra}}
    assert shape_of(_Record).check(record, "ledger line 3") is record


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"count": True}, "'count' is not int: True"),
        ({"ratio": "0.5"}, "'ratio' is not float: '0.5'"),
        ({"ratio": True}, "'ratio' is not float: True"),
        ({"flag": 0}, "'flag' is not bool: 0"),
        ({"kind": "c"}, "'kind' is not Literal['a', 'b']: 'c'"),
        ({"items": [1, "2"]}, "'items' is not list[int]: [1, '2']"),
        ({"table": {1: "x"}}, "'table' is not dict[str, Any]: {1: 'x'}"),
        ({"note": 3}, "'note' is not str | None: 3"),
        ({"place": "a.py:3"}, "'place' is not _Place: 'a.py:3'"),
        ({"place": {"path": "a.py"}}, "'place' is not _Place: {'path': 'a.py'}"),
    ],
)
def test_the_first_key_that_breaks_the_shape_is_named(change: dict[str, Any], problem: str) -> None:
    with pytest.raises(ProtocolError) as raised:
        shape_of(_Record).check({**GOOD, **change}, "ledger line 3")
    assert str(raised.value) == f"ledger line 3: {problem}"


def test_a_missing_required_key_and_a_non_object_are_refused() -> None:
    shape = shape_of(_Record)
    without = {k: v for k, v in GOOD.items() if k != "count"}
    with pytest.raises(ProtocolError, match=r"^where: 'count' is missing$"):
        shape.check(without, "where")
    with pytest.raises(ProtocolError, match=r"^where: expected an object, got list$"):
        shape.check([GOOD], "where")
    assert shape.check({**GOOD, "unknown": 1}, "where")["name"] == "x"  # extra keys allowed
    nested = {**GOOD, "place": {"path": "a.py", "line": 3}}
    assert shape.check(nested, "where") is nested


class _Unsupported(TypedDict):
    tags: set[str]


def test_an_annotation_with_no_check_is_refused_when_the_shape_is_built() -> None:
    """A TypedDict the checker cannot read fails at once, where it is compiled — never a
    shape that lets the key through unchecked."""
    with pytest.raises(TypeError, match=r"^shapes: no check for set\[str\]$"):
        shape_of(_Unsupported)
