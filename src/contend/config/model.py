"""The typed settings of contend: every key, its type, default and allowed range.

Pure data: no files, no environment. Strict types throughout (a string where an integer is
expected is an error, never coerced) and unknown keys are forbidden at every level, so a
typo in a config file is reported instead of silently ignored. docs/configuration.md
describes each key for users; keep the two in step.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from contend.config.specs import parse_critic_spec, parse_oracle_spec, parse_proposer_spec

OutputFormat = Literal["text", "json", "markdown", "sarif"]

# What an environment variable name may look like; a real API key ("sk-...") never does.
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


class Limits(_Strict):
    """Spending caps; None means no cap. A run or thread that reaches one stops (cost cap)."""

    max_run_tokens: int | None = Field(default=None, ge=1)
    max_thread_tokens: int | None = Field(default=None, ge=1)
    max_run_cost: float | None = Field(default=None, gt=0)
    max_thread_cost: float | None = Field(default=None, gt=0)


class Price(_Strict):
    """USD per million tokens for one model; overrides the built-in price table entry."""

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)


class ProviderConfig(_Strict):
    """Where an API backend connects. The key itself never sits in config: only the NAME of
    the environment variable that holds it."""

    base_url: str | None = Field(default=None, min_length=1)
    api_key_env: str | None = None
    extra_headers: dict[str, str] = Field(default_factory=dict)

    @field_validator("api_key_env")
    @classmethod
    def _is_env_name(cls, value: str | None) -> str | None:
        if value is not None and _ENV_NAME.fullmatch(value) is None:
            raise ValueError(
                "must be the NAME of an environment variable (letters, digits, _), "
                "not the key itself"
            )
        return value

    @field_validator("extra_headers")
    @classmethod
    def _header_names(cls, value: dict[str, str]) -> dict[str, str]:
        for name in value:
            if _HEADER_NAME.fullmatch(name) is None:
                raise ValueError(f"{name!r} is not a valid HTTP header name")
        return value


class Providers(_Strict):
    """Connection settings per API provider family."""

    openai: ProviderConfig = Field(default_factory=ProviderConfig)
    anthropic: ProviderConfig = Field(default_factory=ProviderConfig)
    openai_compatible: ProviderConfig = Field(
        default_factory=ProviderConfig, alias="openai-compatible"
    )
    ollama: ProviderConfig = Field(default_factory=ProviderConfig)
    gemini: ProviderConfig = Field(default_factory=ProviderConfig)


# The level-3 extra axes of `contend verify` (claims/axes.py EXTRA_AXES, kept in step by
# tests/test_claims_config.py); named here so that config/ does not import claims/.
ExtraAxis = Literal["external-logic", "edge-case", "prior-art", "incentive"]
_EXTRA_AXES: tuple[ExtraAxis, ...] = get_args(ExtraAxis)


class VerifySettings(_Strict):
    """`[verify]`: where claim runs live without `--out`, and how level 3 picks its two
    extra axes (a domain word of the card → an axis, then the fill order)."""

    state_dir: str | None = Field(default=None, min_length=1)
    domain_axes: dict[str, ExtraAxis] = Field(default_factory=dict)
    extra_axes_order: list[ExtraAxis] = Field(
        default_factory=lambda: list(_EXTRA_AXES), min_length=2
    )

    @field_validator("state_dir")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        # Claims are documents: a run may start outside any repository, so a relative
        # path would name a different place from every working directory.
        if value is not None and not Path(value).expanduser().is_absolute():
            raise ValueError(f"must be an absolute path (or start with ~), got {value!r}")
        return value

    @field_validator("domain_axes")
    @classmethod
    def _domain_words(cls, value: dict[str, str]) -> dict[str, str]:
        if any(not word.strip() for word in value):
            raise ValueError("a domain word must not be empty")
        return value

    @field_validator("extra_axes_order")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        twice = sorted({a for a in value if value.count(a) > 1})
        if twice:
            raise ValueError(f"names {', '.join(twice)} more than once")
        return value


# Which rule decides whether a static finding may block (critics/static/calibration.py
# `Blocking`, kept in step by tests/test_static_calibration.py; named here so that config/
# does not import critics/): "earned" — only rules whose evidence is the defect or whose
# labelled record on real commits earns it; "rule" — each rule's own severity after the
# previous demotion (fails more often).
StaticBlocking = Literal["earned", "rule"]


class StaticSettings(_Strict):
    """`[static]`: how the offline static critics' findings are weighed."""

    blocking: StaticBlocking = "earned"


@dataclass(frozen=True, slots=True)
class Origin:
    """Where the effective settings came from, set by the loader.

    `project_rev` is the revision the project config was read at (None: no project config
    was read, e.g. a repository without commits); `kinds` names, per top-level key, the
    kind of layer that set it ("user", "project", "env", "flags"); keys absent are defaults.
    """

    project_rev: str | None = None
    kinds: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def kind_of(self, key: str) -> str:
        return self.kinds.get(key, "default")


class Settings(_Strict):
    """The effective configuration of one contend invocation."""

    # Provenance, not configuration: never read from or written to a file.
    _origin: Origin = PrivateAttr(default_factory=Origin)

    critics: list[str] = Field(default_factory=lambda: ["static"], min_length=1)
    proposer: str = "none"
    base: str | None = Field(default=None, min_length=1)
    gates: list[str] = Field(default_factory=list)
    max_rounds: int = Field(default=3, ge=1)
    trivial_diff_lines: int = Field(default=0, ge=0)
    parallelism: int = Field(default=4, ge=1)
    min_families: int = Field(default=1, ge=1)
    state_dir: str = Field(default=".contend", min_length=1)
    invariants: list[str] = Field(
        default_factory=lambda: ["INVARIANTS.md", "AGENTS.md", "CLAUDE.md"]
    )
    format: OutputFormat = "text"
    agent_timeout: float = Field(default=600.0, gt=0)
    max_file_bytes: int = Field(default=1_000_000, ge=1)
    oracle: str | None = None
    limits: Limits = Field(default_factory=Limits)
    prices: dict[str, Price] = Field(default_factory=dict)
    providers: Providers = Field(default_factory=Providers)
    verify: VerifySettings = Field(default_factory=VerifySettings)
    static: StaticSettings = Field(default_factory=StaticSettings)

    @field_validator("critics")
    @classmethod
    def _critic_specs(cls, value: list[str]) -> list[str]:
        for spec in value:
            parse_critic_spec(spec)
        return value

    @field_validator("oracle")
    @classmethod
    def _oracle_spec(cls, value: str | None) -> str | None:
        if value is not None:
            parse_oracle_spec(value)
        return value

    @field_validator("proposer")
    @classmethod
    def _proposer_spec(cls, value: str) -> str:
        parse_proposer_spec(value)
        return value

    @field_validator("gates")
    @classmethod
    def _gates_not_blank(cls, value: list[str]) -> list[str]:
        if any(not gate.strip() for gate in value):
            raise ValueError("a gate command must not be empty")
        return value

    @property
    def origin(self) -> Origin:
        return self._origin

    def with_origin(self, origin: Origin) -> Settings:
        """These settings, recording where they came from (the loader calls this)."""
        self._origin = origin
        return self

    def state_path(self, repo_root: Path) -> Path:
        """The state directory: `state_dir` as is when absolute, else under `repo_root`."""
        path = Path(self.state_dir).expanduser()
        return path if path.is_absolute() else repo_root / path


def model_at(path: tuple[str | int, ...]) -> type[BaseModel] | None:
    """The settings model that holds the keys at `path` (() is Settings itself); None when
    `path` does not lead to a table of known keys (e.g. into a list or a plain string map)."""
    model: type[BaseModel] = Settings
    parts = list(path)
    while parts:
        part = parts.pop(0)
        field = _field(model, part)
        if field is None:
            return None
        target = table_model(field)
        if target is None:
            return None
        if is_keyed_table(field):
            if not parts:
                return None  # the level of free-form keys (model names) has no fixed keys
            parts.pop(0)
        model = target
    return model


def keys_of(model: type[BaseModel]) -> list[str]:
    """The keys a user writes for `model`: aliases where they exist."""
    return [field.alias or name for name, field in model.model_fields.items()]


def table_model(field: object) -> type[BaseModel] | None:
    """The model a table field holds: Limits for `limits`, Price for `prices` (dict[str,
    Price]); None for scalars, lists and plain string maps."""
    annotation = getattr(field, "annotation", None)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) is dict:
        value = get_args(annotation)[1]
        if isinstance(value, type) and issubclass(value, BaseModel):
            return value
    return None


def is_keyed_table(field: object) -> bool:
    """True for a table of free-form keys whose values are models (`prices."gpt-4.1"`)."""
    return get_origin(getattr(field, "annotation", None)) is dict


def _field(model: type[BaseModel], key: str | int) -> object | None:
    for name, field in model.model_fields.items():
        if key in (name, field.alias):
            return field
    return None
