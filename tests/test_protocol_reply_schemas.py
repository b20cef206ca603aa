"""What an agent's reply must be before any planner reads it (protocol/reply_schemas.py):
a reply that breaks the schema is refused — a ProtocolError, which the thread counts as a
malformed output and which can end in an escalation, never in a reply read as if it were
well formed. The replies below are written by hand, not derived from the schemas, so a
schema that stops checking something fails here.

The schemas are also handed to the strictest structured-output modes unchanged (the
module says so): every object closed to extra properties, every property required, every
node typed — checked here as the contract it is."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from contend.errors import ProtocolError
from contend.protocol.reply_schemas import (
    CRITIC_SCHEMA,
    ORACLE_SCHEMA,
    PROPOSER_SCHEMA,
    validate,
)

OBJECTION = {
    "severity": "major",
    "path": "src/app.py",
    "start_line": 3,
    "end_line": 4,
    "claim": "the handler swallows the error",
    "evidence": "line 4: except Exception: pass",
    "expected": "the error reaches the caller",
}
JUDGEMENT = {"objection_id": "o-1", "action": "withdraw", "reason": "fixed in the new diff"}
CRITIC = {
    "topic": "silent fallbacks",
    "no_defect_found": False,
    "objections": [OBJECTION],
    "judgements": [JUDGEMENT],
}
ANSWER = {"objection_id": "o-1", "action": "defend", "text": "it is logged", "evidence": "log.py:9"}
PROPOSER = {"answers": [ANSWER]}
ORACLE = {
    "agreed": ["the handler exists"],
    "disputed_leaf": "whether logging is enough",
    "evidence_for": "log.py:9",
    "evidence_against": "nobody reads the log",
    "cause": "value judgement",
    "human_decision": "is a log line an acceptable report?",
    "decisive_check": "grep the alerting config",
}

VALID = {"critic": CRITIC, "proposer": PROPOSER, "oracle": ORACLE}


def _schema(kind: str) -> dict[str, Any]:
    # Looked up when a test runs, never held from collection: the mutation tool then
    # judges a mutant of a schema by rebinding its name (bench/mutation/patch.py).
    return {"critic": CRITIC_SCHEMA, "proposer": PROPOSER_SCHEMA, "oracle": ORACLE_SCHEMA}[kind]


def _changed(reply: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """A deep copy of `reply` with the value at `path` replaced (`...`: deleted)."""
    out = copy.deepcopy(reply)
    node: Any = out
    for key in path[:-1]:
        node = node[key]
    if value is ...:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


@pytest.mark.parametrize("kind", sorted(VALID))
def test_a_well_formed_reply_is_returned_as_it_is(kind: str) -> None:
    reply = copy.deepcopy(VALID[kind])
    assert validate(reply, _schema(kind), what=kind) is reply


# (which reply, where, the value put there — `...` deletes it, what the error names)
BREAKS = [
    # extra properties, at every level
    ("critic", ("verdict",), "pass", "(top)"),
    ("critic", ("objections", 0, "confidence"), 0.9, "objections/0"),
    ("critic", ("judgements", 0, "note"), "x", "judgements/0"),
    ("proposer", ("answers", 0, "patch"), "diff", "answers/0"),
    ("proposer", ("summary",), "x", "(top)"),
    ("oracle", ("verdict",), "x", "(top)"),
    # every required property
    *[("critic", (k,), ..., "(top)") for k in CRITIC],
    *[("critic", ("objections", 0, k), ..., "objections/0") for k in OBJECTION],
    *[("critic", ("judgements", 0, k), ..., "judgements/0") for k in JUDGEMENT],
    ("proposer", ("answers",), ..., "(top)"),
    *[("proposer", ("answers", 0, k), ..., "answers/0") for k in ANSWER],
    *[("oracle", (k,), ..., "(top)") for k in ORACLE],
    # types
    ("critic", ("topic",), 7, "topic"),
    ("critic", ("no_defect_found",), "no", "no_defect_found"),
    ("critic", ("objections",), {"0": OBJECTION}, "objections"),
    ("critic", ("objections", 0), "a string", "objections/0"),
    ("critic", ("judgements",), "none", "judgements"),
    ("critic", ("judgements", 0), ["o-1"], "judgements/0"),
    ("critic", ("objections", 0, "path"), ["src/app.py"], "objections/0/path"),
    ("critic", ("objections", 0, "start_line"), "3", "objections/0/start_line"),
    ("critic", ("objections", 0, "end_line"), 4.5, "objections/0/end_line"),
    ("critic", ("objections", 0, "claim"), None, "objections/0/claim"),
    ("critic", ("objections", 0, "evidence"), 1, "objections/0/evidence"),
    ("critic", ("objections", 0, "expected"), False, "objections/0/expected"),
    ("critic", ("judgements", 0, "objection_id"), 1, "judgements/0/objection_id"),
    ("critic", ("judgements", 0, "reason"), None, "judgements/0/reason"),
    ("proposer", ("answers",), {"objection_id": "o-1"}, "answers"),
    ("proposer", ("answers", 0), "fix", "answers/0"),
    ("proposer", ("answers", 0, "objection_id"), None, "answers/0/objection_id"),
    ("proposer", ("answers", 0, "text"), 3, "answers/0/text"),
    ("proposer", ("answers", 0, "evidence"), ["log.py:9"], "answers/0/evidence"),
    ("oracle", ("agreed",), "the handler exists", "agreed"),
    ("oracle", ("agreed", 0), 1, "agreed/0"),
    *[("oracle", (k,), 0, k) for k in ORACLE if k not in ("agreed", "cause")],
    # bounds and the closed vocabularies
    ("critic", ("objections", 0, "start_line"), -1, "objections/0/start_line"),
    ("critic", ("objections", 0, "end_line"), -1, "objections/0/end_line"),
    ("critic", ("objections", 0, "severity"), "blocker", "objections/0/severity"),
    ("critic", ("objections", 0, "severity"), 2, "objections/0/severity"),
    ("critic", ("judgements", 0, "action"), "press", "judgements/0/action"),
    ("critic", ("judgements", 0, "action"), None, "judgements/0/action"),
    ("proposer", ("answers", 0, "action"), "ignore", "answers/0/action"),
    ("proposer", ("answers", 0, "action"), 0, "answers/0/action"),
    ("oracle", ("cause",), "luck", "cause"),
    ("oracle", ("cause",), ["other"], "cause"),
]


@pytest.mark.parametrize(("kind", "path", "value", "where"), BREAKS)
def test_a_reply_that_breaks_the_schema_is_refused_naming_where(
    kind: str, path: tuple[Any, ...], value: Any, where: str
) -> None:
    reply = _changed(VALID[kind], path, value)
    pattern = f"^{kind}: schema violation at {re.escape(where)}: "
    with pytest.raises(ProtocolError, match=pattern):
        validate(reply, _schema(kind), what=kind)


@pytest.mark.parametrize(
    ("kind", "path", "value"),
    [
        ("critic", ("objections", 0, "severity"), "critical"),
        ("critic", ("objections", 0, "severity"), "minor"),
        ("critic", ("objections", 0, "start_line"), 0),
        ("critic", ("objections", 0, "end_line"), 0),
        ("critic", ("objections",), []),
        ("critic", ("judgements", 0, "action"), "accept"),
        ("critic", ("judgements", 0, "action"), "re_attack"),
        ("critic", ("no_defect_found",), True),
        ("proposer", ("answers", 0, "action"), "fix"),
        ("proposer", ("answers", 0, "action"), "concede"),
        ("proposer", ("answers",), []),
        ("oracle", ("cause",), "missing evidence"),
        ("oracle", ("cause",), "interpretation"),
        ("oracle", ("cause",), "expertise"),
        ("oracle", ("cause",), "other"),
        ("oracle", ("agreed",), []),
    ],
)
def test_every_word_of_the_closed_vocabularies_and_the_bounds_is_accepted(
    kind: str, path: tuple[Any, ...], value: Any
) -> None:
    reply = _changed(VALID[kind], path, value)
    assert validate(reply, _schema(kind), what=kind) == reply


@pytest.mark.parametrize("output", [None, [], "{}", 3])
def test_anything_but_an_object_is_refused_by_its_type(output: Any) -> None:
    with pytest.raises(ProtocolError, match=r"^critic: expected a JSON object, got "):
        validate(output, CRITIC_SCHEMA, what="critic")


def _objects(node: Any, where: str = "") -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        if node.get("type") == "object" or "properties" in node:
            out.append((where or "(top)", node))
        for key, value in node.items():
            out += _objects(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _objects(value, f"{where}/{i}")
    return out


def _typed(node: dict[str, Any], where: str) -> list[str]:
    """Every schema node of a property or an item, and whether it names a type."""
    missing = [] if isinstance(node.get("type"), str) else [where]
    for key, prop in node.get("properties", {}).items():
        missing += _typed(prop, f"{where}/{key}")
    if "items" in node:
        missing += _typed(node["items"], f"{where}/items")
    return missing


@pytest.mark.parametrize("kind", sorted(VALID))
def test_the_schemas_meet_the_strict_structured_output_contract(kind: str) -> None:
    objects = _objects(_schema(kind))
    assert objects
    for where, node in objects:
        assert node["type"] == "object", where
        assert node["additionalProperties"] is False, where
        assert sorted(node["required"]) == sorted(node["properties"]), where
    assert _typed(_schema(kind), kind) == []
