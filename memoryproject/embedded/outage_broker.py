"""django-q2's ORM broker, waiting out database outages in the cluster's own processes.

django-q2's pusher and monitor call the broker outside any `try`: while PostgreSQL is away the
pusher logs a traceback, sleeps 10 s and dies, and the monitor dies with a traceback (printed by
multiprocessing, where no log filter sees it) on every task result it cannot acknowledge — one
10-second outage once killed the monitor 16 to 21 times (docs/operations.md, "Errors and
outages"). This broker says the outage once per process (`outage.report`, the web side's one
line) and carries on:

- `dequeue` waits `BROKER_OUTAGE_PAUSE_SECONDS` and returns no task, so the pusher asks again;
- `acknowledge` keeps the task's id and deletes it with the next acknowledgement that reaches
  the database. Until then the task stays locked in the queue; if the monitor gets no further
  result, django-q2 hands it out again after `retry` seconds, as after any lost acknowledgement
  (every task here may run twice: docs/operations.md).
- `set_stat` (the sentinel's heartbeat, every half second) first replaces a connection an outage
  broke. django-q2 does so only in its scheduler, every 15 s: after a restart of the database
  the cluster reported itself dead for up to 15 s more (/health's `worker` answers "down").

Everything else, `enqueue` first, raises as before: a request that cannot enqueue answers 503.
Its own module because settings.LOGGING loads `outage` before the apps are ready, and django-q2's
broker imports its models.
"""

from __future__ import annotations

import time

from django.db import close_old_connections, transaction
from django_q.brokers.orm import ORM
from django_q.conf import Conf

from memoryproject.embedded.outage import DATABASE_OUTAGE_ERRORS, outage

# How long the pusher waits before asking an unreachable database again (seconds): the cluster
# stops within this much more while the database is away.
BROKER_OUTAGE_PAUSE_SECONDS = 1
# The most acknowledgements one process keeps for later; beyond, the oldest are handed out again
# after `retry` seconds (a monitor gets at most a few results per second).
UNACKNOWLEDGED_MAX = 10_000


class OutageTolerantORM(ORM):
    """The ORM broker (`Q_CLUSTER["orm"]`), with `dequeue` and `acknowledge` waiting out outages."""

    def dequeue(self):
        try:
            return super().dequeue()
        except DATABASE_OUTAGE_ERRORS as error:
            outage.report(error)
            time.sleep(BROKER_OUTAGE_PAUSE_SECONDS)
            return None

    def acknowledge(self, task_id):
        # Per process (the monitor's copy of the broker); an attribute set here, not in __init__:
        # django-q2 builds brokers through their pickled state too.
        waiting = [*getattr(self, "_unacknowledged", []), task_id]
        self._unacknowledged: list = []
        for position, waiting_id in enumerate(waiting):
            try:
                self.delete(waiting_id)
            except DATABASE_OUTAGE_ERRORS as error:
                outage.report(error)
                self._unacknowledged = waiting[position:][-UNACKNOWLEDGED_MAX:]
                return

    def set_stat(self, key: str, value: str, timeout: int) -> None:
        # As ORM.get_connection does: never inside a transaction (a test's, say), where closing
        # the connection would break it.
        if transaction.get_autocommit(using=Conf.ORM):
            close_old_connections()
        super().set_stat(key, value, timeout)
