"""The claim card of seeds/002 Step 1 and its evidence items, as pydantic models.

Field names are the seed's own: kebab-case (`claim-id`, `evidence-list`) for the card, the
seed's snake_case for source locators (`accessible_url`, `file_path`, `locator_note`).
Every field also answers to its other spelling (`claim_id`, `file-path`); giving both
spellings of one field is an error, as is any field the card does not define.

What the seed makes a *precheck* decision (missing guarantees on a theoretical claim, an
unclear abstraction level, a missing page or region) is optional here on purpose: the
precheck escalates it with a reason instead of refusing the card (gate.py). What the seed
requires without a rule of its own (id, text, type, shape, evidence list, owner approval)
is required here.

Two fields are contend's, not the seed's: `statement-kind` (what Step 0 may bypass: a
self-identical fixed fact, a plan, a question or other non-assertive statement, a
caller-internal calculation — declared by the caller, never guessed) and `verification`
(the seed's "verification metadata marked required or recommended"), plus
`consensus-weights` for the weighted consensus rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    AliasGenerator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    WithJsonSchema,
    model_validator,
)

ClaimType = Literal["empirical", "theoretical", "methodological", "composition", "prior-art"]
ClaimShape = Literal["fact", "logic", "mixed"]
AbstractionLevel = Literal["theory", "method", "experiment", "system", "product"]
ABSTRACTION_LEVELS: tuple[str, ...] = ("theory", "method", "experiment", "system", "product")
Region = Literal["top", "middle", "bottom", "n/a"]
ConsensusRule = Literal["unanimity", "majority", "weighted"]
Level = Literal[1, 2, 3]
LevelName = Literal[
    "1", "2", "3", "level-1", "level-2", "level-3",
    "level-1-simple", "level-2-evidence-required", "level-3-high-stakes",
]  # fmt: skip
StatementKind = Literal[
    "assertion",
    "self-identical-fact",
    "plan",
    "question",
    "non-assertive",
    "caller-internal-calculation",
]
Verification = Literal["required", "recommended", "not-required"]

_LEVELS: dict[str, Level] = {
    "1": 1,
    "level-1": 1,
    "level-1-simple": 1,
    "2": 2,
    "level-2": 2,
    "level-2-evidence-required": 2,
    "3": 3,
    "level-3": 3,
    "level-3-high-stakes": 3,
}


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def _snake(name: str) -> str:
    return name.replace("-", "_")


class _Card(BaseModel):
    """Both spellings of every field are accepted; unknown fields are an error."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        coerce_numbers_to_str=True,
        populate_by_name=False,
        alias_generator=AliasGenerator(
            validation_alias=lambda name: AliasChoices(_kebab(name), name),
            serialization_alias=_kebab,
        ),
    )

    @model_validator(mode="before")
    @classmethod
    def _one_spelling(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            keys = [k for k in data if isinstance(k, str)]
            for key in keys:
                other = _snake(key) if "-" in key else _kebab(key)
                if other != key and other in data:
                    raise ValueError(f"both {key!r} and {other!r} given: use one spelling")
        return data


class _Locator(_Card):
    # The seed's locator fields are snake_case; kebab-case is the alias here.
    model_config = ConfigDict(
        alias_generator=AliasGenerator(
            validation_alias=lambda name: AliasChoices(name, _kebab(name)),
            serialization_alias=lambda name: name,
        ),
    )

    id: str | None = Field(
        default=None, description="Evidence id (E1, E2, … by position when not given)."
    )


class WebEvidence(_Locator):
    """A web source: its URL and the finding or value it supports."""

    source_type: Literal["web"]
    accessible_url: str = Field(pattern=r"^https?://\S+$")
    finding: str | None = None
    value: str | None = None

    @model_validator(mode="after")
    def _has_finding(self) -> WebEvidence:
        if not (self.finding or self.value):
            raise ValueError("web evidence needs `finding` or `value` (what the page shows)")
        return self


class LocalEvidence(_Locator):
    """A local or attached file, located by page and region (seed Step 1)."""

    source_type: Literal["local", "file", "attached"] = "local"
    file_path: str = Field(
        min_length=1,
        validation_alias=AliasChoices("file_path", "file-path", "filename"),
        serialization_alias="file_path",
    )
    page: Annotated[int, Field(ge=1)] | Literal["n/a"] | None = Field(
        default=None, description="1-based page (form-feed pages for text files), or n/a."
    )
    region: Region | None = Field(
        default=None, description="Third of the page or file: top, middle, bottom, or n/a."
    )
    locator_note: str | None = None


class LogicEvidence(_Locator):
    """A logical chain offered as evidence (seed: 'or logical chains')."""

    source_type: Literal["logic"]
    argument: str = Field(min_length=1)


def _evidence_kind(value: Any) -> str | None:
    if isinstance(value, BaseModel):
        return str(getattr(value, "source_type", "local")).replace("file", "local")
    if not isinstance(value, Mapping):
        return None
    kind = value.get("source_type", value.get("source-type"))
    if kind is None:
        if any(k in value for k in ("file_path", "file-path", "filename")):
            return "local"
        if any(k in value for k in ("accessible_url", "accessible-url")):
            return "web"
        return None
    return "local" if kind in ("local", "file", "attached") else str(kind)


def _flatten_locator(value: Any) -> Any:
    """The seed nests `source-locator.source_type`; the flat form is the same fields."""
    if not isinstance(value, Mapping):
        return value
    nested_key = next((k for k in ("source-locator", "source_locator") if k in value), None)
    if nested_key is None:
        return value
    nested = value[nested_key]
    if not isinstance(nested, Mapping):
        raise ValueError(f"{nested_key} must be a mapping of locator fields")
    flat = {k: v for k, v in value.items() if k != nested_key}
    for key, item in nested.items():
        if key in flat and flat[key] != item:
            raise ValueError(f"{key!r} given twice, in {nested_key} and beside it, differently")
        flat[key] = item
    return flat


Evidence = Annotated[
    Annotated[WebEvidence, Tag("web")]
    | Annotated[LocalEvidence, Tag("local")]
    | Annotated[LogicEvidence, Tag("logic")],
    Discriminator(
        _evidence_kind,
        custom_error_type="evidence_kind",
        custom_error_message=(
            "evidence needs source_type web (accessible_url + finding/value), local "
            "(file_path, page, region) or logic (argument)"
        ),
    ),
    BeforeValidator(_flatten_locator),
]


def _level(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _LEVELS:
        return _LEVELS[value.strip().lower()]
    return value


def _string_list(value: Any) -> Any:
    # A single string where the seed means a list: one item, not a list of characters.
    return [value] if isinstance(value, str) else value


# The schema says what the loader accepts: one string (one item) or a list of strings.
StrList = Annotated[
    list[str],
    BeforeValidator(_string_list),
    WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}),
]


class ClaimCard(_Card):
    """One normalized claim (seed Step 1 plus the Input Shape's options)."""

    # An id names a directory of evaluator artifacts: no separators, no "." or "..".
    claim_id: str = Field(min_length=1, pattern=r"^[^\s/\\]+$")
    claim_text: str = Field(min_length=1)
    claim_type: ClaimType
    claim_shape: ClaimShape
    abstraction_level: str | list[str] | None = Field(
        default=None,
        description="theory | method | experiment | system | product; anything else, a list "
        "of several, or none is unclear and escalates at the precheck.",
    )
    guarantees: StrList | None = None
    non_guarantees: StrList | None = None
    assumptions: StrList | None = None
    possible_conflicts: StrList | None = None
    evidence_list: list[Evidence]
    owner_approval_flag: bool
    verification_complexity: Annotated[
        Level, BeforeValidator(_level, json_schema_input_type=Level | LevelName)
    ] = Field(
        default=2, description="level-1-simple | level-2-evidence-required | level-3-high-stakes"
    )
    domain_axes: StrList = Field(default_factory=list)
    consensus_rule: ConsensusRule = "unanimity"
    consensus_weights: dict[str, float] | None = Field(
        default=None, description="Weight per axis, for consensus-rule weighted only."
    )
    upstream_note: str | None = None
    schema_context: str | None = None
    statement_kind: StatementKind = "assertion"
    verification: Verification | None = None

    @model_validator(mode="after")
    def _weights_match_rule(self) -> ClaimCard:
        if self.claim_id in (".", ".."):
            raise ValueError(f"claim-id {self.claim_id!r} is not a name")
        if self.consensus_rule == "weighted" and not self.consensus_weights:
            raise ValueError("consensus-rule weighted needs consensus-weights (axis: weight)")
        if self.consensus_weights is not None and self.consensus_rule != "weighted":
            raise ValueError("consensus-weights is only read with consensus-rule weighted")
        if self.consensus_weights and any(w <= 0 for w in self.consensus_weights.values()):
            raise ValueError("consensus-weights must be positive")
        return self

    def evidence_ids(self) -> list[str]:
        """Each item's id: its own, else E<position> (1-based)."""
        return [item.id or f"E{n}" for n, item in enumerate(self.evidence_list, start=1)]
