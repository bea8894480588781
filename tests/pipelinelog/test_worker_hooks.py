"""Every django-q2 task runs in a span of the worker, continuing the turn that enqueued it."""

from __future__ import annotations

import queue
import uuid
from multiprocessing import Value

import pytest
from django_q.tasks import async_task
from django_q.worker import worker

from pipelinelog.models import LogEntry
from pipelinelog.spans import span
from pipelinelog.writer import writer

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
    assert rows[2].content == {"type": "ValueError", "message": "the job failed on purpose"}
    assert rows[3].content["status"] == "error"


@pytest.fixture
def buffered_log(settings, monkeypatch):
    """The process's writer in buffered mode, with no writer thread: only an explicit flush writes."""
    settings.PIPELINE_LOG_SYNC = False
    settings.LOG_FLUSH_SECONDS = 3600
    monkeypatch.setattr(writer, "start", lambda: None)
    assert len(writer) == 0
    yield writer
    writer._pending.clear()


def run_in_worker(func: str, *args) -> dict:
    """Run one task through django-q2's own worker loop, as a cluster's worker process does."""
    task = {"id": uuid.uuid4().hex, "name": "tests-task", "func": func, "args": args, "kwargs": {}}
    tasks: queue.Queue = queue.Queue()
    tasks.put(task)
    tasks.put("STOP")
    worker(tasks, queue.Queue(), Value("f", -1))
    return task


@pytest.mark.django_db(transaction=True)  # the worker closes the connection before each task
def test_a_worker_flushes_the_buffered_rows_when_its_task_ends(buffered_log):
    task = run_in_worker("tests.pipelinelog.jobs.sample_job", 21)

    assert task["success"] is True
    assert len(buffered_log) == 0
    rows = LogEntry.objects.filter(turn_id=f"task:{task['id']}").order_by("created_at", "id")
    assert [r.kind for r in rows] == ["span_start", "input", "calculation", "span_end"]


@pytest.mark.django_db(transaction=True)
def test_a_worker_flushes_the_rows_of_a_failed_task_with_its_reason(buffered_log):
    task = run_in_worker("tests.pipelinelog.jobs.failing_job")

    assert task["success"] is False
    assert len(buffered_log) == 0
    rows = LogEntry.objects.filter(turn_id=f"task:{task['id']}").order_by("created_at", "id")
    assert [r.kind for r in rows] == ["span_start", "input", "error", "span_end"]
    assert rows[2].content["message"].startswith("the job failed on purpose : Traceback")
    assert rows[3].content["status"] == "error"
