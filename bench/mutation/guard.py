"""Whether the checkout changed while mutants ran: a mutant's code may write files.

The slow path imports the mutant from a worker's copy, and what a test may write there is
copied (execute.Workspace.prepare), but the fast path swaps the mutant into functions the
host imported from the checkout itself, so a mutated writer can still reach real files
(a schema generator once wrote over a source file). This does not prevent that; it makes
it loud: every file of the checkout is stat'ed before and after the mutants, and a change
is reported by name with an exit code of 1, never left to be committed unnoticed.
"""

from __future__ import annotations

import os
from pathlib import Path

# Never part of what a mutant could spoil unnoticed: VCS data, environments, caches.
_SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".venv",
        "node_modules",
        ".agents-node",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".hypothesis",
    }
)

Snapshot = dict[str, tuple[int, int]]


def snapshot(root: Path, skip: Path) -> Snapshot:
    """Size and modification time of every file under `root` outside `skip` (the run's own
    output directory) and the skipped directories."""
    skip_text = str(skip.resolve())
    found: Snapshot = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [
            d
            for d in dirs
            if d not in _SKIPPED_DIRS and str(Path(folder, d).resolve()) != skip_text
        ]
        for name in files:
            path = os.path.join(folder, name)
            try:
                info = os.stat(path, follow_symlinks=False)
            # contend: allow silent-fallback -- removed between listing and stat: left out, so
            # `changed` sees it as absent from this snapshot (a change when it was there before)
            except FileNotFoundError:
                continue
            found[os.path.relpath(path, root)] = (info.st_size, info.st_mtime_ns)
    return found


def changed(before: Snapshot, after: Snapshot) -> list[str]:
    """Files added, removed or rewritten between two snapshots, sorted."""
    return sorted(
        path for path in before.keys() | after.keys() if before.get(path) != after.get(path)
    )
