"""Writing to the pipeline log beyond spans: retention."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from pipelinelog.constants import setting
from pipelinelog.models import LogEntry
from pipelinelog.spans import span

# Rows deleted per statement, so pruning a long-neglected log never holds one huge transaction.
PRUNE_BATCH_ROWS = 10_000


def prune_log(*, now: datetime | None = None, retention_days: int | None = None) -> int:
    """Delete every row created more than `retention_days` (LOG_RETENTION_DAYS) before `now`.

    A row exactly at the limit stays. Returns the number of rows deleted. Idempotent.
    """
    now = now or timezone.now()
    days = setting("LOG_RETENTION_DAYS") if retention_days is None else retention_days
    cutoff = now - timedelta(days=days)
    with span("pipelinelog.prune") as sp:
        sp.input({"retention_days": days, "cutoff": cutoff})
        deleted = 0
        old_rows = LogEntry.objects.filter(created_at__lt=cutoff)
        while True:
            batch = list(old_rows.values_list("pk", flat=True)[:PRUNE_BATCH_ROWS])
            if not batch:
                break
            deleted += LogEntry.objects.filter(pk__in=batch).delete()[0]
        sp.db_write({"table": LogEntry._meta.db_table, "operation": "delete", "rows": deleted})
        sp.output({"deleted": deleted})
    return deleted
