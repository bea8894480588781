"""Which memories promotion takes, and how a batch claims and locks them (docs/synapse-model.md §4).

A memory is **pending** while its current content has no MemoryKnot link: it then has a row in
`memories.PendingPromotion`, which the database keeps true for every writer (synapses migration
0006), and `memories.models.pending_filter` is the one definition. Promotion takes the pending
memories whose version is not parked and that are **mature**: verified, or salience at least
PROMOTION_SALIENCE, or PROMOTION_AGE without a write (`now_all` drops the maturity rule: imports,
benchmarks). Expired memories are never promoted.

A batch is claimed in one `SELECT … FOR UPDATE SKIP LOCKED` (two workers on one backlog take
different memories), then `pg_advisory_xact_lock` on (mind, content hash) of each of its memories,
in key order, serialises the match test and the creation for one content.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection
from django.db.models import Exists, OuterRef, Q, QuerySet

from memories.models import Memory, pending_filter
from synapses.config import synapse_settings
from synapses.models import PromotionAttempt
from synapses.promotion.sql import LOCKS_SQL


@dataclass(frozen=True)
class Candidate:
    """A pending memory as the selection saw it (the claim re-reads the row under its lock)."""

    memory_id: str
    mind_id: str
    content_hash: str
    turn_id: str


def _mature_filter(now: datetime) -> Q:
    """Verified, salient enough, or unwritten for PROMOTION_AGE."""
    settled = now - timedelta(seconds=synapse_settings.PROMOTION_AGE)
    return Q(verified=True) | Q(salience__gte=synapse_settings.PROMOTION_SALIENCE) | Q(updated_at__lte=settled)


def memories_pending(*, now: datetime, now_all: bool = False) -> QuerySet[Memory]:
    """Memories to promote: pending (memories.models.pending_filter: not expired, a row in the
    pending table), not parked, mature (every one with `now_all`). The pending table holds only
    the waiting memories, so the selection reads them, not every memory of the minds."""
    parked = PromotionAttempt.objects.filter(
        mind_id=OuterRef("mind_id"),
        memory_id=OuterRef("pk"),
        content_hash=OuterRef("content_hash"),
        parked_at__isnull=False,
    )
    pending = Memory.objects.filter(pending_filter(now)).filter(~Exists(parked))
    return pending if now_all else pending.filter(_mature_filter(now))


def candidates_select(
    *,
    now: datetime,
    memory_ids: Iterable[str] | None = None,
    mind_id: str | None = None,
    now_all: bool = False,
    limit: int | None = None,
) -> list[Candidate]:
    """The pending memories a run takes up, longest waiting first (one query)."""
    pending = memories_pending(now=now, now_all=now_all)
    if memory_ids is not None:
        pending = pending.filter(pk__in=list(memory_ids))
    if mind_id is not None:
        pending = pending.filter(mind_id=mind_id)
    rows = pending.order_by("updated_at", "pk").values_list("pk", "mind_id", "content_hash", "turn_id")
    if limit is not None:
        rows = rows[:limit]
    return [Candidate(*row) for row in rows]


def pending_count(*, now: datetime, mind_id: str | None = None, now_all: bool = False) -> int:
    pending = memories_pending(now=now, now_all=now_all)
    return (pending.filter(mind_id=mind_id) if mind_id is not None else pending).count()


def batch_claim(candidates: list[Candidate], *, now: datetime, now_all: bool, size: int) -> list[Memory]:
    """Up to `size` of the candidates' rows, locked, that are still pending and no other worker
    holds, longest waiting first (one statement: SKIP LOCKED passes over the rows another
    worker's batch holds, so two workers on one backlog take different memories, not turns)."""
    return list(
        memories_pending(now=now, now_all=now_all)
        .filter(pk__in=[candidate.memory_id for candidate in candidates])
        .defer("search_vector")
        .order_by("updated_at", "pk")
        # The pending row locked too: a worker whose claim raced another's commit finds the row
        # that commit deleted (its link made it) gone, and passes over the memory.
        .select_related("pending_row")
        .select_for_update(skip_locked=True, of=("self", "pending_row"))[:size]
    )


def advisory_key(mind_id: str, content_hash: str) -> int:
    """A signed 64-bit key for pg_advisory_xact_lock from the mind and the content hash."""
    digest = hashlib.sha256(f"synapses.promotion:{mind_id}:{content_hash}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def locks_take(memories: list[Memory]) -> None:
    """One content of one mind at a time, until commit: the match test and the creation of a
    knot for that content are serialised across workers (one statement for the batch)."""
    keys = [advisory_key(memory.mind_id, memory.content_hash) for memory in memories]
    with connection.cursor() as cursor:
        cursor.execute(LOCKS_SQL, {"keys": keys})
