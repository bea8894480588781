"""Every django-q2 task runs in a span of the worker, continuing the turn that enqueued it."""

from __future__ import annotations

import pytest
from django_q.tasks import async_task

from pipelinelog.models import LogEntry
from pipelinelog.spans import span

pytestmark = pytest.mark.django_db


def test_a_task_runs_in_a_worker_span_in_the_turn_that_enqueued_it():
    with span("tests.request", turn_id="T-job"):
        async_task("tests.pipelinelog.jobs.sample_job", 21, sync=True)

    rows = LogEntry.objects.filter(node="tests.pipelinelog.jobs.sample_job").order_by("created_at", "id")
    assert [r.kind for r in rows] == ["span_start", "input", "calculation", "span_end"]
    assert {r.turn_id for r in rows} == {"T-job"}
    assert {r.source for r in rows} == {"worker"}
    assert rows[2].content == {"doubled": 42}
    assert rows[3].content["status"] == "ok"


def test_a_scheduled_task_without_a_turn_gets_one_of_its_own():
    task_id = async_task("tests.pipelinelog.jobs.sample_job", 1, sync=True)

    start = LogEntry.objects.get(node="tests.pipelinelog.jobs.sample_job", kind="span_start")
    assert start.turn_id == f"task:{task_id}"


def test_a_failing_task_ends_its_span_as_error_with_the_reason():
    with pytest.raises(ValueError):
        async_task("tests.pipelinelog.jobs.failing_job", sync=True)

    rows = LogEntry.objects.filter(node="tests.pipelinelog.jobs.failing_job").order_by("created_at", "id")
    assert [r.kind for r in rows] == ["span_start", "input", "error", "span_end"]
    assert rows[3].content["status"] == "error"
