"""Redaction: the secrets rules as the detector, applied in the ledger writer."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from contend.critics.static.secrets import find_secrets
from contend.ledger.store import Ledger
from contend.ledger.verify import verify
from contend.redaction import redact_json, redact_json_text, redact_text
from secret_samples import Sample, all_lines, raw_pieces, samples


def leaked(text: str) -> list[str]:
    return [piece for piece in raw_pieces() if piece in text]


@pytest.mark.parametrize("sample", samples(), ids=lambda s: s.rule)
def test_every_rule_is_redacted_in_free_text(sample: Sample) -> None:
    out = redact_text(f"some words before\n{sample.line}\nand after")
    assert sample.secret not in out and not [p for p in sample.parts if p in out]
    assert "…[redacted " in out
    assert out.startswith("some words before\n") and out.endswith("\nand after")
    assert [s.rule for s in find_secrets(sample.line)] == [sample.rule]


@pytest.mark.parametrize("sample", samples(), ids=lambda s: s.rule)
def test_a_secret_quoted_in_code_is_redacted(sample: Sample) -> None:
    # How critics quote it: inside a string literal, on a line of code.
    code = f"    return {json.dumps(sample.line)}  # fallback"
    assert not [p for p in (sample.secret, *sample.parts) if p in redact_text(code)]


@pytest.mark.parametrize("sample", samples(), ids=lambda s: s.rule)
def test_a_secret_inside_another_assignments_value_is_redacted(sample: Sample) -> None:
    code = f"    r = get(url, headers={{'X': {json.dumps(sample.line)}}})"
    assert not [p for p in (sample.secret, *sample.parts) if p in redact_text(code)]


def test_redaction_is_idempotent_and_finds_repeats() -> None:
    text = all_lines() + all_lines()
    once = redact_text(text)
    assert not leaked(once)
    assert redact_text(once) == once


@pytest.mark.parametrize(
    "text",
    [
        "0123456789abcdef0123456789abcdef01234567",  # a commit
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",  # a hash
        str(uuid.UUID(int=0x1234567890ABCDEF1234567890ABCDEF)),
        "20261130-142501-3f9a1c",  # a run id
        "2026-11-30T14:25:01.123456Z",
        "/home/user/src/project/.contend/runs/20261130-142501-3f9a1c/ledger.jsonl",
        'token = os.environ["GITHUB_TOKEN"]',
        "password = getpass.getpass()",
        "the token budget is spent: tokens_in=1200 tokens_out=300",
        "except Exception:\n    return None",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_text(text) == text


def test_redact_json_redacts_every_string_keys_included() -> None:
    [ghp] = [s.secret for s in samples() if s.secret.startswith("ghp_")]
    data = {
        "claim": f"returns {ghp} on error",
        "nested": [{"evidence": [f"x = '{ghp}'"]}, 3, None, 1.5, True],
        ghp: "a secret used as a key",
        "count": 7,
    }
    out = redact_json(data)
    assert ghp not in json.dumps(out)
    assert out["count"] == 7 and out["nested"][1:] == [3, None, 1.5, True]


def test_a_value_under_a_secret_name_is_read_as_an_assignment() -> None:
    value = "Zq8vN2xL0pR7tY4w"  # alone, just a word; under "api_key", a credential
    assert redact_text(value) == value
    assert redact_json({"api_key": value})["api_key"] != value
    assert redact_json({"key": "feature-branch-2"}) == {"key": "feature-branch-2"}


def test_rendered_json_is_redacted_through_its_escapes() -> None:
    [generic] = [s for s in samples() if s.rule == "generic-credential"]
    document = {"evidence": f'password = "{generic.secret}"', "n": 1}
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    assert '\\"' in text  # the secret sits between escaped quotes in the text
    out = redact_json_text(text)
    assert generic.secret not in out and json.loads(out)["n"] == 1
    clean = json.dumps({"a": "b"}, indent=2) + "\n"
    assert redact_json_text(clean) is clean


def test_the_ledger_writer_redacts_every_text_before_hashing(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    with Ledger(path, "run-1") as ledger:
        entry = ledger.append(
            "gate_ran",
            {"cmd": "cat .env", "output": all_lines(), "extra": {"spec": [all_lines()]}},
        )
        ledger.append("spec_loaded", {"text": all_lines(), "source": "stdin"})
    assert not leaked(path.read_bytes().decode())
    assert not leaked(json.dumps(entry))  # the live state is built from what was written
    assert entry["data"]["cmd"] == "cat .env"
    result = verify(path, keep_entries=True)
    assert result.ok and result.entries[0]["data"] == entry["data"]
