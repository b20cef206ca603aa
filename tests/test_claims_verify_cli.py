"""`contend verify` end to end on examples/claims: verdicts, exit codes, the ledger, the
outputs, the state directory outside a git repository, and bad usage."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from contend.cli.main import main
from contend.ledger.verify import verify

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "claims"

# What examples/claims/README.md promises, claim by claim.
EXPECTED = {
    "internal-fact.yaml": (
        1,
        {
            "IF-accept": "accept",
            "IF-reject": "reject",
            "IF-escalate": "escalate",
            "IF-page-2": "accept",
        },
    ),
    "precheck.yaml": (
        1,
        {
            "PC-bypass-plan": "accept",
            "PC-bypass-question": "accept",
            "PC-level-1": "accept",
            "PC-empty-evidence": "reject",
            "PC-missing-file": "reject",
            "PC-outside-tree": "reject",
            "PC-one-removed": "accept",
            "PC-theory-incomplete": "escalate",
            "PC-unclear-level": "escalate",
            "PC-number-no-locator": "escalate",
            "PC-web-only": "escalate",
        },
    ),
    "bad-cards.yaml": (2, {"GOOD": "accept"}),
    "level-3.json": (0, {"L3-speedup": "accept"}),
    "rounds.yaml": (0, {"R-median": "accept"}),
}


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    """A copy outside any git repository (claims are documents)."""
    target = tmp_path / "docs" / "claims"
    shutil.copytree(EXAMPLES, target)
    return target


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_example_gives_its_promised_verdicts(
    name: str, examples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    code = main(["verify", str(examples / name), "--out", str(out), "--format", "json"])
    want_code, want = EXPECTED[name]
    assert code == want_code
    report = json.loads(capsys.readouterr().out)
    assert {c["claim_id"]: c["verdict"] for c in report["claims"]} == want
    assert report["exit_code"] == want_code
    assert verify(out / "ledger.jsonl").ok
    assert (out / "report.md").read_text(encoding="utf-8").startswith("# contend verify:")
    assert json.loads((out / "report.json").read_text(encoding="utf-8")) == report


def test_card_errors_are_named_and_recorded(
    examples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    assert main(["verify", str(examples / "bad-cards.yaml"), "--out", str(out)]) == 2
    text = capsys.readouterr().out
    assert "card 1 (line 4): confidence: Extra inputs are not permitted" in text
    assert "claim-type: Input should be" in text
    assert "claim ids must be unique" in text
    kinds = [json.loads(line)["kind"] for line in (out / "ledger.jsonl").read_text().splitlines()]
    assert kinds.count("claim_card_error") == 3 and kinds[-1] == "claims_run_finished"


def test_level_3_writes_the_evaluator_artifact_set(examples: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["verify", str(examples / "level-3.json"), "--out", str(out)]) == 0
    names = sorted(p.name for p in (out / "claims" / "L3-speedup").iterdir())
    assert names == sorted(
        [
            "scenario.json",
            "trace.json",
            "report.json",
            "candidate-playbook.md",
            "verifier-result.json",
        ]
    )


def test_without_out_a_run_lives_in_the_user_state_directory(
    examples: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)  # not a git repository
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert main(["verify", str(examples / "internal-fact.yaml")]) == 1
    err = capsys.readouterr().err
    [run] = list((tmp_path / "state" / "contend" / "runs").iterdir())
    assert str(run) in err and verify(run / "ledger.jsonl").ok
    assert main(["ledger", "verify", str(run)]) == 0
    monkeypatch.setenv("CONTEND_STATE_DIR", str(tmp_path / "mine"))
    assert main(["verify", str(examples)]) == 1
    assert len(list((tmp_path / "mine" / "runs").iterdir())) == 1


def test_a_tampered_ledger_fails_verification(examples: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    main(["verify", str(examples / "internal-fact.yaml"), "--out", str(out)])
    ledger = out / "ledger.jsonl"
    ledger.write_text(ledger.read_text().replace('"reject"', '"accept"', 1), encoding="utf-8")
    assert not verify(ledger).ok
    assert main(["ledger", "verify", str(out)]) == 1


def test_bad_usage_is_one_line_exit_2(
    examples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", str(tmp_path / "nothing.yaml")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["verify", str(empty)]) == 2
    assert "no claim-card files" in capsys.readouterr().err
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "mine.txt").write_text("x")
    assert main(["verify", str(examples / "level-3.json"), "--out", str(busy)]) == 2
    err = capsys.readouterr().err
    assert "holds files contend did not write (mine.txt)" in err and "Traceback" not in err
    used = tmp_path / "used"
    assert main(["verify", str(examples / "level-3.json"), "--out", str(used)]) == 0
    assert main(["verify", str(examples / "level-3.json"), "--out", str(used)]) == 2
    assert "already holds a run's ledger" in capsys.readouterr().err


def test_secrets_in_a_card_are_redacted_in_every_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    (tmp_path / "e.txt").write_text(f"The token {token} has 40 characters.\n")
    card = {
        "claim-id": "S1",
        "claim-text": f"The token {token} has 40 characters.",
        "claim-type": "empirical",
        "claim-shape": "fact",
        "abstraction-level": "system",
        "verification-complexity": 3,
        "owner-approval-flag": True,
        "evidence-list": [{"file_path": "e.txt", "page": 1, "region": "n/a", "locator_note": "x"}],
    }
    (tmp_path / "c.json").write_text(json.dumps(card))
    out = tmp_path / "run"
    main(["verify", str(tmp_path / "c.json"), "--out", str(out), "--format", "markdown"])
    assert token not in capsys.readouterr().out
    written = [p for p in out.rglob("*") if p.is_file()]
    assert len(written) >= 8
    for path in written:
        assert token not in path.read_text(encoding="utf-8"), path


def test_bad_evidence_end_to_end_is_a_listed_skip_never_a_silent_accept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's bad evidence through `contend verify`: huge (>10 MB), non-UTF-8, a PDF
    that will not parse, outside the card's tree — each removed and listed with its reason;
    alone it escalates (nobody read it), beside good evidence the claim is judged on that."""
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "good.txt").write_text("The median parse took 12.5 s.\n", encoding="utf-8")
    (cards / "big.txt").write_bytes(b"12.5 s\n" * (10 * 1024 * 1024 // 7 + 10))
    (cards / "latin.txt").write_bytes(b"The median parse took 12.5 s, caf\xe9.\n")
    (cards / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not a pdf body at all\n")
    (tmp_path / "outside.txt").write_text("The median parse took 12.5 s.\n", encoding="utf-8")
    bad = {
        "big.txt": "over the 10 MB",
        "latin.txt": "not UTF-8",
        "broken.pdf": "broken.pdf",
        "../outside.txt": "outside the card's directory tree",
    }

    def card(cid: str, files: list[str]) -> str:
        items = "".join(f"  - {{file_path: '{f}', page: 1, region: n/a, locator_note: all}}\n"
                        for f in files)  # fmt: skip
        return (
            f"claim-id: {cid}\nclaim-text: The median parse took 12.5 s.\nclaim-type: empirical\n"
            "claim-shape: fact\nabstraction-level: experiment\nowner-approval-flag: true\n"
            f"evidence-list:\n{items}"
        )

    docs = [card(f"ALONE-{i}", [f]) for i, f in enumerate(bad)]
    docs.append(card("BESIDE-GOOD", [*bad, "good.txt"]))
    path = cards / "bad-evidence.yaml"
    path.write_text("---\n".join(docs), encoding="utf-8")
    out = tmp_path / "run"
    code = main(["verify", str(path), "--out", str(out), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    by_id = {c["claim_id"]: c for c in report["claims"]}
    for i, (name, reason) in enumerate(bad.items()):
        claim = by_id[f"ALONE-{i}"]
        # Unreadable evidence is nobody's reading: escalate; evidence outside the tree is
        # refused, and with none left the claim is rejected (the seed's rule).
        assert claim["verdict"] == ("reject" if name.startswith("..") else "escalate"), name
        (fate,) = claim["evidence"]
        assert fate["status"] == "removed" and reason in (fate["reason"] or ""), (name, fate)
    beside = by_id["BESIDE-GOOD"]
    assert beside["verdict"] == "accept"
    fates = {e["locator"].split(",")[0]: e for e in beside["evidence"]}
    assert sum(e["status"] == "removed" for e in beside["evidence"]) == len(bad)
    assert any(e["status"] == "checked" for e in fates.values())
    assert code == 1  # the outside-the-tree claim is a reject
    assert verify(out / "ledger.jsonl").ok
