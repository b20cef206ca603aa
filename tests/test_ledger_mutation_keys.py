"""The ledger key as a user meets it, where the mutation run (bench/mutation/) found it
unguarded: the key id written into heads and anchors (a file format: an anchor written by
an earlier contend names its key by it), where the key is placed and the one-line error
when it cannot be, which key files are refused, a writer racing another to create the key,
and HMAC keys at the block-size boundary."""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

import pytest

from contend.cli.main import main
from contend.errors import LedgerKeyError
from contend.ledger import keys
from contend.ledger.anchor import Anchors
from contend.ledger.keys import LedgerKey, hmac_sha256, key_path, load_key
from contend.ledger.store import Ledger, read_head

RUN = "20261201-010000-abc123"


def _write(path: Path, *, key: LedgerKey | None = None) -> Path:
    kwargs = {} if key is None else {"key": key}
    with Ledger(path, RUN, **kwargs) as ledger:  # type: ignore[arg-type]
        ledger.append("run_started", {"run_id": RUN})
        ledger.append("run_finished", {"verdict": "fail", "exit_code": 1})
        ledger.checkpoint()
    return path


def _key_file(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.chmod(path, 0o600)
    return path


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


# --- the key id ---------------------------------------------------------------------------


def test_the_key_id_is_the_published_derivation_of_the_secret(tmp_path: Path) -> None:
    """Heads and anchors on disk name the key that wrote them by this id; a contend that
    derived it differently would call every earlier ledger "written under another key"."""
    key = LedgerKey(tmp_path / "k", bytes(range(32)))
    assert key.kid == "c44433c2bf99e2de"
    other = LedgerKey(tmp_path / "k", b"\xff" * 32)
    expected = hashlib.sha256(b"contend-ledger-key-id\0" + other.secret).hexdigest()[:16]
    assert other.kid == expected


def test_the_head_and_the_anchor_name_the_writers_key_id(tmp_path: Path) -> None:
    key = LedgerKey(tmp_path / "k", bytes(range(32)))
    path = _write(tmp_path / "run" / "ledger.jsonl", key=key)
    head = read_head(path)
    anchor = Anchors.for_user().read(RUN)
    assert head is not None and head.kid == "c44433c2bf99e2de"
    assert anchor is not None and anchor.kid == "c44433c2bf99e2de"


# --- where the key lives, and the error when it cannot be placed --------------------------


def test_an_empty_key_file_setting_is_refused_not_taken_for_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "run" / "ledger.jsonl")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTEND_KEY_FILE", "")
    capsys.readouterr()
    assert main(["ledger", "verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert "CONTEND_KEY_FILE is set but empty" in err
    assert "Traceback" not in err
    with pytest.raises(LedgerKeyError, match="set but empty"):
        key_path({"CONTEND_KEY_FILE": "", "HOME": str(tmp_path)})


def test_without_home_the_key_cannot_be_placed_and_the_user_is_told_what_to_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "run" / "ledger.jsonl")
    for name in ("HOME", "CONTEND_CONFIG_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CONTEND_ANCHOR_DIR", str(tmp_path / "anchors"))
    capsys.readouterr()
    assert main(["ledger", "verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert "cannot place the ledger key: HOME is unset" in err
    assert "set CONTEND_KEY_FILE" in err
    assert "Traceback" not in err


def test_the_key_file_setting_expands_the_users_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CONTEND_KEY_FILE", "~/k/ledger.key")
    assert key_path() == tmp_path / "k" / "ledger.key"


def test_without_an_override_the_key_sits_beside_the_user_config(tmp_path: Path) -> None:
    env = {"CONTEND_CONFIG_HOME": str(tmp_path / "cfg")}
    assert key_path(env) == tmp_path / "cfg" / "ledger.key"
    assert key_path({"HOME": str(tmp_path)}) == tmp_path / ".config" / "contend" / "ledger.key"


# --- which key files are refused -----------------------------------------------------------


def test_a_key_file_of_another_user_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _key_file(tmp_path / "ledger.key", "ab" * 32 + "\n")
    env = {"CONTEND_KEY_FILE": str(path)}
    mine = load_key(create=False, env=env)
    assert mine is not None and mine.secret == b"\xab" * 32
    someone_else = os.getuid() + 1
    monkeypatch.setattr(os, "getuid", lambda: someone_else)
    with pytest.raises(LedgerKeyError, match=r"belongs to another user \(uid \d+\)"):
        load_key(create=False, env=env)


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o610, 0o601])
def test_a_key_file_any_other_user_can_reach_is_refused(tmp_path: Path, mode: int) -> None:
    path = _key_file(tmp_path / "ledger.key", "ab" * 32 + "\n")
    os.chmod(path, mode)
    with pytest.raises(LedgerKeyError, match=f"accessible to others \\(mode {mode:04o}\\)"):
        load_key(create=False, env={"CONTEND_KEY_FILE": str(path)})


def test_a_key_of_at_least_128_bits_is_taken_and_a_shorter_one_refused(tmp_path: Path) -> None:
    env = {"CONTEND_KEY_FILE": str(tmp_path / "ledger.key")}
    _key_file(tmp_path / "ledger.key", "01" * 16 + "\n")
    key = load_key(create=False, env=env)
    assert key is not None and key.secret == b"\x01" * 16
    _key_file(tmp_path / "ledger.key", "01" * 15 + "\n")
    with pytest.raises(LedgerKeyError, match="is not a key \\(expected 64 hex digits\\)"):
        load_key(create=False, env=env)


def test_a_key_file_that_is_not_hex_is_refused_as_not_a_key(tmp_path: Path) -> None:
    path = _key_file(tmp_path / "ledger.key", "not a key at all, but long enough to be one\n")
    with pytest.raises(LedgerKeyError, match="is not a key"):
        load_key(create=False, env={"CONTEND_KEY_FILE": str(path)})


def test_an_unreadable_key_file_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path / "run" / "ledger.jsonl")
    binary = tmp_path / "binary.key"
    binary.write_bytes(b"\xff\xfe" * 40)
    os.chmod(binary, 0o600)
    with pytest.raises(LedgerKeyError, match="cannot read ledger key"):
        load_key(create=False, env={"CONTEND_KEY_FILE": str(binary)})
    folder = tmp_path / "a-directory.key"
    folder.mkdir(mode=0o700)
    os.chmod(folder, 0o700)
    monkeypatch.setenv("CONTEND_KEY_FILE", str(folder))
    capsys.readouterr()
    assert main(["ledger", "verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"cannot read ledger key {folder}" in err and "Traceback" not in err


# --- creating the key ----------------------------------------------------------------------


def test_a_writer_that_loses_the_race_to_create_the_key_uses_the_winners(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two writers start at once: both see no key, the other's lands first (here: while
    this one writes its own). This one must keep the other's key (or their ledgers would be
    keyed by different secrets), and leave no descriptor open and no file of its own."""
    where = tmp_path / "cfg" / "ledger.key"
    env = {"CONTEND_KEY_FILE": str(where)}
    winner = "cd" * 32 + "\n"
    real_write = os.write

    def racing_write(fd: int, data: bytes) -> int:
        if not where.exists():
            where.write_text(winner)
            os.chmod(where, 0o600)
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", racing_write)
    before = _open_fds()
    key = load_key(create=True, env=env)
    monkeypatch.undo()
    assert key is not None and key.secret == bytes.fromhex(winner)
    assert where.read_text() == winner
    assert _open_fds() == before
    assert [p.name for p in where.parent.iterdir()] == ["ledger.key"]


def test_a_key_directory_without_hard_links_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Some file systems refuse hard links: the user is told so, and what to do, and no
    half-made key or temporary file is left behind."""
    where = tmp_path / "cfg" / "ledger.key"

    def no_links(src: object, dst: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    with pytest.raises(LedgerKeyError, match="the directory must allow hard links") as caught:
        load_key(create=True, env={"CONTEND_KEY_FILE": str(where)})
    assert f"cannot create ledger key {where}" in str(caught.value)
    assert "point CONTEND_KEY_FILE at a key file you created" in str(caught.value)
    assert list(where.parent.iterdir()) == []


def test_creating_the_key_leaves_no_descriptor_open(tmp_path: Path) -> None:
    env = {"CONTEND_KEY_FILE": str(tmp_path / "new" / "ledger.key")}
    before = _open_fds()
    key = load_key(create=True, env=env)
    assert key is not None and len(key.secret) == 32
    assert _open_fds() == before
    assert load_key(create=False, env=env) == key


# --- the MAC ---------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [63, 64, 65])
def test_the_mac_is_hmac_sha256_for_keys_around_the_block_size(size: int) -> None:
    secret = bytes(range(size))
    for body in (b"", b'{"seq":0}'):
        assert hmac_sha256(secret)(body) == hmac.new(secret, body, hashlib.sha256).hexdigest()


def test_the_keys_module_names_the_two_algorithms_the_ledger_records() -> None:
    """`alg` values on disk: a renamed one would make every existing ledger unverifiable."""
    assert (keys.HASH_ALG, keys.HMAC_ALG) == ("sha256", "hmac-sha256")
    assert frozenset({"sha256", "hmac-sha256"}) == keys.ALGORITHMS
