"""Redaction: the one step every string of a run passes on its way to disk or screen.

The detector is the secrets critic's rule set (`critics.static.secrets.find_secrets`):
provider key formats, private keys, passwords in URLs, bearer tokens, and high-entropy
values assigned to secret-looking names. A found secret is replaced by a short prefix and
its length (`ghp_…[redacted 36 chars]`), the same form the secrets critic reports, and
every other occurrence of it in the same text is replaced too.

Where it is applied (and nowhere else needs to be):
  - the ledger writer (`ledger.store.Ledger`) runs `redact_json` over every event's data
    before hashing it, so the ledger, the live state and every report folded from it hold
    no secret that any critic quoted, the spec carried, or a gate printed;
  - `review.outputs.write_outputs` runs `redact_text` / `redact_json_text` over each
    rendered report (report.json, report.md, report.sarif, the terminal text) before it
    is written or printed: a second line behind the first.

Redaction is idempotent: a redacted value is a placeholder to the detector.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from contend.critics.static.secrets import SecretSpan, find_secrets, redact

# Names worth re-reading as an assignment (`name = "value"`): the detector then applies the
# secrets critic's own name rules, so "key" or "tokens_in" alone do not count.
_SECRETISH_NAME = re.compile(r"pass|pwd|secret|token|key|credential|auth", re.IGNORECASE)


def redact_text(text: str) -> str:
    """`text` with every secret the detector finds replaced by its redacted form."""
    return _apply(text, find_secrets(text))


def _apply(text: str, spans: list[SecretSpan]) -> str:
    if not spans:
        return text
    merged: list[list[int]] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if merged and span.start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], span.end)
        else:
            merged.append([span.start, span.end])
    out = text
    for start, end in reversed(merged):
        out = out[:start] + redact(out[start:end]) + out[end:]
    for secret in sorted({s.secret for s in spans}, key=len, reverse=True):
        if len(secret) >= 8:
            out = out.replace(secret, redact(secret))
    return out


def _redact_named(name: str, value: str) -> str:
    """A value under a secret-looking name (`{"api_key": "…"}`): the name is context the
    text alone lacks, so the value is also read as `name = "value"`."""
    redacted = redact_text(value)
    if redacted != value or not _SECRETISH_NAME.search(name) or '"' in value:
        return redacted
    prefix = f'{name} = "'
    spans = [
        SecretSpan(s.start - len(prefix), s.end - len(prefix), s.rule, s.secret)
        for s in find_secrets(f'{prefix}{value}"')
        if s.start >= len(prefix) and s.end <= len(prefix) + len(value)
    ]
    return _apply(value, spans)


def redact_json(value: Any) -> Any:
    """A copy of a JSON-able value with every string (keys included) redacted."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            new_key = redact_text(key) if isinstance(key, str) else key
            while new_key in out:  # two secrets redacted to one name: keep both
                new_key = f"{new_key} (another)"
            if isinstance(item, str) and isinstance(key, str):
                out[new_key] = _redact_named(key, item)
            else:
                out[new_key] = redact_json(item)
        return out
    if isinstance(value, list | tuple):
        return [redact_json(item) for item in value]
    return value


def redact_json_text(text: str) -> str:
    """A rendered JSON document (report.json, report.sarif) with every string redacted.

    Redacting the parsed document, not its text, also finds a secret the text spells with
    escapes (`password = \\"…\\"`). Unchanged documents are returned byte for byte; a changed
    one is re-serialised as the reports are (indent 2, UTF-8, one trailing newline)."""
    document = json.loads(text)
    redacted = redact_json(document)
    if redacted == document:
        return text
    return json.dumps(redacted, indent=2, ensure_ascii=False) + "\n"
