"""An agent's reply that does not fit its role's schema is refused with the role named
(protocol/replies.py): the ledger's `agent_failed` and the report say whose reply broke,
and where."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from contend.errors import ProtocolError
from contend.protocol.replies import parse_critic, parse_oracle, parse_proposer

PARSERS: list[tuple[str, Callable[[Any], Any]]] = [
    ("critic", parse_critic),
    ("proposer", parse_proposer),
    ("oracle", parse_oracle),
]


@pytest.mark.parametrize(("role", "parse"), PARSERS)
def test_a_reply_that_is_not_an_object_is_refused_naming_the_role(
    role: str, parse: Callable[[Any], Any]
) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse(["not", "an", "object"])
    assert str(caught.value) == f"{role}: expected a JSON object, got list"


@pytest.mark.parametrize(("role", "parse"), PARSERS)
def test_a_reply_that_breaks_the_schema_is_refused_naming_the_role_and_the_place(
    role: str, parse: Callable[[Any], Any]
) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse({})
    assert str(caught.value).startswith(f"{role}: schema violation at (top): ")
