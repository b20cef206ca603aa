"""Untrusted text placed into Markdown: it can neither break its block nor inject markup.

- `fence(text)`: a fenced code block longer than any backtick run inside it;
- `code(text)`: an inline code span for a single-line field (a path, an id, a command);
  a newline in it is shown as `\\n`, never a line break;
- `inline(text)`: prose from an agent, a critic or a person, for a paragraph or a list
  item. Markdown structure is escaped (a backslash before ASCII punctuation is always
  safe), except code spans the text already holds (`name`), which stay code spans: their
  content is literal in CommonMark (no HTML, no links, no emphasis), so they render as code
  instead of as literal backslashes and backticks;
- `label(text)`: a single-line field read as prose (a name, a topic, a model family);
- `one_line(text)`: `inline` flattened, for headings.

Control characters are shown as visible escapes by each helper (contend.report.escape), and
the renderer passes the whole page through the same step once more, so nothing raw slips by.
"""

from __future__ import annotations

import re

from contend.report.escape import visible

_BACKTICK_RUN = re.compile(r"`+")
# A code span as CommonMark reads it: a backtick run, content, the same-length run.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# Characters that can start or change Markdown/HTML structure inline (CommonMark allows a
# backslash before any ASCII punctuation, so escaping them is always safe).
_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&#!])")
# Line starts that would open a list, quote, heading, rule or setext heading.
_LINE_START = re.compile(r"^(\s*)(\d*)([-+=>.)])")


def fence(text: str, info: str = "") -> str:
    """A fenced code block that `text` cannot close: the fence is longer than any run of
    backticks inside it (and at least three)."""
    text = visible(text)
    longest = max((len(m.group()) for m in _BACKTICK_RUN.finditer(text)), default=0)
    ticks = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{ticks}{info}\n{body}{ticks}"


def _plain(text: str) -> str:
    return _INLINE_SPECIAL.sub(r"\\\1", text)


def _line(line: str) -> str:
    parts: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(line):
        if not m.group(2).strip():
            continue  # a span of blanks only is not worth keeping as code
        parts += [_plain(line[pos : m.start()]), m.group()]
        pos = m.end()
    parts.append(_plain(line[pos:]))
    # A digit cannot be backslash-escaped, so escape the list delimiter after it.
    return _LINE_START.sub(r"\1\2\\\3", "".join(parts))


def inline(text: str) -> str:
    """Untrusted prose for a paragraph or list item; newlines become hard breaks."""
    # Markdown is escaped first and control characters shown after, so a shown escape
    # (`\x1b`) reads as itself rather than with its backslash doubled.
    text = text.replace("\r\n", "\n")
    # Blank lines would end the paragraph (or the list item) the text sits in.
    lines = [line for line in text.strip().split("\n") if line.strip()]
    return visible("  \n".join(_line(line) for line in lines))


def label(text: str) -> str:
    """A single-line field that reads as prose (a name, a topic, a model): escaped like
    `inline`, with a newline in it shown as `\\n` instead of breaking the line. CRLF is
    one newline (`visible` reads it so); normalising it here as well turned `\\r\\r\\n`
    into a newline and hid the lone CR, which would overprint the line."""
    return visible(_line(text), single_line=True)


def one_line(text: str) -> str:
    """Escaped text flattened to one line, for headings and emphasis."""
    return inline(" ".join(text.split()))


def code(text: str) -> str:
    """An inline code span that `text` cannot break out of (a newline shows as `\\n`)."""
    flat = visible(text, single_line=True)
    longest = max((len(m.group()) for m in _BACKTICK_RUN.finditer(flat)), default=0)
    ticks = "`" * (longest + 1)
    # CommonMark strips one space from each end of a span whose content begins and ends
    # with one (unless it is all spaces). Pad where that would cut the text, or where a
    # backtick at an edge would merge with the delimiters: the span then shows the text as
    # it is. An empty text needs a pad to be a span at all.
    edges = flat[:1] + flat[-1:]
    clash = "`" in edges or (edges == "  " and bool(flat.strip(" ")))
    pad = " " if clash or not flat else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"
