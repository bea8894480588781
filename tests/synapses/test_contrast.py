"""The lexical contrast rule of the match test (synapses/net/contrast.py)."""

from __future__ import annotations

import pytest

from synapses.net.contrast import DATE, NAME, NEGATION, NUMBER, VERSION, contradicts, facts_contrast, word_overlap


@pytest.mark.parametrize(
    ("older", "newer", "kind"),
    [
        # The review's pairs (docs/synapse-model.md §4: they shared one knot before the rule).
        ("Alice is allergic to peanuts", "Alice is not allergic to peanuts", NEGATION),
        ("The meeting is in room 4", "The meeting is in room 7", NUMBER),
        ("The project uses Python 3", "The project uses Python 2", VERSION),
        ("content 0", "content 9", NUMBER),
        ("Alice isn't allergic to peanuts", "Alice is allergic to peanuts", NEGATION),
        ("Tom isst Fleisch.", "Tom isst kein Fleisch.", NEGATION),
        ("Der Dienst ist erreichbar.", "Der Dienst ist nicht erreichbar.", NEGATION),
        ("Lena has two cats.", "Lena has 3 cats.", NUMBER),
        ("Lena hat zwei Katzen.", "Lena hat drei Katzen.", NUMBER),
        ("The release is on 2024-05-07.", "The release is on 2024-05-14.", DATE),
        ("Die Rechnung ist am 3. Mai fällig.", "Die Rechnung ist am 3. Juni fällig.", DATE),
        ("The backup failed on Tuesday.", "The backup failed yesterday.", DATE),
        ("Bob moved to Berlin in 2021.", "Bob moved to Berlin in 2019.", DATE),
        ("The library is pinned to v1.8.0.", "The library is pinned to v1.9.0.", VERSION),
        ("Anna works at Siemens.", "Anna works at Bosch.", NAME),
        ("Carlos is the team lead.", "Priya is the team lead.", NAME),
    ],
)
def test_a_changed_fact_is_a_contrast_of_its_kind(older, newer, kind):
    contrast = facts_contrast(older, newer)
    assert contrast is not None and contrast.kind == kind
    assert facts_contrast(newer, older).kind == kind  # symmetric in what it finds


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Alice is allergic to peanuts.", "alice is allergic to peanuts"),
        ("The meeting room is room 4.", "The meeting room is Room 4"),  # "Room 4" is no version
        ("Tom does not eat meat.", "Tom never eats meat."),  # one negation is as good as another
        ("Tom doesn't eat meat.", "Tom does not eat meat."),
        ("The team lead is Carlos.", "Carlos is the team lead."),  # a name moved to the front
        ("Der Besprechungsraum ist Raum 4.", "Die Besprechung findet in Raum 4 statt."),  # one stem, articles
        ("Der Nutzer lernt Spanisch.", "Der Benutzer lernt Spanisch."),
        ("We may come in May.", "We may come in May!"),
        ("We may come.", "We might come."),  # "may" the verb is no month
    ],
)
def test_a_restatement_is_no_contrast(older, newer):
    assert facts_contrast(older, newer) is None


def test_a_contrast_says_what_each_side_holds():
    contrast = facts_contrast("The meeting is in room 4", "The meeting is in room 7")
    assert (contrast.older, contrast.newer) == (("4",), ("7",))
    assert contrast.as_log() == {"kind": NUMBER, "older": ["4"], "newer": ["7"]}


def test_only_a_contrast_between_much_the_same_statements_is_a_contradiction():
    assert word_overlap("Alice is allergic to peanuts", "Alice is not allergic to peanuts") == pytest.approx(10 / 11)
    assert contradicts("Alice is allergic to peanuts", "Alice is not allergic to peanuts").kind == NEGATION
    # Both name Alice, one is negated, but they are about different things.
    assert facts_contrast("Alice is allergic to peanuts", "Alice never moved to Berlin") is not None
    assert contradicts("Alice is allergic to peanuts", "Alice never moved to Berlin") is None
