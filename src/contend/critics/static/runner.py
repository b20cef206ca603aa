"""Running the selected static critics over a change set, then applying in-code waivers.

Each critic sees only the changes in its languages. Python texts are parsed once up front
(the parse is cached in `pyast.parse`, so the AST critics reuse it); a Python file that does
not parse becomes one `Skipped` and is withheld from the AST critics, while critics that read
raw text (secrets) still see it. A critic that raises is a bug and the error propagates.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence

from contend.critics.static import pyast
from contend.critics.static.base import (
    FileChange,
    Finding,
    Skipped,
    StaticResult,
    Topic,
    TopicCritic,
)
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
) -> StaticResult:
    """Findings of the selected topics (a selection string like "static:secrets", topics, or
    None for all), sorted by (path, line, topic, rule), with waivers applied.

    `skipped` (e.g. from `collect_changes`) is carried into the result first; `critics`
    replaces the registry, for tests."""
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
        if not mine:
            continue
        for item in critic.check(mine):
            if isinstance(item, Finding):
                findings.append(item)
            else:
                extra_skips.append(item)
    waived = apply_waivers(findings, changes, selected)
    waived.sort(key=_finding_order)
    extra_skips.sort(key=lambda s: (s.path, s.topic or "", s.reason))
    return StaticResult(findings=waived, skipped=_unique([*skipped, *extra_skips]))


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
