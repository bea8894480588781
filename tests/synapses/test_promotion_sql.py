"""Promotion's knot statement writes the knot, its presence and its link in one statement. Every
statement of the stage is printed, pinned and checked for placeholders and table names with the
other stages' by tests/test_statements.py."""

from __future__ import annotations

from synapses.net.tables import TABLES
from synapses.promotion import sql


def test_the_knot_statement_writes_into_the_knot_its_presence_and_its_link():
    for table in ("knot", "presence", "link"):
        assert f"INSERT INTO {TABLES[table]} " in sql.KNOT_CREATE_SQL
