"""The buffered writer: buffering, flushing, failures, and what survives SIGTERM and SIGKILL."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from pipelinelog.models import LogEntry
from pipelinelog.writer import BufferedWriter, Row
from tests.processes import wait_for

SCRIPT = Path(__file__).with_name("log_writer_process.py")
REPO = SCRIPT.parents[2]


def row(*, turn_id: str = "T", kind: str = "note", mind_id: str | None = None, n: int = 0) -> Row:
    return Row(timezone.now(), turn_id, uuid.uuid4(), "system", "tests.writer", kind, {"n": n}, mind_id)


@pytest.fixture
def buffered(settings, monkeypatch) -> BufferedWriter:
    """A fresh writer in buffered mode whose thread never starts (flushes happen when the test says)."""
    settings.PIPELINE_LOG_SYNC = False
    fresh = BufferedWriter()
    monkeypatch.setattr(fresh, "start", lambda: None)
    return fresh


@pytest.mark.django_db
def test_buffered_rows_reach_the_database_only_when_flushed(buffered):
    buffered.submit([row(n=1), row(n=2), row(n=3)])

    assert LogEntry.objects.count() == 0
    assert len(buffered) == 3
    assert buffered.flush() == 3
    assert len(buffered) == 0
    assert sorted(LogEntry.objects.values_list("content__n", flat=True)) == [1, 2, 3]


@pytest.mark.django_db
def test_a_failed_flush_is_logged_its_rows_dropped_and_the_next_flush_works(buffered, caplog):
    buffered.submit([row(kind="k" * 50)])  # longer than the column: the insert fails

    with caplog.at_level(logging.ERROR, logger="pipelinelog.writer"):
        assert buffered.flush() == 0

    assert "a flush failed; 1 rows were dropped" in caplog.text
    assert len(buffered) == 0
    buffered.submit([row(n=7)])
    assert buffered.flush() == 1
    assert list(LogEntry.objects.values_list("content__n", flat=True)) == [7]


@pytest.mark.django_db
def test_one_bad_row_does_not_take_the_rest_of_its_batch_with_it(buffered, caplog):
    buffered.submit([row(n=1), row(kind="k" * 50), row(n=3)])

    with caplog.at_level(logging.ERROR, logger="pipelinelog.writer"):
        assert buffered.flush() == 2

    assert sorted(LogEntry.objects.values_list("content__n", flat=True)) == [1, 3]
    assert "1 rows were dropped" in caplog.text


@pytest.mark.django_db
def test_text_jsonb_cannot_hold_is_replaced_instead_of_failing_the_row(buffered):
    odd = Row(timezone.now(), "T", None, "system", "tests.writer", "note", {"t": "a\x00b\ud800c"}, None)
    buffered.submit([odd])

    assert buffered.flush() == 1
    assert LogEntry.objects.get().content == {"t": "a\ufffdb?c"}


@pytest.mark.django_db
@pytest.mark.parametrize("sync", [True, False], ids=["sync", "buffered"])
def test_rows_of_a_deleted_mind_are_written_without_their_mind_and_content_in_either_mode(
    settings, monkeypatch, mind, sync
):
    settings.PIPELINE_LOG_SYNC = sync
    fresh = BufferedWriter()
    monkeypatch.setattr(fresh, "start", lambda: None)

    fresh.submit(
        [row(turn_id="gone", mind_id="m_gone12345", n=1), row(turn_id="alive", mind_id=mind.mind.pk, n=2), row(n=3)]
    )
    if not sync:
        assert fresh.flush() == 3

    assert sorted(LogEntry.objects.values_list("turn_id", "mind_id", "content")) == [
        ("T", None, {"n": 3}),
        ("alive", mind.mind.pk, {"n": 2}),
        ("gone", None, None),
    ]


@pytest.mark.django_db
def test_submitting_never_raises_even_when_the_sync_insert_fails(settings, caplog):
    from pipelinelog.writer import writer

    with caplog.at_level(logging.ERROR, logger="pipelinelog.writer"):
        writer.submit([row(kind="k" * 50)])

    assert "were dropped" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_the_writer_thread_flushes_as_soon_as_a_batch_is_full(settings):
    settings.PIPELINE_LOG_SYNC = False
    settings.LOG_FLUSH_SECONDS = 3600
    settings.LOG_FLUSH_BATCH = 5
    threaded = BufferedWriter()
    try:
        threaded.submit([row(n=n) for n in range(4)])
        assert (len(threaded), LogEntry.objects.count()) == (4, 0)  # below the batch: still buffered
        threaded.submit([row(n=4)])
        assert wait_for(lambda: LogEntry.objects.count() == 5, seconds=10)
    finally:
        threaded.stop()


@pytest.mark.django_db(transaction=True)
def test_the_writer_thread_flushes_every_interval(settings):
    settings.PIPELINE_LOG_SYNC = False
    settings.LOG_FLUSH_SECONDS = 1
    threaded = BufferedWriter()
    try:
        threaded.submit([row(n=1)])
        assert wait_for(lambda: LogEntry.objects.count() == 1, seconds=5)
    finally:
        threaded.stop()


@pytest.mark.django_db(transaction=True)
def test_starting_a_writer_leaves_the_sigterm_handler_and_atexit_alone(settings, monkeypatch):
    settings.PIPELINE_LOG_SYNC = False
    registered: list[object] = []
    monkeypatch.setattr("pipelinelog.writer.atexit.register", registered.append)
    before = signal.getsignal(signal.SIGTERM)
    threaded = BufferedWriter()
    try:
        threaded.submit([row(n=1)])  # starts the thread
    finally:
        threaded.stop()

    assert LogEntry.objects.count() == 1  # the thread ran: stopping it flushed the row
    assert signal.getsignal(signal.SIGTERM) is before
    assert registered == []


def _start(mode: str, *, flush_seconds: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "PIPELINELOG_TEST_DATABASE": connection.settings_dict["NAME"],
        "LOG_FLUSH_SECONDS": str(flush_seconds),
        "LOG_FLUSH_BATCH": "100000",
    }
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), mode], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True
    )
    line = process.stdout.readline()
    assert line.strip() == "ready", f"the logging process did not start: {line!r}"
    return process


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_process_ended_with_sigterm_writes_every_buffered_row_and_closes_its_open_span():
    process = _start("burst", flush_seconds=3600)  # nothing is flushed by the clock
    try:
        time.sleep(0.2)
        assert LogEntry.objects.filter(turn_id="TERM").count() == 0  # all of it is still buffered

        process.send_signal(signal.SIGTERM)
        returncode = process.wait(timeout=30)
    finally:
        process.kill()

    assert returncode == 128 + signal.SIGTERM
    burst_rows = LogEntry.objects.filter(turn_id="TERM", node="tests.subprocess.burst")
    assert burst_rows.count() == 50 * 3
    open_span = list(
        LogEntry.objects.filter(turn_id="TERM", node="tests.subprocess.open")
        .order_by("created_at", "id")
        .values_list("kind", flat=True)
    )
    assert open_span == ["span_start", "note", "error", "span_end"]
    end = LogEntry.objects.get(turn_id="TERM", node="tests.subprocess.open", kind="span_end")
    assert end.content["status"] == "error"


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_process_killed_with_sigkill_keeps_every_row_flushed_before_the_kill():
    flush_seconds = 1
    process = _start("stream", flush_seconds=flush_seconds)
    stream = LogEntry.objects.filter(turn_id="KILL", kind="note")
    try:
        # Two flushes of the interval seen (polled, no fixed sleep), then the kill right away:
        # what the kill can lose is only what was logged since the last of them.
        assert wait_for(lambda: stream.exists(), seconds=30), "the first interval never flushed"
        first = stream.count()
        assert wait_for(lambda: stream.count() > first, seconds=30), "the interval flushed only once"
        flushed = stream.count()
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        process.kill()

    numbers = sorted(stream.values_list("content__n", flat=True))
    assert len(numbers) >= flushed  # nothing flushed is lost, whatever the kill interrupted
    assert numbers == list(range(len(numbers)))  # what survived is everything up to some point: no holes
