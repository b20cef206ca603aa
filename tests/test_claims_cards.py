"""Claim cards: both spellings, one error per bad card, duplicates, evidence paths, reading."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from contend.claims.card import ClaimCard, LocalEvidence, LogicEvidence, WebEvidence
from contend.claims.evidence import (
    MAX_EVIDENCE_BYTES,
    EvidenceText,
    Unreadable,
    locate,
    read_evidence,
    region_bounds,
)
from contend.claims.load import load_card_files

GOOD_YAML = """\
claim-id: C1
claim-text: The cache holds 64 entries.
claim-type: empirical
claim-shape: fact
abstraction-level: system
owner-approval-flag: true
evidence-list:
  - file_path: notes.txt
    page: 1
    region: top
"""


def card_dict(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "claim-id": "C1",
        "claim-text": "The cache holds 64 entries.",
        "claim-type": "empirical",
        "claim-shape": "fact",
        "abstraction-level": "system",
        "owner-approval-flag": True,
        "evidence-list": [{"file_path": "notes.txt", "page": 1, "region": "top"}],
    }
    base.update(over)
    return base


def test_kebab_and_snake_case_give_the_same_card() -> None:
    kebab = ClaimCard.model_validate(card_dict())
    snake = ClaimCard.model_validate(
        {k.replace("-", "_"): v for k, v in card_dict().items()}
        | {"evidence_list": [{"file-path": "notes.txt", "page": 1, "region": "top"}]}
    )
    assert kebab == snake
    assert kebab.model_dump(by_alias=True)["claim-id"] == "C1"


def test_both_spellings_of_one_field_are_refused() -> None:
    with pytest.raises(ValidationError, match="both 'claim-id' and 'claim_id'"):
        ClaimCard.model_validate(card_dict(claim_id="C2"))


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        ClaimCard.model_validate(card_dict(confidence=0.9))
    with pytest.raises(ValidationError, match="Extra inputs"):
        ClaimCard.model_validate(
            card_dict(**{"evidence-list": [{"file_path": "a.txt", "color": "red"}]})
        )


def test_evidence_kinds_and_the_nested_source_locator() -> None:
    card = ClaimCard.model_validate(
        card_dict(
            **{
                "evidence-list": [
                    {
                        "source-locator": {"source_type": "web"},
                        "accessible_url": "https://example.org/a",
                        "value": "64",
                    },
                    {"source_type": "local", "filename": "b.txt", "page": "n/a", "region": "n/a"},
                    {"source_type": "logic", "argument": "64 = 2^6"},
                ]
            }
        )
    )
    kinds = [type(e) for e in card.evidence_list]
    assert kinds == [WebEvidence, LocalEvidence, LogicEvidence]
    assert card.evidence_ids() == ["E1", "E2", "E3"]


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"source_type": "web", "accessible_url": "https://x.org"}, "needs `finding` or `value`"),
        ({"source_type": "web", "accessible_url": "ftp://x.org", "finding": "f"}, "pattern"),
        ({"page": 1}, "evidence needs source_type"),
        ({"file_path": "a.txt", "region": "left"}, "'top', 'middle', 'bottom' or 'n/a'"),
        ({"file_path": "a.txt", "page": 0}, "greater than or equal to 1"),
    ],
)
def test_bad_evidence_items(item: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        ClaimCard.model_validate(card_dict(**{"evidence-list": [item]}))


def test_levels_and_consensus_options() -> None:
    card = ClaimCard.model_validate(card_dict(**{"verification-complexity": "level-3-high-stakes"}))
    assert card.verification_complexity == 3
    assert ClaimCard.model_validate(card_dict()).verification_complexity == 2
    with pytest.raises(ValidationError, match="needs consensus-weights"):
        ClaimCard.model_validate(card_dict(**{"consensus-rule": "weighted"}))
    with pytest.raises(ValidationError, match="only read with consensus-rule weighted"):
        ClaimCard.model_validate(card_dict(**{"consensus-weights": {"internal-fact": 2}}))


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_bad_card_costs_only_itself(tmp_path: Path) -> None:
    text = (
        GOOD_YAML
        + "---\n"
        + GOOD_YAML.replace("C1", "C2").replace("claim-type: empirical", "claim-type: vibes")
        + "---\n"
        + GOOD_YAML.replace("C1", "C3")
    )
    result = load_card_files([write(tmp_path, "cards.yaml", text)])
    assert [c.card.claim_id for c in result.cards] == ["C1", "C3"]
    [error] = result.errors
    line = error.line()
    assert "cards.yaml" in line and "card 2 ('C2')" in line and "line 12" in line
    assert "claim-type" in line and error.fields == ("claim-type",)


def test_a_list_of_cards_and_json(tmp_path: Path) -> None:
    cards = [card_dict(), card_dict(**{"claim-id": "C2"}), {"claim-id": "C3"}]
    result = load_card_files([write(tmp_path, "cards.json", json.dumps(cards))])
    assert [c.card.claim_id for c in result.cards] == ["C1", "C2"]
    [error] = result.errors
    assert "card 3 ('C3')" in error.line() and "claim-text" in error.line()


def test_malformed_yaml_and_json_are_one_clear_line(tmp_path: Path) -> None:
    bad_yaml = write(tmp_path, "a.yaml", GOOD_YAML + "---\nclaim-id: [unclosed\n")
    bad_json = write(tmp_path, "b.json", '{"claim-id": "C9",')
    result = load_card_files([bad_yaml, bad_json])
    assert [c.card.claim_id for c in result.cards] == ["C1"]
    assert len(result.errors) == 2
    assert "malformed YAML" in result.errors[0].line()
    assert "malformed JSON" in result.errors[1].line() and "line 1" in result.errors[1].line()


def test_duplicate_keys_and_duplicate_claim_ids(tmp_path: Path) -> None:
    dup_key = write(tmp_path, "k.yaml", GOOD_YAML + "claim-id: C1b\n")
    twice = write(
        tmp_path, "t.yaml", GOOD_YAML.replace("C1", "C5") + "---\n" + GOOD_YAML.replace("C1", "C5")
    )
    result = load_card_files([dup_key, twice])
    assert [c.card.claim_id for c in result.cards] == ["C5"]
    messages = [e.line() for e in result.errors]
    assert any("duplicate key 'claim-id'" in m for m in messages)
    assert any("duplicate of" in m and "claim ids must be unique" in m for m in messages)
    json_dup = write(tmp_path, "d.json", '{"claim-id": "X", "claim-id": "Y"}')
    assert "duplicate key" in load_card_files([json_dup]).errors[0].line()


def test_not_a_mapping_and_unreadable_files(tmp_path: Path) -> None:
    result = load_card_files([write(tmp_path, "s.yaml", "- just a string\n"), tmp_path / "no.yaml"])
    assert "a card is a mapping of fields, not a str" in result.errors[0].line()
    assert "cannot read" in result.errors[1].line()
    latin = tmp_path / "l.yaml"
    latin.write_bytes(b"claim-text: caf\xe9\n")
    assert "not UTF-8" in load_card_files([latin]).errors[0].line()


def test_evidence_outside_the_card_tree_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("64", encoding="utf-8")
    cards = tmp_path / "cards"
    (cards / "sub").mkdir(parents=True)
    (cards / "sub" / "in.txt").write_text("64", encoding="utf-8")
    os.symlink(outside, cards / "link.txt")
    items = [
        {"file_path": "sub/in.txt", "page": 1, "region": "top"},
        {"file_path": "../secret.txt", "page": 1, "region": "top"},
        {"file_path": str(outside), "page": 1, "region": "top"},
        {"file_path": "link.txt", "page": 1, "region": "top"},
    ]
    path = write(cards, "c.json", json.dumps(card_dict(**{"evidence-list": items})))
    [loaded] = load_card_files([path]).cards
    refs = loaded.local_evidence
    assert refs["E1"].path == (cards / "sub" / "in.txt").resolve() and refs["E1"].refused is None
    for eid in ("E2", "E3", "E4"):
        assert refs[eid].path is None
        assert "outside the card's directory tree" in (refs[eid].refused or "")


def test_reading_evidence_pages_size_encoding(tmp_path: Path) -> None:
    text = write(tmp_path, "t.txt", "p1 a\np1 b\fp2 a\np2 b\np2 c")
    evidence = read_evidence(text)
    assert isinstance(evidence, EvidenceText) and len(evidence.pages) == 2
    assert evidence.page_start_line(2) == 2
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * (MAX_EVIDENCE_BYTES + 1))
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"caf\xe9")
    for path, kind, words in [
        (big, "unreadable", "over the 10 MB"),
        (latin, "unreadable", "not UTF-8"),
        (tmp_path / "gone.txt", "inaccessible", "does not exist"),
        (tmp_path, "inaccessible", "not a regular file"),
    ]:
        result = read_evidence(path)
        assert isinstance(result, Unreadable) and result.kind == kind and words in result.reason


def test_regions_are_thirds_with_a_margin() -> None:
    assert region_bounds(9, "top") == (0, 3)
    assert region_bounds(9, "middle") == (3, 6)
    assert region_bounds(9, "bottom") == (6, 9)
    assert region_bounds(10, "middle") == (4, 7)
    assert region_bounds(10, "n/a") == (0, 10)
    evidence = EvidenceText(("\n".join(f"line {n}" for n in range(1, 31)),))
    top = locate(evidence, 1, "top")
    assert not isinstance(top, Unreadable)
    strict = [line.line for line in top.lines if not line.in_margin]
    assert strict == list(range(1, 11))
    assert [line.line for line in top.lines if line.in_margin] == [11, 12]
    assert isinstance(locate(evidence, 3, "top"), Unreadable)
    whole = locate(evidence, "n/a", None)
    assert not isinstance(whole, Unreadable) and len(whole.lines) == 30


def _pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF with one text line per page (Helvetica)."""
    objects: list[bytes] = []
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    font = 3 + 2 * len(pages)
    for i, text in enumerate(pages):
        content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


def test_pdf_evidence_pages(tmp_path: Path) -> None:
    path = tmp_path / "paper.pdf"
    path.write_bytes(_pdf(["Recall was 91 percent.", "Latency was 12 ms."]))
    evidence = read_evidence(path)
    assert isinstance(evidence, EvidenceText) and evidence.is_pdf
    assert "91 percent" in evidence.pages[0] and "12 ms" in evidence.pages[1]


def test_a_pdf_that_will_not_parse_is_a_listed_skip(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.4\nthis is not a pdf body at all\n")
    result = read_evidence(path)
    assert isinstance(result, Unreadable) and result.kind == "unreadable"
    assert "broken.pdf" in result.reason


def test_pdf_without_the_extra_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_pypdf(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "pypdf":
            raise ImportError("No module named 'pypdf'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pypdf)
    path = tmp_path / "paper.pdf"
    path.write_bytes(_pdf(["x"]))
    result = read_evidence(path)
    assert isinstance(result, Unreadable) and "contend[pdf]" in result.reason
