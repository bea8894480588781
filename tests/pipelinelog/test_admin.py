"""The admin lists the log read-only, with filters and an exact search by turn or span."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.pipelinelog.factories import log_row

pytestmark = pytest.mark.django_db


def test_the_changelist_searches_by_turn_and_span_and_filters(staff, mind):
    span_id = uuid.uuid4()
    log_row(mind=mind.mind, turn_id="T-admin", span_id=span_id, node="memories.store", kind="db_write")
    log_row(turn_id="T-else", node="synapses.decay", kind="db_write")
    log_row(turn_id="T-admin", node="memories.recall", kind="output")

    by_turn = staff.get("/admin/pipelinelog/logentry/?q=T-admin")
    by_span = staff.get(f"/admin/pipelinelog/logentry/?q={span_id}")
    by_garbage = staff.get("/admin/pipelinelog/logentry/?q=not-a-uuid")
    filtered = staff.get("/admin/pipelinelog/logentry/?kind__exact=db_write&q=T-admin")

    assert by_turn.status_code == by_span.status_code == by_garbage.status_code == filtered.status_code == 200
    assert b"T-admin" in by_turn.content and b"T-else" not in by_turn.content
    assert b"memories.recall" in by_turn.content
    assert b"T-admin" in by_span.content and b"T-else" not in by_span.content
    assert b"memories.recall" not in by_span.content
    assert b"T-admin" not in by_garbage.content
    assert b"memories.store" in filtered.content
    assert b"memories.recall" not in filtered.content and b"T-else" not in filtered.content


def test_the_changelist_never_scans_the_log_for_filter_choices_or_dates(staff):
    log_row(turn_id="T-admin", node="memories.store")

    with CaptureQueriesContext(connection) as queries:
        response = staff.get("/admin/pipelinelog/logentry/")

    assert response.status_code == 200
    log_reads = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].startswith("SELECT") and "pipelinelog_logentry" in q["sql"]
    ]
    assert any('"pipelinelog_logentry"."turn_id"' in sql for sql in log_reads)  # the page itself
    # A node filter lists its choices with SELECT DISTINCT node, the date hierarchy its dates with
    # SELECT DISTINCT date_trunc(…): both over the whole log.
    assert [sql for sql in log_reads if "DISTINCT" in sql] == []


def test_log_rows_cannot_be_added_changed_or_deleted_in_the_admin(staff):
    entry = log_row()

    assert staff.get("/admin/pipelinelog/logentry/add/").status_code == 403
    detail = staff.get(f"/admin/pipelinelog/logentry/{entry.pk}/change/")
    assert detail.status_code == 200
    assert b'name="_save"' not in detail.content
    assert staff.post(f"/admin/pipelinelog/logentry/{entry.pk}/delete/").status_code == 403
