"""Thin git helpers shared by the real-commit scripts: run git, stream its output, read blobs.

Every failure of git is an error naming the command (GitFailed), never an empty result.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path


class GitFailed(RuntimeError):
    """A git command exited non-zero; the message names the command and its stderr."""


def git(
    repo: Path,
    *args: str,
    input_bytes: bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> bytes:
    proc = subprocess.run(
        ["git", "-C", str(repo), *args],
        input=input_bytes,
        capture_output=True,
        env=None if env is None else dict(env),
        check=False,
    )
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()
        raise GitFailed(f"git {' '.join(args[:4])} in {repo}: exit {proc.returncode}: {err}")
    return proc.stdout


def git_text(repo: Path, *args: str) -> str:
    return git(repo, *args).decode("utf-8", "replace")


def git_lines(repo: Path, args: Sequence[str]) -> Iterator[str]:
    """Stream git's stdout line by line (decoded leniently: diffs may hold any bytes)."""
    proc = subprocess.Popen(
        ["git", "-C", str(repo), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    for raw in proc.stdout:
        yield raw.decode("utf-8", "replace").rstrip("\n")
    err = proc.stderr.read().decode("utf-8", "replace").strip()
    if proc.wait() != 0:
        raise GitFailed(f"git {' '.join(args[:4])} in {repo}: exit {proc.returncode}: {err}")


def blob_sizes(repo: Path, specs: Sequence[str]) -> dict[str, int | None]:
    """Size of each object (an id or `rev:path`); None where the object is missing."""
    if not specs:
        return {}
    proc = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch-check=%(objectsize)"],
        input="".join(f"{s}\n" for s in specs).encode(),
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        raise GitFailed(f"git cat-file --batch-check in {repo}: {proc.stderr!r}")
    sizes: dict[str, int | None] = {}
    for spec, line in zip(specs, proc.stdout.decode().splitlines(), strict=True):
        sizes[spec] = None if line.endswith(" missing") else int(line)
    return sizes
