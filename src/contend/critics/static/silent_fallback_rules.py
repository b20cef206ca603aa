"""The rule catalogue of the Python `silent-fallback` topic: each rule's id, severity,
confidence, what it means and how to fix or waive it (see silent_fallback.py for what each
rule matches)."""

from __future__ import annotations

from contend.critics.static.base import Confidence, Topic
from contend.critics.static.catalogue import PYTHON, RuleInfo, waiver_way
from contend.protocol.model import Severity

_TOPIC = Topic.SILENT_FALLBACK
_WAIVE = waiver_way(_TOPIC)

RAISE_TO_DEFAULT = RuleInfo(
    rule="raise-to-default",
    topic=_TOPIC,
    severity=Severity.MAJOR,
    confidence=Confidence.HIGH,
    languages=PYTHON,
    why="the function used to raise here; now it returns a value the caller cannot tell "
    "from a real result, so the failure travels on as data",
    ways_out=(
        "raise again (the old exception or a narrower one) so the caller sees the failure",
        "or make the absence explicit in the return type and update every caller to check it",
        _WAIVE,
    ),
)


SWALLOWING_HANDLER = RuleInfo(
    rule="swallowing-handler",
    topic=_TOPIC,
    severity=Severity.CRITICAL,
    confidence=Confidence.HIGH,
    languages=PYTHON,
    why="a new except clause passes, logs or returns a default: the error it catches never "
    "reaches anyone who could act on it",
    ways_out=(
        "re-raise (bare `raise`, or `raise DomainError(...) from exc`) after any cleanup",
        "or catch only the exception the code means to handle and say why in the handler",
        _WAIVE,
    ),
)


WIDENED_EXCEPT = RuleInfo(
    rule="widened-except",
    topic=_TOPIC,
    severity=Severity.CRITICAL,
    confidence=Confidence.HIGH,
    languages=PYTHON,
    why="the handler now catches errors it did not catch before and treats them like the "
    "one it was written for, so unrelated failures are hidden too",
    ways_out=(
        "restore the narrower `except` clause shown under 'before the change'",
        "or handle the added exceptions in their own clause that raises or reports them",
        _WAIVE,
    ),
)


SUPPRESS_BROAD = RuleInfo(
    rule="suppress-broad",
    topic=_TOPIC,
    severity=Severity.CRITICAL,
    confidence=Confidence.HIGH,
    languages=PYTHON,
    why="`contextlib.suppress(Exception)` discards every error of the block and carries on "
    "as if it had succeeded",
    ways_out=(
        "suppress only the exception you expect (e.g. `suppress(FileNotFoundError)`)",
        "or let the error propagate",
        _WAIVE,
    ),
)


INDEX_TO_DEFAULT = RuleInfo(
    rule="index-to-default",
    topic=_TOPIC,
    severity=Severity.MINOR,
    confidence=Confidence.MEDIUM,
    languages=PYTHON,
    why="a lookup that raised when the key or attribute was missing now returns a default, "
    "so a missing value (or a typo in its name) passes unnoticed",
    ways_out=(
        "keep the raising lookup (`d[k]`, `o.a`) if the value must be there",
        "or handle the missing case explicitly where the default is decided",
        _WAIVE,
    ),
)


RULES: tuple[RuleInfo, ...] = (
    RAISE_TO_DEFAULT,
    SWALLOWING_HANDLER,
    WIDENED_EXCEPT,
    SUPPRESS_BROAD,
    INDEX_TO_DEFAULT,
)
