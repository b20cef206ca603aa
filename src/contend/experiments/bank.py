"""Banks: the small, versioned YAML files of items an experiment runs on.

    schema: contend.bank/v1
    experiment: "01"            which experiment reads it
    id: verifiable-answers      the bank's name
    version: 1                  bumped whenever an item changes
    description: one line
    defaults: {...}             the experiment's grid parameters (overridable by flags)
    items: [{id: ..., ...}, ...]

Each experiment validates its items with its own model and computes their ground truth in
code; a bank that does not load, validate or compute is one UserError line naming the file
and the item. Owns reading banks; no experiment logic.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from contend.errors import UserError

BANK_SCHEMA = "contend.bank/v1"


class BankError(UserError):
    """A bank file that cannot be used; the message names the file and where."""


class _Header(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    schema_: str = Field(alias="schema")
    experiment: str
    id: str = Field(min_length=1)
    version: int = Field(ge=1)
    description: str = ""
    defaults: dict[str, Any] = Field(default_factory=dict)
    items: list[dict[str, Any]] = Field(min_length=1)
    sources: dict[str, str] = Field(default_factory=dict)
    generated_by: str | None = None


@dataclass(frozen=True, slots=True)
class Bank:
    path: str
    experiment: str
    id: str
    version: int
    description: str
    defaults: dict[str, Any]
    items: list[dict[str, Any]]
    digest: str  # sha256 of the file's bytes

    @property
    def label(self) -> str:
        return f"{self.id} v{self.version}"


def builtin_bank_path(name: str) -> Path:
    return Path(str(resources.files("contend.experiments") / "banks" / name))


def builtin_banks() -> list[Path]:
    folder = Path(str(resources.files("contend.experiments") / "banks"))
    return sorted(folder.glob("*.yaml"))


def load_bank(path: Path, *, experiment: str | None = None) -> Bank:
    """Read and check a bank's envelope; the items are checked by the experiment."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BankError(f"bank {path}: cannot read it ({exc.strerror or exc})") from None
    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise BankError(f"bank {path}: not valid YAML{where}: {problem}") from None
    if not isinstance(data, dict):
        raise BankError(f"bank {path}: must be a YAML mapping with schema, id and items")
    try:
        header = _Header.model_validate(data)
    except ValidationError as exc:
        raise BankError(f"bank {path}: {one_line(exc)}") from None
    if header.schema_ != BANK_SCHEMA:
        raise BankError(f"bank {path}: schema {header.schema_!r} is not {BANK_SCHEMA!r}")
    if experiment is not None and header.experiment != experiment:
        raise BankError(
            f"bank {path} is for experiment {header.experiment}, not experiment {experiment}"
        )
    ids = [item.get("id") for item in header.items]
    for index, item_id in enumerate(ids):
        if not isinstance(item_id, str) or not item_id:
            raise BankError(f"bank {path}: items[{index}] has no string id")
    dupes = sorted({i for i in ids if ids.count(i) > 1})  # type: ignore[type-var]
    if dupes:
        raise BankError(f"bank {path}: item id {dupes[0]!r} appears more than once")
    return Bank(
        path=str(path),
        experiment=header.experiment,
        id=header.id,
        version=header.version,
        description=header.description,
        defaults=header.defaults,
        items=header.items,
        digest=hashlib.sha256(raw).hexdigest(),
    )


def one_line(exc: ValidationError) -> str:
    """The first validation error of `exc` as `where: what` (and how many more)."""
    errors = exc.errors()
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"]) or "(top level)"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {first['msg']}{more}"


def validate_items(bank: Bank, model: type[BaseModel]) -> list[Any]:
    """Every item validated by `model`; BankError naming the item on the first failure."""
    parsed = []
    for index, item in enumerate(bank.items):
        try:
            parsed.append(model.model_validate(item))
        except ValidationError as exc:
            raise BankError(
                f"bank {bank.path}: items[{index}] ({item.get('id')}): {one_line(exc)}"
            ) from None
    return parsed


class Strict(BaseModel):
    """Base of every bank item model: unknown keys are errors, types are not coerced."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
