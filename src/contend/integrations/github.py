"""GitHub's two text surfaces for a report, pure: workflow-command annotations
(`contend review --format github`) and the pull-request comment body (`contend comment`).

Annotations. One `::error` / `::warning` workflow command per place of every unresolved
dispute (critical/major → error, minor → warning), then one `::notice` with the verdict.
Everything in a command comes from the change or the agents, so it is escaped as the
Actions runner unescapes it: in the message `%`, CR and LF become `%25`, `%0D`, `%0A`; in
a property value also `:` and `,` (`%3A`, `%2C`). A claim can therefore neither end its
command early nor start a new one (`::add-mask::`, `::stop-commands::`), and control
characters are shown, not sent (contend.report.escape.visible).

Comment body. A hidden marker on the first line (`<!-- contend:pr-comment KEY -->`) lets a
later run find and update the same comment; then report.md (already escaped for Markdown).
GitHub refuses a comment over 65,536 characters: a longer body is cut at a line boundary
(a code fence open there is closed) and ends with a note saying how much was left out and
where the whole report is. The limit is counted in UTF-16 code units, which is never less
than the characters GitHub counts.
"""

from __future__ import annotations

import re

from contend.report.escape import visible
from contend.report.markdown import render_markdown
from contend.report.mdtext import code
from contend.report.model import Report

COMMENT_LIMIT = 65_536
DEFAULT_KEY = "default"
_LEVEL = {"critical": "error", "major": "error", "minor": "warning"}
_KEY = re.compile(r"[A-Za-z0-9._/-]{1,100}")
_FENCE_OPEN = re.compile(r"^ *(`{3,}|~{3,})")


def escape_data(text: str) -> str:
    """A workflow command's message, as the runner's `escapeData` expects it."""
    return visible(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value (`file=`, `title=`), as `escapeProperty`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_annotations(report: Report) -> str:
    """The workflow commands for `report`, one per line."""
    lines: list[str] = []
    for d in report.disputes:
        level = _LEVEL.get(str(d.severity), "warning")
        title = f"contend {d.topic}/{d.rule} ({d.severity})" if d.rule else f"contend {d.topic}"
        places = d.locations or []
        for site in places:
            props = [f"file={escape_property(site.path)}"]
            if site.start_line >= 1:
                props.append(f"line={site.start_line}")
                props.append(f"endLine={max(site.end_line, site.start_line)}")
            props.append(f"title={escape_property(title)}")
            message = f"{d.claim} [{d.id}, contention {d.contention}]"
            if d.evidence.strip():
                message += f"\nEvidence: {d.evidence}"
            lines.append(f"::{level} {','.join(props)}::{escape_data(message)}")
    summary = f"contend: {report.verdict} — {len(report.disputes)} unresolved dispute(s)"
    if report.reasons:
        summary += f" ({'; '.join(report.reasons)})"
    lines.append(f"::notice title=contend::{escape_data(summary)}")
    return "\n".join(lines) + "\n"


def marker(key: str = DEFAULT_KEY) -> str:
    """The hidden first line that identifies contend's comment for `key` on a PR."""
    if not _KEY.fullmatch(key):
        raise ValueError(f"comment key {key!r}: use 1-100 of A-Z a-z 0-9 . _ / -")
    return f"<!-- contend:pr-comment {key} -->"


def comment_body(
    report: Report,
    *,
    key: str = DEFAULT_KEY,
    where: str | None = None,
    limit: int = COMMENT_LIMIT,
    markdown: str | None = None,
) -> str:
    """The PR comment: marker, then report.md (`markdown`, else rendered from `report`),
    cut to `limit` with a note saying what was left out and `where` the whole report is."""
    head = marker(key) + "\n"
    page = markdown if markdown is not None else render_markdown(report)
    whole = head + page
    if _units(whole) <= limit:
        return whole
    shown_where = f" The whole report: {code(where)}." if where else ""
    total_lines = page.count("\n")

    def note(kept_lines: int) -> str:
        return (
            f"\n\n---\n**This comment is cut to GitHub's {limit:,}-character limit:** it "
            f"shows the first {kept_lines:,} of {total_lines:,} lines of report.md "
            f"(run {code(report.run_id)}, verdict **{report.verdict}**, "
            f"{len(report.disputes)} unresolved).{shown_where}\n"
        )

    budget = limit - _units(head) - _units(note(total_lines)) - 16  # room for a fence
    if budget <= 0:
        raise ValueError(f"a comment limit of {limit} leaves no room for the report")
    kept: list[str] = []
    used = 0
    fence: str | None = None
    for line in page.splitlines(keepends=True):
        cost = _units(line)
        closing = _units(fence) + 1 if fence else 0
        if used + cost + closing > budget:
            break
        kept.append(line)
        used += cost
        fence = _fence_after(line, fence)
    body = "".join(kept)
    if fence is not None:
        body += ("" if body.endswith("\n") else "\n") + fence + "\n"
    return head + body + note(len(kept))


def _fence_after(line: str, fence: str | None) -> str | None:
    """The open code fence after `line` (None: outside one). A fence closes on a line of
    the same character, at least as long, and nothing else."""
    stripped = line.strip()
    if fence is None:
        opened = _FENCE_OPEN.match(line)
        return opened.group(1) if opened else None
    if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
        return None
    return fence


def _units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2
