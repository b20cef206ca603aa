"""The keyed chain and the anchor: consistent rewrites by someone without the user's key.

The attacker here can write anything in the run directory (the ledger, `ledger.head`)
and recompute any unkeyed hash, or key a chain with a key of their own; they cannot read
the user's key nor write the user's state directory, where the anchors live.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from contend.cli.main import main
from contend.errors import LedgerCorrupt, LedgerKeyError
from contend.ledger.anchor import Anchors, anchor_dir
from contend.ledger.keys import hmac_sha256, key_path, load_key, sha256_hex
from contend.ledger.store import HEAD_FILE, Ledger, canonical
from contend.ledger.verify import verify

RUN = "20261130-120000-abc123"


def build(run_dir: Path, n: int = 10, *, keyed: bool = True) -> Path:
    path = run_dir / "ledger.jsonl"
    kwargs: dict[str, Any] = {} if keyed else {"key": None}
    with Ledger(path, RUN, **kwargs) as ledger:
        ledger.append("run_started", {"run_id": RUN})
        for i in range(1, n - 1):
            ledger.append("agent_call", {"thread": "t", "i": i})
        ledger.append("run_finished", {"verdict": "fail", "exit_code": 1})
        ledger.checkpoint()
    return path


def entries_of(path: Path) -> list[dict[str, object]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def attacker_digest(alg: str) -> Callable[[bytes], str]:
    """What someone without the user's key can compute: sha256, or HMAC under a key of
    their own choosing."""
    return sha256_hex if alg == "sha256" else hmac_sha256(b"attacker's own key" * 2)


def write_chain(path: Path, entries: list[dict[str, object]], alg: str, *, head: bool) -> None:
    """Re-chain `entries` consistently (seq, prev, hash) and, if asked, write a matching
    ledger.head — everything but the user's key and anchor."""
    digest = attacker_digest(alg)
    prev = "0" * 64
    lines = []
    for seq, entry in enumerate(entries):
        body = {k: v for k, v in entry.items() if k != "hash"}
        body.update(seq=seq, prev=prev, alg=alg)
        raw = canonical(body)
        prev = digest(raw)
        lines.append(raw[:-1] + b',"hash":"' + prev.encode() + b'"}\n')
    path.write_bytes(b"".join(lines))
    if head:
        (path.parent / HEAD_FILE).write_bytes(
            canonical({"seq": len(entries) - 1, "hash": prev, "alg": alg}) + b"\n"
        )


ATTACKER_ALGS = ["sha256", "hmac-sha256"]


def assert_tampered(path: Path, line: int, capsys: pytest.CaptureFixture[str]) -> str:
    result = verify(path)
    assert not result.ok, result.message
    assert result.first_bad_line == line, result.message
    capsys.readouterr()
    assert main(["ledger", "verify", str(path)]) == 1
    err = capsys.readouterr().err
    # A file beside the ledger (head, anchor) is named by the line it follows.
    assert f"line {line}:" in err or f"after line {line - 1}:" in err
    return err


@pytest.mark.parametrize("alg", ATTACKER_ALGS)
def test_deleting_events_and_rechaining_is_detected(
    tmp_path: Path, alg: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path)
    entries = entries_of(path)
    del entries[3:5]
    write_chain(path, entries, alg, head=True)
    # sha256: line 1 is no longer the anchored first entry; own key: line 1's MAC is wrong.
    assert_tampered(path, 1, capsys)


@pytest.mark.parametrize("alg", ATTACKER_ALGS)
def test_a_forged_run_finished_pass_is_detected(
    tmp_path: Path, alg: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path)
    genuine = path.read_bytes()
    entries = entries_of(path)
    last = entries[-1]
    forged = {
        **last,
        "seq": len(entries),
        "prev": last["hash"],
        "alg": alg,
        "kind": "run_finished",
        "data": {"verdict": "pass", "exit_code": 0},
    }
    forged.pop("hash")
    raw = canonical(forged)
    digest = attacker_digest(alg)(raw)
    path.write_bytes(genuine + raw[:-1] + b',"hash":"' + digest.encode() + b'"}\n')
    (tmp_path / HEAD_FILE).write_bytes(
        canonical({"seq": len(entries), "hash": digest, "alg": alg}) + b"\n"
    )
    err = assert_tampered(path, 11, capsys)
    assert ("downgrade" in err) if alg == "sha256" else ("MAC mismatch" in err)


def test_appended_forged_human_waivers_are_detected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path)
    entries = entries_of(path)
    for n in range(3):
        entries.append(
            {
                **entries[-1],
                "kind": "attack_transition",
                "data": {"attack": f"A{n}", "action": "waive", "by": "human", "text": "ok"},
            }
        )
    # Keep the genuine prefix byte for byte; key the forged tail with the attacker's key.
    genuine = path.read_bytes()
    write_chain(path, entries, "hmac-sha256", head=True)
    forged_tail = path.read_bytes().splitlines(keepends=True)[10:]
    path.write_bytes(genuine + b"".join(forged_tail))
    assert_tampered(path, 11, capsys)


def test_rewriting_the_tail_together_with_the_head_is_detected_by_the_anchor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    entries = entries_of(path)
    # Cut the last three entries and rewind ledger.head to a genuine earlier entry.
    path.write_bytes(b"".join(lines[:7]))
    (tmp_path / HEAD_FILE).write_bytes(
        canonical({"seq": 6, "hash": entries[6]["hash"], "alg": "hmac-sha256"}) + b"\n"
    )
    err = assert_tampered(path, 8, capsys)
    assert "anchor" in err and "entry 10" in err


def test_deleting_ledger_head_is_detected_by_the_anchor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path)
    (tmp_path / HEAD_FILE).unlink()
    err = assert_tampered(path, 11, capsys)
    assert "ledger.head is missing" in err


def test_deleting_ledger_head_and_the_last_lines_is_detected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-2]))
    (tmp_path / HEAD_FILE).unlink()
    assert_tampered(path, 9, capsys)


def test_a_history_rechained_unkeyed_from_line_one_is_detected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path)
    entries = entries_of(path)
    entries[-1]["data"] = {"verdict": "pass", "exit_code": 0}
    write_chain(path, entries, "sha256", head=True)
    err = assert_tampered(path, 1, capsys)
    assert "rewritten from its start" in err


def test_a_rewound_head_alone_loses_nothing_but_strict_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path)
    entries = entries_of(path)
    (tmp_path / HEAD_FILE).write_bytes(
        canonical({"seq": 4, "hash": entries[4]["hash"], "alg": "hmac-sha256"}) + b"\n"
    )
    result = verify(path)
    assert result.ok and not result.strict_ok
    assert any("rewound" in what for what in result.unchecked)
    assert main(["ledger", "verify", "--strict", str(path)]) == 1


def test_strict_passes_a_keyed_anchored_ledger_and_says_what_it_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path)
    assert main(["ledger", "verify", "--strict", str(path)]) == 0
    out = capsys.readouterr().out
    assert "10 entries intact" in out
    assert "checked: 10 keyed entries (hmac-sha256): every MAC verified" in out
    assert "checked: ledger.head" in out and "checked: anchor" in out
    assert "not checked" not in out


def test_an_old_unkeyed_ledger_still_verifies_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path, keyed=False)
    assert main(["ledger", "verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "not checked: 10 unkeyed entries (sha256" in out
    assert main(["ledger", "verify", "--strict", str(path)]) == 1
    assert "strict: 1 check(s) could not be made" in capsys.readouterr().err


def test_continuing_an_unkeyed_ledger_keys_the_new_entries(tmp_path: Path) -> None:
    path = build(tmp_path, keyed=False)
    with Ledger.open(path, RUN) as ledger:
        assert ledger.append("run_resumed", {})["alg"] == "hmac-sha256"
    result = verify(path)
    assert result.ok and (result.unkeyed, result.keyed) == (10, 1)
    assert not result.strict_ok


def test_without_the_key_macs_are_not_checked_and_strict_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path)
    monkeypatch.setenv("CONTEND_KEY_FILE", str(tmp_path / "no-such-key"))
    assert main(["ledger", "verify", str(path)]) == 0
    assert "not checked: 10 keyed entries" in capsys.readouterr().out
    assert main(["ledger", "verify", "--strict", str(path)]) == 1
    assert not (tmp_path / "no-such-key").exists()  # a reader never creates a key


def test_another_users_key_does_not_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path)
    monkeypatch.setenv("CONTEND_KEY_FILE", str(tmp_path / "other.key"))
    other = load_key(create=True)
    err = assert_tampered(path, 1, capsys)
    assert "another ledger key" in err
    assert other is not None and f"the key here is {other.kid}" in err


def test_the_key_is_created_on_first_write_private_and_under_xdg_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CONTEND_CONFIG_HOME")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    where = tmp_path / "xdg" / "contend" / "ledger.key"
    assert key_path() == where
    assert load_key(create=False) is None and not where.exists()
    build(tmp_path / "run")
    assert stat.S_IMODE(where.stat().st_mode) == 0o600
    assert stat.S_IMODE(where.parent.stat().st_mode) == 0o700
    assert len(bytes.fromhex(where.read_text().strip())) == 32
    key = load_key(create=True)
    assert key is not None and key.secret.hex() not in repr(key)


def test_a_key_file_others_can_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path / "run")
    key_file = key_path()
    os.chmod(key_file, 0o644)
    with pytest.raises(LedgerKeyError, match="accessible to others"):
        Ledger(tmp_path / "other" / "ledger.jsonl", "another-run")
    assert main(["ledger", "verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert "chmod 600" in err and "Traceback" not in err


def test_the_key_file_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONTEND_KEY_FILE", str(tmp_path / "k" / "my.key"))
    build(tmp_path / "run")
    assert (tmp_path / "k" / "my.key").is_file()


def test_the_hmac_is_rfc_2104_hmac_sha256() -> None:
    for key in (b"k" * 32, b"x" * 100, b""):
        for body in (b"", b"abc", b"{" * 5000):
            assert hmac_sha256(key)(body) == hmac.new(key, body, hashlib.sha256).hexdigest()


def test_anchors_live_in_the_user_state_dir_never_in_the_run_or_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert anchor_dir() == tmp_path / "state" / "contend" / "anchors"
    run_dir = tmp_path / "repo" / ".contend" / "runs" / RUN
    build(run_dir)
    anchor = Anchors.for_user().read(RUN)
    assert anchor is not None and anchor.seq == 9
    assert anchor.ledger == str((run_dir / "ledger.jsonl").resolve())
    assert (tmp_path / "state" / "contend" / "anchors" / f"{RUN}.json").is_file()
    assert sorted(p.name for p in run_dir.iterdir()) == ["ledger.head", "ledger.jsonl"]
    monkeypatch.setenv("CONTEND_ANCHOR_DIR", str(tmp_path / "elsewhere"))
    assert anchor_dir() == tmp_path / "elsewhere"


def test_an_earlier_copy_is_not_called_tampered_but_strict_cannot_compare_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build(tmp_path / "run")
    out = tmp_path / "out"
    out.mkdir()
    (out / "ledger.jsonl").write_bytes(path.read_bytes())
    (out / HEAD_FILE).write_bytes((path.parent / HEAD_FILE).read_bytes())
    with Ledger.open(path, RUN) as ledger:
        ledger.append("attack_transition", {"attack": "A1", "action": "waive", "by": "human"})
    result = verify(out / "ledger.jsonl", may_be_copy=True)
    assert result.ok and not result.strict_ok
    assert any("an earlier copy" in what for what in result.unchecked)
    assert main(["ledger", "verify", str(out)]) == 0  # a directory outside the runs
    assert "an earlier copy" in capsys.readouterr().out
    # Where the file must be the run's own (the writer, status, a run named by id), a
    # ledger shorter than its anchor is cut, wherever it now lives.
    assert not verify(out / "ledger.jsonl").ok
    # The run's own ledger cut back to the copy's length is tampering.
    path.write_bytes((out / "ledger.jsonl").read_bytes())
    (path.parent / HEAD_FILE).write_bytes((out / HEAD_FILE).read_bytes())
    assert_tampered(path, 11, capsys)


def test_a_second_history_under_a_run_id_that_has_an_anchor_is_refused(tmp_path: Path) -> None:
    build(tmp_path / "a")
    with pytest.raises(LedgerCorrupt, match="already has an anchor"):
        Ledger(tmp_path / "b" / "ledger.jsonl", RUN)


def test_an_emptied_ledger_with_an_anchor_is_not_a_fresh_start(tmp_path: Path) -> None:
    path = build(tmp_path)
    path.write_bytes(b"")
    (tmp_path / HEAD_FILE).unlink()
    with pytest.raises(LedgerCorrupt, match="not a contend ledger"):
        Ledger.open(path, RUN)


def test_a_ledger_created_and_never_written_starts_fresh(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    Ledger(path, RUN).close()  # created, crashed before its first event
    with Ledger.open(path, RUN) as ledger:
        assert ledger.append("run_started", {})["seq"] == 0
    assert verify(path).strict_ok


def test_a_deleted_ledger_is_not_restarted_under_its_run_id(tmp_path: Path) -> None:
    path = build(tmp_path)
    path.unlink()
    (tmp_path / HEAD_FILE).unlink()
    with pytest.raises(LedgerCorrupt, match="the ledger was deleted"):
        Ledger.open(path, RUN)
    assert not path.exists()


def test_moving_the_run_directory_does_not_launder_a_cut(tmp_path: Path) -> None:
    path = build(tmp_path / "runs" / RUN)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-3]))
    (path.parent / HEAD_FILE).unlink()
    moved = tmp_path / "elsewhere"
    (tmp_path / "runs" / RUN).rename(moved)
    (tmp_path / "runs" / RUN).symlink_to(moved)
    with pytest.raises(LedgerCorrupt, match="truncated"):
        Ledger.open(path, RUN)


def test_a_ledger_rewritten_under_another_run_id_does_not_escape_its_anchor(
    tmp_path: Path,
) -> None:
    path = build(tmp_path / RUN)
    entries = entries_of(path)
    for entry in entries:
        entry["run"] = "20261130-120000-ffffff"
    entries[-1]["data"] = {"verdict": "pass", "exit_code": 0}
    write_chain(path, entries, "sha256", head=True)
    result = verify(path, run=RUN)
    assert not result.ok and result.first_bad_line == 1 and "belongs to run" in result.message
    with pytest.raises(LedgerCorrupt, match="line 1"):
        Ledger.open(path, RUN)
