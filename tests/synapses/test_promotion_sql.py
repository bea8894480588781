"""Promotion's statements are written whole at import, one per variant, their tables from TABLES."""

from __future__ import annotations

import re

from synapses.net.tables import TABLES
from synapses.promotion import sql


def test_every_statement_of_promotion_is_listed_and_printed_whole(capsys):
    assert sorted(sql.STATEMENTS) == [
        "attempt",
        "knot_create",
        "link",
        "locks",
        "nearest.exact",
        "nearest.hnsw",
        "nearest.hnsw_under_settings",
        "plan",
    ]
    for name, statement in sql.STATEMENTS.items():
        print(f"-- {name}\n{statement}")
    assert "-- knot_create" in capsys.readouterr().out


def test_no_statement_keeps_a_placeholder_or_a_table_name_of_its_own():
    for name, statement in sql.STATEMENTS.items():
        assert "{" not in statement and "}" not in statement, name
        named = set(re.findall(r"\b(?:synapses|memories)_[a-z]+\b", statement))
        assert named <= set(TABLES.values()), (name, named)


def test_the_knot_statement_writes_into_the_knot_its_presence_and_its_link():
    for table in ("knot", "presence", "link"):
        assert f"INSERT INTO {TABLES[table]} " in sql.KNOT_CREATE_SQL
