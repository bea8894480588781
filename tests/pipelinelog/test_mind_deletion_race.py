"""Deleting a mind while its requests are still being logged never fails on the log's rows.

Real concurrency on real connections: one thread is the log's writer with a row of the mind in
an open transaction, another deletes the mind. The foreign key is checked at commit (Django's
constraints are deferred), so the race is the writer's commit against the deletion; the deletion
must always succeed (it used to fail at commit with an IntegrityError: a 500 from DELETE
/minds/{id}), and the writer must keep the row's trace without the mind.
"""

from __future__ import annotations

import threading
import uuid

import pytest
from django.db import connection, transaction
from django.db.models.signals import post_delete
from django.utils import timezone

from minds.models import Mind, MindKey
from minds.services import mind_delete
from pipelinelog.models import LogEntry
from pipelinelog.writer import BufferedWriter, Row, rows_insert
from tests.processes import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

_WAITING_ON_A_LOCK = (
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
)


def _row(mind_id: str | None, turn_id: str) -> Row:
    return Row(timezone.now(), turn_id, uuid.uuid4(), "agent:test", "memory-list", "input", {"body": "Anna"}, mind_id)


def _waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(_WAITING_ON_A_LOCK)
        return cursor.fetchone()[0]


def _in_thread(target, errors: list[BaseException]) -> threading.Thread:
    def run() -> None:
        try:
            target()
        except BaseException as error:  # reported to the test's thread
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_log_row_committed_in_the_middle_of_the_mind_deletion_never_fails_the_deletion(mind):
    # The window: the cascade has deleted the mind's log rows, the mind's own row is not deleted
    # yet. A writer committing a row of the mind right then made the deletion's commit fail the
    # foreign key. The deletion pauses in that window (a receiver of its keys' post_delete, which
    # Django sends after deleting the keys and before the mind) while the writer commits.
    window, writer_done = threading.Event(), threading.Event()
    writer_errors: list[BaseException] = []
    deleter_errors: list[BaseException] = []

    def writer_flush() -> None:  # the writer's own insert; it commits inside the window
        try:
            with transaction.atomic():
                rows_insert([_row(mind.mind.pk, "T-race")])
                assert window.wait(30)
        finally:
            writer_done.set()

    def in_the_window(sender, **kwargs) -> None:
        if threading.current_thread() is deleter:
            window.set()
            # The writer commits now, or waits on the deletion's lock: go on once either is true.
            assert wait_for(lambda: writer_done.is_set() or _waiting_on_a_lock() >= 1, seconds=30)

    post_delete.connect(in_the_window, sender=MindKey, dispatch_uid="test-window")
    try:
        writer = _in_thread(writer_flush, writer_errors)
        deleter = _in_thread(lambda: mind_delete(mind=Mind.objects.get(pk=mind.mind.pk)), deleter_errors)
        writer.join(30)
        deleter.join(30)
    finally:
        post_delete.disconnect(dispatch_uid="test-window", sender=MindKey)

    assert deleter_errors == []
    assert not Mind.objects.filter(pk=mind.mind.pk).exists()
    # The writer's commit waited for the deletion and then found the mind gone (the real writer
    # keeps such a row without its mind: the next test).
    assert [type(error).__name__ for error in writer_errors] == ["IntegrityError"]
    assert not LogEntry.objects.filter(turn_id="T-race").exists()


def test_a_log_row_of_a_mind_deleted_during_its_insert_is_kept_without_the_mind(mind, settings, monkeypatch):
    # The other order: the deletion holds the mind's lock, the writer's insert waits for it and
    # then finds the mind gone — the writer keeps the row's trace, without mind or content.
    settings.PIPELINE_LOG_SYNC = False
    buffered = BufferedWriter()
    monkeypatch.setattr(buffered, "start", lambda: None)  # flushed when the test says
    buffered.submit([_row(mind.mind.pk, "T-after")])
    deleting, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def deletion() -> None:
        with transaction.atomic():
            mind_delete(mind=Mind.objects.get(pk=mind.mind.pk))
            deleting.set()
            assert release.wait(30)

    deleter = _in_thread(deletion, errors)
    assert deleting.wait(30)
    flusher = _in_thread(buffered.flush, errors)
    assert wait_for(lambda: _waiting_on_a_lock() >= 1, seconds=30)  # the writer waits on the deletion
    release.set()
    deleter.join(30)
    flusher.join(30)

    assert errors == []
    assert list(LogEntry.objects.filter(turn_id="T-after").values_list("mind_id", "content")) == [(None, None)]
