"""What a run mutates: the targets named on the command line, the committed list of
equivalent mutants, and the lines changed since a revision (`--since`)."""

from __future__ import annotations

import re
import subprocess
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mutate import Mutant


@dataclass(frozen=True, slots=True)
class Target:
    path: Path  # relative to the root
    scope: str | None

    def wants(self, mutant: Mutant) -> bool:
        return (
            self.scope is None
            or mutant.scope == self.scope
            or mutant.scope.startswith(self.scope + ".")
        )


class UsageError(Exception):
    pass


def parse_targets(root: Path, specs: Sequence[str]) -> list[Target]:
    targets: list[Target] = []
    for spec in specs:
        raw, _, scope = spec.partition("::")
        path = Path(raw)
        full = path if path.is_absolute() else root / path
        if not full.exists():
            raise UsageError(f"no such file or directory: {raw}")
        files = sorted(full.rglob("*.py")) if full.is_dir() else [full]
        if scope and full.is_dir():
            raise UsageError(f"a scope needs a file, not a directory: {spec}")
        for file in files:
            if "__pycache__" in file.parts:
                continue
            targets.append(Target(file.resolve().relative_to(root.resolve()), scope or None))
    return targets


def load_equivalents(path: Path) -> dict[str, str]:
    """key → reason. Every entry must have both, and a reason that says something."""
    if not path.exists():
        return {}
    data = tomllib.loads(path.read_text())
    out: dict[str, str] = {}
    for i, entry in enumerate(data.get("mutant", [])):
        key, reason = entry.get("key"), entry.get("reason")
        if not isinstance(key, str) or not isinstance(reason, str) or len(reason.strip()) < 10:
            raise UsageError(f"{path}: entry {i + 1} needs a key and a reason")
        if key in out:
            raise UsageError(f"{path}: key listed twice: {key}")
        out[key] = reason.strip()
    return out


def stale_equivalents(
    equivalents: dict[str, str], generated: Iterable[Mutant], targets: Sequence[Target]
) -> list[str]:
    """Entries of the list that name a wholly targeted file but match none of its mutants
    (the code changed under them): each must be re-judged, not silently kept."""
    keys = {m.key for m in generated}
    whole_files = {t.path.as_posix() for t in targets if t.scope is None}
    return [k for k in equivalents if k.split("::", 1)[0] in whole_files and k not in keys]


def changed_lines(root: Path, rev: str, path: Path) -> set[int] | None:
    """Lines of `path` (as it is now) added or changed since `rev`; None: all of them (a
    file git does not track yet)."""
    untracked = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard", "--", path.as_posix()],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    if untracked.returncode != 0:
        raise UsageError(f"--since needs a git checkout: {untracked.stderr.strip()}")
    if untracked.stdout.strip():
        return None
    diff = subprocess.run(
        ["git", "diff", "--unified=0", "--no-color", "--no-ext-diff", rev, "--", path.as_posix()],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    if diff.returncode != 0:
        raise UsageError(f"--since {rev}: {diff.stderr.strip()}")
    lines: set[int] = set()
    for match in _HUNK.finditer(diff.stdout):
        start = int(match.group(1))
        count = int(match.group(2)) if match.group(2) is not None else 1
        # A pure deletion (count 0) changes the code around where the lines were.
        lines.update(range(start, start + count) if count else (start, start + 1))
    return lines


_HUNK = re.compile(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def touches(mutant: Mutant, source: str, changed: set[int] | None) -> bool:
    if changed is None:
        return True
    last = source.count("\n", 0, mutant.span[1]) + 1
    return any(line in changed for line in range(mutant.line, last + 1))
