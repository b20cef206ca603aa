"""The registry of static topic critics and the `--critic static[:<topic>]` selection strings.

Each critic lives in its own module under `contend.critics.static` and exports a module-level
`CRITIC` satisfying `base.TopicCritic`. Modules are imported lazily, only when their topic is
selected, so one topic's dependencies (bandit, tree-sitter) cost nothing to the others.
Several modules may share a topic (the Python and the JS/TS versions of one check).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import cast

from contend.critics.static.base import Topic, TopicCritic
from contend.errors import UserError

_PACKAGE = "contend.critics.static"

# module name -> the topic its CRITIC declares (checked on load).
MODULES: dict[str, Topic] = {
    "silent_fallback": Topic.SILENT_FALLBACK,
    "js_silent_fallback": Topic.SILENT_FALLBACK,
    "weakened_tests": Topic.TEST_WEAKENING,
    "js_weakened_tests": Topic.TEST_WEAKENING,
    "boundary_typing": Topic.BOUNDARY_TYPING,
    "js_boundary_typing": Topic.BOUNDARY_TYPING,
    "concurrency": Topic.CONCURRENCY,
    "js_concurrency": Topic.CONCURRENCY,
    "security": Topic.SECURITY,
    "review_config": Topic.SECURITY,
    "secrets": Topic.SECRETS,
}

SELECTOR = "static"


def all_topics() -> tuple[Topic, ...]:
    """Every topic in the order of `Topic`, which is the order of DESIGN §3."""
    return tuple(Topic)


def parse_selection(spec: str) -> frozenset[Topic]:
    """`static` -> every topic; `static:<topic>[,<topic>...]` -> those topics.

    Anything else is a UserError naming the valid choices."""
    name, sep, rest = spec.strip().partition(":")
    if name != SELECTOR:
        raise UserError(
            f"not a static critic selection: {spec!r} (use 'static' or 'static:<topic>')"
        )
    if not sep:
        return frozenset(Topic)
    return frozenset(topic_named(part) for part in rest.split(","))


def topic_named(name: str) -> Topic:
    """The Topic called `name`; a UserError listing the valid topics otherwise."""
    wanted = name.strip()
    for topic in Topic:
        if topic.value == wanted:
            return topic
    valid = ", ".join(t.value for t in Topic)
    raise UserError(f"unknown static topic {wanted!r}; valid topics: {valid}")


def critics_for(topics: Iterable[Topic] | None = None) -> list[TopicCritic]:
    """The critics of the given topics (all when None), in registry order."""
    chosen = frozenset(Topic) if topics is None else frozenset(topics)
    return [load(module) for module, topic in MODULES.items() if topic in chosen]


def load(module: str) -> TopicCritic:
    """Import one critic module and check that its CRITIC declares the registered topic."""
    expected = MODULES[module]
    loaded = importlib.import_module(f"{_PACKAGE}.{module}")
    critic = getattr(loaded, "CRITIC", None)
    if critic is None:
        raise TypeError(f"{_PACKAGE}.{module} defines no module-level CRITIC")
    if critic.topic != expected:
        raise TypeError(
            f"{_PACKAGE}.{module}.CRITIC declares topic {critic.topic!r}, "
            f"registered as {expected!r}"
        )
    return cast(TopicCritic, critic)
