"""The search text's tsquery as one fixed expression of parameters (memories.selectors.sql
TSQUERY_SQL, TSQUERY_ALTERNATIVES_SQL, tsquery_params): the same tsquery, term for term, that the
search writes with only the parts a text has, so a statement built on it ranks as before.

Each expected tsquery is PostgreSQL's text of what the search built for that text before the
fixed form existed (an empty part is left out of it: `||` and `&&` drop an empty operand).
"""

from __future__ import annotations

import pytest
from django.db import connection

from memories.selectors.search import tsquery_params
from memories.selectors.sql import TSQUERY_ALTERNATIVES_SQL, TSQUERY_SQL

# A quoted phrase in every configuration (English stems "phrase", the others keep it).
PHRASE = "'a' <-> 'phrase' | 'phrase' | 'a' <-> 'phras'"


@pytest.mark.parametrize(
    ("q", "tsquery", "alternatives"),
    [
        ("", "", ""),
        ("zebra apple", "'appl' | 'apple' | 'zebra'", "'appl' | 'apple' | 'zebra'"),
        ("the of", "", ""),  # stop words only
        ('"a phrase"', PHRASE, PHRASE),
        ("-tree", "!( 'tree' | 'tree' | 'tree' )", ""),
        ('a -"the"', "!( 'the' | 'the' )", ""),
        (
            'zebra "the apple tree" -dusk',
            "( 'zebra' | 'the' <-> 'apple' <-> 'tree' | 'appl' <-> 'tree' | 'the' <-> 'appl' <-> 'tree' ) "
            "& !( 'dusk' | 'dusk' | 'dusk' )",
            "'zebra' | 'the' <-> 'apple' <-> 'tree' | 'appl' <-> 'tree' | 'the' <-> 'appl' <-> 'tree'",
        ),
        (
            'apple OR pear -"blue door" -x',
            "( 'appl' | 'apple' | 'pear' ) "
            "& !( 'blue' <-> 'door' | 'x' | 'blue' <-> 'door' | 'x' | 'blu' <-> 'door' | 'x' )",
            "'appl' | 'apple' | 'pear'",
        ),
        ("it's back\\slash", "'back' | 'slash'", "'back' | 'slash'"),
    ],
)
def test_the_fixed_tsquery_is_the_one_the_search_text_always_gave(db, q, tsquery, alternatives):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT ({TSQUERY_SQL})::text, ({TSQUERY_ALTERNATIVES_SQL})::text", tsquery_params(q))
        assert cursor.fetchone() == (tsquery, alternatives)
