"""The pure magnet rules (synapses/promotion/magnets.py): whole-word, case-insensitive names; themes; time anchors."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from synapses.promotion.magnets import content_ngrams, explicit_names, names_found, themes_of, time_anchor

untimed = settings(deadline=None)
# Plain ASCII words and separators: case-swapping them never changes a text's length.
ascii_word = st.text(alphabet="abcdefghijKLMNOPQRSTxyz0123456789", min_size=1, max_size=8)
separator = st.sampled_from([" ", ", ", ". ", "-", "\n", " (", ") ", "'s "])


@st.composite
def texts(draw) -> str:
    words = draw(st.lists(ascii_word, min_size=0, max_size=12))
    pieces = []
    for word in words:
        pieces.extend([word, draw(separator)])
    return "".join(pieces)


def _whole_word_in(name: str, text: str) -> bool:
    """The definition, written independently of the n-grams: no word character on either side."""
    return re.search(rf"(?<!\w){re.escape(name.lower())}(?!\w)", text.lower()) is not None


@untimed
@given(text=texts(), names=st.lists(st.one_of(ascii_word, st.builds("{} {}".format, ascii_word, ascii_word))))
def test_a_name_is_found_exactly_when_it_is_a_whole_word_substring_of_the_text(text, names):
    found = {name.lower() for name in names_found(text, names)}
    for name in names:
        assert (name.lower() in found) == _whole_word_in(name, text)


@untimed
@given(text=texts(), names=st.lists(ascii_word, max_size=5))
def test_case_never_matters(text, names):
    def keys(found):
        return {name.lower() for name in found}

    assert keys(names_found(text, names)) == keys(names_found(text.swapcase(), names))
    assert keys(names_found(text, names)) == keys(names_found(text, [name.swapcase() for name in names]))


@untimed
@given(text=texts())
def test_every_ngram_is_a_lower_cased_whole_word_run_of_at_most_four_words(text):
    for gram in content_ngrams(text):
        assert gram == gram.lower()
        assert _whole_word_in(gram, text)
        assert 1 <= len(re.findall(r"\w+", gram)) <= 4


@untimed
@given(words=st.lists(ascii_word, min_size=1, max_size=4), before=texts(), after=texts())
def test_a_name_of_up_to_four_words_written_between_separators_is_found(words, before, after):
    name = " ".join(words)
    assert names_found(f"{before} {name.upper()} {after}", [name]) == [name]


def test_a_name_inside_a_longer_word_is_not_found_but_a_possessive_is():
    assert names_found("Annabel met Anna's brother", ["Anna", "Annabel", "bel"]) == ["Anna", "Annabel"]
    assert names_found("annabel", ["Anna"]) == []


def test_separators_count_as_written():
    assert names_found("She lives in New York.", ["new york"]) == ["new york"]
    assert names_found("She lives in New-York.", ["New York"]) == []
    assert names_found("She lives in New-York.", ["new-york"]) == ["new-york"]


def test_a_name_of_five_words_is_beyond_the_ngrams():
    text = "the united states of america said"
    assert names_found(text, ["united states of america"]) == ["united states of america"]
    assert names_found(text, ["the united states of america"]) == []


def test_explicit_names_drop_blanks_and_case_repeats_keeping_the_first_spelling_in_key_order():
    assert explicit_names(["Zoe", " anna ", "ANNA", "", "  ", "Bob"]) == ["anna", "Bob", "Zoe"]


def test_themes_are_sorted_distinct_and_non_empty():
    assert themes_of(["work", "family", "", "work", "Family"]) == ["Family", "family", "work"]


def test_a_time_anchor_needs_both_the_time_and_its_precision():
    moment = datetime(2026, 3, 1, tzinfo=UTC)
    assert time_anchor(moment, "month") == (moment, "month")
    assert time_anchor(moment, "") == (None, "")
    assert time_anchor(None, "day") == (None, "")
