"""Database outages in-process, with real connection errors: the log filter's one line, the
stale-connection rule, tasks that wait out an outage, django-q2's broker, and the pipeline-log
writer's back-off and buffer bound. tests/test_outage.py has the same rules with real processes.
"""

from __future__ import annotations

import logging
import re
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from django.db import connection
from django.utils import timezone
from django_q.models import OrmQ
from django_q.signing import SignedPackage

from memoryproject.embedded.outage import TASK_SKIPPED_FOR_OUTAGE, OutageLogFilter, outage, waits_out_outages
from memoryproject.embedded.outage_broker import OutageTolerantORM
from memoryproject.schedules import SCHEDULES
from pipelinelog.constants import LOG_RETRY_MAX_SECONDS
from pipelinelog.models import LogEntry
from pipelinelog.writer import BufferedWriter, Row, retry_delay


def _real_outage_error() -> psycopg.OperationalError:
    """What psycopg raises when the server's socket is gone (as while PostgreSQL is stopped)."""
    try:
        psycopg.connect(host="/nonexistent-socket-dir", user="postgres", dbname="postgres", connect_timeout=2)
    except psycopg.OperationalError as error:
        return error
    raise AssertionError("connected to a socket that does not exist")


@pytest.fixture
def no_outage():
    """Each test starts outside an outage and leaves none behind (the state is per process)."""
    outage.since, outage.suppressed, outage.last_began = None, 0, None
    yield outage
    outage.since, outage.suppressed, outage.last_began = None, 0, None


def test_the_log_says_an_outage_once_without_a_traceback_and_once_when_it_is_over(no_outage):
    error = _real_outage_error()
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    handler.addFilter(OutageLogFilter())
    source = logging.getLogger("tests.outage.source")
    source.addHandler(handler)
    source.propagate = False  # only this handler filters, as the console handler does in a server
    try:
        for _ in range(3):
            try:
                raise error
            except psycopg.OperationalError:
                source.exception("Internal Server Error: /memory")
        source.error(error)  # django-q2 logs the exception object itself
        source.warning("Unrelated warning")
    finally:
        source.removeHandler(handler)
        source.propagate = True

    assert [record.getMessage().split(":")[0] for record in records] == ["Internal Server Error", "Unrelated warning"]
    assert records[0].exc_info is None
    assert "The database is unavailable (OperationalError: connection" in records[0].getMessage()
    assert "\n" not in records[0].getMessage()
    assert no_outage.suppressed == 3


def test_a_task_an_outage_stops_ends_with_one_line_and_no_traceback(no_outage, caplog):
    error = _real_outage_error()
    calls: list[int] = []

    @waits_out_outages
    def sweep(batch: int) -> dict[str, int]:
        calls.append(batch)
        raise error

    with caplog.at_level(logging.WARNING, logger="memoryproject.embedded.outage"):
        first, second = sweep(1), sweep(2)

    assert calls == [1, 2]
    assert first == second == TASK_SKIPPED_FOR_OUTAGE
    assert [record.exc_info for record in caplog.records] == [None]
    assert "The database is unavailable (OperationalError: connection" in caplog.records[0].getMessage()
    assert no_outage.suppressed == 1


def test_a_task_raises_every_error_that_is_not_an_outage(no_outage):
    @waits_out_outages
    def broken() -> None:
        raise ValueError("a bug, not an outage")

    with pytest.raises(ValueError, match="a bug"):
        broken()
    assert no_outage.since is None


@pytest.mark.parametrize(
    "dotted",
    [spec.func for spec in SCHEDULES] + ["synapses.tasks.memories_promote"],
)
def test_every_background_task_waits_out_outages(dotted):
    """django-q2 logs a failed task with its traceback as one string, which no log filter can
    recognise: each task must end quietly itself (or call one that does)."""
    module_name, _, name = dotted.rpartition(".")
    task = getattr(__import__(module_name, fromlist=[name]), name)
    # The wrapper's code is waits_out_outages' own (any other decorator would set __wrapped__ too).
    assert task.__code__ is waits_out_outages(lambda: None).__code__


def test_a_new_connection_ends_the_outage_with_one_line(no_outage, caplog):
    no_outage.report(_real_outage_error())
    no_outage.report(_real_outage_error())
    caplog.clear()

    with caplog.at_level(logging.WARNING, logger="memoryproject.embedded.outage"):
        no_outage.connected()
        no_outage.connected()  # not an outage any more: nothing to say

    assert len(caplog.records) == 1
    assert re.fullmatch(
        r"The database is reachable again after \d+\.\d s \(pid \d+; 1 more database errors were not logged\)\.",
        caplog.records[0].getMessage(),
    )


@pytest.mark.django_db
def test_an_error_on_a_connection_from_before_an_outage_that_is_over_starts_no_new_one(no_outage):
    """gunicorn's threads each hold a connection: the first new one ends the outage, and another
    thread's connection from before it fails when next used. That is the old outage, not a new one."""
    error = _real_outage_error()
    # One thread each, so each keeps its own connection (`connection` resolves per thread).
    older, newer = ThreadPoolExecutor(max_workers=1), ThreadPoolExecutor(max_workers=1)
    try:
        older.submit(lambda: connection.ensure_connection()).result()
        no_outage.report(error)
        newer.submit(lambda: connection.ensure_connection()).result()  # a new connection: the outage is over
        assert no_outage.since is None

        assert older.submit(no_outage.noticed, error).result() is False
        assert no_outage.since is None
        assert newer.submit(no_outage.noticed, error).result() is True  # opened after: a new outage
    finally:
        for executor in (older, newer):
            executor.submit(lambda: connection.close()).result()
            executor.shutdown()


def _enqueued(broker: OutageTolerantORM, number: int) -> int:
    return broker.enqueue(SignedPackage.dumps({"id": f"outage-test-{number}"}))


def _without_a_database(call: Callable[[], object]) -> object:
    """`call()` on a thread whose connection points at a socket that does not exist: a real outage."""
    result: list[object] = []

    def run() -> None:
        connection.settings_dict = {**connection.settings_dict, "HOST": "/nonexistent-socket-dir"}
        try:
            result.append(call())
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    return result[0]


@pytest.mark.django_db
def test_the_broker_waits_out_an_outage_and_acknowledges_what_it_could_not_once_it_can(no_outage, caplog):
    broker = OutageTolerantORM()
    first, second = _enqueued(broker, 1), _enqueued(broker, 2)

    with caplog.at_level(logging.WARNING, logger="memoryproject.embedded.outage"):
        assert _without_a_database(lambda: broker.acknowledge(first)) is None  # no exception: the monitor lives
        assert _without_a_database(broker.dequeue) is None  # no exception: the pusher lives
    assert OrmQ.objects.filter(pk=first).exists()
    assert len(caplog.records) == 1  # the process's one outage line
    assert "The database is unavailable (OperationalError: connection" in caplog.records[0].getMessage()

    broker.acknowledge(second)  # the database answers: both go

    assert not OrmQ.objects.filter(pk__in=[first, second]).exists()


def test_the_log_writer_waits_one_two_four_seconds_and_so_on_up_to_its_cap():
    assert [retry_delay(failures) for failures in range(1, 9)] == [1, 2, 4, 8, 16, 32, 60, 60]
    assert LOG_RETRY_MAX_SECONDS == 60


def _row(n: int) -> Row:
    return Row(timezone.now(), "outage", uuid.uuid4(), "system", "tests.outage", "note", {"n": n}, None)


@pytest.fixture
def buffered(settings, monkeypatch) -> BufferedWriter:
    settings.PIPELINE_LOG_SYNC = False
    fresh = BufferedWriter()
    monkeypatch.setattr(fresh, "start", lambda: None)  # flushes happen when the test says
    return fresh


@pytest.mark.django_db
def test_the_log_writer_keeps_its_rows_while_the_database_is_away_and_writes_them_after(buffered, no_outage, caplog):
    buffered.submit([_row(1), _row(2), _row(3)])
    written: list[int] = []

    def flush_without_a_database() -> None:
        # This thread's own connection points at a socket that does not exist: a real outage.
        connection.settings_dict = {**connection.settings_dict, "HOST": "/nonexistent-socket-dir"}
        try:
            written.append(buffered.flush())
        finally:
            connection.close()

    with caplog.at_level(logging.INFO):
        flusher = threading.Thread(target=flush_without_a_database)
        flusher.start()
        flusher.join(30)
        assert written == [0]
        assert len(buffered) == 3  # nothing dropped, nothing retried row by row
        assert buffered.flush() == 3

    assert sorted(LogEntry.objects.filter(turn_id="outage").values_list("content__n", flat=True)) == [1, 2, 3]
    messages = [record.getMessage() for record in caplog.records]
    assert len([m for m in messages if m.startswith("The database is unavailable")]) == 1
    assert "Pipeline log: the database took the buffered rows again (3 written); 0 rows were dropped" in messages[-1]
    assert not any("a flush failed" in message for message in messages)


@pytest.mark.django_db
def test_the_log_writer_drops_rows_beyond_its_bound_and_says_so_once(buffered, monkeypatch, caplog):
    monkeypatch.setattr("pipelinelog.writer.LOG_BUFFER_MAX_ROWS", 5)
    buffered._outage_failures = 1  # as after a flush an outage stopped

    buffered.submit([_row(n) for n in range(4)])
    buffered.submit([_row(n) for n in range(4, 8)])

    assert len(buffered) == 5
    with caplog.at_level(logging.WARNING, logger="pipelinelog.writer"):
        assert buffered.flush() == 5
    assert [record.getMessage() for record in caplog.records] == [
        "Pipeline log: the database took the buffered rows again (5 written); 3 rows were dropped at the "
        "buffer bound of 5 rows."
    ]
