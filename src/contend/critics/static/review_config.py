"""security: a change to contend's own review configuration (DESIGN §9).

A review reads the project config (`contend.toml`, or `[tool.contend]` in the root
`pyproject.toml`) at its base revision, so a change that edits it is never applied to its
own review. It is still shown: a change that would weaken later reviews once merged — fewer
critics or gates, a higher `trivial_diff_lines`, a smaller `max_file_bytes`, fewer rounds,
lower limits, another base, a static critic that blocks less (`static.blocking` from
`"rule"` to `"earned"`, or a `"rule"` setting removed while the default is `"earned"`) — is
a major finding; any other edit of the review's settings
is minor. Pure: the old and new texts of the two files are all it reads.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from contend.critics.static.base import (
    Confidence,
    FileChange,
    Finding,
    Language,
    Skipped,
    Topic,
    TopicCritic,
)
from contend.critics.static.calibration import DEFAULT_BLOCKING
from contend.critics.static.catalogue import RuleInfo
from contend.protocol.model import Severity

RULE_WEAKENED = "review-config-weakened"
RULE_CHANGED = "review-config-changed"
CONFIG_FILES = ("contend.toml", "pyproject.toml")

_WAYS_OUT = (
    "keep the review configuration as it is at the base, and change it in a change of its "
    "own that a person reviews for what it does to every later review",
    "or waive it in code with a reason: `# contend: allow security -- <reason>`",
)

RULES = (
    RuleInfo(
        rule=RULE_WEAKENED,
        topic=Topic.SECURITY,
        severity=Severity.MAJOR,
        confidence=Confidence.HIGH,
        languages=frozenset({"other"}),
        why="a change that weakens contend's own configuration would review every later "
        "change less — fewer critics or gates, more skipped, less scrutiny — once merged",
        ways_out=_WAYS_OUT,
    ),
    RuleInfo(
        rule=RULE_CHANGED,
        topic=Topic.SECURITY,
        severity=Severity.MINOR,
        confidence=Confidence.MEDIUM,
        languages=frozenset({"other"}),
        why="the review configuration governs every later review; a change to it deserves "
        "a person's look, since it is not applied to the review of the change itself",
        ways_out=_WAYS_OUT,
    ),
)

# Defaults of the keys compared, as the settings model has them (kept here, not imported,
# so this critic stays a pure function of two texts; tests check they match the model).
DEFAULTS: dict[str, Any] = {
    "critics": ["static"],
    "gates": [],
    "trivial_diff_lines": 0,
    "max_file_bytes": 1_000_000,
    "max_rounds": 3,
    "min_families": 1,
    "agent_timeout": 600.0,
    "invariants": ["INVARIANTS.md", "AGENTS.md", "CLAUDE.md"],
    "base": None,
}
# `static.blocking` (calibration.Blocking): how strictly each value lets static findings
# block; a change to a less strict value is a weakening.
DEFAULT_STATIC_BLOCKING = DEFAULT_BLOCKING
_BLOCKING_STRICTNESS = {"earned": 0, "rule": 1}
_LIMITS = ("max_run_tokens", "max_thread_tokens", "max_run_cost", "max_thread_cost")
_ALL_STATIC = "static"


class ReviewConfigCritic:
    topic = Topic.SECURITY
    languages: frozenset[Language] = frozenset({"other"})

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        for change in changes:
            if change.path in CONFIG_FILES or (change.old_path or "") in CONFIG_FILES:
                finding = _finding(change)
                if finding is not None:
                    yield finding


CRITIC: TopicCritic = ReviewConfigCritic()


def config_of(path: str, text: str | None) -> dict[str, Any] | str:
    """The contend settings a config file's text holds ({} when none), or why it cannot be
    read (invalid TOML)."""
    if text is None:
        return {}
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return f"invalid TOML ({exc})"
    if path == "pyproject.toml":
        tool = data.get("tool")
        table = tool.get("contend") if isinstance(tool, dict) else None
        return table if isinstance(table, dict) else {}
    return data


def weakenings(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """How `new` would review less than `old`, one phrase each (empty: not weaker)."""
    found: list[str] = []

    def value(data: Mapping[str, Any], key: str) -> Any:
        return data.get(key, DEFAULTS[key])

    lost = _coverage(value(old, "critics")) - _coverage(value(new, "critics"))
    if lost:
        found.append(f"critics no longer run: {', '.join(sorted(lost))}")
    for key in ("gates", "invariants"):
        removed = [x for x in _strings(value(old, key)) if x not in _strings(value(new, key))]
        if removed:
            found.append(f"{key} removed: {', '.join(removed)}")
    for key, weaker in (
        ("trivial_diff_lines", _raised),
        ("max_file_bytes", _lowered),
        ("max_rounds", _lowered),
        ("min_families", _lowered),
        ("agent_timeout", _lowered),
    ):
        before, after = value(old, key), value(new, key)
        if weaker(before, after):
            found.append(f"{key} {before!r} → {after!r}")
    old_limits, new_limits = _table(old, "limits"), _table(new, "limits")
    for key in _LIMITS:
        before, after = old_limits.get(key), new_limits.get(key)
        if _lowered(_cap(before), _cap(after)):
            found.append(f"limits.{key} {_shown(before)} → {_shown(after)}")
    before_b, after_b = _blocking(old), _blocking(new)
    if _lowered(_strictness(before_b), _strictness(after_b)):
        found.append(f"static.blocking {before_b!r} → {after_b!r}")
    if value(old, "base") != value(new, "base"):
        found.append(f"base {_shown(value(old, 'base'))} → {_shown(value(new, 'base'))}")
    return found


def changed_keys(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The top-level keys whose values differ."""
    return sorted(k for k in {*old, *new} if old.get(k) != new.get(k))


def configs_of(change: FileChange) -> tuple[dict[str, Any] | str, dict[str, Any] | str]:
    """The review settings a change's old and new side hold: a file renamed away from (or
    to) a config name counts as removed (or added) there."""
    old_path = change.old_path or change.path
    old = config_of(old_path, change.old_text) if old_path in CONFIG_FILES else {}
    new = config_of(change.path, change.new_text) if change.path in CONFIG_FILES else {}
    return old, new


def _finding(change: FileChange) -> Finding | None:
    old, new = configs_of(change)
    if old == new:
        return None
    name = change.path if change.path in CONFIG_FILES else change.old_path or change.path
    what = "pyproject.toml [tool.contend]" if name == "pyproject.toml" else name
    if isinstance(new, str) or isinstance(old, str):
        problem = new if isinstance(new, str) else f"the base's is {old}"
        detail, rule = f"the review configuration in {what} changed: {problem}", RULE_CHANGED
    else:
        weaker = weakenings(old, new)
        keys = ", ".join(changed_keys(old, new))
        if weaker:
            detail = f"the change weakens contend's review configuration in {what}: " + (
                "; ".join(weaker)
            )
            rule = RULE_WEAKENED
        else:
            detail, rule = (
                f"the change edits contend's review configuration in {what}: {keys}",
                (RULE_CHANGED),
            )
    start, end = _span(change)
    return Finding(
        topic=Topic.SECURITY,
        rule=rule,
        severity=Severity.MAJOR if rule == RULE_WEAKENED else Severity.MINOR,
        path=change.path,
        start_line=start,
        end_line=end,
        claim=f"{detail}. Not applied to this review, which reads its configuration at the "
        "base revision; it would govern every review after the change is merged",
        evidence=change.new_lines(start, end) or "(the file is deleted)",
        old_evidence=None,
        ways_out=_WAYS_OUT,
        confidence=Confidence.HIGH if rule == RULE_WEAKENED else Confidence.MEDIUM,
    )


def _span(change: FileChange) -> tuple[int, int]:
    """The changed lines of the new side (first to last, at most 20 shown); line 1 when the
    change only removed lines."""
    added = sorted(change.added_lines)
    if not added:
        return 1, 1
    return added[0], min(added[-1], added[0] + 19)


def _coverage(critics: object) -> set[str]:
    """What a critics list reviews: each static topic it selects, and each agent spec."""
    covered: set[str] = set()
    for spec in _strings(critics):
        name, sep, rest = spec.partition(":")
        if name == _ALL_STATIC:
            topics = [t.value for t in Topic] if not sep else rest.split(",")
            covered.update(f"static:{t.strip()}" for t in topics)
        else:
            covered.add(spec)
    return covered


def _strings(value: object) -> list[str]:
    return [str(x) for x in value] if isinstance(value, list) else []


def _table(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    table = data.get(key)
    return table if isinstance(table, dict) else {}


def _blocking(data: Mapping[str, Any]) -> object:
    """`static.blocking` as `data` sets it, else the default."""
    return _table(data, "static").get("blocking", DEFAULT_STATIC_BLOCKING)


def _strictness(blocking: object) -> int | None:
    return _BLOCKING_STRICTNESS.get(blocking) if isinstance(blocking, str) else None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _raised(before: object, after: object) -> bool:
    a, b = _number(before), _number(after)
    return a is not None and b is not None and b > a


def _lowered(before: object, after: object) -> bool:
    a, b = _number(before), _number(after)
    return a is not None and b is not None and b < a


def _cap(value: object) -> float:
    """A limit as a number: none means no cap (infinite)."""
    number = _number(value)
    return float("inf") if number is None else number


def _shown(value: object) -> str:
    return "none" if value is None else repr(value)


def findings_of(changes: Iterable[FileChange]) -> Iterator[Finding]:
    """The findings of this rule alone (for the engine's note when `security` is off)."""
    for item in CRITIC.check(list(changes)):
        if isinstance(item, Finding):
            yield item
