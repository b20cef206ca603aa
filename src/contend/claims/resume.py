"""A person as the proponent between rounds, across invocations.

With `--proposer human` a claim's rounds pause where the planner asks for the proponent
(`claim_awaiting_proponent`). The person answers with

    contend respond CLAIM --run RUN_DIR --reply FILE     (JSON or YAML; the proponent schema)

which appends `claim_proponent_reply` to the run's verified ledger, and

    contend verify --resume RUN_DIR --agent …

continues: the claim's recorded rounds are replayed through the planner (claims/replay.py,
which refuses a round context that differs from the recorded one, so a changed card cannot
slip in), the person's reply goes through the checkpoint like an agent's, and the rounds go
on. Here: finding what waits and what was answered in a ledger's entries, and reading a
person's reply file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from contend.claims.events import Event
from contend.errors import ProtocolError, UserError
from contend.protocol.reply_schemas import validate

REPLAYED = frozenset({"claim_round_started", "claim_turn", "claim_checkpoint", "claim_proponent"})
EMPTY_REPLY: Mapping[str, Any] = {
    "evidence": [],
    "answers": [],
    "narrowed_claim": "",
    "added_assumptions": [],
    "withdrawn_evidence": [],
    "schema_context": "",
    "note": "",
}


@dataclass(slots=True)
class Waiting:
    claim_id: str
    round: int
    recorded: list[Event] = field(default_factory=list)
    reply: dict[str, Any] | None = None  # the person's, once `contend respond` gave it


def waiting_claims(entries: Sequence[Mapping[str, Any]]) -> dict[str, Waiting]:
    """The claims of a ledger that wait for the proponent (a person), with their recorded
    replies (for the replay) and the person's answer if one was given."""
    recorded: dict[str, list[Event]] = {}
    waiting: dict[str, Waiting] = {}
    for entry in entries:
        kind, data = str(entry["kind"]), entry["data"]
        cid = data.get("claim_id") if isinstance(data, Mapping) else None
        if not isinstance(cid, str):
            continue
        if kind in REPLAYED:
            recorded.setdefault(cid, []).append((kind, dict(data)))
            if kind in ("claim_checkpoint", "claim_proponent"):
                waiting.pop(cid, None)  # the proponent's turn was taken
        elif kind == "claim_awaiting_proponent":
            waiting[cid] = Waiting(cid, int(data["round"]))
        elif kind == "claim_proponent_reply" and cid in waiting:
            waiting[cid].reply = dict(data["reply"]["output"])
    for cid, w in waiting.items():
        w.recorded = list(recorded.get(cid, []))
    return waiting


def read_reply(path: Path) -> dict[str, Any]:
    """A person's reply file: the proponent schema's fields (any left out are empty)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"--reply {path}: no such file") from None
    except UnicodeDecodeError:
        raise UserError(f"--reply {path}: not UTF-8 text") from None
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise UserError(f"--reply {path}: not valid JSON/YAML: {exc}") from None
    if not isinstance(data, dict):
        raise UserError(f"--reply {path}: must hold one object (the proponent's reply)")
    from contend.claims.turns import PROPONENT_SCHEMA

    items = data.get("evidence", [])
    if isinstance(items, list):
        blank = dict.fromkeys(PROPONENT_SCHEMA["properties"]["evidence"]["items"]["required"], "")
        data["evidence"] = [
            {**blank, **i, "page": str(i.get("page", ""))} if isinstance(i, dict) else i
            for i in items
        ]
    try:
        return validate({**EMPTY_REPLY, **data}, PROPONENT_SCHEMA, what=f"--reply {path}")
    except ProtocolError as exc:
        raise UserError(str(exc)) from None
