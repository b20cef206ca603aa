"""Verification of a ledger: the first bad line is named, a crash's torn tail told apart.

Per line, in one pass:
  - it parses to a JSON object, and is byte for byte the canonical serialisation of that
    object (store.py's line format). This refuses duplicate keys (the parser keeps one,
    the line spelled two), members after `"hash"`, whitespace, escapes, reordered members
    — anything the fold could read that the hash did not cover. Where the line's MAC is
    verified with the key, the MAC covers every byte but the fixed-form hash member, so a
    valid MAC already proves the writer's canonical bytes and the line is not
    re-serialised (that saves a seventh of the time); every other line is;
  - it names a supported schema and a known `alg`; `seq` is its position; `run` is the
    run of line 1; `prev` is the previous entry's hash;
  - its `hash` is recomputed: sha256 for unkeyed entries; HMAC-SHA256 under the user's
    key for keyed ones (without the key, only the links between them are checked). An
    unkeyed entry after a keyed one is a downgrade, refused.
Then the tail: whole lines cut from the end, and a cut last line, are caught against the
last acknowledged entry that `ledger.head` and the run's anchor (anchor.py) record; only a
torn line after that entry, that begins like an entry, is a crash's leftover.

Every result says what was checked and what could not be (`unchecked`): `--strict`
accepts a ledger only when nothing is unchecked — every entry keyed and its MAC verified,
`ledger.head` present, the anchor present and comparable.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from contend.errors import LedgerCorrupt
from contend.gcpause import gc_paused
from contend.ledger.anchor import Anchor, Anchors
from contend.ledger.entries import (
    GENESIS,
    HASH_SUFFIX,
    HEAD_FILE,
    SUPPORTED_SCHEMAS,
    USER,
    AnchorsArg,
    Entry,
    Head,
    KeyArg,
    read_head,
    resolve_anchors,
    resolve_key,
)
from contend.ledger.keys import HASH_ALG, HMAC_ALG, LedgerKey, hmac_pads

# Every line the writer emits starts so (sorted keys: "alg" sorts first).
_ENTRY_START = b'{"alg":"'
# A first line without this is not a damaged ledger but some other file.
_EVENT_MARK = b'"contend.event/'
# `,"hash":"` + 64 hex digits + `"}`: the last member of every line, fixed in size.
_HASH_MEMBER = len(HASH_SUFFIX) + 64 + 2


@dataclass(slots=True)
class VerifyResult:
    ok: bool  # no tampering detected (see `strict_ok` for "and everything was checked")
    count: int  # intact entries
    message: str
    first_bad_line: int | None = None
    torn_line: int | None = None
    good_bytes: int = 0
    last_hash: str = GENESIS
    entries: list[Entry] = field(default_factory=list)
    first_hash: str | None = None
    run: str | None = None
    keyed: int = 0  # entries under hmac-sha256
    unkeyed: int = 0  # entries under plain sha256
    not_a_ledger: bool = False
    checked: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)

    @property
    def strict_ok(self) -> bool:
        return self.ok and not self.unchecked


def verify(
    path: Path,
    *,
    keep_entries: bool = False,
    key: KeyArg = USER,
    anchors: AnchorsArg = USER,
    may_be_copy: bool = False,
    run: str | None = None,
) -> VerifyResult:
    """Verify `path` with the user's key and anchors (never creating either) by default.

    `may_be_copy`: the file may be a copy of the run's ledger taken earlier (an `--out`
    copy handed over by path), so a file at another path than the anchored one that is
    shorter than its anchor is "not compared" rather than cut. Never for the run's own
    ledger: the writer, `status` and a run named by id verify without it, so moving or
    symlinking the run directory cannot turn a cut ledger into a "copy".

    `run`: the run the ledger must belong to (its directory's name, or the run a writer
    continues); its anchor is looked up under that id, so a ledger re-written under
    another run id does not escape its anchor.
    """
    resolved_key = resolve_key(key, create=False)
    resolved_anchors = resolve_anchors(anchors)
    with gc_paused():
        return _Verifier(path, resolved_key, resolved_anchors, may_be_copy, run).run(keep_entries)


@dataclass(slots=True)
class _Scan:
    entries: list[Entry]
    run: str | None
    keyed: int
    unkeyed: int
    bad_index: int | None = None
    problem: str = ""
    mac_mismatch: bool = False


class _Verifier:
    def __init__(
        self,
        path: Path,
        key: LedgerKey | None,
        anchors: Anchors | None,
        may_be_copy: bool,
        run: str | None,
    ) -> None:
        self.expected_run = run
        self.path = path
        self.key = key
        self.anchors = anchors
        self.may_be_copy = may_be_copy

    def run(self, keep_entries: bool) -> VerifyResult:
        raw = self.path.read_bytes()
        if not raw:
            return self._not_a_ledger("it is empty")
        lines = raw.split(b"\n")
        # split() leaves b"" after a final newline; anything else there is a torn line.
        tail = lines.pop()
        scan = _scan(lines, self.key)
        entries = scan.entries
        if scan.bad_index is not None:
            index = scan.bad_index
            if index == 0 and _EVENT_MARK not in lines[0]:
                return self._not_a_ledger(f"line 1 {scan.problem}")
            return self._bad(index + 1, scan.problem + self._key_hint(scan), entries, lines)
        if self.expected_run is not None and entries and scan.run != self.expected_run:
            wrong_run = f"belongs to run {scan.run!r}, not {self.expected_run!r} (re-written)"
            return self._bad(1, wrong_run, [], lines)
        count = len(entries)
        torn_line = None
        if tail:
            if tail[: len(_ENTRY_START)] != _ENTRY_START[: len(tail)]:
                if count == 0:
                    return self._not_a_ledger("line 1 is not a ledger entry")
                return self._bad(
                    count + 1,
                    "not the beginning of a ledger entry (bytes appended after the last entry)",
                    entries,
                    lines,
                )
            torn_line = count + 1
        result = VerifyResult(
            ok=True,
            count=count,
            message="",
            torn_line=torn_line,
            good_bytes=len(raw) - len(tail),
            last_hash=entries[-1]["hash"] if entries else GENESIS,
            entries=entries,
            first_hash=entries[0]["hash"] if entries else None,
            run=scan.run,
            keyed=scan.keyed,
            unkeyed=scan.unkeyed,
        )
        self._describe_chain(result)
        problem = self._check_tail(result, lines)
        if problem is not None:
            return problem
        intact = f"{self.path}: {count} entries intact"
        if torn_line is not None:
            intact += (
                f"; line {torn_line} is torn (a crash mid-write, after the last acknowledged "
                "entry): it was never acknowledged and a resume discards it"
            )
        result.message = intact
        if not keep_entries:
            result.entries = []
        return result

    def _key_hint(self, scan: _Scan) -> str:
        """On a MAC mismatch: whether ledger.head names another key than the verifier's."""
        if not scan.mac_mismatch or self.key is None:
            return ""
        try:
            head = read_head(self.path)
        # contend: allow silent-fallback -- only a hint; the MAC mismatch is reported anyway
        except LedgerCorrupt:
            return ""
        if head is None or head.kid is None or head.kid == self.key.kid:
            return ""
        return f"; {HEAD_FILE} names key id {head.kid}, the key here is {self.key.kid}"

    # --- what the chain alone says -----------------------------------------------------

    def _describe_chain(self, result: VerifyResult) -> None:
        if result.keyed:
            if self.key is not None:
                result.checked.append(
                    f"{result.keyed} keyed entries ({HMAC_ALG}): every MAC verified with "
                    f"the key {self.key.path} (id {self.key.kid})"
                )
            else:
                result.unchecked.append(
                    f"{result.keyed} keyed entries ({HMAC_ALG}): no ledger key here, so "
                    "their MACs were not checked, only the links between them"
                )
        if result.unkeyed:
            result.unchecked.append(
                f"{result.unkeyed} unkeyed entries ({HASH_ALG}, written before ledger keys): "
                "anyone can recompute them, so they show edits but not a consistent rewrite"
            )

    # --- the tail: head and anchor -----------------------------------------------------

    def _check_tail(self, result: VerifyResult, lines: list[bytes]) -> VerifyResult | None:
        entries = result.entries
        count = result.count
        try:
            head = read_head(self.path)
            anchor = self._anchor(result)
        except LedgerCorrupt as exc:
            return self._bad(count + 1, str(exc), entries, lines, line_specific=False)

        def cut(source: str, seq: int) -> str:
            if result.torn_line is not None:
                return (
                    f"truncated mid-line: {source} records entry {seq + 1} as acknowledged, "
                    f"but only {count} entries are whole (cut, not torn by a crash)"
                )
            return (
                f"truncated: {source} records entry {seq + 1} as acknowledged, but the "
                f"ledger holds only {count} (whole lines were cut from the end)"
            )

        if head is not None:
            if head.run is not None and result.run is not None and head.run != result.run:
                return self._bad(
                    count + 1,
                    f"{HEAD_FILE} is the head of run {head.run}, not of {result.run}",
                    entries,
                    lines,
                    line_specific=False,
                )
            if head.seq >= count:
                return self._bad(count + 1, cut(HEAD_FILE, head.seq), entries, lines)
            if entries[head.seq]["hash"] != head.hash:
                return self._bad(
                    head.seq + 1,
                    f"does not match {HEAD_FILE} (the entry {HEAD_FILE} acknowledged was replaced)",
                    entries,
                    lines,
                )
            result.checked.append(f"{HEAD_FILE}: entry {head.seq + 1} acknowledged, present")
        if anchor is not None:
            problem = self._check_anchor(result, anchor, head, cut)
            if problem is not None:
                return self._bad(problem[0], problem[1], entries, lines)
        if head is None:
            if anchor is not None:
                return self._bad(
                    count + 1,
                    f"{HEAD_FILE} is missing, but the anchor "
                    f"{self._anchor_path(result)} records entry {anchor.seq + 1} "
                    "(ledger.head was deleted)",
                    entries,
                    lines,
                    line_specific=False,
                )
            result.unchecked.append(
                f"no {HEAD_FILE}: whole lines cut from the end could not be detected by it"
            )
        return None

    def _anchor(self, result: VerifyResult) -> Anchor | None:
        run = self.expected_run or result.run or self.path.parent.name
        if self.anchors is None:
            result.unchecked.append("no anchor directory: the head was not compared to an anchor")
            return None
        anchor = self.anchors.read(run)
        if anchor is None:
            result.unchecked.append(
                f"no anchor for run {run} in {self.anchors.root}: lines cut from the end "
                f"together with {HEAD_FILE} could not be detected"
            )
        return anchor

    def _anchor_path(self, result: VerifyResult) -> Path | str:
        run = self.expected_run or result.run or self.path.parent.name
        return self.anchors.path(run) if self.anchors is not None else "(none)"

    def _check_anchor(
        self,
        result: VerifyResult,
        anchor: Anchor,
        head: Head | None,
        cut: Callable[[str, int], str],
    ) -> tuple[int, str] | None:
        entries = result.entries
        count = result.count
        where = self._anchor_path(result)
        same_file = not self.may_be_copy or anchor.ledger == str(self.path.resolve())
        if entries and anchor.genesis != entries[0]["hash"]:
            return 1, (
                f"is not the first entry anchored for run {anchor.run} ({where}): the "
                "history was rewritten from its start"
            )
        if anchor.seq >= count:
            if same_file:
                return count + 1, cut(f"the anchor {where}", anchor.seq)
            result.unchecked.append(
                f"the anchor {where} records entry {anchor.seq + 1} of {anchor.ledger}; this "
                f"file holds {count}: an earlier copy of the run (or one cut short) — verify "
                "the run itself to compare"
            )
            return None
        if entries[anchor.seq]["hash"] != anchor.hash:
            return anchor.seq + 1, (
                f"does not match the anchor {where} (the acknowledged entry was replaced)"
            )
        if same_file and head is not None and head.seq < anchor.seq:
            # Nothing the anchor acknowledged is missing, so this is not a loss; but the
            # head is behind, which a rewind or a machine crash between the two writes
            # (neither is fsynced per append) can leave. Strict refuses to guess.
            result.unchecked.append(
                f"{HEAD_FILE} records entry {head.seq + 1}, the anchor {where} entry "
                f"{anchor.seq + 1}: the head was rewound (or the machine crashed between "
                "the two writes); every entry the anchor acknowledged is present"
            )
        result.checked.append(f"anchor {where}: entry {anchor.seq + 1} acknowledged, present")
        return None

    # --- results -------------------------------------------------------------------------

    def _bad(
        self,
        lineno: int,
        problem: str,
        entries: list[Entry],
        lines: list[bytes],
        *,
        line_specific: bool = True,
    ) -> VerifyResult:
        kept = entries[: lineno - 1]
        pos = sum(len(line) + 1 for line in lines[: len(kept)])
        where = f"line {lineno}: " if line_specific else f"after line {lineno - 1}: "
        return VerifyResult(
            ok=False,
            count=len(kept),
            message=f"{self.path}: {where}{problem}",
            first_bad_line=lineno,
            good_bytes=pos,
            last_hash=kept[-1]["hash"] if kept else GENESIS,
            entries=kept,
        )

    def _not_a_ledger(self, why: str) -> VerifyResult:
        return VerifyResult(
            ok=False,
            count=0,
            message=f"{self.path}: not a contend ledger: {why}",
            first_bad_line=1,
            not_a_ledger=True,
        )


def _scan(lines: list[bytes], key: LedgerKey | None) -> _Scan:
    """The hot loop: every check that needs only the line and its predecessor."""
    loads = orjson.loads
    dumps = orjson.dumps
    sort = orjson.OPT_SORT_KEYS
    sha256 = hashlib.sha256
    # HMAC-SHA256 inlined (keys.hmac_pads): a function call per line is a tenth of the loop.
    inner, outer = hmac_pads(key.secret) if key is not None else (None, None)
    inner_copy = inner.copy if inner is not None else None
    outer_copy = outer.copy if outer is not None else None
    entries: list[Entry] = []
    prev = GENESIS
    run: str | None = None
    keyed = 0
    unkeyed = 0
    scan = _Scan(entries, None, 0, 0)
    for index, line in enumerate(lines):
        try:
            entry = loads(line)
        except orjson.JSONDecodeError:
            return _fail(scan, index, "is not valid JSON", keyed, unkeyed, run)
        if type(entry) is not dict:
            return _fail(scan, index, "is not a JSON object", keyed, unkeyed, run)
        recorded = entry.pop("hash", None)
        if type(recorded) is not str:
            return _fail(scan, index, "is not a ledger entry (no hash)", keyed, unkeyed, run)
        alg = entry.get("alg")
        if alg == HMAC_ALG and inner_copy is not None and outer_copy is not None:
            # Every byte before the hash member is under the MAC and the member has one
            # fixed form, so a valid MAC proves the key holder's writer wrote the line as
            # it is — and it writes only canonical lines: re-serialising would check nothing
            # more. (Where no MAC vouches for a line, the branch below re-serialises it.)
            cut = len(line) - _HASH_MEMBER
            inner_state = inner_copy()
            inner_state.update(line[:cut] + b"}")
            outer_state = outer_copy()
            outer_state.update(inner_state.digest())
            if (
                line[cut : cut + 9] != HASH_SUFFIX
                or line[cut + 9 : -2] != recorded.encode()
                or not line.endswith(b'"}')
                or outer_state.hexdigest() != recorded
            ):
                # A plain comparison: the file is already in the reader's hands, so a timing
                # side channel reveals nothing the reader could not compute.
                problem = _not_canonical(line, entry, recorded)
                if problem is None:
                    scan.mac_mismatch = True
                    problem = (
                        "MAC mismatch: the line was edited or forged (or written with another "
                        f"ledger key than {key.path if key else ''})"
                    )
                return _fail(scan, index, problem, keyed, unkeyed, run)
            keyed += 1
        else:
            try:
                body = dumps(entry, option=sort)
            except orjson.JSONEncodeError:
                return _fail(scan, index, _TOO_DEEP, keyed, unkeyed, run)
            if line != body[:-1] + HASH_SUFFIX + recorded.encode() + b'"}':
                problem = _not_canonical(line, entry, recorded) or "is not canonical"
                return _fail(scan, index, problem, keyed, unkeyed, run)
            if alg == HMAC_ALG:
                keyed += 1  # no key here: its MAC is left unchecked (and said so)
            elif alg == HASH_ALG:
                if keyed:
                    problem = (
                        "an unkeyed entry after keyed ones (a downgrade: entries written "
                        "without the key)"
                    )
                    return _fail(scan, index, problem, keyed, unkeyed, run)
                if sha256(body).hexdigest() != recorded:
                    return _fail(
                        scan, index, "hash mismatch (the line was edited)", keyed, unkeyed, run
                    )
                unkeyed += 1
            else:
                problem = f"names an unknown hash algorithm {alg!r}"
                return _fail(scan, index, problem, keyed, unkeyed, run)
        if entry.get("schema") not in SUPPORTED_SCHEMAS:
            problem = f"names an unknown schema {entry.get('schema')!r}"
            return _fail(scan, index, problem, keyed, unkeyed, run)
        seq = entry.get("seq")
        if seq != index or type(seq) is not int:
            problem = (
                f"seq {seq!r} where {index} was expected (a line was removed, inserted or moved)"
            )
            return _fail(scan, index, problem, keyed, unkeyed, run)
        if entry.get("prev") != prev:
            problem = (
                "prev does not match the previous entry's hash "
                "(a line was removed, inserted, moved or rewritten)"
            )
            return _fail(scan, index, problem, keyed, unkeyed, run)
        if run is None:
            run = entry.get("run")
        elif entry.get("run") != run:
            problem = f"belongs to run {entry.get('run')!r}, not {run!r} (spliced in)"
            return _fail(scan, index, problem, keyed, unkeyed, run)
        entry["hash"] = recorded
        entries.append(entry)
        prev = recorded
    scan.run = run if isinstance(run, str) else None
    scan.keyed = keyed
    scan.unkeyed = unkeyed
    return scan


def _fail(scan: _Scan, index: int, problem: str, keyed: int, unkeyed: int, run: object) -> _Scan:
    scan.bad_index = index
    scan.problem = problem
    scan.keyed = keyed
    scan.unkeyed = unkeyed
    scan.run = run if isinstance(run, str) else None
    return scan


class _DuplicateKey(ValueError):
    pass


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for name, value in pairs:
        if name in seen:
            raise _DuplicateKey(name)
        seen[name] = value
    return seen


# orjson reads values nested up to 1,024 deep but writes only up to 255: a line between
# those parses yet has no canonical form. The writer never produces one (it writes with
# orjson), so it is damage or tampering, reported as such — not a traceback of the verifier.
_TOO_DEEP = "nests values deeper than a ledger line can be written: not written by contend"


def _not_canonical(line: bytes, entry: dict[str, Any], recorded: str) -> str | None:
    """Why a line that parses is not the canonical form of what it parses to, or None
    when it is (the slow path of a failure)."""
    try:
        canonical = orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:  # contend: allow silent-fallback -- the line's failure
        return _TOO_DEEP
    if line == canonical[:-1] + HASH_SUFFIX + recorded.encode() + b'"}':
        return None
    try:
        json.loads(line, object_pairs_hook=_refuse_duplicates)
    except _DuplicateKey as dup:
        return (
            f"duplicate key {dup.args[0]!r}: the parser would read one member, the hash "
            "covered another"
        )
    except ValueError as exc:
        return f"is not the canonical form of its JSON ({exc})"
    return (
        "bytes outside the canonical form (whitespace, escapes, member order, or members "
        "after the hash): the line is not the canonical serialisation of what it parses to"
    )
