"""Keeping a mutant's writes out of the checkout: each child sees the worker's copy where
the checkout's files are.

A mutant's code may write files, and not only through paths computed by the mutated
module: the fast path runs mutants in functions the host imported from the checkout, and
on either path a module the child did not re-import still computes its paths from the
checkout's `__file__` (a schema generator once wrote over a source file). So a forked
child enters its own mount namespace (Linux: as root, or through a user namespace
otherwise) and bind-mounts each top-level entry of its worker's copy over the same entry
of the checkout: `src/` (with the mutant written in), `schemas/`, `docs/`, `README.md` …
A write to any of those paths — by the mutated code, by a module imported from the
checkout, by a subprocess a test starts — lands in the copy. Nothing changes for the
parent or any other process: the mounts exist only in the child's namespace.

Not covered: what the copy links rather than copies (`tests/` and `bench/`, read-only
inputs and the run's own output), a new file at the top level of the checkout, and
dot-entries (`.git`, `.venv`); guard.py still reports any change there. Where namespaces
cannot be made (not Linux, or unprivileged user namespaces disabled), `probe` says why and
the run says that writes are reported, not prevented.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_MS_BIND = 4096
_MS_REC = 16384
_MS_PRIVATE = 1 << 18


class IsolationError(Exception):
    pass


def _libc() -> ctypes.CDLL:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.unshare.argtypes = [ctypes.c_int]
        libc.mount.argtypes = [
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_ulong,
            ctypes.c_void_p,
        ]
    except (OSError, AttributeError) as exc:
        raise IsolationError(f"no unshare/mount in the C library: {exc}") from None
    return libc


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise IsolationError(f"{what}: {os.strerror(err)}")


def _own_namespace(libc: ctypes.CDLL) -> None:
    """A mount namespace of this (single-threaded, just forked) process."""
    if libc.unshare(_CLONE_NEWNS) == 0:
        return
    # Not privileged: a user namespace owning the mount namespace, this user mapped to itself.
    uid, gid = os.getuid(), os.getgid()
    _check(libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS), "unshare (user and mount namespace)")
    Path("/proc/self/setgroups").write_text("deny")
    Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
    Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")


def binds(root: Path, copy: Path, names: list[str]) -> list[tuple[Path, Path]]:
    """(copy entry, checkout entry) for each named top-level entry the copy holds as its
    own (not a link back to the checkout)."""
    pairs = []
    for name in names:
        entry, target = copy / name, root / name
        if entry.is_symlink() or target.is_symlink() or not target.exists():
            continue
        pairs.append((entry, target))
    return pairs


def enter(pairs: list[tuple[Path, Path]]) -> None:
    """In a forked child: from now on this process and its children see each copy entry
    at its checkout path. Raises IsolationError if it cannot."""
    libc = _libc()
    _own_namespace(libc)
    # Private: the binds below must not propagate back to the namespace they came from.
    _check(libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate /")
    for source, target in pairs:
        _check(
            libc.mount(os.fsencode(source), os.fsencode(target), None, _MS_BIND | _MS_REC, None),
            f"mount --bind {source} {target}",
        )


def probe(pairs: list[tuple[Path, Path]]) -> str | None:
    """Whether children can be isolated here: None if a forked probe could enter, or the
    reason it could not (a probe, so the parent's own namespace is never touched)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the probe child never returns into the parent's code
        os.close(read)
        code = 1
        try:
            enter(pairs)
            code = 0
        except (IsolationError, OSError) as exc:
            os.write(write, str(exc).encode()[:500])
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        reason = pipe.read().decode(errors="replace")
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return None
    return reason or f"the probe ended with status {status}"
