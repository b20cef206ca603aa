"""Every channel a secret can take out of a review, with a planted key of every format.

Channels: a line the security critic quotes (verify=False), a return value the
silent-fallback critic quotes, the spec from a commit message, the spec from `--spec -`,
and gate output (`--gate 'cat .env'`). Places: ledger.jsonl, report.json, report.md,
report.sarif in the run directory, the `--out` copies, stdout in every format, and
stderr (progress). Nothing raw may reach any of them.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import orjson
import pytest

from contend.cli.main import main
from review_helpers import git
from secret_samples import Sample, all_lines, raw_pieces, samples

MARK = "…[redacted "


def client_module(sample: Sample) -> str:
    """A token on a `verify=False` line (the security critic quotes it)."""
    headers = f"{{'X': {json.dumps(sample.line)}}}"
    return (
        "import requests\n\n\n"
        "def call(url):\n"
        f"    return requests.get(url, verify=False, headers={headers})\n"
    )


def fallback_module(sample: Sample) -> str:
    """A key returned from an except handler (the silent-fallback critic quotes it)."""
    return (
        "def key(load):\n"
        "    try:\n"
        "        return load()\n"
        "    except Exception:\n"
        f"        return {json.dumps(sample.line)}\n"
    )


@pytest.fixture
def leaky_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "app.py").write_text("def f():\n    return 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    # One file per format: findings of one rule in one file are grouped, quoting the first.
    for i, sample in enumerate(samples()):
        (repo / f"client_{i}.py").write_text(client_module(sample))
        (repo / f"fallback_{i}.py").write_text(fallback_module(sample))
    (repo / ".env").write_text(all_lines())
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Add the API client\n\nDeploy with:\n" + all_lines())
    monkeypatch.chdir(repo)
    return repo


def everything_written(roots: list[Path]) -> dict[str, str]:
    return {
        str(p): p.read_bytes().decode("utf-8", "replace")
        for root in roots
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix in {".jsonl", ".json", ".md", ".sarif", ".head"}
    }


def ledger_entries(repo: Path) -> list[dict[str, object]]:
    return [
        orjson.loads(line)
        for ledger in sorted((repo / ".contend" / "runs").glob("*/ledger.jsonl"))
        for line in ledger.read_bytes().splitlines()
    ]


def test_no_planted_secret_leaves_through_any_channel(
    leaky_repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    screens: list[str] = []
    outs = []
    for n, fmt in enumerate(["json", "markdown", "sarif", "text"]):
        out_dir = tmp_path / f"out-{fmt}"
        outs.append(out_dir)
        argv = ["review", "--new", "--gate", "cat .env", "--format", fmt, "--out", str(out_dir)]
        if n % 2:
            argv += ["--spec", "-"]
            monkeypatch.setattr(sys, "stdin", io.StringIO("Task:\n" + all_lines()))
        assert main(argv) == 1, capsys.readouterr().err
        captured = capsys.readouterr()
        screens += [captured.out, captured.err]

    written = everything_written([leaky_repo / ".contend" / "runs", *outs])
    names = {Path(name).name for name in written}
    assert {"ledger.jsonl", "report.json", "report.md", "report.sarif"} <= names
    leaks = {
        where: [piece[:8] for piece in raw_pieces() if piece in text]
        for where, text in [*written.items(), *(("screen", s) for s in screens)]
    }
    assert {where: found for where, found in leaks.items() if found} == {}

    # Each channel really carried the planted keys (redacted), so the check above bites.
    entries = ledger_entries(leaky_repo)
    raised = [e["data"] for e in entries if e["kind"] == "attack_raised"]

    def quoted(topic: str, prefix: str) -> set[str]:
        return {
            a["location"]["path"]
            for a in raised
            if a["topic"] == topic
            and a["location"]["path"].startswith(prefix)
            and MARK in a["evidence"]
        }

    every = {f"{i}.py" for i in range(len(samples()))}
    assert {p.removeprefix("client_") for p in quoted("security", "client_")} == every
    assert {p.removeprefix("fallback_") for p in quoted("silent-fallback", "fallback_")} == every
    specs = [e["data"] for e in entries if e["kind"] == "spec_loaded"]
    assert {s["source"] for s in specs} >= {"stdin"} and len(specs) == 4
    assert all(s["text"].count(MARK) >= len(samples()) for s in specs)
    gates = [e["data"] for e in entries if e["kind"] == "gate_ran"]
    assert gates and all(g["output"].count(MARK) >= len(samples()) for g in gates)
    assert any(MARK in s for s in screens[::2])  # stdout showed redacted evidence


def test_reports_are_redacted_even_when_the_state_is_not(
    leaky_repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Take the ledger writer's redaction away: the renderers' own step must still hold.
    monkeypatch.setattr("contend.ledger.store.redact_json", lambda data: data)
    out_dir = tmp_path / "out"
    assert main(["review", "-q", "--format", "markdown", "--out", str(out_dir)]) == 1
    stdout = capsys.readouterr().out
    ledger = next((leaky_repo / ".contend" / "runs").glob("*/ledger.jsonl")).read_text()
    assert any(piece in ledger for piece in raw_pieces())  # the bypass did bypass
    reports = {
        name: (out_dir / name).read_text() for name in ("report.json", "report.md", "report.sarif")
    }
    for where, text in [*reports.items(), ("stdout", stdout)]:
        assert MARK in text, where
        assert [piece[:8] for piece in raw_pieces() if piece in text] == [], where
