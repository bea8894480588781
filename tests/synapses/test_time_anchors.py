"""Time anchors named in content (synapses/net/time_anchors.py): acceptance 2's second half of
issue 26. The expected dates are worked out by hand from the reference, Wednesday 15 May 2024."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from memories.models import EventPrecision
from synapses.net.time_anchors import DAY, MONTH, WEEK, YEAR, time_anchors_find

# A Wednesday afternoon: its week began on Monday 13 May.
REFERENCE = datetime(2024, 5, 15, 14, 30, tzinfo=UTC)

TABLE = [
    # English: day words
    ("yesterday", date(2024, 5, 14), DAY),
    ("today", date(2024, 5, 15), DAY),
    ("tomorrow", date(2024, 5, 16), DAY),
    ("the day before yesterday", date(2024, 5, 13), DAY),
    ("the day after tomorrow", date(2024, 5, 17), DAY),
    # periods around the reference
    ("last week", date(2024, 5, 6), WEEK),
    ("this week", date(2024, 5, 13), WEEK),
    ("next week", date(2024, 5, 20), WEEK),
    ("last month", date(2024, 4, 1), MONTH),
    ("next month", date(2024, 6, 1), MONTH),
    ("last year", date(2023, 1, 1), YEAR),
    ("next year", date(2025, 1, 1), YEAR),
    # weekdays with a direction
    ("last Friday", date(2024, 5, 10), DAY),
    ("next Monday", date(2024, 5, 20), DAY),
    ("this Friday", date(2024, 5, 17), DAY),
    # counted back and ahead
    ("3 days ago", date(2024, 5, 12), DAY),
    ("two weeks ago", date(2024, 4, 29), WEEK),
    ("a month ago", date(2024, 4, 1), MONTH),
    ("2 years ago", date(2022, 1, 1), YEAR),
    ("in 3 days", date(2024, 5, 18), DAY),
    ("in a week", date(2024, 5, 20), WEEK),
    # dates
    ("on 3 May", date(2024, 5, 3), DAY),
    ("3 May 2023", date(2023, 5, 3), DAY),
    ("May 3, 2023", date(2023, 5, 3), DAY),
    ("the 21st of June", date(2024, 6, 21), DAY),
    ("2023-05-07", date(2023, 5, 7), DAY),
    ("2023-11", date(2023, 11, 1), MONTH),
    ("in March", date(2024, 3, 1), MONTH),
    ("in May 2023", date(2023, 5, 1), MONTH),
    ("last March", date(2024, 3, 1), MONTH),
    ("next April", date(2025, 4, 1), MONTH),
    ("in 2021", date(2021, 1, 1), YEAR),
    # German
    ("gestern", date(2024, 5, 14), DAY),
    ("heute", date(2024, 5, 15), DAY),
    ("morgen", date(2024, 5, 16), DAY),
    ("vorgestern", date(2024, 5, 13), DAY),
    ("übermorgen", date(2024, 5, 17), DAY),
    ("letzte Woche", date(2024, 5, 6), WEEK),
    ("nächste Woche", date(2024, 5, 20), WEEK),
    ("diesen Monat", date(2024, 5, 1), MONTH),
    ("letzten Monat", date(2024, 4, 1), MONTH),
    ("nächstes Jahr", date(2025, 1, 1), YEAR),
    ("letzten Freitag", date(2024, 5, 10), DAY),
    ("nächsten Dienstag", date(2024, 5, 21), DAY),
    ("am 3. Mai", date(2024, 5, 3), DAY),
    ("am 3. Mai 2023", date(2023, 5, 3), DAY),
    ("07.05.2023", date(2023, 5, 7), DAY),
    ("am 7.5.", date(2024, 5, 7), DAY),
    ("vor drei Tagen", date(2024, 5, 12), DAY),
    ("vor einer Woche", date(2024, 5, 6), WEEK),
    ("vor zwei Monaten", date(2024, 3, 1), MONTH),
    ("in zwei Wochen", date(2024, 5, 27), WEEK),
    ("im Mai", date(2024, 5, 1), MONTH),
    ("im März 2022", date(2022, 3, 1), MONTH),
    ("im Jahr 2020", date(2020, 1, 1), YEAR),
    ("Morgen gehen wir schwimmen.", date(2024, 5, 16), DAY),  # a sentence's first word
]


@pytest.mark.parametrize(("phrase", "expected", "precision"), TABLE, ids=[row[0] for row in TABLE])
def test_a_phrase_names_its_date_with_its_precision(phrase, expected, precision):
    (anchor,) = time_anchors_find(phrase, REFERENCE)
    assert (anchor.at, anchor.precision) == (
        datetime(expected.year, expected.month, expected.day, tzinfo=UTC),
        precision,
    )


def test_the_table_holds_at_least_forty_phrases_in_both_languages():
    assert len(TABLE) >= 40
    assert {DAY, WEEK, MONTH, YEAR} <= {p for _, _, p in TABLE} <= set(EventPrecision.values)


@pytest.mark.parametrize(
    "text",
    [
        "We met at the lake.",
        "We",
        "May I borrow your car?",
        "We may come later.",
        "They march to the square.",
        "March is the first month of spring.",
        "May's car is red.",
        "Sat on the bench.",
        "Sat",
        "He sat down.",
        "Guten Morgen, Anna!",
        "Jeden Morgen läuft sie.",
        "The phone runs iOS 17.4.",
        "The library is at version 1.2.3.",
        "The train leaves at 9.30.",
        "The meeting is in room 4.",
        "The backup failed on Tuesday.",  # a weekday alone: past or future cannot be told
    ],
)
def test_words_that_only_look_like_dates_are_none(text):
    assert time_anchors_find(text, REFERENCE) == []


def test_anchors_come_in_the_order_of_the_text_and_a_longer_phrase_wins():
    found = time_anchors_find(
        "Last week we planned it; the release is on 3 June 2024, the review yesterday.", REFERENCE
    )
    assert [(a.phrase, a.at.date()) for a in found] == [
        ("Last week", date(2024, 5, 6)),
        ("3 June 2024", date(2024, 6, 3)),  # not "June 2024", a month
        ("yesterday", date(2024, 5, 14)),
    ]


def test_the_reference_decides_and_its_time_zone_is_kept():
    evening = datetime(2024, 5, 15, 23, 30, tzinfo=timezone(timedelta(hours=-5)))  # already the 16th in UTC
    (anchor,) = time_anchors_find("yesterday", evening)
    assert anchor.at == datetime(2024, 5, 14, tzinfo=evening.tzinfo)
    (anchor,) = time_anchors_find("gestern", datetime(2021, 1, 1, tzinfo=UTC))
    assert anchor.at == datetime(2020, 12, 31, tzinfo=UTC)


def test_a_date_that_is_no_calendar_day_is_none():
    assert time_anchors_find("on 31 June", REFERENCE) == []
    assert time_anchors_find("am 30.02.2024", REFERENCE) == []
