"""One `contend review` at a time per repository: an OS-level file lock in the state dir,
plus a holder file saying who holds it (pid, host, start time, command).

The OS releases the lock when its holder dies, even by SIGKILL; the holder file it leaves
behind is then found by the next taker, who replaces it and reports the takeover.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock, Timeout

from contend.errors import LockHeld, UserError

LOCK_NAME = "review.lock"
HOLDER_NAME = "review.holder.json"


@dataclass(frozen=True, slots=True)
class Holder:
    pid: int
    hostname: str
    started_at: str
    command: str

    def describe(self) -> str:
        return (
            f"pid {self.pid} on {self.hostname}, started {self.started_at}, "
            f"running `{self.command}`"
        )


@dataclass(frozen=True, slots=True)
class HeldLock:
    """The lock while it is held; `notes` say whether a dead holder's lock was taken over."""

    holder: Holder
    path: Path
    notes: tuple[str, ...]


@contextmanager
def review_lock(state_dir: Path, *, command: str, wait_s: float = 0.0) -> Iterator[HeldLock]:
    """Hold the repository's review lock; wait up to `wait_s` seconds, else raise LockHeld."""
    state_dir.mkdir(parents=True, exist_ok=True)
    lock_path = state_dir / LOCK_NAME
    holder_path = state_dir / HOLDER_NAME
    # fallback_to_soft=False: a marker-file lock outlives a killed holder; only a kernel lock
    # is released by the holder's death.
    try:
        # Opened here first: a lock file that cannot be created is an unwritable state
        # directory, which filelock would report as a lock held by someone else.
        os.close(os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644))
    except OSError as exc:
        raise UserError(
            f"cannot create the review lock {lock_path}: {exc.strerror or exc}; make the "
            "state directory writable or set state_dir (CONTEND_STATE_DIR) elsewhere"
        ) from exc
    lock = FileLock(lock_path, fallback_to_soft=False, thread_local=False)
    try:
        lock.acquire(timeout=max(wait_s, 0.0))
    except Timeout as exc:
        raise LockHeld(_held_message(holder_path, wait_s)) from exc
    try:
        notes = _takeover_notes(holder_path)
        me = Holder(
            pid=os.getpid(),
            hostname=socket.gethostname(),
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            command=command,
        )
        _write_holder(holder_path, me)
        try:
            yield HeldLock(holder=me, path=lock_path, notes=notes)
        finally:
            # Removed before the lock is released, so a waiter never reads a stale holder.
            holder_path.unlink(missing_ok=True)
    finally:
        lock.release()


def read_holder(holder_path: Path) -> Holder | str:
    """The holder recorded in `holder_path`, or why it cannot be told."""
    try:
        raw = holder_path.read_text(encoding="utf-8")
    # contend: allow silent-fallback -- the refusal still names what it knows
    except FileNotFoundError:
        return "unknown holder (no holder file yet: it may be starting)"
    except OSError as exc:
        return f"unknown holder (cannot read {holder_path}: {exc.strerror})"
    try:
        data = json.loads(raw)
        return Holder(
            pid=int(data["pid"]),
            hostname=str(data["hostname"]),
            started_at=str(data["started_at"]),
            command=str(data["command"]),
        )
    except (ValueError, KeyError, TypeError) as exc:
        return f"unknown holder (holder file {holder_path} is malformed: {exc})"


def _held_message(holder_path: Path, wait_s: float) -> str:
    holder = read_holder(holder_path)
    waited = f" (waited {wait_s:g} s)" if wait_s > 0 else ""
    if isinstance(holder, str):
        who = holder
    else:
        who = holder.describe()
        if holder.hostname == socket.gethostname() and not _alive(holder.pid):
            who += " — that process is gone; a process it started may still hold the lock"
    return (
        f"another contend review is running on this repository{waited}: {who}. "
        "Wait for it to finish, or run again with a wait time; if it is stuck, stop that "
        "process and run again."
    )


def _takeover_notes(holder_path: Path) -> tuple[str, ...]:
    if not holder_path.exists():
        return ()
    previous = read_holder(holder_path)
    if isinstance(previous, str):
        return (f"took over the review lock; the previous holder left {previous}",)
    if previous.hostname != socket.gethostname():
        state = "on another host"
    elif _alive(previous.pid):
        state = "alive but no longer holding the lock (its pid was probably reused)"
    else:
        state = "no longer running"
    return (f"took over the review lock left by {previous.describe()}: that process is {state}",)


def _write_holder(holder_path: Path, holder: Holder) -> None:
    temp = holder_path.with_name(f"{holder_path.name}.{holder.pid}.tmp")
    payload = {
        "pid": holder.pid,
        "hostname": holder.hostname,
        "started_at": holder.started_at,
        "command": holder.command,
    }
    temp.write_text(json.dumps(payload) + "\n", encoding="utf-8")
    os.replace(temp, holder_path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    # contend: allow silent-fallback -- no such pid: not alive
    except ProcessLookupError:
        return False
    # contend: allow silent-fallback -- EPERM: the pid exists under another user
    except PermissionError:
        # The pid exists but belongs to another user.
        return True
    return True
