"""Log rows written straight to the table, for tests of reading, filtering and retention."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.utils import timezone

from pipelinelog.models import LogEntry


def log_row(
    *,
    mind=None,
    turn_id: str = "T",
    span_id: uuid.UUID | None = None,
    node: str = "tests.node",
    kind: str = "note",
    content=None,
    created_at: datetime | None = None,
    source: str = "system",
) -> LogEntry:
    return LogEntry.objects.create(
        mind=mind,
        turn_id=turn_id,
        span_id=span_id,
        node=node,
        kind=kind,
        content=content,
        created_at=created_at or timezone.now(),
        source=source,
    )
