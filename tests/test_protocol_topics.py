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


def test_a_plural_meets_its_singular_in_any_order() -> None:
    # Spelled far apart (ratio 0.45): only the stemmed words match.
    assert near_duplicate("locks caches", ["cache lock"]) == "cache lock"
    assert near_duplicate("logs audit", ["audit log"]) == "audit log"


def test_a_three_letter_word_keeps_its_s() -> None:
    # "bus" is not the plural of "bu"; ratio 0.8 is below the spelling threshold.
    assert near_duplicate("bus", ["bu"]) is None


def test_three_shared_words_of_five_are_the_threshold_itself() -> None:
    # {cache, lock, retry} of {cache, lock, retry, timeout, queue}: Jaccard exactly 0.6.
    taken = "queue retry lock cache"
    assert near_duplicate("cache lock retry timeout", [taken]) == taken
    assert near_duplicate("cache lock retry timeout", [taken], threshold=0.61) is None


def test_close_spelling_alone_makes_a_duplicate_from_a_ratio_of_085() -> None:
    # One word each, different words: only the spelling can match. 17 of 20 letters in
    # common: ratio 2 * 17 / 40 = 0.85, the threshold itself; 16 of 20 is 0.80.
    assert near_duplicate("abcdefghijklmnopqrst", ["abcdefghijklmnopqxyz"]) is not None
    assert near_duplicate("abcdefghijklmnopqrst", ["abcdefghijklmnopwxyz"]) is None
    # Case and surrounding spaces do not count.
    assert near_duplicate(" ABCDEFGHIJKLMNOPQRST ", ["abcdefghijklmnopqxyz"]) is not None


def test_two_topics_of_small_words_only_are_the_same_non_axis() -> None:
    assert near_duplicate("the", ["of"]) == "of"
