"""One review at a time per repository: refusal naming the holder, waiting, and taking over
the lock of a holder killed with SIGKILL (a real subprocess)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from contend.errors import LockHeld
from contend.review.lock import HOLDER_NAME, review_lock

HOLDER_SCRIPT = """
import sys, time
from pathlib import Path
from contend.review.lock import review_lock
with review_lock(Path(sys.argv[1]), command="contend review --from-subprocess"):
    print("ready", flush=True)
    time.sleep(120)
"""


def test_second_holder_is_refused_with_the_holder_named(tmp_path: Path) -> None:
    with review_lock(tmp_path, command="contend review --base main") as held:
        assert held.holder.pid == os.getpid()
        assert held.notes == ()
        recorded = json.loads((tmp_path / HOLDER_NAME).read_text())
        assert recorded["command"] == "contend review --base main"
        assert recorded["hostname"] == socket.gethostname()
        with (
            pytest.raises(LockHeld) as refused,
            review_lock(tmp_path, command="contend review"),
        ):
            pytest.fail("a second holder got the lock")
    message = str(refused.value)
    assert f"pid {os.getpid()}" in message
    assert "running `contend review --base main`" in message
    assert f"started {held.holder.started_at}" in message
    assert "Wait for it to finish" in message
    # Released: the holder file is gone and the lock can be taken again.
    assert not (tmp_path / HOLDER_NAME).exists()
    with review_lock(tmp_path, command="again") as again:
        assert again.notes == ()


def test_waiting_succeeds_once_the_holder_releases(tmp_path: Path) -> None:
    taken = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with review_lock(tmp_path, command="first"):
            taken.set()
            release.wait(5)

    holder = threading.Thread(target=hold)
    holder.start()
    assert taken.wait(5)
    threading.Timer(0.3, release.set).start()
    started = time.monotonic()
    with review_lock(tmp_path, command="second", wait_s=5.0) as held:
        waited = time.monotonic() - started
        assert held.holder.command == "second"
        assert held.notes == ()
    holder.join(5)
    assert 0.2 <= waited < 5.0


def test_waiting_too_short_says_how_long_it_waited(tmp_path: Path) -> None:
    with review_lock(tmp_path, command="first"):
        started = time.monotonic()
        with (
            pytest.raises(LockHeld, match=r"waited 0\.2 s"),
            review_lock(tmp_path, command="second", wait_s=0.2),
        ):
            pytest.fail("a second holder got the lock")
        assert time.monotonic() - started >= 0.2


def test_lock_of_a_sigkilled_holder_is_taken_over(tmp_path: Path) -> None:
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER_SCRIPT, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "ready"
            with (
                pytest.raises(LockHeld, match=f"pid {child.pid} .*--from-subprocess"),
                review_lock(tmp_path, command="contend review"),
            ):
                pytest.fail("the lock was taken while its holder lived")
            child.send_signal(signal.SIGKILL)
            assert child.wait(10) == -signal.SIGKILL
        finally:
            if child.poll() is None:
                child.kill()
                child.wait(10)
    # The kernel released the lock; the dead holder's file is still there until taken over.
    assert (tmp_path / HOLDER_NAME).exists()
    with review_lock(tmp_path, command="contend review") as held:
        assert len(held.notes) == 1
        note = held.notes[0]
        assert f"took over the review lock left by pid {child.pid}" in note
        assert "no longer running" in note
        assert json.loads((tmp_path / HOLDER_NAME).read_text())["pid"] == os.getpid()
