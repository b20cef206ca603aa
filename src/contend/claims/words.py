"""Words for the internal-fact critic: stop lists, normalisation, light stemming.

Pure helpers shared by the number, quote and entity checks; no decisions live here.
"""

from __future__ import annotations

import re
import unicodedata


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


STOP = _set(
    "a an and are as at be been by can could do does each every for from had has have he "
    "her his how i if in into is it its may might more most much must no nor not of on one "
    "or our over per she should so some such than that the their them then there these "
    "they this those to too under up us was we were what when where which while who will "
    "with would you your also only just very about"
)
SMALL_WORDS = _set("a an the")
CAPITAL_STOP = _set(
    "The A An This That These Those It Its In On At Of For And Or But If When While Each "
    "Every We Our Us I You Your They Their He She His Her There Here No Not All Any Some "
    "Both Only Also As By With Without From To Is Are Was Were Be Then Than So Yes"
)
_UNIFY = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
     "\u2014": "-", "\u2212": "-", "*": "", "`": ""}
)  # fmt: skip


def normalise(text: str) -> str:
    """Casefolded, NFKC, quotes and dashes unified; Markdown emphasis, link targets and
    extra whitespace gone."""
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"\[([^\]\n]*)\]\([^)\s]*\)", r"\1", text)  # a Markdown link: its text
    text = text.translate(_UNIFY)
    text = re.sub(r"(\w)-\n(\w)", r"\1\2", text)  # a word hyphenated at a line end
    return re.sub(r"\s+", " ", text).strip().casefold()


def stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
