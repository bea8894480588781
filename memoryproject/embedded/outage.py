"""Database outages: which errors mean "the database is away", and a readable log while it is.

While PostgreSQL is down every request and every background loop fails the same way; logging a
traceback each time buries everything else (a 20 s outage once wrote ~278,000 lines). So each
process says it once — one line when the first outage error is seen, one line when a new
database connection succeeds again — and `OutageLogFilter` (on the console handler, see
`settings.LOGGING`) swallows every other record that carries an outage error, whichever library
logged it (Django, django-q2, our own code).
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any, ParamSpec

import psycopg
from django.db import InterfaceError, OperationalError, connections
from django.db.backends.signals import connection_created

logger = logging.getLogger(__name__)

# Errors that mean the database cannot be reached or used right now (connection refused, server
# shutting down, connection lost). psycopg's own appear where Django does not wrap them (COPY).
DATABASE_OUTAGE_ERRORS: tuple[type[BaseException], ...] = (
    OperationalError,
    InterfaceError,
    psycopg.OperationalError,
    psycopg.InterfaceError,
)

# What a 503 asks the client to wait before retrying (seconds; the Retry-After header).
DATABASE_RETRY_AFTER_SECONDS = 5


def is_database_outage(error: BaseException | None) -> bool:
    return isinstance(error, DATABASE_OUTAGE_ERRORS)


def _one_line(error: BaseException) -> str:
    """psycopg's messages span lines ("connection failed: …\\n\\tIs the server running…")."""
    return f"{type(error).__name__}: {' '.join(str(error).split())}"[:300]


def _opened_before(moment: float) -> bool:
    """Whether this thread holds a database connection opened before `moment` (monotonic)."""
    return any(
        wrapper.connection is not None and getattr(wrapper, "synapse_opened_at", moment) < moment
        for wrapper in connections.all(initialized_only=True)
    )


class OutageState:
    """Per process: is an outage going on, since when, and how many errors it swallowed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.since: float | None = None
        self.suppressed = 0
        # When the last outage that is over began: see noticed().
        self.last_began: float | None = None

    def noticed(self, error: BaseException) -> bool:
        """Record one outage error; True only for the first of an outage (log that one)."""
        with self._lock:
            if self.since is not None:
                self.suppressed += 1
                return False
            if self.last_began is not None and _opened_before(self.last_began):
                # Django's connections are per thread: one thread's new connection ends the
                # outage, and another thread's connection from before it fails when next used
                # (a restarted server closed it). That error belongs to the outage that is over.
                return False
            self.since = time.monotonic()
            self.suppressed = 0
            return True

    def first_line(self, error: BaseException) -> str:
        # The pid tells the processes apart (gunicorn's workers, django-q2's sentinel, monitor,
        # pusher and workers): each says it once.
        return (
            f"The database is unavailable ({_one_line(error)}); the API answers 503 with Retry-After: "
            f"{DATABASE_RETRY_AFTER_SECONDS}, and this process (pid {os.getpid()}) logs nothing more "
            "about it until it is back."
        )

    def report(self, error: BaseException) -> None:
        """For code that handles an outage error itself: one log line per outage."""
        if self.noticed(error):
            logger.warning(self.first_line(error))

    def connected(self) -> None:
        """A new database connection succeeded: the outage (if any) is over."""
        with self._lock:
            if self.since is None:
                return
            lasted, suppressed = time.monotonic() - self.since, self.suppressed
            self.last_began = self.since
            self.since = None
            self.suppressed = 0
        logger.warning(
            "The database is reachable again after %.1f s (pid %d; %d more database errors were not logged).",
            lasted,
            os.getpid(),
            suppressed,
        )


outage = OutageState()


P = ParamSpec("P")

# What a background task that an outage stopped returns instead of its counts.
TASK_SKIPPED_FOR_OUTAGE: dict[str, str] = {"skipped": "database unavailable"}


def waits_out_outages(task: Callable[P, Any]) -> Callable[P, Any]:
    """For django-q2 tasks: an outage error ends the task with one log line per outage, not a failure.

    django-q2 logs a failed task as "Failed '<task>' - <error> : <traceback>", a string the log
    filter below cannot recognise, so each scheduled run during an outage would print a traceback.
    Nothing is lost by ending quietly: every task here is repeated by its schedule (the promotion
    sweep finds what is still pending, decay works from timestamps, purges delete by age).
    """

    @functools.wraps(task)
    def run(*args: P.args, **kwargs: P.kwargs) -> Any:
        try:
            return task(*args, **kwargs)
        except DATABASE_OUTAGE_ERRORS as error:
            outage.report(error)
            return dict(TASK_SKIPPED_FOR_OUTAGE)

    return run


def _on_connection_created(sender, connection, **kwargs) -> None:
    connection.synapse_opened_at = time.monotonic()
    outage.connected()


connection_created.connect(_on_connection_created, dispatch_uid="synapse-outage-over")


class OutageLogFilter(logging.Filter):
    """Keeps the first record of an outage (as one line, no traceback) and drops the others."""

    def filter(self, record: logging.LogRecord) -> bool:
        # Logged with its traceback (`logger.exception`), or as the message itself
        # (django-q2's `logger.error(e)` when it cannot save the cluster's heartbeat).
        error = record.exc_info[1] if record.exc_info else record.msg
        if not is_database_outage(error):
            return True
        if not outage.noticed(error):
            return False
        context = "" if record.msg is error else f"{record.getMessage()}: "
        record.msg, record.args = f"{context}{outage.first_line(error)}", ()
        record.exc_info, record.exc_text = None, None
        return True
