"""A tampered run from the commands that continue it: review, respond and decide refuse it
(saying so, naming the line), change nothing, and `review --new` starts a fresh run."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from contend.cli.main import main
from review_helpers import make_repo

# These tests are about the ledger of a review, not about which static findings may block: the
# change they plant as the one that fails (a broad `except Exception: return 0`) is a
# `swallowing-handler`, which the default earned policy lists as minor. They let static findings
# block at each rule's own severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


FALLBACK = "def f(g):\n    try:\n        return g()\n    except Exception:\n        return None\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = make_repo(
        tmp_path,
        base={"m.py": "def f(g):\n    return g()\n"},
        change={"m.py": FALLBACK},
        commit_change=False,
    )
    monkeypatch.chdir(path)
    return path


def downgrade_severity_after_hash(lines: list[bytes]) -> int:
    """The issue's trick: a second `data` member after `hash` turns the major finding
    minor for the parser while the hash still covers the original."""
    for index, line in enumerate(lines):
        entry = orjson.loads(line)
        if entry["kind"] == "attack_raised":
            forged = dict(entry["data"], severity="minor")
            lines[index] = line.rstrip(b"\n")[:-1] + b',"data":' + orjson.dumps(forged) + b"}\n"
            return index + 1
    raise AssertionError("no attack_raised in the ledger")


def cut_last_line_partway(lines: list[bytes]) -> int:
    lines[-1] = lines[-1][:-30]
    return len(lines)


@pytest.mark.parametrize(
    "tamper", [downgrade_severity_after_hash, cut_last_line_partway], ids=lambda t: t.__name__
)
def test_a_tampered_run_is_refused_by_every_command_that_would_continue_it(
    repo: Path, tamper: Callable[[list[bytes]], int], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", "-q", "--format", "json"]) == 1
    [run_dir] = (repo / ".contend" / "runs").iterdir()
    ledger = run_dir / "ledger.jsonl"
    lines = ledger.read_bytes().splitlines(keepends=True)
    attack_id = next(
        orjson.loads(line)["data"]["id"]
        for line in lines
        if orjson.loads(line)["kind"] == "attack_raised"
    )
    bad = tamper(lines)
    ledger.write_bytes(b"".join(lines))
    tampered = ledger.read_bytes()
    capsys.readouterr()

    assert main(["ledger", "verify", run_dir.name]) == 1
    assert f"line {bad}:" in capsys.readouterr().err

    for argv in (
        ["review", "-q", "--format", "json"],
        ["decide", attack_id, "--waive", "--note", "fine"],
        ["respond", attack_id, "--defend", "it is fine"],
    ):
        assert main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert f"line {bad}:" in err and "will not continue this run" in err, argv
        assert "Traceback" not in err and "pass" not in out
        assert ledger.read_bytes() == tampered  # nothing discarded, nothing appended
        assert [p.name for p in (repo / ".contend" / "runs").iterdir()] == [run_dir.name]

    # A fresh run is one flag away, and the tampered one stays for inspection.
    assert main(["review", "-q", "--new", "--format", "json"]) == 1
    assert len(list((repo / ".contend" / "runs").iterdir())) == 2
    assert ledger.read_bytes() == tampered


def test_a_review_run_is_keyed_and_anchored_outside_the_repository(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", "-q", "--format", "json"]) == 1
    (repo / "m.py").write_text("def f(g):\n    return g()\n")
    assert main(["review", "-q", "--format", "json"]) == 0  # a second session, same run
    [run_dir] = (repo / ".contend" / "runs").iterdir()
    capsys.readouterr()
    assert main(["ledger", "verify", "--strict", run_dir.name]) == 0
    out = capsys.readouterr().out
    assert "keyed entries (hmac-sha256): every MAC verified" in out
    anchors = Path(os.environ["HOME"]) / ".local" / "state" / "contend" / "anchors"
    assert (anchors / f"{run_dir.name}.json").is_file()
    assert not list(repo.rglob(f"{run_dir.name}.json"))
    refs = subprocess.run(
        ["git", "for-each-ref", "--format=%(refname)"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "anchor" not in refs
