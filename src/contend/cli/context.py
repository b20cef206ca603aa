"""What commands share: locating the repository and the state directory from the cwd."""

from __future__ import annotations

import os
from pathlib import Path

from contend.config import load_settings
from contend.errors import NotAGitRepository
from contend.gitio.git import repo_root


def cwd_repo_root() -> Path | None:
    """The repository around the cwd; None when git finds none there (these commands also
    work outside a repository, and say so)."""
    try:
        return repo_root(Path.cwd())
    # contend: allow silent-fallback -- no repository is an answer the caller reports
    except NotAGitRepository:
        return None


def state_dir_for_cwd() -> Path | None:
    """The state directory of the repository around the cwd.

    Outside a repository only CONTEND_STATE_DIR can name one; without it there is none,
    and commands then need a run directory or a ledger path instead of a run id.
    """
    root = cwd_repo_root()
    if root is None:
        override = os.environ.get("CONTEND_STATE_DIR")
        return Path(override) if override else None
    return load_settings(root).state_path(root)
