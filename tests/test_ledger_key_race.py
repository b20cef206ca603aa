"""Two writers creating the ledger key at once: the loser must read the winner's whole key.

A key file was once created empty with O_EXCL and written afterwards, so a second writer that
found it existing read it before the first had written: "ledger key … is not a key" (seen in
parallel experiment cells). The first writer here is held right after it has written nothing
yet visible to others; the second must neither fail nor keep a key of its own.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from contend.ledger import keys


def test_a_writer_racing_another_reads_the_same_whole_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {keys.KEY_ENV: str(tmp_path / "cfg" / "ledger.key")}
    first_is_writing = threading.Event()
    second_is_done = threading.Event()
    real_write = os.write
    results: dict[str, object] = {}

    def held_write(fd: int, data: bytes) -> int:
        if threading.current_thread().name == "first":
            first_is_writing.set()
            assert second_is_done.wait(10), "the second writer never finished"
        return real_write(fd, data)

    monkeypatch.setattr(keys.os, "write", held_write)

    def first() -> None:
        results["first"] = keys.load_key(create=True, env=env)

    thread = threading.Thread(target=first, name="first")
    thread.start()
    assert first_is_writing.wait(10)
    try:
        results["second"] = keys.load_key(create=True, env=env)
    finally:
        second_is_done.set()
        thread.join(10)
    first_key, second_key = results["first"], results["second"]
    assert isinstance(first_key, keys.LedgerKey)
    assert isinstance(second_key, keys.LedgerKey)
    assert first_key.kid == second_key.kid
    assert keys.load_key(create=False, env=env).kid == first_key.kid  # type: ignore[union-attr]
    assert (Path(env[keys.KEY_ENV]).stat().st_mode & 0o777) == 0o600
    assert [p.name for p in Path(env[keys.KEY_ENV]).parent.iterdir()] == ["ledger.key"]
