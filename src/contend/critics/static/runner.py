"""Running the selected static critics over a change set, then applying in-code waivers.

Each critic sees only the changes in its languages. Python texts are parsed once up front
(the parse is cached in `pyast.parse`, so the AST critics reuse it); a Python file that does
not parse becomes one `Skipped` and is withheld from the AST critics, while critics that read
raw text (secrets) still see it. A critic that raises is a bug and the error propagates —
except `RecursionError`: input nested deeper than a walk (or CPython's own compiler) can
follow is a property of the file, not a bug, so that file becomes a `Skipped` for that topic
and every other file is still checked.

Every finding's evidence is capped here, for every critic, so one finding on a 1 MB minified
line cannot carry the whole line (and a thousand findings a thousand copies of it): at most
`EVIDENCE_CHARS` characters — the head and tail lines of a long span, or the start of one huge
line — with what was cut and the full size noted in the text.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterable, Mapping, Sequence

from contend.critics.static import pyast
from contend.critics.static.base import (
    DeletionAwareCritic,
    FileChange,
    Finding,
    ProjectAwareCritic,
    Skipped,
    StaticResult,
    Topic,
    TopicCritic,
)
from contend.critics.static.calibration import DEFAULT_BLOCKING, Blocking, calibrate
from contend.critics.static.moved import drop_moved
from contend.critics.static.registry import critics_for, parse_selection
from contend.critics.static.waivers import apply_waivers

# Critics that scan raw text rather than a Python AST; everything else is shielded from
# files that do not parse.
_RAW_TEXT_TOPICS = frozenset({Topic.SECRETS})


def run_static(
    changes: Sequence[FileChange],
    topics: Iterable[Topic] | str | None = None,
    *,
    skipped: Iterable[Skipped] = (),
    critics: Sequence[TopicCritic] | None = None,
    project_files: Mapping[str, str] | None = None,
    blocking: Blocking = DEFAULT_BLOCKING,
    moved_from: Sequence[FileChange] = (),
) -> StaticResult:
    """Findings of the selected topics (a selection string like "static:secrets", topics, or
    None for all), sorted by (path, line, topic, rule), with waivers applied.

    `skipped` (e.g. from `collect_changes`) is carried into the result first; `critics`
    replaces the registry, for tests; `project_files`: the repository's root config files
    (name -> text, read at the review's base), passed to the critics that read them
    (`ProjectAwareCritic`); `blocking`: which rule decides the severity a finding may block
    at (the `static.blocking` setting, `calibration.calibrate`); `moved_from`: deleted files
    that are not reviewed but whose old text code may have moved from (a module split into a
    package), read by the moved-code test and by the critics that ask for them
    (`DeletionAwareCritic`: what a deleted module took with it)."""
    if isinstance(topics, str):
        topics = parse_selection(topics)
    if critics is None:
        chosen = critics_for(topics)
        selected = frozenset(Topic) if topics is None else frozenset(topics)
    else:
        chosen = list(critics)
        selected = frozenset(c.topic for c in chosen) if topics is None else frozenset(topics)
    unparsable = _unparsable_python(changes)
    shielded_python = any("python" in c.languages and not _reads_raw_text(c) for c in chosen)
    extra_skips: list[Skipped] = list(unparsable.values()) if shielded_python else []
    findings: list[Finding] = []
    for critic in chosen:
        mine = [c for c in changes if c.language in critic.languages]
        if not _reads_raw_text(critic):
            mine = [c for c in mine if c.path not in unparsable]
        if mine and isinstance(critic, DeletionAwareCritic) and critic.reads_deleted_sources:
            mine = [*mine, *(c for c in moved_from if c.language in critic.languages)]
        if not mine:
            continue
        for item in _check(critic, mine, project_files):
            if isinstance(item, Finding):
                findings.append(item)
            else:
                extra_skips.append(item)
    # A construct that only moved (or is still there under another name) is not reported;
    # the test reads whole old and new code, so it runs before the evidence is capped.
    # Then each finding gets the severity its rule's record on real commits supports.
    unmoved = drop_moved(findings, [*changes, *moved_from])
    findings = [cap_evidence(calibrate(f, blocking)) for f in unmoved]
    waived = apply_waivers(findings, changes, selected)
    waived.sort(key=_finding_order)
    extra_skips.sort(key=lambda s: (s.path, s.topic or "", s.reason))
    return StaticResult(findings=waived, skipped=_unique([*skipped, *extra_skips]))


def _check(
    critic: TopicCritic,
    changes: Sequence[FileChange],
    project_files: Mapping[str, str] | None = None,
) -> list[Finding | Skipped]:
    """The critic's results over `changes`; when a file is nested too deeply for it, that
    file is found by checking one file at a time and becomes a skip for the critic's topic."""

    def run(some: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        if project_files is not None and isinstance(critic, ProjectAwareCritic):
            return critic.check_in_project(some, project_files)
        return critic.check(some)

    try:
        return list(run(changes))
    except RecursionError:
        if len(changes) == 1:
            return [_too_deep(changes[0].path, critic.topic)]
    results: list[Finding | Skipped] = []
    for change in changes:
        try:
            results.extend(run([change]))
        except RecursionError:
            results.append(_too_deep(change.path, critic.topic))
    return results


def _too_deep(path: str, topic: Topic) -> Skipped:
    return Skipped(
        path,
        f"too deeply nested for the {topic.value} critic to follow (recursion limit)",
        topic,
    )


# The most evidence one finding carries: enough for a person to recognise the code, small
# enough that the report stays linear in the number of findings.
EVIDENCE_CHARS = 2_000
_HEAD_LINES = 12
_TAIL_LINES = 6


def cap_evidence(finding: Finding) -> Finding:
    """The finding with its evidence (and old evidence) cut to a window, the cut noted."""
    evidence = _window(finding.evidence)
    old = _window(finding.old_evidence) if finding.old_evidence is not None else None
    if evidence is finding.evidence and old is finding.old_evidence:
        return finding
    return dataclasses.replace(finding, evidence=evidence, old_evidence=old)


def _window(text: str) -> str:
    if len(text) <= EVIDENCE_CHARS:
        return text
    lines = text.split("\n")
    head, tail = lines[:_HEAD_LINES], lines[-_TAIL_LINES:] if len(lines) > _HEAD_LINES else []
    kept = [_cut_line(line, EVIDENCE_CHARS // (_HEAD_LINES + _TAIL_LINES)) for line in head]
    if tail:
        kept_tail = [
            _cut_line(line, EVIDENCE_CHARS // (_HEAD_LINES + _TAIL_LINES)) for line in tail
        ]
        cut = len(lines) - len(head) - len(tail)
        middle = (
            f"… [{cut:,} lines cut; the evidence is {len(lines):,} lines, "
            f"{len(text):,} characters] …"
        )
        return "\n".join([*kept, middle, *kept_tail])
    if len(lines) == 1:
        return (
            f"{text[:EVIDENCE_CHARS]} … [cut: showing the first {EVIDENCE_CHARS:,} of "
            f"{len(text):,} characters]"
        )
    note = f"… [long lines cut; the evidence is {len(text):,} characters]"
    return "\n".join([*kept, note])


def _cut_line(line: str, limit: int) -> str:
    if len(line) <= limit:
        return line
    return f"{line[:limit]} … [{len(line) - limit:,} more characters]"


def _reads_raw_text(critic: TopicCritic) -> bool:
    return critic.topic in _RAW_TEXT_TOPICS


def _unparsable_python(changes: Sequence[FileChange]) -> dict[str, Skipped]:
    """Python files whose old or new text does not parse, by path, with the reason."""
    result: dict[str, Skipped] = {}
    for change in changes:
        if change.language != "python":
            continue
        for side, text in (("new", change.new_text), ("old", change.old_text)):
            if text is None:
                continue
            problem = _parse_problem(text)
            if problem is not None:
                where = "" if side == "new" else "the old side has a "
                result[change.path] = Skipped(change.path, f"{where}{problem}")
                break
    return result


def _parse_problem(text: str) -> str | None:
    with warnings.catch_warnings():
        # Warnings about the reviewed code (invalid escapes, deprecated syntax) are not
        # contend's to print; a real syntax error is still raised and reported.
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            pyast.parse(text)
        except SyntaxError as exc:
            return f"syntax error at line {exc.lineno}: {exc.msg}"
        except ValueError as exc:  # e.g. "source code string cannot contain null bytes"
            return f"cannot be parsed as Python: {exc}"
        except RecursionError:
            # A 60,000-term expression: CPython's own compiler cannot build its tree.
            return "too deeply nested to parse (beyond CPython's own recursion limit)"
    return None


def _finding_order(f: Finding) -> tuple[str, int, str, str, int, str]:
    return (f.path, f.start_line, f.topic.value, f.rule, f.end_line, f.claim)


def _unique(items: Iterable[Skipped]) -> list[Skipped]:
    seen: set[Skipped] = set()
    out: list[Skipped] = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out
