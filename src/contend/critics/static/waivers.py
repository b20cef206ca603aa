"""In-code waivers: `# contend: allow <topic>[,<topic>...] -- <reason>` (or `// contend: ...`).

A waiver with a reason, on a line of a finding's span or on the line just above its start,
concedes that finding: it stays in the result with waived=True and the reason, never hidden.
A waiver without a reason waives nothing and is itself a finding — but only when the change
added it; a reasonless waiver that was already there is not this change's doing.
"""

from __future__ import annotations

import dataclasses
import io
import re
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from contend.critics.static.base import Confidence, FileChange, Finding, Language, Topic
from contend.critics.static.catalogue import RuleInfo
from contend.protocol.model import Severity

RULE_NO_REASON = "waiver-without-reason"
_LANGUAGES: frozenset[Language] = frozenset({"python", "javascript", "typescript", "tsx"})
# One entry per topic (a waiver names the topic it waives); the catalogue keys by rule, so
# the entry below stands for all of them.
RULES: tuple[RuleInfo, ...] = (
    RuleInfo(
        RULE_NO_REASON,
        Topic.SILENT_FALLBACK,
        Severity.MINOR,
        Confidence.HIGH,
        _LANGUAGES,
        "a waiver without a reason waives nothing, and the next reader cannot tell why the "
        "finding was accepted",
        ("write the reason after `--`: `contend: allow <topic> -- <why this is safe>`",),
    ),
)

_WAIVER = re.compile(r"(?:#|//)\s*contend:\s*allow\b(?P<body>.*)$")
_REASON_SEPARATOR = "--"


@dataclass(frozen=True, slots=True)
class Waiver:
    line: int
    topics: frozenset[str]
    reason: str | None
    text: str


def parse_waiver(line_text: str, line: int) -> Waiver | None:
    """The waiver written on this line, or None. An empty reason is no reason."""
    match = _WAIVER.search(line_text)
    if match is None:
        return None
    body = match.group("body")
    names, sep, reason = body.partition(_REASON_SEPARATOR)
    topics = frozenset(name for name in re.split(r"[,\s]+", names) if name)
    cleaned = reason.strip() if sep else ""
    return Waiver(line, topics, cleaned or None, line_text.strip())


def waivers_in(text: str, language: Language = "other") -> dict[int, Waiver]:
    """Every waiver in a file, by 1-based line number. In Python only real comments count, so
    a test that holds a waiver inside a string literal does not waive (or owe) anything."""
    if "contend:" not in text:
        return {}
    comments = _python_comments(text) if language == "python" else None
    found: dict[int, Waiver] = {}
    # Numbered like git's diff: split on "\n" only (splitlines() also breaks at form feeds).
    for number, line_text in enumerate(text.split("\n"), start=1):
        if "contend:" not in line_text:
            continue
        source = line_text if comments is None else comments.get(number)
        waiver = parse_waiver(source, number) if source is not None else None
        if waiver is not None:
            found[number] = dataclasses.replace(waiver, text=line_text.strip())
    return found


def _python_comments(text: str) -> dict[int, str] | None:
    """Comment text by line; None when the file cannot be tokenized, in which case every line
    is read as it stands (a superset: a waiver is never missed)."""
    comments: dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                comments[token.start[0]] = token.string
    # contend: allow silent-fallback -- read line by line instead: no waiver missed
    except (tokenize.TokenError, SyntaxError):
        return None
    return comments


def apply_waivers(
    findings: Iterable[Finding],
    changes: Sequence[FileChange],
    topics: Iterable[Topic],
) -> list[Finding]:
    """Findings with waivers applied, plus one finding per reasonless waiver the change added
    that names a topic in `topics` (the topics that were run)."""
    by_path = {c.path: c for c in changes if c.new_text is not None}
    cache: dict[str, dict[int, Waiver]] = {}

    def waivers_of(path: str) -> dict[int, Waiver]:
        if path not in cache:
            change = by_path.get(path)
            cache[path] = (
                waivers_in(change.new_text or "", change.language) if change is not None else {}
            )
        return cache[path]

    result = [_waive(f, waivers_of(f.path)) for f in findings]
    selected = frozenset(topics)
    for change in changes:
        if change.new_text is None:
            continue
        for line, waiver in sorted(waivers_of(change.path).items()):
            if waiver.reason is None and line in change.added_lines:
                result.extend(_reasonless(change.path, waiver, selected))
    return result


def _waive(finding: Finding, waivers: dict[int, Waiver]) -> Finding:
    for line in range(finding.start_line - 1, finding.end_line + 1):
        waiver = waivers.get(line)
        if waiver is None or waiver.reason is None or finding.topic not in waiver.topics:
            continue
        # The line above counts only when it is the waiver alone: a trailing waiver on the
        # previous statement is about that statement, not the next one.
        if line == finding.start_line - 1 and not waiver.text.startswith(("#", "//")):
            continue
        return dataclasses.replace(finding, waived=True, waiver_reason=waiver.reason)
    return finding


def _reasonless(path: str, waiver: Waiver, selected: frozenset[Topic]) -> list[Finding]:
    named = [topic for topic in Topic if topic.value in waiver.topics and topic in selected]
    return [
        dataclasses.replace(RULES[0], topic=topic).finding(
            path=path,
            lines=(waiver.line, waiver.line),
            claim=(
                f"The waiver for {topic.value} at line {waiver.line} gives no reason, so it "
                f"waives nothing: write `contend: allow {topic.value} -- <why this is safe>`."
            ),
            evidence=waiver.text,
        )
        for topic in named
    ]
