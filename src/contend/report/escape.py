"""Control characters on their way to a screen: the one escaping step each renderer applies.

Text from the change under review (file names, evidence, claims), from gates and from
people (`respond --defend`) may carry terminal control sequences: an ESC or 8-bit C1 CSI
that clears the screen, an OSC that sets the window title or writes the clipboard, a
carriage return that overprints a line, a bidi override that makes code read backwards.
None of them may reach a terminal raw (DESIGN §9). Each is replaced by a visible escape
(`\\x1b`, `\\u202e`), so the reader sees what was planted and nothing executes.

- `visible(text)` for renderers that show text (Markdown, terminal text, SARIF messages);
  newlines are layout and stay, unless the text is a single-line field (a file name, a
  command) where a newline would forge a new line or block: then it shows as `\\n`.
- `json_text(value)` for JSON files (report.json, report.sarif): the data stays exactly as
  it was, but every control character is written as a JSON `\\uXXXX` escape, so the bytes of
  the file carry none (json.dumps alone leaves C1 controls, DEL and U+2028 raw).
"""

from __future__ import annotations

import json
import re

# C0 except tab and newline, DEL, C1, the bidi embeddings/overrides/isolates and marks,
# and the Unicode line/paragraph separators (some terminals and editors break lines there).
_CONTROL = "\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
_SHOWN = re.compile(f"[{_CONTROL}]")
_SHOWN_ONE_LINE = re.compile(f"[{_CONTROL}\n\t]")
_JSON_RAW = re.compile(f"[{_CONTROL}]")


def _escape(char: str) -> str:
    code = ord(char)
    if char == "\n":
        return "\\n"
    if char == "\t":
        return "\\t"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, single_line: bool = False) -> str:
    """`text` with every control character shown as a visible escape. CRLF counts as a
    newline (files from Windows); a lone CR is shown, since it would overprint the line."""
    text = text.replace("\r\n", "\n")
    pattern = _SHOWN_ONE_LINE if single_line else _SHOWN
    return pattern.sub(lambda m: _escape(m.group()), text)


def json_text(value: object, *, indent: int | None = 2) -> str:
    """JSON of `value` (UTF-8 kept readable) with no raw control character in its bytes."""
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
