"""What pulls a memory towards others in the net: its entity names, themes and time anchor. Pure.

    name_key(name)                       how two names compare: trimmed, lower-case
    explicit_names(names)                a memory's given names, de-duplicated case-insensitively
    content_ngrams(text)                 every whole-word run of 1..ENTITY_NAME_MAX_WORDS words, lower-cased
    names_found(text, names)             the names occurring in the text as whole words
    names_in_grams(grams, names)         the same, given the text's content_ngrams
    themes_of(tags)                      sorted, de-duplicated, non-empty tags
    time_anchor(event_time, precision)   both, or neither

A name occurs "as a whole word" when it appears in the text, case-insensitively, with no word
character right before or after it: "Anna" is in "Anna's car" and "met anna." but not in
"Annabel". Names are found through the content's n-grams, so one indexed query against the
mind's lower-cased names and aliases finds them all, however many entities the mind has
(synapses.promotion.entities). The n-grams are substrings of the text itself (separators as
written), so a name is found exactly when it is written that way: "New York" is not found in
"New-York". A name that begins or ends with a non-word character ("C++") is never found in
content; given explicitly, it is an entity all the same.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime

from synapses import constants

# A run of word characters (letters, digits, underscore, in any script).
_WORD = re.compile(r"\w+")


def name_key(name: str) -> str:
    """The form in which names compare: surrounding space dropped, lower-cased (as SQL lower())."""
    return name.strip().lower()


def explicit_names(names: Iterable[str]) -> list[str]:
    """The given names without blanks and without case-insensitive repeats, first spelling kept,
    sorted by their key — the order in which new entities are inserted, so two promotions that
    create the same names never wait on each other in opposite orders."""
    kept: dict[str, str] = {}
    for name in names:
        key = name_key(name)
        if key and key not in kept:
            kept[key] = name.strip()
    return [kept[key] for key in sorted(kept)]


def content_ngrams(text: str, max_words: int = constants.ENTITY_NAME_MAX_WORDS) -> set[str]:
    """Every run of 1..max_words consecutive words of `text`, lower-cased, as written between them.

    Each one starts at the first character of a word and ends at the last character of a word,
    so it is bounded by non-word characters (or the text's ends) on both sides.
    """
    lowered = text.lower()
    # Lower-casing may change a text's length (rare letters); then the spans are taken from it.
    spans = [match.span() for match in _WORD.finditer(lowered)]
    grams: set[str] = set()
    for first, (start, _) in enumerate(spans):
        for last in range(first, min(first + max_words, len(spans))):
            grams.add(lowered[start : spans[last][1]])
    return grams


def names_found(text: str, names: Iterable[str], max_words: int = constants.ENTITY_NAME_MAX_WORDS) -> list[str]:
    """The names (as given, in their order, without repeats) that occur in `text` as whole words."""
    return names_in_grams(content_ngrams(text, max_words), names)


def names_in_grams(grams: set[str], names: Iterable[str]) -> list[str]:
    """names_found for a text whose content_ngrams are `grams` (a caller that checks many names
    against one text computes its n-grams once)."""
    found: list[str] = []
    seen: set[str] = set()
    for name in names:
        key = name_key(name)
        if key and key in grams and key not in seen:
            seen.add(key)
            found.append(name)
    return found


def themes_of(tags: Iterable[str]) -> list[str]:
    """A knot's themes: the memory's tags, sorted, de-duplicated, without empty ones."""
    return sorted({tag for tag in tags if tag})


def time_anchor(event_time: datetime | None, precision: str) -> tuple[datetime | None, str]:
    """A knot's time anchor: the event time with its precision, or none when either is missing."""
    if event_time is None or not precision:
        return None, ""
    return event_time, precision
