"""Run one agent CLI as a subprocess under a hard deadline, with bounded output.

It owns the process lifecycle for the CLI backends (claude, codex, gemini): the process
runs in its own process group (a new session), stdin is /dev/null unless input is given,
stdout and stderr go to unnamed temporary files that are watched while it runs — stdout
beyond a size cap (16 MB) or stderr beyond a larger one kills the group and is an error,
never buffered without bound; only stderr's tail is kept. Past the deadline the WHOLE group
is killed (SIGTERM, then SIGKILL after a short grace) and AgentTimeout is raised: a CLI
whose model server is unreachable may otherwise wait forever, and killing only the leader
would leave its helpers (node workers, sandboxes, shells) running.

Why files and not pipes: claude 2.1 (a bun binary) exits without flushing a large reply
still queued for a pipe that is not drained fast enough — a 10 MB reply arrived cut at
128 KB through asyncio pipes and complete through a file. A file also cannot block the CLI.

A backend may also pass `give_up`, called with each complete line of stdout as it arrives:
a CLI that says it cannot reach its model server and will keep retrying (codex: "Reconnecting...
waiting for network") is killed at once and its own words raised, instead of waiting out the
deadline. stdout is read with pread, never through the shared file offset the CLI writes at.

The environment reaches the CLI unchanged by default — the user's logins, config files,
API keys and base URLs are theirs to keep — plus explicit additions. This module never
interprets the output: the backend does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from contend.errors import AgentError, AgentTimeout

MAX_STDOUT_BYTES = 16 * 1024 * 1024
MAX_STDERR_BYTES = 64 * 1024 * 1024
STDERR_TAIL_BYTES = 64 * 1024
KILL_GRACE_S = 2.0
POLL_S = 0.05
# After the leader exits, helpers it left may still be writing its output; wait while the
# output files grow, until this much silence, before the group is killed.
POST_EXIT_IDLE_S = 0.3
WATCHED_LINE_BYTES = 64 * 1024


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


def require_success(result: ProcessResult, *, backend: str) -> ProcessResult:
    """Return `result` when the process exited 0, else raise AgentError with the stderr tail."""
    if result.returncode != 0:
        raise AgentError(f"{backend}: {result.failure()}", backend=backend)
    return result


# Looks at one line of stdout; returns the error to end the run with, or None to go on.
GiveUp = Callable[[str], AgentError | None]


class _GaveUp(Exception):
    def __init__(self, error: AgentError) -> None:
        super().__init__(str(error))
        self.error = error


class _OutputTooLarge(Exception):
    def __init__(self, stream: str, limit: int) -> None:
        super().__init__(f"{stream} exceeded {limit} bytes")
        self.stream = stream
        self.limit = limit


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
    give_up: GiveUp | None = None,
) -> ProcessResult:
    """Run `argv` and return its result, whatever its exit code (the backend judges that).

    Raises AgentTimeout past `timeout_s` (the process group is killed first), AgentError
    when the binary cannot be started or its output exceeds the caps, and the error
    `give_up` returns for a line of stdout (the group is killed first).
    `env` replaces the inherited environment only when given; `env_add` is merged on top.
    """
    full_env = dict(os.environ if env is None else env)
    full_env.update(env_add or {})
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = await _spawn(argv, backend, cwd, full_env, stdin is not None, out, err)
        try:
            async with asyncio.timeout(timeout_s):
                if stdin is not None:
                    await _feed(proc, stdin)
                await _watch(proc, out, err, max_stdout, give_up)
        except TimeoutError:
            await _kill_group(proc, kill_grace_s)
            tail = _tail(err).decode("utf-8", errors="replace").strip()[-1000:]
            raise AgentTimeout(
                f"{backend}: {argv[0]} ran past its {timeout_s:g}s deadline; its process "
                "group was killed" + (f". stderr tail:\n{tail}" if tail else ""),
                backend=backend,
            ) from None
        except _GaveUp as exc:
            await _kill_group(proc, kill_grace_s)
            raise exc.error from None
        except _OutputTooLarge as exc:
            await _kill_group(proc, kill_grace_s)
            what = "reply" if exc.stream == "stdout" else "stderr"
            raise AgentError(
                f"{backend}: {what} exceeded {exc.limit} bytes; the process was killed and "
                "the output discarded",
                backend=backend,
                failure="malformed",
            ) from None
        finally:
            # Also reached on success and on cancellation: a no-op once the group is gone.
            await _kill_group(proc, kill_grace_s)
        assert proc.returncode is not None
        out.seek(0)
        return ProcessResult(
            argv=tuple(argv),
            returncode=proc.returncode,
            stdout=out.read(max_stdout),
            stderr_tail=_tail(err),
            wall_s=time.monotonic() - started,
        )


async def _spawn(
    argv: Sequence[str],
    backend: str,
    cwd: Path,
    env: dict[str, str],
    with_stdin: bool,
    out: IO[bytes],
    err: IO[bytes],
) -> asyncio.subprocess.Process:
    try:
        return await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.PIPE if with_stdin else asyncio.subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
    except FileNotFoundError as exc:
        raise AgentError(
            f"{backend}: cannot run {argv[0]!r}: not found (is it installed and on PATH?)",
            backend=backend,
        ) from exc
    except PermissionError as exc:
        raise AgentError(f"{backend}: cannot run {argv[0]!r}: {exc}", backend=backend) from exc


async def _watch(
    proc: asyncio.subprocess.Process,
    out: IO[bytes],
    err: IO[bytes],
    max_stdout: int,
    give_up: GiveUp | None,
) -> None:
    """Poll until the leader has exited and its output stopped growing; enforce the caps
    and hand each new stdout line to `give_up`."""
    idle_since: float | None = None
    last = -1
    lines = _LineReader(out.fileno()) if give_up is not None else None
    while True:
        sizes = (os.fstat(out.fileno()).st_size, os.fstat(err.fileno()).st_size)
        if sizes[0] > max_stdout:
            raise _OutputTooLarge("stdout", max_stdout)
        if sizes[1] > MAX_STDERR_BYTES:
            raise _OutputTooLarge("stderr", MAX_STDERR_BYTES)
        if lines is not None and give_up is not None:
            for line in lines.new_lines(sizes[0]):
                error = give_up(line)
                if error is not None:
                    raise _GaveUp(error)
        if proc.returncode is not None:
            now = time.monotonic()
            if sum(sizes) != last:
                last, idle_since = sum(sizes), now
            elif idle_since is not None and now - idle_since >= POST_EXIT_IDLE_S:
                return
        await asyncio.sleep(POLL_S)


class _LineReader:
    """The complete lines appended to a file since the last call, read with pread so the
    offset the child process writes at is never moved. A line longer than
    WATCHED_LINE_BYTES is skipped: what a backend watches for is a short status line, and
    re-joining a 10 MB reply chunk by chunk would cost quadratic time."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.offset = 0
        self.partial = b""
        self.skipping = False

    def new_lines(self, size: int) -> list[str]:
        if size <= self.offset:
            return []
        chunk = os.pread(self.fd, size - self.offset, self.offset)
        self.offset += len(chunk)
        *complete, rest = chunk.split(b"\n")
        lines = []
        for part in complete:
            line = self.partial + part
            if not self.skipping and len(line) <= WATCHED_LINE_BYTES:
                lines.append(line.decode("utf-8", errors="replace"))
            self.partial, self.skipping = b"", False
        if not self.skipping:
            self.partial += rest
            if len(self.partial) > WATCHED_LINE_BYTES:
                self.partial, self.skipping = b"", True
        return lines


def _tail(err: IO[bytes]) -> bytes:
    size = os.fstat(err.fileno()).st_size
    err.seek(max(0, size - STDERR_TAIL_BYTES))
    return err.read(STDERR_TAIL_BYTES)


async def _feed(proc: asyncio.subprocess.Process, data: bytes) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write(data)
        await proc.stdin.drain()
    # contend: allow silent-fallback -- the exit code and output judge an early close
    except (BrokenPipeError, ConnectionResetError):
        # The CLI exited or closed stdin before reading all of it; its exit code and
        # output say what happened, and are judged by the caller.
        return
    finally:
        proc.stdin.close()


def _signal_group(pgid: int, sig: signal.Signals) -> bool:
    """Send `sig` to the process group; False when no member of the group is left."""
    try:
        os.killpg(pgid, sig)
    # contend: allow silent-fallback -- no group left is the answer asked for
    except ProcessLookupError:
        return False
    return True


async def _kill_group(proc: asyncio.subprocess.Process, grace_s: float) -> None:
    """SIGTERM the group while its leader runs, SIGKILL the group after `grace_s` (always:
    helpers may outlive the leader), and wait for the leader's exit."""
    if proc.returncode is None and _signal_group(proc.pid, signal.SIGTERM):
        with contextlib.suppress(TimeoutError):
            # A leader that ignores SIGTERM is handled by the SIGKILL just below.
            await asyncio.wait_for(_exited(proc), grace_s)
    _signal_group(proc.pid, signal.SIGKILL)
    await _exited(proc)


async def _exited(proc: asyncio.subprocess.Process) -> None:
    """Wait for the leader's exit. Not `proc.wait()`: before Python 3.12 that also waits
    for every pipe to close, which a helper left holding one can delay forever."""
    while proc.returncode is None:
        await asyncio.sleep(POLL_S)
