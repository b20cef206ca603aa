"""The agent subprocess runner: deadlines kill the whole process group, output is bounded."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest

from contend.agents.process import ProcessResult, require_success, run_process
from contend.errors import AgentError, AgentTimeout

PY = sys.executable


def _run(argv: list[str], tmp_path: Path, **kwargs: object) -> ProcessResult:
    return asyncio.run(
        run_process(argv, backend="test", cwd=tmp_path, **kwargs)  # type: ignore[arg-type]
    )


def _alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    # contend: allow silent-fallback -- no /proc entry is the answer: the pid is gone
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_gone(pid: int, within_s: float = 3.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


# A leader that starts a grandchild ignoring SIGTERM, records its pid, then blocks forever.
SPAWN_STUBBORN_GRANDCHILD = f"""
import subprocess, sys, time
child = subprocess.Popen([{PY!r}, "-c",
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(300)"])
open(sys.argv[1], "w").write(str(child.pid))
time.sleep(300)
"""


def test_success_returns_stdout_and_code(tmp_path: Path) -> None:
    result = _run([PY, "-c", "print('hello'); import sys; sys.exit(0)"], tmp_path, timeout_s=10)
    assert result.returncode == 0
    assert result.stdout == b"hello\n"
    assert require_success(result, backend="test") is result


def test_non_zero_exit_is_an_agent_error_with_stderr_tail(tmp_path: Path) -> None:
    code = "import sys; sys.stderr.write('boom: model said no\\n'); sys.exit(3)"
    result = _run([PY, "-c", code], tmp_path, timeout_s=10)
    assert result.returncode == 3
    with pytest.raises(AgentError) as info:
        require_success(result, backend="claude")
    assert "exited with code 3" in str(info.value)
    assert "boom: model said no" in str(info.value)
    assert info.value.backend == "claude"


def test_crash_by_signal_is_reported(tmp_path: Path) -> None:
    result = _run(
        [PY, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"],
        tmp_path,
        timeout_s=10,
    )
    assert result.returncode == -11
    with pytest.raises(AgentError, match="killed by signal 11"):
        require_success(result, backend="test")


def test_timeout_kills_the_whole_group_including_a_stubborn_grandchild(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    started = time.monotonic()
    with pytest.raises(AgentTimeout, match="deadline"):
        _run(
            [PY, "-c", SPAWN_STUBBORN_GRANDCHILD, str(pid_file)],
            tmp_path,
            timeout_s=1.5,
            kill_grace_s=0.5,
        )
    assert time.monotonic() - started < 8
    grandchild = int(pid_file.read_text())
    assert _wait_gone(grandchild), f"grandchild {grandchild} survived the timeout"


def test_cancellation_also_kills_the_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"

    async def scenario() -> None:
        task = asyncio.create_task(
            run_process(
                [PY, "-c", SPAWN_STUBBORN_GRANDCHILD, str(pid_file)],
                backend="test",
                cwd=tmp_path,
                timeout_s=60,
                kill_grace_s=0.3,
            )
        )
        while not pid_file.exists() or not pid_file.read_text():
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert _wait_gone(int(pid_file.read_text()))


def test_leader_exit_does_not_wait_for_a_background_helper(tmp_path: Path) -> None:
    # The helper inherits stdout; without the group kill, reading stdout would block on it.
    code = (
        "import subprocess, sys\n"
        f"p = subprocess.Popen([{PY!r}, '-c', 'import time; time.sleep(300)'])\n"
        "open(sys.argv[1], 'w').write(str(p.pid))\n"
        "print('done')\n"
    )
    pid_file = tmp_path / "helper.pid"
    started = time.monotonic()
    result = _run([PY, "-c", code, str(pid_file)], tmp_path, timeout_s=20)
    assert result.stdout == b"done\n"
    assert time.monotonic() - started < 10
    assert _wait_gone(int(pid_file.read_text()))


def test_output_a_helper_is_still_writing_after_the_leader_exits_is_kept(
    tmp_path: Path,
) -> None:
    # A CLI may leave its last writes to a helper process; the group is killed only once
    # the output has stopped growing. The leader exits as soon as the helper is writing.
    ready = tmp_path / "helper-ready"
    helper = (
        "import pathlib, sys, time\n"
        f"pathlib.Path({str(ready)!r}).touch()\n"
        "for i in range(10):\n"
        "    sys.stdout.write(f'{i}'); sys.stdout.flush(); time.sleep(0.02)\n"
    )
    code = (
        "import os, subprocess, time\n"
        f"subprocess.Popen([{PY!r}, '-c', {helper!r}])\n"
        f"while not os.path.exists({str(ready)!r}): time.sleep(0.01)\n"
    )
    result = _run([PY, "-c", code], tmp_path, timeout_s=20)
    assert result.stdout == b"0123456789"


def test_stdout_over_the_cap_is_an_error_not_a_truncated_reply(tmp_path: Path) -> None:
    code = "import sys; sys.stdout.write('x' * (10 * 1024 * 1024)); sys.stdout.flush()"
    with pytest.raises(AgentError, match="exceeded 1048576 bytes") as info:
        _run([PY, "-c", code], tmp_path, timeout_s=20, max_stdout=1024 * 1024)
    assert not isinstance(info.value, AgentTimeout)


def test_stdout_at_the_cap_is_kept_whole(tmp_path: Path) -> None:
    code = "import sys; sys.stdout.write('y' * 4096)"
    result = _run([PY, "-c", code], tmp_path, timeout_s=10, max_stdout=4096)
    assert result.stdout == b"y" * 4096


def test_stderr_keeps_only_its_tail(tmp_path: Path) -> None:
    code = "import sys; sys.stderr.write('e' * 500_000 + 'LAST-LINE'); sys.exit(1)"
    result = _run([PY, "-c", code], tmp_path, timeout_s=10)
    assert len(result.stderr_tail) == 64 * 1024
    assert result.stderr_tail.endswith(b"LAST-LINE")


def test_stdin_is_devnull_unless_given(tmp_path: Path) -> None:
    cat = [PY, "-c", "import sys; sys.stdout.write(sys.stdin.read())"]
    assert _run(cat, tmp_path, timeout_s=10).stdout == b""
    big = b"z" * 300_000  # larger than a pipe buffer
    assert _run(cat, tmp_path, timeout_s=10, stdin=big).stdout == big


def test_environment_passes_through_with_additions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("USER_LOGIN_TOKEN", "from-the-user")
    code = "import os; print(os.environ['USER_LOGIN_TOKEN'], os.environ['ADDED'], os.getcwd())"
    result = _run([PY, "-c", code], tmp_path, timeout_s=10, env_add={"ADDED": "yes"})
    assert result.stdout.decode().split() == ["from-the-user", "yes", str(tmp_path)]
    assert "ADDED" not in os.environ


def test_missing_binary_is_an_agent_error(tmp_path: Path) -> None:
    with pytest.raises(AgentError, match="not found"):
        _run([str(tmp_path / "no-such-cli")], tmp_path, timeout_s=5)


def test_give_up_ends_the_run_at_the_line_it_names_and_kills_the_group(tmp_path: Path) -> None:
    # A CLI that says it cannot reach its server and will retry forever: the line, once
    # complete, ends the run at once, with the group (a stubborn grandchild too) killed.
    pid_file = tmp_path / "grandchild.pid"
    code = SPAWN_STUBBORN_GRANDCHILD.replace(
        "time.sleep(300)\n",
        "print('working', flush=True)\n"
        "sys.stdout.write('Reconnecting... waiting'); sys.stdout.flush(); time.sleep(0.3)\n"
        "print(' for network', flush=True)\n"
        "time.sleep(300)\n",
    )
    seen: list[str] = []

    def give_up(line: str) -> AgentError | None:
        seen.append(line)
        if "waiting for network" in line:
            return AgentError(f"test: {line}", backend="test", failure="unreachable")
        return None

    started = time.monotonic()
    with pytest.raises(AgentError, match=r"Reconnecting\.\.\. waiting for network") as info:
        _run(
            [PY, "-c", code, str(pid_file)],
            tmp_path,
            timeout_s=60,
            kill_grace_s=0.3,
            give_up=give_up,
        )
    assert time.monotonic() - started < 10
    assert info.value.failure == "unreachable" and not isinstance(info.value, AgentTimeout)
    assert seen == ["working", "Reconnecting... waiting for network"]  # whole lines only
    assert _wait_gone(int(pid_file.read_text()))


def test_give_up_skips_an_overlong_line_and_reads_on(tmp_path: Path) -> None:
    code = "print('x' * 200_000); print('short line after it')"
    seen: list[str] = []

    def give_up(line: str) -> AgentError | None:
        seen.append(line)
        return None

    result = _run([PY, "-c", code], tmp_path, timeout_s=10, give_up=give_up)
    assert len(result.stdout) == 200_000 + 1 + len("short line after it") + 1
    assert seen == ["short line after it"]
