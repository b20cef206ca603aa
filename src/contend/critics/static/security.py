"""The `security` topic: bandit on the changed Python files only, kept on added lines.

The critic gets texts, not a checkout, so it writes the new text of every changed Python file
into a temporary directory (keeping its relative path), runs bandit once over all of them
in-process, and keeps the findings whose line range touches a line the change added.
Nothing outside the change is ever scanned, and within a changed file the functions and
classes the change did not touch are cut to `pass` first (`focus`), so bandit walks only
module-level code and the touched definitions. A bandit failure raises ContendError; a file
bandit cannot parse or crashes on becomes a `Skipped` with the reason.

Rule ids are `bandit-<test id>` (e.g. `bandit-B602`). Severity mapping:
    critical  bandit MEDIUM or HIGH on code execution, injection, unsafe deserialisation or
              disabled certificate/host verification (`_CRITICAL_TESTS`: shell=True with a
              non-literal command, eval/exec, pickle/marshal/yaml.load, SQL built from
              strings, verify=False, ssl._create_unverified_context, ...)
    major     any other bandit MEDIUM or HIGH finding (weak hash used for security, ...)
    minor     bandit LOW (e.g. shell=True with a literal command)
    A finding bandit rates LOW or MEDIUM confidence is minor (a blocking finding must be
    one bandit itself is sure of). Bandit's audit advisories (`_AUDIT_TESTS`: urlopen
    schemes, XML parsers, /tmp paths, binding all interfaces, requests without a timeout)
    point at no flaw and are not reported; nor is anything in test files, which run
    against fixtures the test itself made and never ship (a pickle round trip, a request
    to the test server): on real history such hits were never right.

Tests that are noise on a diff or owned by another topic are excluded (`_EXCLUDED_TESTS`).
Bandit's B613 (bidirectional control characters) reads every character of a file, so it is
replaced by the same check on the added lines only (`bidi-control-character`, major).
`# nosec` is ignored: the way to keep a flagged line is a contend waiver with a reason.
Weak hashes called with `usedforsecurity=False` are not reported (bandit's B324 knows it).
"""

from __future__ import annotations

import ast
import bisect
import contextlib
import dataclasses
import logging
import os
import re
import sys
import tempfile
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path, PurePosixPath
from types import ModuleType
from typing import Any

from contend.critics.static import pyast
from contend.critics.static.base import (
    Confidence,
    FileChange,
    Finding,
    Language,
    Skipped,
    Topic,
    is_test_path,
)
from contend.critics.static.catalogue import RuleInfo, waiver_way
from contend.errors import ContendError
from contend.protocol.model import Severity

# Test id -> why it is not run on a diff.
_EXCLUDED_TESTS: dict[str, str] = {
    "B101": "assert is how tests are written",
    "B105": "hard-coded passwords belong to the secrets topic",
    "B106": "hard-coded passwords belong to the secrets topic",
    "B107": "hard-coded passwords belong to the secrets topic",
    "B110": "try/except/pass belongs to the silent-fallback topic",
    "B112": "try/except/continue belongs to the silent-fallback topic",
    "B311": "random is mostly used for non-security purposes",
    "B403": "importing pickle is harmless; the load call is reported",
    "B404": "importing subprocess is harmless; the risky call is reported",
    "B603": "subprocess without a shell is the safe form",
    "B606": "starting a process without a shell is the safe form",
    "B607": "a partial executable path is routine in scripts",
    "B613": "it reads every character of the whole file; `bidi-control-character` below "
    "does the same check on the added lines only",
}

_CRITICAL_TESTS = frozenset(
    {
        "B102",  # exec
        "B301",  # pickle loads
        "B302",  # marshal loads
        "B307",  # eval
        "B323",  # ssl._create_unverified_context
        "B501",  # requests verify=False
        "B506",  # yaml.load without a safe loader
        "B507",  # ssh host key verification disabled
        "B601",  # paramiko exec_command
        "B602",  # subprocess with shell=True
        "B604",  # any call with shell=True
        "B605",  # os.system and friends
        "B608",  # SQL built from strings
        "B609",  # wildcard injection
        "B610",  # django extra()
        "B611",  # django RawSQL
        "B614",  # torch.load
    }
)

# Advisories that ask for an audit rather than point at a flaw: minor wherever they are.
_AUDIT_TESTS = frozenset(
    {
        "B104",  # binding to all interfaces
        "B108",  # a hard-coded /tmp path
        "B113",  # requests without a timeout
        "B310",  # urlopen: audit the permitted schemes
        "B311",  # random (excluded anyway)
        "B313",
        "B314",
        "B315",
        "B316",
        "B317",
        "B318",
        "B319",
        "B320",  # XML parsers: audit for untrusted input
        "B405",
        "B406",
        "B407",
        "B408",
        "B409",
        "B410",
        "B411",  # importing XML modules
    }
)

_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")  # the line breaks `ast` counts, unlike splitlines()

_BIDI_CHARACTERS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200f")


_BANDIT_CRASH = "exception while scanning file"
# Files that reach bandit parsed under the default limit (the runner shields the rest), so
# they are at most ~3,000 levels deep; bandit needs ~10 frames a level.
_BANDIT_RECURSION_LIMIT = 50_000

_SKIP_REASONS = {
    "syntax error while parsing AST from file": "not checked for security: syntax error",
    "exception while scanning file": "not checked for security: bandit raised an exception "
    "while scanning this file",
}


@dataclass(frozen=True, slots=True)
class _BanditIssue:
    fname: str
    test_id: str
    test_name: str
    severity: str
    confidence: str
    text: str
    start_line: int
    end_line: int


def severity_of(test_id: str, bandit_severity: str, confidence: str) -> Severity:
    """Our severity for one bandit finding; the mapping is in the module docstring."""
    if bandit_severity == "LOW" or confidence != "HIGH" or test_id in _AUDIT_TESTS:
        return Severity.MINOR
    return Severity.CRITICAL if test_id in _CRITICAL_TESTS else Severity.MAJOR


_CONFIDENCE = {"HIGH": Confidence.HIGH, "MEDIUM": Confidence.MEDIUM, "LOW": Confidence.LOW}
_WAIVE = waiver_way(Topic.SECURITY)
BANDIT = RuleInfo(
    "bandit-<test id>",
    Topic.SECURITY,
    Severity.CRITICAL,
    Confidence.HIGH,
    frozenset({"python"}),
    "bandit flags a known-dangerous call or setting on a line the change added",
    ("fix it as bandit's documentation for the test describes", _WAIVE),
)
BIDI = RuleInfo(
    "bidi-control-character",
    Topic.SECURITY,
    Severity.MAJOR,
    Confidence.HIGH,
    frozenset({"python"}),
    "bidirectional control characters make code display differently from how it runs "
    "(Trojan Source, CVE-2021-42574)",
    ("remove the control characters", _WAIVE),
)
RULES: tuple[RuleInfo, ...] = (BANDIT, BIDI)


class SecurityCritic:
    topic = Topic.SECURITY
    languages: frozenset[Language] = frozenset({"python"})

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        # Deleted files and pure deletions add no line a finding could sit on.
        targets = [
            c
            for c in changes
            if c.language == "python" and c.new_text is not None and c.added_lines
        ]
        if not targets:
            return []
        results: list[Finding | Skipped] = []
        for change in targets:
            results.extend(_bidi_findings(change))
        # Test files are not given to bandit at all (see the module docstring).
        scanned = [c for c in targets if not is_test_path(c.path)]
        if not scanned:
            return results
        with tempfile.TemporaryDirectory(prefix="contend-bandit-") as tmp:
            by_fname: dict[str, FileChange] = {}
            for change in scanned:
                dest = _destination(Path(tmp), change.path)
                if dest is None:
                    results.append(
                        Skipped(change.path, "not checked for security: unsafe path", self.topic)
                    )
                    continue
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(focus(change.new_text or "", change.added_lines), encoding="utf-8")
                by_fname[os.path.normpath(dest)] = change
            issues, skipped = _run_bandit(sorted(by_fname))
            crashed = sorted(f for f, reason in skipped if reason == _BANDIT_CRASH)
            if crashed:
                # Bandit's visitor recurses a few frames per AST level, so an expression
                # a thousand nodes deep (valid Python) exhausts the default limit. Only
                # those files are scanned again, with room for their depth.
                with _recursion_headroom():
                    again, still = _run_bandit(crashed)
                skipped = [s for s in skipped if s[0] not in crashed] + still
                issues += again
        for fname, reason in skipped:
            change = _lookup(by_fname, fname)
            results.append(Skipped(change.path, _SKIP_REASONS.get(reason, reason), self.topic))
        kept: dict[str, list[_BanditIssue]] = {}
        untouched: dict[str, list[_BanditIssue]] = {}
        for issue in issues:
            change = _lookup(by_fname, issue.fname)
            if issue.test_id in _AUDIT_TESTS:
                continue
            touched = change.touches(issue.start_line, issue.end_line)
            (kept if touched else untouched).setdefault(change.path, []).append(issue)
        by_path = {change.path: change for change in by_fname.values()}
        for path, found in _introduced(kept, untouched, by_path).items():
            results.extend(_finding(by_path[path], issue) for issue in found)
        return results


def _introduced(
    kept: dict[str, list[_BanditIssue]],
    untouched: dict[str, list[_BanditIssue]],
    changes: dict[str, FileChange],
) -> dict[str, list[_BanditIssue]]:
    """Per path, the issues the change brought in: those the old version did not have.

    A sweep (pyupgrade, a reformat, a rename) touches lines that held a bandit hit before;
    the hit is on an added line but the change did not introduce it. So the old sides of
    the files with a hit are scanned too (one more bandit run, only when there is a hit),
    and a hit counts as old when the old version had a hit of the same test over the same
    names (a sweep rewrites the line: its spelling changes, not its construct; code moved
    to another function keeps its names)."""
    olds = {p: changes[p] for p in kept if changes[p].old_text is not None}
    if not olds:
        return kept
    with tempfile.TemporaryDirectory(prefix="contend-bandit-old-") as tmp:
        by_fname: dict[str, str] = {}
        for path, change in olds.items():
            dest = _destination(Path(tmp), change.old_path or change.path)
            if dest is None:
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(change.old_text or "", encoding="utf-8")
            by_fname[os.path.normpath(dest)] = path
        old_issues, skipped = _run_bandit(sorted(by_fname))
    unread = {by_fname[os.path.normpath(f)] for f, _ in skipped}
    per_path: dict[str, list[_BanditIssue]] = {}
    for old in old_issues:
        per_path.setdefault(by_fname[os.path.normpath(old.fname)], []).append(old)
    return {
        path: issues
        if path not in by_fname.values() or path in unread  # no old side read: all new
        else _new_hits(changes[path], issues, untouched.get(path, []), per_path.get(path, []))
        for path, issues in kept.items()
    }


def _new_hits(
    change: FileChange,
    issues: list[_BanditIssue],
    untouched: list[_BanditIssue],
    old_issues: list[_BanditIssue],
) -> list[_BanditIssue]:
    """The hits of `issues` (on touched lines) with no partner among the old version's hits
    left over by the hits on untouched lines: a partner is a hit of the same test over the
    same names (each old hit partners one new hit, so a dangerous line duplicated is still
    reported once)."""
    old_tree = pyast.parse_old_side(change.old_text)
    new_tree = pyast.parse_old_side(change.new_text)
    pool = Counter((old.test_id, _names(old_tree, old)) for old in old_issues)
    pool.subtract((issue.test_id, _names(new_tree, issue)) for issue in untouched)
    wrapped = _wrapper_calls(old_tree) if old_tree is not None else Counter()
    fresh: list[_BanditIssue] = []
    for issue in issues:
        key = (issue.test_id, _names(new_tree, issue))
        if pool[key] > 0:
            pool[key] -= 1
            continue
        calls = _builtin_calls(new_tree, issue)
        if calls and all(wrapped[c] > 0 for c in calls):
            wrapped.subtract(calls)
            continue  # the same call, made through a compat wrapper before
        fresh.append(issue)
    return fresh


_WRAPPED_BUILTINS = frozenset({"exec", "eval", "compile", "input"})


def _wrapper_calls(tree: ast.Module) -> Counter[tuple[str, str]]:
    """Calls of a compatibility wrapper of a dangerous builtin (`six.exec_`, `compat.exec_`,
    `_eval`): (the builtin, the call's arguments). A Python 2 drop restates them as the
    builtin itself; bandit saw only the builtin, so the old side had no hit to pair with."""
    found: Counter[tuple[str, str]] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = pyast.callee_name(node).rsplit(".", 1)[-1]
            bare = name.strip("_")
            if bare in _WRAPPED_BUILTINS and name != bare:
                found[(bare, _arguments(node))] += 1
    return found


def _builtin_calls(tree: ast.Module | None, issue: _BanditIssue) -> list[tuple[str, str]]:
    """The dangerous builtin calls on a hit's lines: (the builtin, the call's arguments)."""
    if tree is None:
        return []
    return [
        (node.func.id, _arguments(node))
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _WRAPPED_BUILTINS
        and issue.start_line <= node.lineno <= issue.end_line
    ]


def _arguments(call: ast.Call) -> str:
    return pyast.dump_list([*call.args, *(k.value for k in call.keywords)])


def _names(tree: ast.Module | None, issue: _BanditIssue) -> frozenset[str]:
    """The names and attributes read on a hit's lines: what the flagged construct is made
    of, whatever its spelling (quotes, `u''`, %-format or f-string, line breaks), less a
    `typing.cast` wrapped around a value (it does nothing at run time)."""
    if tree is None:
        return frozenset()
    found: set[str] = set()
    typing_only: set[int] = set()  # a cast's callee and type: nothing at run time
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and pyast.callee_name(node).rsplit(".", 1)[-1] == "cast"
            and len(node.args) == 2
            and issue.start_line <= node.lineno <= issue.end_line
        ):
            typing_only.update(id(n) for part in (node.func, node.args[0]) for n in ast.walk(part))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Name | ast.Attribute)
            and id(node) not in typing_only
            and issue.start_line <= node.lineno <= issue.end_line
        ):
            found.add(node.id if isinstance(node, ast.Name) else node.attr)
    return frozenset(found)


def focus(text: str, added_lines: frozenset[int]) -> str:
    """`text` with every function and class the change did not touch cut down to `pass`.

    Line numbers are kept (cut lines become empty), imports and other module-level code
    stay, so bandit's checks — all local to a call or a statement — see the touched code as
    before while walking a fraction of the file. Text that does not parse goes to bandit
    unchanged: bandit then reports it as skipped, with its reason."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # warnings about the reviewed code, not ours
            tree = pyast.parse(text)
    # contend: allow silent-fallback -- bandit gets it whole and reports it skipped
    except (SyntaxError, ValueError):
        return text
    lines = _LINE_BREAK.split(text)
    # split() with one capture group alternates line text and its terminator.
    bodies, breaks = lines[0::2], lines[1::2]
    for start, end in _untouched_definitions(tree.body, added_lines):
        first = bodies[start - 1]
        bodies[start - 1] = first[: len(first) - len(first.lstrip())] + "pass"
        for index in range(start, end):
            bodies[index] = ""
    return "".join(b + t for b, t in zip(bodies, [*breaks, ""], strict=True))


@lru_cache(maxsize=64)
def _ordered(lines: frozenset[int]) -> tuple[int, ...]:
    return tuple(sorted(lines))


def _any_between(lines: frozenset[int], start: int, end: int) -> bool:
    """Whether a line in [start, end] is in `lines`, by bisection (linear scans per
    definition made a large added file quadratic)."""
    ordered = _ordered(lines)
    index = bisect.bisect_left(ordered, start)
    return index < len(ordered) and ordered[index] <= end


def _untouched_definitions(
    body: Sequence[ast.stmt], added_lines: frozenset[int]
) -> Iterator[tuple[int, int]]:
    """(first line, last line) of each def/class in `body`, at any depth, with no added line;
    a touched class is searched for untouched methods, a touched function is kept whole."""
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            end = pyast.span(node)[1]
            if not _any_between(added_lines, start, end):
                yield start, end
            elif isinstance(node, ast.ClassDef):
                yield from _untouched_definitions(node.body, added_lines)
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                yield from _untouched_definitions(block, added_lines)
        for part in [*getattr(node, "handlers", []), *getattr(node, "cases", [])]:
            yield from _untouched_definitions(part.body, added_lines)


def _git_lines(text: str | None, start: int, end: int) -> list[str]:
    """Lines start..end (1-based) as git numbers them (`added_lines`): only "\n" ends a
    line, where str.splitlines() would also break at form feeds and U+2028 and drift."""
    lines = (text or "").split("\n")[max(start - 1, 0) : end]
    return [line.removesuffix("\r") for line in lines]


def _destination(root: Path, path: str) -> Path | None:
    """Where to write `path` under root, or None when it would land outside root."""
    rel = PurePosixPath(path.replace("\\", "/"))
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        return None
    return root.joinpath(*rel.parts)


def _lookup(by_fname: dict[str, FileChange], fname: str) -> FileChange:
    change = by_fname.get(os.path.normpath(fname))
    if change is None:
        raise ContendError(f"bandit failed: it reported on a file it was not given: {fname}")
    return change


def _finding(change: FileChange, issue: _BanditIssue) -> Finding:
    rule = dataclasses.replace(BANDIT, rule=f"bandit-{issue.test_id}")
    return rule.finding(
        path=change.path,
        lines=(issue.start_line, issue.end_line),
        claim=(
            f"{issue.text} (bandit {issue.test_id} {issue.test_name}, "
            f"severity {issue.severity}, confidence {issue.confidence})"
        ),
        evidence="\n".join(_git_lines(change.new_text, issue.start_line, issue.end_line)),
        severity=severity_of(issue.test_id, issue.severity, issue.confidence),
        confidence=_CONFIDENCE.get(issue.confidence, Confidence.LOW),
        symbol=_symbol(change, issue.start_line),
        ways_out=(f"fix it: {_docs_url(issue.test_id)}", _WAIVE),
    )


def _symbol(change: FileChange, line: int) -> str | None:
    return pyast.symbol_at(pyast.parse_old_side(change.new_text), line)


def _bidi_findings(change: FileChange) -> Iterator[Finding]:
    """Bandit's B613 (Trojan Source), on added lines only: bidirectional control characters
    can make code display differently from how it runs."""
    if not any(c in _BIDI_CHARACTERS for c in set(change.new_text or "")):
        return
    lines = _git_lines(change.new_text, 1, len(change.new_text or ""))
    for line_no in sorted(change.added_lines):
        line = lines[line_no - 1] if line_no <= len(lines) else ""
        found = sorted({c for c in line if c in _BIDI_CHARACTERS})
        if not found:
            continue
        names = ", ".join(f"U+{ord(c):04X}" for c in found)
        yield BIDI.finding(
            path=change.path,
            lines=(line_no, line_no),
            symbol=_symbol(change, line_no) if change.language == "python" else None,
            claim=(
                f"added line contains bidirectional control characters ({names}): the code "
                "can read differently from how it runs (Trojan Source, CVE-2021-42574)"
            ),
            # Escaped, or the evidence would reorder itself on the reviewer's screen.
            evidence="".join(f"\\u{ord(c):04x}" if c in _BIDI_CHARACTERS else c for c in line),
        )


@contextlib.contextmanager
def _recursion_headroom() -> Iterator[None]:
    """Raise the interpreter's recursion limit for the block (never lower it). Since 3.11
    a Python-to-Python call uses no C stack, so the higher limit costs only memory."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, _BANDIT_RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


@contextlib.contextmanager
def _quiet_bandit_log() -> Iterator[None]:
    """Bandit logs "Exception occurred when executing tests against <temp file>" on its
    own; the skip it records is what contend reports, so its log line is held back."""
    log = logging.getLogger("bandit")
    before = log.level
    log.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        log.setLevel(before)


@cache
def _bandit() -> tuple[ModuleType, ModuleType, ModuleType]:
    """Import bandit on first use; importing it costs ~0.1 s and emits a stevedore
    DeprecationWarning about bandit's own call, which is not ours to act on."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from bandit.core import config, docs_utils, manager
    return config, manager, docs_utils


def _docs_url(test_id: str) -> str:
    return str(_bandit()[2].get_url(test_id))


def _run_bandit(fnames: list[str]) -> tuple[list[_BanditIssue], list[tuple[str, str]]]:
    """One bandit run over all files; (issues, skipped files with bandit's reason)."""
    if not fnames:
        return [], []
    try:
        config, manager, _ = _bandit()
        # Warnings raised while compiling the *scanned* code (invalid escapes and the like)
        # are about that code, not about this process; left alone, a strict warnings filter
        # (pytest's `error`) would turn them into syntax errors and skip the file.
        with warnings.catch_warnings(), _quiet_bandit_log():
            warnings.simplefilter("ignore")
            mgr = manager.BanditManager(
                config.BanditConfig(),
                "file",
                quiet=True,
                ignore_nosec=True,
                profile={"exclude": set(_EXCLUDED_TESTS)},
            )
            mgr.discover_files(fnames)
            mgr.run_tests()
            raw_issues = mgr.get_issue_list()
            raw_skipped = mgr.get_skipped()
            scanned = list(mgr.files_list)
    except Exception as exc:
        raise ContendError(f"bandit failed: {type(exc).__name__}: {exc}") from exc
    skipped = [(str(name), str(reason)) for name, reason in raw_skipped]
    accounted = {os.path.normpath(f) for f in scanned} | {os.path.normpath(n) for n, _ in skipped}
    missing = sorted(set(fnames) - accounted)
    if missing:
        raise ContendError(f"bandit failed: it neither scanned nor skipped {missing}")
    return [_issue(raw) for raw in raw_issues], skipped


def _issue(raw: Any) -> _BanditIssue:
    lines = [int(n) for n in raw.linerange] or [int(raw.lineno)]
    return _BanditIssue(
        fname=str(raw.fname),
        test_id=str(raw.test_id),
        test_name=str(raw.test),
        severity=str(raw.severity),
        confidence=str(raw.confidence),
        text=str(raw.text),
        start_line=min(lines),
        end_line=max(lines),
    )


CRITIC = SecurityCritic()
