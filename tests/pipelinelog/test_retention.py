"""Retention: rows older than LOG_RETENTION_DAYS go, younger ones stay, daily."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command

from pipelinelog.models import LogEntry
from pipelinelog.services import prune_log
from tests.pipelinelog.factories import log_row

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


def test_retention_deletes_exactly_the_rows_older_than_the_limit():
    limit = NOW - timedelta(days=365)
    older = log_row(turn_id="older", created_at=limit - timedelta(microseconds=1))
    much_older = log_row(turn_id="much-older", created_at=limit - timedelta(days=400))
    at_limit = log_row(turn_id="at-limit", created_at=limit)
    younger = log_row(turn_id="younger", created_at=limit + timedelta(microseconds=1))

    deleted = prune_log(now=NOW, retention_days=365)

    assert deleted == 2
    turns = ["older", "much-older", "at-limit", "younger"]
    remaining = set(LogEntry.objects.filter(turn_id__in=turns).values_list("pk", flat=True))
    assert remaining == {at_limit.pk, younger.pk}
    assert older.pk not in remaining and much_older.pk not in remaining


def test_retention_reads_log_retention_days_by_default(settings):
    settings.LOG_RETENTION_DAYS = 30
    log_row(turn_id="old", created_at=NOW - timedelta(days=31))
    log_row(turn_id="recent", created_at=NOW - timedelta(days=29))

    prune_log(now=NOW)

    assert set(LogEntry.objects.filter(turn_id__in=["old", "recent"]).values_list("turn_id", flat=True)) == {"recent"}


def test_retention_leaves_a_trace_of_itself():
    log_row(turn_id="old", created_at=NOW - timedelta(days=400))

    prune_log(now=NOW, retention_days=365)

    output = LogEntry.objects.get(node="pipelinelog.prune", kind="output")
    assert output.content == {"deleted": 1}


def test_the_command_prunes(settings):
    settings.LOG_RETENTION_DAYS = 1
    long_ago = datetime(2020, 1, 1, tzinfo=UTC)
    log_row(turn_id="old-1", created_at=long_ago)
    log_row(turn_id="old-2", created_at=long_ago)
    call_command("prune_log")
    assert not LogEntry.objects.filter(turn_id__startswith="old-").exists()


def test_deleting_a_mind_deletes_its_log_rows(mind, other_mind):
    log_row(mind=mind.mind, turn_id="mine")
    log_row(mind=other_mind.mind, turn_id="theirs")

    mind.mind.delete()

    assert list(LogEntry.objects.filter(turn_id__in=["mine", "theirs"]).values_list("turn_id", flat=True)) == ["theirs"]
