"""Topic de-duplication (protocol/topics.py): a later critic may not take an axis already
taken. Written against what `near_duplicate` answers, not against its word list."""

from __future__ import annotations

import pytest

from contend.protocol.topics import near_duplicate

# The small words a topic may add without naming a new axis.
STOP_WORDS = ("and", "or", "the", "a", "an", "of", "in", "for", "to", "on", "with")


@pytest.mark.parametrize("word", STOP_WORDS)
def test_a_small_word_does_not_make_a_taken_topic_new(word: str) -> None:
    # Spelled far apart (difflib ratio < 0.85): only the words can match them.
    assert near_duplicate(f"{word} cache", ["cache"]) == "cache"


def test_a_word_that_names_something_does_make_it_new() -> None:
    # {disk, cache} against {cache}: overlap 0.5, below the 0.6 threshold.
    assert near_duplicate("disk cache", ["cache"]) is None
