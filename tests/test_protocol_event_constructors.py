"""The event constructors of protocol/events.py: each builds the event of its own kind with
the data as given, and that event is what the published shape of its kind admits. The
mutation run (issue 18) found `merge` (the event a fixed thread's merge writes) run by no
unit test."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from contend.protocol import events
from contend.protocol.events import EVENT_TYPES
from contend.protocol.shapes import shape_of


def _takes_data_only(fn: Any) -> bool:
    params = inspect.signature(fn).parameters.values()
    return [p.kind for p in params] == [inspect.Parameter.VAR_KEYWORD]


# The constructors that take the event's data as keywords and keep it as given.
CONSTRUCTORS = sorted(
    name
    for name, fn in vars(events).items()
    if inspect.isfunction(fn)
    and fn.__module__ == events.__name__
    and name in EVENT_TYPES
    and _takes_data_only(fn)
)


def test_the_data_only_constructors_are_found() -> None:
    assert {"merge", "run_finished", "thread_ended", "agent_call"} <= set(CONSTRUCTORS)


def test_merge_records_what_was_merged_and_what_conflicted() -> None:
    data: dict[str, Any] = {
        "merged": "3f2a9c1",
        "threads": ["t1", "t2"],
        "conflicts": [],
    }
    event = events.merge(**data)
    assert event == {"kind": "merge", "data": data}
    assert shape_of(EVENT_TYPES["merge"]).check(event, "merge")["data"]["merged"] == "3f2a9c1"


@pytest.mark.parametrize("name", CONSTRUCTORS)
def test_each_constructor_builds_its_own_kind(name: str) -> None:
    event = getattr(events, name)()  # no data: the kind alone is checked here
    assert event == {"kind": name, "data": {}}
