"""Claim-card files → cards, and one clear error per bad card (the I/O edge of input).

A file holds one card (a mapping), a list of cards, or — in YAML — several documents each
holding either. `.json` files are read as JSON, everything else as YAML (PyYAML's safe
loader: no tags that build objects). A duplicate key is an error, not a silent overwrite.

A bad card costs that card only: its error names the file, the card (position, id when it
has one, line in YAML) and the field; the other cards of the file still load. A syntax
error ends the file where it stands (cards before it in earlier YAML documents still load).
A claim id used twice — in one file or across files — refuses the later card.

Local evidence paths resolve against the card file's directory and may not leave that
directory tree (`..`, absolute paths, symlinks out): such an item is refused and listed,
and the precheck treats it as inaccessible.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from contend.claims.card import ClaimCard, LocalEvidence

MAX_CARD_FILE_BYTES = 10 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class CardSource:
    """Where a card came from: the file, its 1-based position there, its line (YAML)."""

    file: str
    index: int
    line: int | None = None

    def describe(self, claim_id: str | None = None) -> str:
        where = f"card {self.index}"
        if claim_id:
            where += f" ({claim_id!r})"
        if self.line is not None:
            where += f" at line {self.line}"
        return f"{self.file}: {where}"


@dataclass(frozen=True, slots=True)
class CardError:
    """One bad card (or an unreadable file: index 0). `fields` names what was wrong."""

    source: CardSource
    claim_id: str | None
    fields: tuple[str, ...]
    message: str

    def line(self) -> str:
        return f"{self.source.describe(self.claim_id)}: {self.message}"


@dataclass(frozen=True, slots=True)
class EvidenceRef:
    """A local evidence item resolved against its card: the path, or why it was refused."""

    evidence_id: str
    declared: str
    path: Path | None
    refused: str | None = None


@dataclass(frozen=True, slots=True)
class LoadedCard:
    card: ClaimCard
    source: CardSource
    base_dir: Path
    local_evidence: dict[str, EvidenceRef] = field(default_factory=dict)


@dataclass(slots=True)
class LoadResult:
    cards: list[LoadedCard] = field(default_factory=list)
    errors: list[CardError] = field(default_factory=list)


class _UniqueKeyLoader(yaml.SafeLoader):
    """The safe loader, refusing a mapping that names one key twice."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load_card_files(paths: Iterable[Path]) -> LoadResult:
    """Every card of every file; claim ids are unique across all of them."""
    result = LoadResult()
    seen: dict[str, CardSource] = {}
    for path in paths:
        for item in _load_file(path):
            if isinstance(item, CardError):
                result.errors.append(item)
                continue
            first = seen.get(item.card.claim_id)
            if first is not None:
                result.errors.append(
                    CardError(
                        item.source,
                        item.card.claim_id,
                        ("claim-id",),
                        f"claim-id: duplicate of {first.describe(item.card.claim_id)}; "
                        "claim ids must be unique",
                    )
                )
                continue
            seen[item.card.claim_id] = item.source
            result.cards.append(item)
    return result


def _load_file(path: Path) -> Iterator[LoadedCard | CardError]:
    file_source = CardSource(str(path), 0)
    try:
        size = path.stat().st_size
        if size > MAX_CARD_FILE_BYTES:
            yield CardError(
                file_source, None, (), f"card file is {size} bytes, over the 10 MB limit"
            )
            return
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        yield CardError(file_source, None, (), f"cannot read: {exc.strerror or exc}")
        return
    except UnicodeDecodeError as exc:
        yield CardError(file_source, None, (), f"not UTF-8 (byte {exc.start})")
        return
    base_dir = path.resolve().parent
    raw_cards = (
        _json_cards(path, text) if path.suffix.lower() == ".json" else _yaml_cards(path, text)
    )
    for raw in raw_cards:
        if isinstance(raw, CardError):
            yield raw
        else:
            source, data = raw
            yield _validate(source, data, base_dir)


def _json_cards(path: Path, text: str) -> Iterator[tuple[CardSource, Any] | CardError]:
    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise ValueError(f"duplicate key {key!r}")
            out[key] = value
        return out

    try:
        data = json.loads(text, object_pairs_hook=unique)
    except json.JSONDecodeError as exc:
        source = CardSource(str(path), 0, exc.lineno)
        yield CardError(source, None, (), f"malformed JSON: {exc.msg} (column {exc.colno})")
        return
    except ValueError as exc:
        yield CardError(CardSource(str(path), 0), None, (), f"malformed JSON: {exc}")
        return
    items = data if isinstance(data, list) else [data]
    for index, item in enumerate(items, start=1):
        yield CardSource(str(path), index), item


def _yaml_cards(path: Path, text: str) -> Iterator[tuple[CardSource, Any] | CardError]:
    loader = _UniqueKeyLoader(text)
    index = 0
    try:
        while True:
            try:
                if not loader.check_node():
                    return
                document = loader.get_node()
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                line = mark.line + 1 if mark is not None else None
                problem = getattr(exc, "problem", None) or str(exc)
                yield CardError(
                    CardSource(str(path), 0, line), None, (), f"malformed YAML: {problem}"
                )
                return
            if document is None:
                continue
            nodes: Sequence[yaml.Node] = (
                document.value if isinstance(document, yaml.SequenceNode) else [document]
            )
            for node in nodes:
                index += 1
                source = CardSource(str(path), index, node.start_mark.line + 1)
                try:
                    data = loader.construct_object(node, deep=True)
                except yaml.YAMLError as exc:
                    problem = getattr(exc, "problem", None) or str(exc)
                    mark = getattr(exc, "problem_mark", None)
                    at = f" at line {mark.line + 1}" if mark is not None else ""
                    yield CardError(source, None, (), f"malformed YAML: {problem}{at}")
                    continue
                finally:
                    loader.constructed_objects = {}
                    loader.recursive_objects = {}
                yield source, data
    finally:
        loader.dispose()


def _validate(source: CardSource, data: Any, base_dir: Path) -> LoadedCard | CardError:
    claim_id = _raw_claim_id(data)
    if not isinstance(data, dict):
        kind = type(data).__name__
        return CardError(source, None, (), f"a card is a mapping of fields, not a {kind}")
    try:
        card = ClaimCard.model_validate(data)
    except ValidationError as exc:
        fields = tuple(_field_name(err["loc"]) for err in exc.errors())
        parts = [f"{_field_name(err['loc'])}: {err['msg']}" for err in exc.errors()]
        return CardError(source, claim_id, fields, "; ".join(parts))
    return LoadedCard(card, source, base_dir, _resolve_evidence(card, base_dir))


def _raw_claim_id(data: Any) -> str | None:
    if isinstance(data, dict):
        for key in ("claim-id", "claim_id"):
            value = data.get(key)
            if isinstance(value, str | int) and not isinstance(value, bool):
                return str(value)
    return None


def _field_name(loc: tuple[int | str, ...]) -> str:
    # Discriminated-union tags (`local`, `web`) are pydantic's bookkeeping, not fields.
    parts = [str(p) for p in loc if p not in ("web", "local", "logic")]
    text = ""
    for part in parts:
        text += f"[{part}]" if part.isdigit() else (f".{part}" if text else part)
    return text or "card"


def _resolve_evidence(card: ClaimCard, base_dir: Path) -> dict[str, EvidenceRef]:
    refs: dict[str, EvidenceRef] = {}
    for evidence_id, item in zip(card.evidence_ids(), card.evidence_list, strict=True):
        if isinstance(item, LocalEvidence):
            refs[evidence_id] = resolve_local(evidence_id, item.file_path, base_dir)
    return refs


def resolve_local(evidence_id: str, declared: str, base_dir: Path) -> EvidenceRef:
    """`declared` under `base_dir`, or refused when it leaves the tree (symlinks too)."""
    root = base_dir.resolve()
    candidate = Path(declared).expanduser()
    target = (candidate if candidate.is_absolute() else root / candidate).resolve()
    if not target.is_relative_to(root):
        return EvidenceRef(
            evidence_id,
            declared,
            None,
            f"refused: {declared} resolves outside the card's directory tree ({root})",
        )
    return EvidenceRef(evidence_id, declared, target)
