"""Where the repository of an agent's worktree lives, as the agent CLIs see it.

contend runs every agent CLI in a linked git worktree of the reviewed repository. Two
questions about such a worktree are answered here, by asking git: which checkout is the
author's (a fork looks the author's session up there, never in contend's own current
directory), and under which directories a CLI may look the worktree's project settings up
(codex keys a project's trust by the main repository's root, for any linked worktree).
It never writes anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from contend.errors import AgentError, ContendError
from contend.gitio.git import find_repo_root, git_common_dir, git_text
from contend.gitio.worktree_lock import worktree_lock


@dataclass(frozen=True, slots=True)
class RepoPaths:
    toplevel: Path  # the work tree that contains the path (the worktree itself)
    main: Path  # the repository's main work tree: the first entry of `git worktree list`
    common_parent: Path  # the directory that holds the shared git directory


def repo_paths(path: Path, *, backend: str) -> RepoPaths | None:
    """The git paths around `path`, or None when `path` is not inside a git work tree."""
    try:
        top = find_repo_root(path)
        if top is None:
            return None
        common = git_common_dir(path)
        with worktree_lock(path):  # a concurrent `worktree add` would make list fail
            listing = git_text(path, ["worktree", "list", "--porcelain"])
    except ContendError as exc:  # git refused or failed: the agent cannot be set up
        raise AgentError(f"{backend}: cannot run git in {path}: {exc}", backend=backend) from exc
    entries = [
        line[len("worktree ") :] for line in listing.splitlines() if line.startswith("worktree ")
    ]
    if not entries:
        raise AgentError(f"{backend}: git lists no work tree for {path}", backend=backend)
    main = entries[0]  # git lists the main work tree first
    return RepoPaths(toplevel=top, main=Path(main), common_parent=common.parent)


def author_checkout(worktree: Path, repo: Path | None, *, backend: str) -> Path:
    """The checkout whose agent sessions a fork continues: the reviewed repository when the
    caller names it, else the main work tree of `worktree`'s repository (contend's own
    worktrees are linked worktrees of it), else `worktree` itself outside git."""
    if repo is not None:
        return repo
    paths = repo_paths(worktree, backend=backend)
    return paths.main if paths is not None else worktree
