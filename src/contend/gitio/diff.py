"""Turn `git diff base [head | --cached | working tree]` into `FileChange`s and `Skipped`s.

Every path the diff names ends up in exactly one of the two lists: a file the critics can
read (UTF-8 text within the size limit) or a skip with its reason. Line numbers come from
`git diff -M -U0` parsed with unidiff; blob texts come from one `git cat-file --batch`.
Untracked files (working-tree mode) are added files; a rename done without `git mv` is seen
as a delete plus an add, because contend never writes to the user's index.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from unidiff.patch import PatchSet

from contend.critics.static.base import (
    ChangeStatus,
    FileChange,
    Skipped,
    is_test_path,
    language_of,
)
from contend.errors import UserError
from contend.gitio.git import EMPTY_TREE, GitError, repo_root, resolve_commit, run_git

_NULL_SHA = "0" * 40
_SUBMODULE_MODE = "160000"
_SYMLINK_MODE = "120000"
# git's own binary heuristic: a NUL byte in the first 8000 bytes.
_BINARY_PROBE = 8000


@dataclass(frozen=True, slots=True)
class _RawEntry:
    old_mode: str
    new_mode: str
    old_sha: str
    new_sha: str
    status: str
    old_path: str
    new_path: str


@dataclass(frozen=True, slots=True)
class _Hunks:
    added: frozenset[int]
    removed: frozenset[int]
    binary: bool


def collect_changes(
    repo: Path,
    base: str,
    head: str | None = None,
    *,
    staged: bool = False,
    include_untracked: bool = True,
    max_file_bytes: int = 1_000_000,
) -> tuple[list[FileChange], list[Skipped]]:
    """The files changed from `base` to `head` (None: the working tree; staged: the index)."""
    if staged and head is not None:
        raise UserError("choose one new side: --staged (the index) or --head REV, not both")
    root = repo_root(repo)
    # The empty tree is a valid base: the first commit of a repository is all additions.
    base_sha = EMPTY_TREE if base == EMPTY_TREE else resolve_commit(root, base)
    head_sha = resolve_commit(root, head) if head is not None else None
    side = [base_sha]
    if head_sha is not None:
        side.append(head_sha)
    elif staged:
        side.insert(0, "--cached")
    reader = _Reader(root, from_disk=head_sha is None and not staged, limit=max_file_bytes)
    entries = _raw_entries(root, side)
    hunks = _hunks(root, side)
    if len(entries) != len(hunks):
        raise GitError(
            f"git diff listed {len(entries)} files but its patch has {len(hunks)}; "
            "the repository changed while it was read — run again"
        )
    changes: list[FileChange] = []
    skipped: list[Skipped] = []

    def _sort_into(result: FileChange | Skipped) -> None:
        if isinstance(result, FileChange):
            changes.append(result)
        else:
            skipped.append(result)

    plans = list(zip(entries, hunks, strict=True))
    reader.prefetch(
        sha
        for entry, entry_hunks in plans
        if _pre_skip(entry, entry_hunks) is None
        for sha in (entry.old_sha, entry.new_sha)
    )
    for entry, entry_hunks in plans:
        _sort_into(_pre_skip(entry, entry_hunks) or _change_of(entry, entry_hunks, reader))
    if head_sha is None and not staged and include_untracked:
        for path in _untracked(root):
            _sort_into(_untracked_change(root, path, max_file_bytes))
    return changes, skipped


def _diff_options() -> list[str]:
    # Pinned so a user's diff.noprefix, diff.external, textconv or diff.relative cannot
    # change what is parsed.
    return [
        "diff",
        "-M",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--no-relative",
        "--src-prefix=a/",
        "--dst-prefix=b/",
    ]


def _raw_entries(root: Path, side: Sequence[str]) -> list[_RawEntry]:
    out = run_git(root, [*_diff_options(), "--raw", "-z", "--no-abbrev", *side, "--"])
    tokens = out.split(b"\0")
    entries: list[_RawEntry] = []
    i = 0
    while i < len(tokens) and tokens[i]:
        meta = tokens[i].decode("ascii").lstrip(":").split()
        old_mode, new_mode, old_sha, new_sha, status = meta
        two_paths = status[0] in "RC"
        old_path = _path(tokens[i + 1])
        new_path = _path(tokens[i + 2]) if two_paths else old_path
        i += 3 if two_paths else 2
        entries.append(_RawEntry(old_mode, new_mode, old_sha, new_sha, status, old_path, new_path))
    return entries


def _path(raw: bytes) -> str:
    # surrogateescape keeps a non-UTF-8 file name round-trippable; it is skipped later.
    return raw.decode("utf-8", errors="surrogateescape")


def _hunks(root: Path, side: Sequence[str]) -> list[_Hunks]:
    out = run_git(root, [*_diff_options(), "-U0", *side, "--"])
    # Only line numbers are taken from the patch; file contents are decoded (strictly) from
    # the blobs, so undecodable bytes here cannot leak into a finding.
    patch = PatchSet(out.decode("utf-8", errors="surrogateescape"))
    result: list[_Hunks] = []
    for patched in patch:
        added: set[int] = set()
        removed: set[int] = set()
        for hunk in patched:
            for line in hunk:
                if line.is_added and line.target_line_no is not None:
                    added.add(line.target_line_no)
                elif line.is_removed and line.source_line_no is not None:
                    removed.add(line.source_line_no)
        result.append(_Hunks(frozenset(added), frozenset(removed), patched.is_binary_file))
    return result


def _pre_skip(entry: _RawEntry, hunks: _Hunks) -> Skipped | None:
    """The skip decided by the listing alone, before any content is read."""
    letter = entry.status[0]
    path = entry.new_path
    if _has_surrogates(path) or _has_surrogates(entry.old_path):
        return Skipped(_printable(path), "file name is not valid UTF-8; cannot be reported")
    if letter == "U":
        return Skipped(path, "unmerged: resolve the merge conflict first")
    if _SUBMODULE_MODE in (entry.old_mode, entry.new_mode):
        return Skipped(path, "submodule: its contents belong to another repository")
    if _SYMLINK_MODE in (entry.old_mode, entry.new_mode):
        return Skipped(path, "symlink: a link target is not source to check")
    if hunks.binary:
        return Skipped(path, "binary file")
    if letter == "D" and not is_test_path(entry.old_path) and not _may_hold_js_tests(entry):
        return Skipped(path, "deleted: nothing on the new side to check")
    if letter not in _STATUS:
        return Skipped(path, f"unsupported git change status {entry.status!r}")
    return None


def _may_hold_js_tests(entry: _RawEntry) -> bool:
    """JS/TS test files are known by what they hold (mocha's `test/*.js`), not by name: a
    deleted one goes to the critics, which say "deleted" themselves when it held no tests."""
    return language_of(entry.old_path) in ("javascript", "typescript", "tsx")


def _change_of(entry: _RawEntry, hunks: _Hunks, reader: _Reader) -> FileChange | Skipped:
    path = entry.new_path
    status = _STATUS[entry.status[0]]
    old_text: str | None = None
    new_text: str | None = None
    if status != "added":
        got = reader.text(entry.old_sha, path, "old")
        if isinstance(got, Skipped):
            return got
        old_text = got
    if status != "deleted":
        got = reader.text(entry.new_sha, path, "new")
        if isinstance(got, Skipped):
            return got
        new_text = got
    return FileChange(
        path=path,
        old_path=entry.old_path if status == "renamed" else None,
        status=status,
        old_text=old_text,
        new_text=new_text,
        added_lines=hunks.added,
        removed_lines=hunks.removed,
        language=language_of(path),
    )


_STATUS: dict[str, ChangeStatus] = {
    "A": "added",
    "M": "modified",
    "T": "modified",
    "D": "deleted",
    "R": "renamed",
    "C": "added",
}


class _Reader:
    """Blob and working-tree file contents, fetched in bulk and size-checked before reading."""

    def __init__(self, root: Path, *, from_disk: bool, limit: int) -> None:
        self._root = root
        self._from_disk = from_disk
        self._limit = limit
        self._sizes: dict[str, int] = {}
        self._blobs: dict[str, bytes] = {}

    def prefetch(self, shas: Iterable[str]) -> None:
        wanted = sorted({s for s in shas if s != _NULL_SHA})
        if not wanted:
            return
        request = "".join(f"{sha}\n" for sha in wanted).encode("ascii")
        for line in run_git(self._root, ["cat-file", "--batch-check"], stdin=request).splitlines():
            sha, kind, size = line.decode("ascii").split()
            if kind == "blob":
                self._sizes[sha] = int(size)
        small = [sha for sha in wanted if self._sizes.get(sha, self._limit + 1) <= self._limit]
        if small:
            request = "".join(f"{sha}\n" for sha in small).encode("ascii")
            self._blobs.update(
                _parse_batch(run_git(self._root, ["cat-file", "--batch"], stdin=request))
            )

    def text(self, sha: str, path: str, side: str) -> str | Skipped:
        if sha == _NULL_SHA:
            if not self._from_disk:
                raise GitError(f"git diff gave no blob for the {side} side of {path}")
            return _read_disk(self._root, path, self._limit)
        size = self._sizes.get(sha)
        if size is None:
            raise GitError(f"blob {sha} of {path} is missing from the repository")
        if size > self._limit:
            return _too_large(path, size, self._limit, side)
        return _decode(self._blobs[sha], path, side)


def _parse_batch(out: bytes) -> dict[str, bytes]:
    blobs: dict[str, bytes] = {}
    pos = 0
    while pos < len(out):
        end = out.index(b"\n", pos)
        header = out[pos:end].decode("ascii").split()
        if len(header) != 3:
            raise GitError(f"git cat-file: unexpected answer {out[pos:end]!r}")
        sha, size = header[0], int(header[2])
        blobs[sha] = out[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
    return blobs


def _read_disk(root: Path, path: str, limit: int) -> str | Skipped:
    full = root / path
    try:
        size = full.stat().st_size
        if size > limit:
            return _too_large(path, size, limit, "new")
        data = full.read_bytes()
    except FileNotFoundError as exc:
        raise GitError(f"{path} disappeared while it was being read; run again") from exc
    except OSError as exc:
        return Skipped(path, f"unreadable: {exc.strerror or exc}")
    return _decode(data, path, "new")


def _too_large(path: str, size: int, limit: int, side: str) -> Skipped:
    return Skipped(path, f"too large: {size} bytes on the {side} side (limit {limit} bytes)")


def _decode(data: bytes, path: str, side: str) -> str | Skipped:
    if b"\0" in data[:_BINARY_PROBE]:
        return Skipped(path, "binary file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Skipped(path, f"not UTF-8 on the {side} side (byte {exc.start}): cannot be read")


def _untracked(root: Path) -> list[str]:
    out = run_git(root, ["ls-files", "--others", "--exclude-standard", "-z"])
    return sorted(_path(raw) for raw in out.split(b"\0") if raw)


def _untracked_change(root: Path, path: str, limit: int) -> FileChange | Skipped:
    if _has_surrogates(path):
        return Skipped(_printable(path), "file name is not valid UTF-8; cannot be reported")
    full = root / path
    if path.endswith("/"):
        return Skipped(path, "nested git repository: its contents belong to another repository")
    if full.is_symlink():
        return Skipped(path, "symlink: a link target is not source to check")
    got = _read_disk(root, path, limit)
    if isinstance(got, Skipped):
        return got
    return FileChange(
        path=path,
        old_path=None,
        status="added",
        old_text=None,
        new_text=got,
        added_lines=frozenset(range(1, len(got.splitlines()) + 1)),
        removed_lines=frozenset(),
        language=language_of(path),
    )


def _has_surrogates(text: str) -> bool:
    return any("\udc80" <= ch <= "\udcff" for ch in text)


def _printable(path: str) -> str:
    return path.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="backslashreplace")
