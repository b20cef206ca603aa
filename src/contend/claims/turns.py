"""What crosses the wire in a claim round: the JSON Schemas an axis agent, the proponent and
the meta-judge answer in, and the pure parsing of their replies into convergence's types.

Schemas are written for the strictest structured-output modes (every property required, no
extra properties; "" or [] stand for "none"), so they can be handed unchanged to
`claude --json-schema`, `codex exec --output-schema` and the API backends.

Parsing never guesses. An axis turn that neither attacks nor declares "no attack point", or
that declares "no attack point" while attacking, or names an unknown axis as the target of
a meta-attack, is `unparseable` — a protocol error for the ledger, never a quiet accept.
Attack ids are contend's (`IL-1`, `EF-2`, …, by axis), so one agent cannot answer for
another's attack by reusing its id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from contend.claims.convergence import Attack, Concession, Turn, parse_concession

AXIS_PREFIX: Mapping[str, str] = {
    "internal-logic": "IL",
    "external-fact": "EF",
    "internal-fact": "IF",
    "external-logic": "EL",
    "edge-case": "EC",
    "prior-art": "PA",
    "incentive": "IN",
}

_STR: dict[str, Any] = {"type": "string"}
_STRS: dict[str, Any] = {"type": "array", "items": _STR}


def _object(props: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(props),
        "properties": props,
    }


_ATTACK = _object(
    {
        "text": {**_STR, "description": "the attack, one or two sentences"},
        "decisive": {
            "type": "boolean",
            "description": "true when, if it stands, the claim must be rejected",
        },
        "evidence": {
            **_STRS,
            "description": "evidence ids (E1, P2-1) or URLs/locators the attack rests on",
        },
        "narrowing": {
            **_STR,
            "description": 'a narrower claim that would answer it, or "" when none',
        },
    }
)
_META = _object(
    {
        "target": {**_STR, "description": "the axis whose position or attack you attack"},
        "text": _STR,
        "decisive": {"type": "boolean"},
        "evidence": _STRS,
    }
)
TURN_SCHEMA: dict[str, Any] = _object(
    {
        "no_attack_point": {
            "type": "boolean",
            "description": "true only when no semantically new attack remains on your axis",
        },
        "position": {"type": "string", "enum": ["accept", "reject"]},
        "attacks": {"type": "array", "items": _ATTACK},
        "meta_attacks": {"type": "array", "items": _META},
        "withdrawn": {**_STRS, "description": "ids of your own open attacks you withdraw"},
        "concessions": {
            "type": "array",
            "items": _object(
                {
                    "attack_id": {**_STR, "description": "your attack you concede"},
                    "text": {
                        **_STR,
                        "description": "exactly: my evidence X was specifically defeated "
                        "by opposing evidence Y",
                    },
                }
            ),
        },
        "external_tools": {
            **_STRS,
            "description": "external tools, libraries, CLIs or versions the claim relies on",
        },
        "community_sources": {
            **_STRS,
            "description": "URLs of independent community reports you actually read",
        },
    }
)
PROPONENT_SCHEMA: dict[str, Any] = _object(
    {
        "evidence": {
            "type": "array",
            "items": _object(
                {
                    "source_type": {"type": "string", "enum": ["web", "local", "logic"]},
                    "accessible_url": _STR,
                    "finding": _STR,
                    "file_path": _STR,
                    "page": _STR,
                    "region": {"type": "string", "enum": ["top", "middle", "bottom", "n/a", ""]},
                    "locator_note": _STR,
                    "argument": _STR,
                }
            ),
        },
        "answers": {**_STRS, "description": "ids of the open attacks the new evidence answers"},
        "narrowed_claim": {**_STR, "description": 'a narrower claim you now defend, or ""'},
        "added_assumptions": _STRS,
        "withdrawn_evidence": {**_STRS, "description": "ids of evidence you withdraw"},
        "schema_context": {**_STR, "description": 'a changed schema/SSOT context, or ""'},
        "note": _STR,
    }
)


@dataclass(frozen=True, slots=True)
class ParsedTurn:
    turn: Turn
    error: str | None  # why the turn is a protocol error (silent / unparseable)
    external_tools: tuple[str, ...] = ()
    community_sources: tuple[str, ...] = ()


def silent_turn(axis: str, why: str) -> ParsedTurn:
    return ParsedTurn(Turn(axis, "silent"), why)


def parse_turn(
    axis: str,
    output: Mapping[str, Any] | None,
    error: str | None,
    *,
    seated: Sequence[str],
    next_number: int,
) -> ParsedTurn:
    """One axis agent's reply as a Turn. `next_number` is the number the agent's first new
    attack gets (its attacks so far + 1)."""
    if output is None:
        return ParsedTurn(Turn(axis, "unparseable"), error or "no structured output")
    try:
        return _parse(axis, output, seated, next_number)
    except (KeyError, TypeError, ValueError) as exc:
        return ParsedTurn(Turn(axis, "unparseable"), f"unusable turn: {exc}")


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"{what} must be a list of strings")
    return tuple(v.strip() for v in value if v.strip())


def _parse(
    axis: str, output: Mapping[str, Any], seated: Sequence[str], next_number: int
) -> ParsedTurn:
    prefix = AXIS_PREFIX[axis]
    attacks: list[Attack] = []
    for raw in output["attacks"]:
        text = str(raw["text"]).strip()
        if not text:
            raise ValueError("an attack without text")
        narrowing = str(raw.get("narrowing", "")).strip() or None
        attacks.append(
            Attack(
                f"{prefix}-{next_number + len(attacks)}",
                axis,
                text,
                decisive=bool(raw["decisive"]),
                evidence=_strings(raw["evidence"], "evidence"),
                narrowing=narrowing,
            )
        )
    metas: list[Attack] = []
    for raw in output["meta_attacks"]:
        target = str(raw["target"]).strip()
        if target not in seated or target == axis:
            raise ValueError(f"meta-attack on {target!r}, which is no other agent's axis")
        metas.append(
            Attack(
                f"{prefix}-{next_number + len(attacks) + len(metas)}",
                axis,
                str(raw["text"]).strip(),
                decisive=bool(raw["decisive"]),
                evidence=_strings(raw["evidence"], "evidence"),
                target=target,
            )
        )
    concessions: list[Concession] = [
        parse_concession(axis, str(c["text"]), str(c["attack_id"]).strip() or None)
        for c in output["concessions"]
    ]
    position = output["position"]
    if position not in ("accept", "reject"):
        raise ValueError(f"position {position!r} is neither accept nor reject")
    declared = output["no_attack_point"]
    if not isinstance(declared, bool):
        raise TypeError("no_attack_point must be true or false")
    if declared and attacks:
        raise ValueError("declares no attack point and attacks in the same turn")
    withdrawn = _strings(output["withdrawn"], "withdrawn")
    tools = _strings(output.get("external_tools", []), "external_tools")
    sources = _strings(output.get("community_sources", []), "community_sources")
    if attacks or metas:
        kind = "attack"
    elif declared:
        kind = "no-attack-point"
    else:
        # Neither an attack nor "no attack point": the seed allows no silence.
        return ParsedTurn(
            Turn(axis, "silent", withdrawn=withdrawn, concessions=tuple(concessions)),
            "neither attacked nor declared 'no attack point'",
            tools,
            sources,
        )
    turn = Turn(
        axis,
        kind,  # type: ignore[arg-type]
        position=position,
        attacks=tuple(attacks),
        meta_attacks=tuple(metas),
        withdrawn=withdrawn,
        concessions=tuple(concessions),
    )
    return ParsedTurn(turn, None, tools, sources)
