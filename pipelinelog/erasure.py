"""Erasure in the log: what a deleted memory (or an earlier version of one) left in the log's rows
and in the worker's task rows goes; that the deletion happened stays (docs/pipeline-log.md, "Erasure").

The deleting request records an `Erasure` in its own transaction (`erasure_request`), cheap and
immediate; searching a mind's log of up to LOG_RETENTION_DAYS is the worker's: a one-off
schedule runs `pipelinelog.tasks.erasure_apply` ERASURE_DELAY_SECONDS after the commit (so the
log writers of every process have flushed the rows of the requests that wrote the content), and
an hourly schedule catches whatever that run missed. Two rules find what to erase:

- rows that quote a content: any JSON string of the mind's rows holding the first NEEDLE_CHARS
  characters of one of the erased texts becomes ERASED (the request summaries cut strings at 500
  characters, so a content is always quoted from its start);
- the request bodies of the spans that wrote the memory (a db_write row names its id): they held
  its earlier versions too, which no stored row remembers; each becomes ERASED, and its method,
  path and query stay.

django-q2's task rows (successes and failures) since the content came that quote a text are
deleted: their arguments and results are pickled, so they are read here, not searched in SQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.utils import timezone
from django_q.models import Schedule, Task

from pipelinelog.models import Erasure, ErasureReason, LogEntry
from pipelinelog.spans import span
from pipelinelog.sql import ERASURE_BODIES_SQL, ERASURE_ROWS_SQL, ERASURE_WRITING_SPANS_SQL

# What an erased string (or request body) reads in the log afterwards.
ERASED = "[erased]"
# Characters of a content's beginning the search looks for: long enough not to meet another
# memory's text by chance, short enough to be inside every cut quotation of it.
NEEDLE_CHARS = 64
# How long after the deleting commit the erasure runs: past every process's log flush.
ERASURE_DELAY_SECONDS = 30
# The one-off schedule that runs it then (one at a time: a second deletion meanwhile joins it).
ERASURE_SOON_SCHEDULE = "erasure-soon"
ERASURE_TASK = "pipelinelog.tasks.erasure_apply"
# Log rows read and rewritten per statement.
ERASURE_BATCH_ROWS = 1000
# A request's log rows are stamped when recorded, a little before the write they lead to.
SINCE_SLACK = timedelta(minutes=10)
# The start of time, for an erasure that must search every row.
_EVER = datetime(1970, 1, 1, tzinfo=UTC)


def needles_of(texts: Iterable[str]) -> list[str]:
    """The beginnings the search looks for, each once, none empty."""
    return list(dict.fromkeys(text[:NEEDLE_CHARS] for text in texts if text and text.strip()))


def needle_in_json(needle: str) -> str:
    """`needle` as it appears inside a JSON string printed by PostgreSQL (quotes, backslashes and
    control characters escaped; other characters as they are)."""
    return json.dumps(needle, ensure_ascii=False)[1:-1]


def erasure_request(
    *, mind_id: str, memory_id: str, reason: str, texts: Iterable[str], since: datetime | None
) -> Erasure:
    """Record that the log owes an erasure (call in the deleting transaction); the worker applies
    it ERASURE_DELAY_SECONDS after the commit."""
    erasure = Erasure.objects.create(
        mind_id=mind_id,
        memory_id=memory_id,
        reason=reason,
        texts=needles_of(texts),
        since=since - SINCE_SLACK if since else None,
        requested_at=timezone.now(),
    )
    transaction.on_commit(_schedule_soon)
    return erasure


def _schedule_soon() -> None:
    if Schedule.objects.filter(name=ERASURE_SOON_SCHEDULE).exists():
        return  # a run is due already; it applies every erasure pending then
    Schedule.objects.create(
        name=ERASURE_SOON_SCHEDULE,
        func=ERASURE_TASK,
        schedule_type=Schedule.ONCE,
        repeats=-1,  # deleted once it ran
        next_run=timezone.now() + timedelta(seconds=ERASURE_DELAY_SECONDS),
    )


def scrubbed(value: Any, needles: list[str]) -> Any:
    """`value` with every string (keys too) that holds a needle replaced by ERASED."""
    if isinstance(value, str):
        return ERASED if any(needle in value for needle in needles) else value
    if isinstance(value, dict):
        return {scrubbed(key, needles): scrubbed(item, needles) for key, item in value.items()}
    if isinstance(value, list):
        return [scrubbed(item, needles) for item in value]
    return value


def _rows_scrub(erasure: Erasure, since: datetime) -> int:
    needles = erasure.texts
    if not needles:
        return 0
    printed = [needle_in_json(needle) for needle in needles]
    erased, after = 0, 0
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                ERASURE_ROWS_SQL,
                {"mind_id": erasure.mind_id, "since": since, "after": after, "needles": printed,
                 "limit": ERASURE_BATCH_ROWS},
            )  # fmt: skip
            rows = cursor.fetchall()
        if not rows:
            return erased
        changed = []
        for pk, content in rows:
            value = json.loads(content) if isinstance(content, str) else content
            clean = scrubbed(value, needles)
            if clean != value:
                changed.append(LogEntry(pk=pk, content=clean))
        LogEntry.objects.bulk_update(changed, ["content"])
        erased += len(changed)
        after = rows[-1][0]


def _bodies_erase(erasure: Erasure, since: datetime) -> int:
    if not erasure.memory_id:
        return 0
    with connection.cursor() as cursor:
        cursor.execute(
            ERASURE_WRITING_SPANS_SQL,
            {"mind_id": erasure.mind_id, "since": since, "quoted_id": json.dumps(erasure.memory_id)},
        )
        span_ids = [row[0] for row in cursor.fetchall()]
        if not span_ids:
            return 0
        cursor.execute(ERASURE_BODIES_SQL, {"span_ids": span_ids, "erased": ERASED})
        return cursor.rowcount


def _tasks_erase(erasure: Erasure, since: datetime) -> int:
    """django-q2's stored tasks since `since` whose arguments or result quote a text: deleted."""
    if not erasure.texts:
        return 0
    quoting = [
        task.pk
        for task in Task.objects.filter(started__gte=since).only("id", "args", "kwargs", "result").iterator()
        if any(needle in repr((task.args, task.kwargs, task.result)) for needle in erasure.texts)
    ]
    return Task.objects.filter(pk__in=quoting).delete()[0]


def _apply(erasure: Erasure, now: datetime) -> dict[str, int]:
    since = erasure.since or _EVER
    done = {
        "bodies": _bodies_erase(erasure, since),
        "rows": _rows_scrub(erasure, since),
        "tasks": _tasks_erase(erasure, since),
    }
    erasure.texts, erasure.applied_at = [], now
    erasure.rows_erased = done["bodies"] + done["rows"]
    erasure.save(update_fields=["texts", "applied_at", "rows_erased"])
    return done


def erasures_apply(*, now: datetime | None = None) -> dict[str, int]:
    """Apply every pending erasure, oldest first, each in its own transaction; a second worker
    passes over the ones this one holds. Returns the totals."""
    now = now or timezone.now()
    totals = {"erasures": 0, "bodies": 0, "rows": 0, "tasks": 0}
    # Neither the texts nor the mind go into this span: the log must not learn them again.
    with span("pipelinelog.erasure") as sp:
        while True:
            with transaction.atomic():
                erasure = (
                    Erasure.objects.select_for_update(skip_locked=True)
                    .filter(applied_at__isnull=True)
                    .order_by("requested_at", "pk")
                    .first()
                )
                if erasure is None:
                    break
                for name, count in _apply(erasure, now).items():
                    totals[name] += count
                totals["erasures"] += 1
        sp.output(totals)
    return totals


def mind_erasure_request(mind_id: str) -> Erasure:
    """A deleted mind: its log rows, memories, net, idempotency records and webhooks go by their
    cascading foreign keys in the deleting transaction; the record says that it happened."""
    return erasure_request(mind_id=mind_id, memory_id="", reason=ErasureReason.MIND_DELETED, texts=(), since=None)
