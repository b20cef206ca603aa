"""Run one agent CLI as a subprocess under a hard deadline, with bounded output.

It owns the process lifecycle for the CLI backends (claude, codex, gemini): the process
runs in its own process group (a new session), stdin is /dev/null unless input is given,
stdout and stderr are read concurrently — stdout up to a size cap (a bigger reply is an
error, never buffered without bound), stderr keeping only its tail. Past the deadline the
WHOLE group is killed (SIGTERM, then SIGKILL after a short grace) and AgentTimeout is
raised: a CLI whose model server is unreachable may otherwise wait forever, and killing
only the leader would leave its helpers (node workers, sandboxes, shells) running.

The environment reaches the CLI unchanged by default — the user's logins, config files,
API keys and base URLs are theirs to keep — plus explicit additions. This module never
interprets the output: the backend does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contend.errors import AgentError, AgentTimeout

MAX_STDOUT_BYTES = 16 * 1024 * 1024
STDERR_TAIL_BYTES = 64 * 1024
KILL_GRACE_S = 2.0
_CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class ProcessResult:
    argv: tuple[str, ...]
    returncode: int  # negative: killed by that signal
    stdout: bytes
    stderr_tail: bytes
    wall_s: float

    @property
    def stdout_text(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    @property
    def stderr_text(self) -> str:
        return self.stderr_tail.decode("utf-8", errors="replace")

    def failure(self) -> str:
        """A one-paragraph description of a failed exit, for an AgentError message."""
        if self.returncode < 0:
            how = f"was killed by signal {-self.returncode}"
        else:
            how = f"exited with code {self.returncode}"
        tail = self.stderr_text.strip()[-2000:]
        return f"{self.argv[0]} {how}" + (f"; stderr tail:\n{tail}" if tail else "")


class _Sink:
    """Collects one stream: the head up to `cap` (stdout) or the last `cap` bytes (stderr)."""

    def __init__(self, cap: int, *, keep_tail: bool) -> None:
        self.cap = cap
        self.keep_tail = keep_tail
        self.data = bytearray()
        self.overflowed = False

    async def drain(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(_CHUNK):
            self.data.extend(chunk)
            if len(self.data) <= self.cap:
                continue
            if self.keep_tail:
                del self.data[: len(self.data) - self.cap]
            else:
                # Stop reading: the caller kills the process rather than let it block on a
                # full pipe or keep a reply nobody can use.
                del self.data[self.cap :]
                self.overflowed = True
                return


async def run_process(
    argv: Sequence[str],
    *,
    backend: str,
    cwd: Path,
    timeout_s: float,
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
    env_add: Mapping[str, str] | None = None,
    max_stdout: int = MAX_STDOUT_BYTES,
    kill_grace_s: float = KILL_GRACE_S,
) -> ProcessResult:
    """Run `argv` and return its result, whatever its exit code (the backend judges that).

    Raises AgentTimeout past `timeout_s` (the process group is killed first), AgentError
    when the binary cannot be started or stdout exceeds `max_stdout` bytes.
    `env` replaces the inherited environment only when given; `env_add` is merged on top.
    """
    full_env = dict(os.environ if env is None else env)
    full_env.update(env_add or {})
    started = time.monotonic()
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=full_env,
            stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except FileNotFoundError as exc:
        raise AgentError(
            f"{backend}: cannot run {argv[0]!r}: not found (is it installed and on PATH?)",
            backend=backend,
        ) from exc
    except PermissionError as exc:
        raise AgentError(f"{backend}: cannot run {argv[0]!r}: {exc}", backend=backend) from exc

    assert proc.stdout is not None and proc.stderr is not None  # PIPE was requested
    out = _Sink(max_stdout, keep_tail=False)
    err = _Sink(STDERR_TAIL_BYTES, keep_tail=True)
    readers: list[asyncio.Task[Any]] = [
        asyncio.create_task(out.drain(proc.stdout)),
        asyncio.create_task(err.drain(proc.stderr)),
    ]
    try:
        async with asyncio.timeout(timeout_s):
            if stdin is not None:
                await _feed(proc, stdin)
            waiter = asyncio.create_task(_exited(proc))
            readers.append(waiter)
            await asyncio.wait([readers[0], waiter], return_when=asyncio.FIRST_COMPLETED)
            if not out.overflowed:
                await waiter
                # The leader is gone; helpers it left behind still hold our pipes open.
                _signal_group(proc.pid, signal.SIGKILL)
                await asyncio.gather(*readers)
    except TimeoutError:
        await _kill_group(proc, kill_grace_s)
        tail = err.data.decode("utf-8", errors="replace").strip()[-1000:]
        raise AgentTimeout(
            f"{backend}: {argv[0]} ran past its {timeout_s:g}s deadline; its process group "
            f"was killed" + (f". stderr tail:\n{tail}" if tail else ""),
            backend=backend,
        ) from None
    finally:
        # Reached on success too: then the group is already gone and this returns at once.
        await _kill_group(proc, kill_grace_s)
        await _settle(readers)

    if out.overflowed:
        raise AgentError(
            f"{backend}: reply exceeded {max_stdout} bytes; the process was killed and the "
            "reply discarded",
            backend=backend,
        )
    assert proc.returncode is not None
    return ProcessResult(
        argv=tuple(argv),
        returncode=proc.returncode,
        stdout=bytes(out.data),
        stderr_tail=bytes(err.data),
        wall_s=time.monotonic() - started,
    )


async def _feed(proc: asyncio.subprocess.Process, data: bytes) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write(data)
        await proc.stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        # The CLI exited or closed stdin before reading all of it; its exit code and
        # output say what happened, and are judged by the caller.
        return
    finally:
        proc.stdin.close()


def require_success(result: ProcessResult, *, backend: str) -> ProcessResult:
    """Return `result` when the process exited 0, else raise AgentError with the stderr tail."""
    if result.returncode != 0:
        raise AgentError(f"{backend}: {result.failure()}", backend=backend)
    return result


def _signal_group(pgid: int, sig: signal.Signals) -> bool:
    """Send `sig` to the process group; False when no member of the group is left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    return True


async def _kill_group(proc: asyncio.subprocess.Process, grace_s: float) -> None:
    """SIGTERM the group, SIGKILL it after `grace_s`, and reap the leader."""
    if proc.returncode is None and _signal_group(proc.pid, signal.SIGTERM):
        with contextlib.suppress(TimeoutError):
            # A leader that ignores SIGTERM is handled by the SIGKILL just below.
            await asyncio.wait_for(_exited(proc), grace_s)
    _signal_group(proc.pid, signal.SIGKILL)
    await _exited(proc)


async def _exited(proc: asyncio.subprocess.Process) -> None:
    """Wait for the leader's exit. Not `proc.wait()`: before Python 3.12 that also waits
    for every pipe to close, which a helper left holding stdout can delay forever."""
    while proc.returncode is None:
        await asyncio.sleep(0.05)


async def _settle(tasks: list[asyncio.Task[Any]]) -> None:
    """Let the readers reach EOF (the group is dead), cancelling any that still hang."""
    _done, pending = await asyncio.wait(tasks, timeout=1.0)
    for task in pending:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
