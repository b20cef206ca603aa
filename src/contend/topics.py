"""The topics of the deterministic critics (DESIGN §3) and the grammar of a topic list.

Pure data. It sits below every package that names a topic — configuration validating
`static:<topic>[,<topic>...]`, the diff reader, the static critics — so none of them has to
import another's module for it.
"""

from __future__ import annotations

from enum import StrEnum


class Topic(StrEnum):
    SILENT_FALLBACK = "silent-fallback"
    TEST_WEAKENING = "test-weakening"
    BOUNDARY_TYPING = "boundary-typing"
    CONCURRENCY = "concurrency"
    SECURITY = "security"
    SECRETS = "secrets"


def topics_named(names: str) -> frozenset[Topic]:
    """The topics of a comma-separated list (`secrets,security`); ValueError naming the
    first unknown one and the valid topics, in the order of DESIGN §3."""
    chosen: set[Topic] = set()
    for part in names.split(","):
        name = part.strip()
        if name not in _BY_NAME:
            valid = ", ".join(t.value for t in Topic)
            raise ValueError(f"unknown static topic {name!r}; valid topics: {valid}")
        chosen.add(_BY_NAME[name])
    return frozenset(chosen)


_BY_NAME = {topic.value: topic for topic in Topic}
