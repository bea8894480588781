"""The statement table of `python -m bench --profile`: which statements a request ran, how often."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from bench.runner import StatementClock

pytestmark = pytest.mark.django_db


def test_the_clock_counts_each_statement_under_its_text_and_every_savepoint_under_one_label():
    clock = StatementClock()
    with clock.installed():
        with connection.cursor() as cursor:
            for _ in range(3):
                cursor.execute("SELECT 1")
            cursor.execute("SELECT   2")
        for _ in range(2):
            with transaction.atomic():  # inside the test's transaction: a savepoint each
                pass

    counts = {label: count for label, (count, _) in clock.totals.items()}
    assert counts == {"SELECT 1": 3, "SELECT 2": 1, 'SAVEPOINT "…"': 2, 'RELEASE SAVEPOINT "…"': 2}


def test_the_table_gives_statements_per_request_and_puts_the_slowest_first():
    clock = StatementClock()
    clock.totals = {"SELECT fast": [4, 0.004], "SELECT slow": [2, 0.010]}

    lines = clock.table(requests=2).splitlines()

    assert lines[1].split()[:4] == ["SELECT", "slow", "1.00", "5.00"]  # per request, ms each
    assert lines[1].split()[-1] == "5.00"  # ms per request
    assert lines[2].split()[:4] == ["SELECT", "fast", "2.00", "1.00"]
    assert lines[-1].split()[-1] == "7.00"  # all of them, per request


def test_installing_the_clock_leaves_the_connections_commit_as_it_was():
    connection.ensure_connection()
    before = connection.connection.commit

    with StatementClock().installed():
        assert connection.connection.commit != before

    assert connection.connection.commit == before
