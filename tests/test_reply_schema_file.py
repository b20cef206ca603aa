"""The published schema of an agent's reply (`contend.reply/v1`): no drift from the schemas
contend hands to the models and validates against, and it accepts and refuses what they do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from contend.errors import ProtocolError
from contend.protocol.reply_schema_file import default_path, main, render_schema
from contend.protocol.reply_schemas import CRITIC_SCHEMA, ORACLE_SCHEMA, PROPOSER_SCHEMA, validate

PUBLISHED = Path(__file__).resolve().parents[1] / "schemas" / "reply.v1.schema.json"

CRITIC_REPLY: dict[str, Any] = {
    "topic": "silent fallbacks",
    "no_defect_found": False,
    "objections": [
        {
            "severity": "major",
            "path": "src/app.py",
            "start_line": 3,
            "end_line": 4,
            "claim": "a failed parse returns an empty config",
            "evidence": "except ValueError: return {}",
            "expected": "raise, naming the file",
        }
    ],
    "judgements": [{"objection_id": "o1", "action": "withdraw", "reason": "fixed"}],
}
PROPOSER_REPLY: dict[str, Any] = {
    "answers": [{"objection_id": "o1", "action": "defend", "text": "no", "evidence": "t.py:9"}]
}
ORACLE_REPLY: dict[str, Any] = {
    "agreed": ["the parse can fail"],
    "disputed_leaf": "whether {} is a valid config",
    "evidence_for": "docs say so",
    "evidence_against": "callers index it",
    "cause": "interpretation",
    "human_decision": "is an empty config allowed?",
    "decisive_check": "",
}
ROLE_NAMES = ("critic", "oracle", "proposer")


def _role(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    # Looked up when a test runs, not bound at import: a mutation run then rebinds a
    # mutated schema in place (bench/mutation: a value a test file reads at import is
    # judged by re-importing every module instead).
    return {
        "critic": (CRITIC_SCHEMA, CRITIC_REPLY),
        "proposer": (PROPOSER_SCHEMA, PROPOSER_REPLY),
        "oracle": (ORACLE_SCHEMA, ORACLE_REPLY),
    }[name]


@pytest.fixture(scope="module")
def published() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return schema


def test_published_schema_matches_the_reply_schemas() -> None:
    assert PUBLISHED.read_text(encoding="utf-8") == render_schema(), (
        "schemas/reply.v1.schema.json drifted from contend.protocol.reply_schemas; "
        "regenerate it with `python -m contend.protocol.reply_schema_file`"
    )


def test_default_output_path_is_the_published_file() -> None:
    assert default_path() == PUBLISHED


def test_main_writes_the_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "nested" / "reply.schema.json"
    assert main([str(out)]) == 0
    assert out.read_text(encoding="utf-8") == render_schema()
    assert capsys.readouterr().out.strip() == str(out)
    assert main(["a", "b"]) == 2
    assert "python -m contend.protocol.reply_schema_file" in capsys.readouterr().err


@pytest.mark.parametrize("role", ROLE_NAMES)
def test_each_role_accepts_what_contend_accepts(role: str, published: dict[str, Any]) -> None:
    schema, reply = _role(role)
    assert validate(reply, schema, what=role) == reply
    role_schema = {**published, "$ref": f"#/$defs/{role}"}
    assert list(Draft202012Validator(role_schema).iter_errors(reply)) == []


@pytest.mark.parametrize("role", ROLE_NAMES)
def test_each_role_refuses_an_extra_key_as_contend_does(
    role: str, published: dict[str, Any]
) -> None:
    schema, reply = _role(role)
    extra = {**reply, "confidence": 0.9}
    with pytest.raises(ProtocolError, match="schema violation at \\(top\\)"):
        validate(extra, schema, what=role)
    role_schema = {**published, "$ref": f"#/$defs/{role}"}
    errors = list(Draft202012Validator(role_schema).iter_errors(extra))
    assert [e.validator for e in errors] == ["additionalProperties"]


def test_the_published_roles_are_the_three_contend_asks_for(published: dict[str, Any]) -> None:
    assert published["title"] == "contend.reply/v1"
    assert sorted(published["$defs"]) == ["critic", "oracle", "proposer"]
