"""Turn `git diff base [head | --cached | working tree]` into `FileChange`s and `Skipped`s.

Every path the diff names ends up in exactly one of the two lists: a file the critics can
read (UTF-8 text within the size limit) or a skip with its reason. Line numbers come from
`git diff -M -U0` parsed with unidiff; blob texts come from one `git cat-file --batch`.
Untracked files (working-tree mode) are added files; a rename done without `git mv` is seen
as a delete plus an add, because contend never writes to the user's index.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from unidiff.patch import PatchSet

from contend.change import (
    CONFIG_FILES,
    ChangeStatus,
    FileChange,
    Skipped,
    is_test_path,
    language_of,
)
from contend.errors import UserError
from contend.gitio.base import exclude_pathspec
from contend.gitio.git import DIFF, EMPTY_TREE, GitError, repo_root, resolve_commit, run_git

DELETED_REASON = "deleted: nothing on the new side to check"
SYMLINK_REASON = "symlink: a link target is not source to check"
SUBMODULE_REASON = "submodule: its contents belong to another repository"
# Source files beyond the languages the static critics read (Python, JS/TS): a skipped one
# is still unreviewed code.
_CODE_SUFFIXES = frozenset(
    (
        *(".go", ".rs", ".java", ".kt", ".kts", ".scala", ".rb", ".php", ".c", ".h", ".cc"),
        *(".cpp", ".cxx", ".hpp", ".hh", ".cs", ".swift", ".m", ".mm", ".sh", ".bash", ".zsh"),
        *(".ps1", ".pl", ".pm", ".lua", ".r", ".jl", ".dart", ".ex", ".exs", ".erl", ".hs"),
        *(".ml", ".clj", ".groovy", ".sql", ".vue", ".svelte"),
    )
)
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
    exclude: Sequence[str] = (),
) -> tuple[list[FileChange], list[Skipped]]:
    """The files changed from `base` to `head` (None: the working tree; staged: the index).

    `exclude`: repository-relative paths never part of the change (contend's state dir)."""
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
    pathspec = exclude_pathspec(exclude)[1:]
    entries = _raw_entries(root, side, pathspec)
    hunks = _hunks(root, side, pathspec)
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
        for path in _untracked(root, pathspec):
            _sort_into(_untracked_change(root, path, max_file_bytes))
    return changes, skipped


def _raw_entries(root: Path, side: Sequence[str], pathspec: Sequence[str]) -> list[_RawEntry]:
    out = run_git(root, [*DIFF, "-M", "--raw", "-z", "--no-abbrev", *side, "--", *pathspec])
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


def _hunks(root: Path, side: Sequence[str], pathspec: Sequence[str]) -> list[_Hunks]:
    out = run_git(root, [*DIFF, "-M", "-U0", *side, "--", *pathspec])
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
    path = _printable(entry.new_path)
    if letter == "U":
        return Skipped(path, "unmerged: resolve the merge conflict first")
    if _SUBMODULE_MODE in (entry.old_mode, entry.new_mode):
        return Skipped(path, SUBMODULE_REASON)
    if _SYMLINK_MODE in (entry.old_mode, entry.new_mode):
        return Skipped(path, SYMLINK_REASON)
    if hunks.binary:
        return Skipped(path, "binary file")
    # A deleted test or review configuration file is still checked: removing it weakens.
    # A deleted JS/TS file too: its tests are known by what it holds, not by its name.
    if (
        letter == "D"
        and not is_test_path(entry.old_path)
        and path not in CONFIG_FILES
        and not _may_hold_js_tests(entry)
    ):
        return Skipped(path, DELETED_REASON)
    if letter not in _STATUS:
        return Skipped(path, f"unsupported git change status {entry.status!r}")
    return None


def _may_hold_js_tests(entry: _RawEntry) -> bool:
    """JS/TS test files are known by what they hold (mocha's `test/*.js`), not by name: a
    deleted one goes to the critics, which say "deleted" themselves when it held no tests."""
    return language_of(entry.old_path) in ("javascript", "typescript", "tsx")


def _change_of(entry: _RawEntry, hunks: _Hunks, reader: _Reader) -> FileChange | Skipped:
    # A name that is not UTF-8 is reviewed under a printable form (\xNN escapes); its
    # bytes are read by blob id or by the real name on disk.
    path = _printable(entry.new_path)
    status = _STATUS[entry.status[0]]
    old_text: str | None = None
    new_text: str | None = None
    if status != "added":
        got = reader.text(entry.old_sha, path, "old")
        if isinstance(got, Skipped):
            return got
        old_text = got
    if status != "deleted":
        got = reader.text(entry.new_sha, path, "new", disk_path=entry.new_path)
        if isinstance(got, Skipped):
            return got
        new_text = got
    return FileChange(
        path=path,
        old_path=_printable(entry.old_path) if status == "renamed" else None,
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

    def text(self, sha: str, path: str, side: str, *, disk_path: str = "") -> str | Skipped:
        if sha == _NULL_SHA:
            if not self._from_disk:
                raise GitError(f"git diff gave no blob for the {side} side of {path}")
            return _read_disk(self._root, disk_path or path, self._limit, shown=path)
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


def _read_disk(root: Path, path: str, limit: int, *, shown: str = "") -> str | Skipped:
    """The text of `path` (its real name, which may hold surrogate escapes) on disk;
    messages and skips name it as `shown`."""
    name = shown or path
    full = root / path
    try:
        size = full.stat().st_size
        if size > limit:
            return _too_large(name, size, limit, "new")
        data = full.read_bytes()
    except FileNotFoundError as exc:
        raise GitError(f"{name} disappeared while it was being read; run again") from exc
    except OSError as exc:
        return Skipped(name, f"unreadable: {exc.strerror or exc}")
    return _decode(data, name, "new")


def _too_large(path: str, size: int, limit: int, side: str) -> Skipped:
    return Skipped(path, f"too large: {size} bytes on the {side} side (limit {limit} bytes)")


def _decode(data: bytes, path: str, side: str) -> str | Skipped:
    if b"\0" in data[:_BINARY_PROBE]:
        return Skipped(path, "binary file")
    encoding = "utf-8"
    if language_of(path) == "python":
        # As Python itself reads a source file: a PEP 263 coding declaration or a BOM.
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as exc:
            # What Python says too: not UTF-8 and no (valid) coding declaration.
            return Skipped(path, f"cannot be read as Python source on the {side} side: {exc.msg}")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        shown = "UTF-8" if encoding == "utf-8" else encoding
        return Skipped(path, f"not {shown} on the {side} side (byte {exc.start}): cannot be read")


def _untracked(root: Path, pathspec: Sequence[str]) -> list[str]:
    out = run_git(root, ["ls-files", "--others", "--exclude-standard", "-z", "--", *pathspec])
    return sorted(_path(raw) for raw in out.split(b"\0") if raw)


def _untracked_change(root: Path, path: str, limit: int) -> FileChange | Skipped:
    shown = _printable(path)
    full = root / path
    if path.endswith("/"):
        return Skipped(shown, "nested git repository: its contents belong to another repository")
    if full.is_symlink():
        return Skipped(shown, SYMLINK_REASON)
    got = _read_disk(root, path, limit, shown=shown)
    if isinstance(got, Skipped):
        return got
    return FileChange(
        path=shown,
        old_path=None,
        status="added",
        old_text=None,
        new_text=got,
        added_lines=frozenset(range(1, len(got.splitlines()) + 1)),
        removed_lines=frozenset(),
        language=language_of(shown),
    )


def _printable(path: str) -> str:
    """A name as UTF-8 text: bytes that are not UTF-8 become `\\xNN` escapes."""
    return path.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="backslashreplace")


def deleted_sources(
    repo: Path, base: str, skipped: Iterable[Skipped], *, max_file_bytes: int = 1_000_000
) -> list[FileChange]:
    """The old texts of the deleted source files among `skipped`, as deleted `FileChange`s.

    They are never reviewed (nothing on the new side to check) but they are where code moved
    from when a module is split into a package or a function moves to a new module: the
    static critics' moved-code test reads them. A file that cannot be read (too large, not
    text, a name git does not know) is left out, so what moved from it stays reported."""
    paths = sorted(
        {s.path for s in skipped if s.reason == DELETED_REASON and language_of(s.path) != "other"}
    )
    if not paths:
        return []
    root = repo_root(repo)
    listing = run_git(root, ["ls-tree", "-z", "-l", resolve_commit(root, base), "--", *paths])
    wanted: dict[str, str] = {}
    for entry in listing.split(b"\0"):
        meta, _, name = entry.partition(b"\t")
        fields = meta.decode("ascii").split()
        readable = len(fields) == 4 and fields[1] == "blob" and fields[3].isdigit()
        if readable and int(fields[3]) <= max_file_bytes:
            wanted[fields[2]] = _path(name)
    if not wanted:
        return []
    request = "".join(f"{sha}\n" for sha in wanted).encode("ascii")
    blobs = _parse_batch(run_git(root, ["cat-file", "--batch"], stdin=request))
    found: list[FileChange] = []
    for sha, path in sorted(wanted.items(), key=lambda item: item[1]):
        text = _decode(blobs[sha], path, "old")
        if isinstance(text, str):
            found.append(
                FileChange(
                    path=path,
                    old_path=None,
                    status="deleted",
                    old_text=text,
                    new_text=None,
                    added_lines=frozenset(),
                    removed_lines=frozenset(range(1, len(text.splitlines()) + 1)),
                    language=language_of(path),
                )
            )
    return found


def blocks_pass(skipped: Skipped) -> bool:
    """Whether a skip means a code file went unreviewed, so the verdict cannot be `pass`
    (DESIGN §9). Deleted files, symlinks and submodules hold no code to check; binary
    assets, lockfiles and other data are not code."""
    if skipped.reason.startswith((DELETED_REASON, SYMLINK_REASON, SUBMODULE_REASON)):
        return False
    return is_code_path(skipped.path)


def is_code_path(path: str) -> bool:
    """Source code by its extension: the languages the critics read, and common others."""
    return language_of(path) != "other" or PurePosixPath(path).suffix.lower() in _CODE_SUFFIXES
