"""Where the repository of an agent's worktree lives, as the agent CLIs see it.

contend runs every agent CLI in a linked git worktree of the reviewed repository. Two
questions about such a worktree are answered here, by asking git: which checkout is the
author's (a fork looks the author's session up there, never in contend's own current
directory), and under which directories a CLI may look the worktree's project settings up
(codex keys a project's trust by the main repository's root, for any linked worktree).
It never writes anything.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from contend.errors import AgentError


@dataclass(frozen=True, slots=True)
class RepoPaths:
    toplevel: Path  # the work tree that contains the path (the worktree itself)
    main: Path  # the repository's main work tree: the first entry of `git worktree list`
    common_parent: Path  # the directory that holds the shared git directory


def repo_paths(path: Path, *, backend: str) -> RepoPaths | None:
    """The git paths around `path`, or None when `path` is not inside a git work tree."""
    top = _git(path, ["rev-parse", "--path-format=absolute", "--show-toplevel"], backend)
    if top is None:
        return None
    common = _git(path, ["rev-parse", "--path-format=absolute", "--git-common-dir"], backend)
    listing = _git(path, ["worktree", "list", "--porcelain"], backend)
    if common is None or listing is None:
        raise AgentError(
            f"{backend}: git could not describe the repository at {path}", backend=backend
        )
    entries = [
        line[len("worktree ") :] for line in listing.splitlines() if line.startswith("worktree ")
    ]
    if not entries:
        raise AgentError(f"{backend}: git lists no work tree for {path}", backend=backend)
    main = entries[0]  # git lists the main work tree first
    return RepoPaths(toplevel=Path(top), main=Path(main), common_parent=Path(common).parent)


def author_checkout(worktree: Path, repo: Path | None, *, backend: str) -> Path:
    """The checkout whose agent sessions a fork continues: the reviewed repository when the
    caller names it, else the main work tree of `worktree`'s repository (contend's own
    worktrees are linked worktrees of it), else `worktree` itself outside git."""
    if repo is not None:
        return repo
    paths = repo_paths(worktree, backend=backend)
    return paths.main if paths is not None else worktree


def _git(cwd: Path, args: list[str], backend: str) -> str | None:
    """git's output; None when git says `cwd` is not in a repository (that is an answer)."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AgentError(f"{backend}: cannot run git in {cwd}: {exc}", backend=backend) from exc
    if done.returncode != 0:
        if "not a git repository" in done.stderr:
            # contend: allow silent-fallback -- outside a repository is an answer, not a failure
            return None
        raise AgentError(
            f"{backend}: git {' '.join(args)} failed in {cwd}: {done.stderr.strip()[:500]}",
            backend=backend,
        )
    return done.stdout.strip()
