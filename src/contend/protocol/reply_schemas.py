"""The JSON Schemas of what critics, proposers and oracles return, and their validation.

Written for the strictest structured-output modes (every property required, no extra
properties), so the same schema can be handed to `claude --json-schema`,
`codex exec --output-schema` and the OpenAI/Anthropic APIs unchanged. It lives in the
pure core because the planners (turns.py, replies.py) build requests and read replies
against it; the agent adapters below import it from here, never the other way round.
"""

from __future__ import annotations

from typing import Any

import jsonschema

from contend.errors import ProtocolError

_LOCATION_PROPS: dict[str, Any] = {
    "path": {"type": "string", "description": "repository-relative file path"},
    "start_line": {"type": "integer", "minimum": 0},
    "end_line": {"type": "integer", "minimum": 0},
}

CRITIC_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["topic", "no_defect_found", "objections", "judgements"],
    "properties": {
        "topic": {
            "type": "string",
            "description": "your axis, a few words, e.g. 'silent fallbacks' or 'spec compliance'",
        },
        "no_defect_found": {
            "type": "boolean",
            "description": "true only when you found no new defect on your axis this turn",
        },
        "objections": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": [
                    "severity",
                    "path",
                    "start_line",
                    "end_line",
                    "claim",
                    "evidence",
                    "expected",
                ],
                "properties": {
                    "severity": {"type": "string", "enum": ["critical", "major", "minor"]},
                    **_LOCATION_PROPS,
                    "claim": {"type": "string", "description": "what is wrong, one sentence"},
                    "evidence": {
                        "type": "string",
                        "description": "the offending lines, a failing input, or a spec clause",
                    },
                    "expected": {"type": "string", "description": "what correct code would do"},
                },
            },
        },
        "judgements": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["objection_id", "action", "reason"],
                "properties": {
                    "objection_id": {"type": "string"},
                    "action": {"type": "string", "enum": ["accept", "withdraw", "re_attack"]},
                    "reason": {"type": "string"},
                },
            },
        },
    },
}

PROPOSER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["answers"],
    "properties": {
        "answers": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["objection_id", "action", "text", "evidence"],
                "properties": {
                    "objection_id": {"type": "string"},
                    "action": {"type": "string", "enum": ["fix", "concede", "defend"]},
                    "text": {"type": "string"},
                    "evidence": {
                        "type": "string",
                        "description": "for defend: a test, a line or a spec clause",
                    },
                },
            },
        }
    },
}

ORACLE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": [
        "agreed",
        "disputed_leaf",
        "evidence_for",
        "evidence_against",
        "cause",
        "human_decision",
        "decisive_check",
    ],
    "properties": {
        "agreed": {"type": "array", "items": {"type": "string"}},
        "disputed_leaf": {"type": "string"},
        "evidence_for": {"type": "string"},
        "evidence_against": {"type": "string"},
        "cause": {
            "type": "string",
            "enum": ["missing evidence", "interpretation", "expertise", "value judgement", "other"],
        },
        "human_decision": {"type": "string"},
        "decisive_check": {
            "type": "string",
            "description": "a failing test or counterexample that would settle it, if any",
        },
    },
}


def validate(output: Any, schema: dict[str, Any], *, what: str) -> dict[str, Any]:
    """Return `output` when it fits `schema`, else raise ProtocolError naming the first break."""
    if not isinstance(output, dict):
        raise ProtocolError(f"{what}: expected a JSON object, got {type(output).__name__}")
    try:
        jsonschema.validate(output, schema)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(top)"
        raise ProtocolError(f"{what}: schema violation at {where}: {exc.message}") from exc
    return output
