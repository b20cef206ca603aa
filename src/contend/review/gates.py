"""Mechanical gates: the user's own commands (tests, linters, type checkers).

A gate is a shell command line from the user's configuration or `--gate`, so it runs
through the shell on purpose. It runs in a worktree of the reviewed snapshot, never in
the user's working tree, under a timeout; its output tail goes to the ledger.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

from contend.protocol.event_types import GateRanData

OUTPUT_TAIL = 64_000


async def run_gate(
    cmd: str, cwd: Path, *, when: str, thread: str | None = None, timeout_s: float = 1800.0
) -> GateRanData:
    started = time.perf_counter()
    # contend: allow security -- a gate is the user's own configured shell command
    proc = await asyncio.create_subprocess_shell(
        cmd,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    timed_out = False
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout=timeout_s)
    except TimeoutError:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = await proc.communicate()
    text = out.decode("utf-8", "replace")
    if timed_out:
        text += f"\n[contend: gate killed after {timeout_s:g}s]"
    return {
        # The whole command: "pytest -q tests/a" and "pytest -q tests/b" are two gates.
        "name": cmd,
        "cmd": cmd,
        "ok": proc.returncode == 0 and not timed_out,
        "exit_code": proc.returncode,
        "output": text[-OUTPUT_TAIL:],
        "when": when,
        "thread": thread,
        "wall_s": round(time.perf_counter() - started, 3),
    }
