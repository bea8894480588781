"""Which memories promotion takes, and how a batch claims and locks them (docs/synapse-model.md §4).

A memory is **pending** while it has no MemoryKnot link for its current content hash and its
version is not parked; it is **mature** when it is verified, or its salience is at least
PROMOTION_SALIENCE, or it has gone PROMOTION_AGE without a write (`now_all` drops the maturity
rule: imports, benchmarks). Expired memories are never promoted. `promoted_at` is unset on every
pending memory (the database keeps it so), so the selection reads a partial index.

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

from memories.models import Memory, current_filter
from synapses.config import setting
from synapses.models import MemoryKnot, PromotionAttempt
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
    settled = now - timedelta(seconds=setting("PROMOTION_AGE"))
    return Q(verified=True) | Q(salience__gte=setting("PROMOTION_SALIENCE")) | Q(updated_at__lte=settled)


def memories_pending(*, now: datetime, now_all: bool = False) -> QuerySet[Memory]:
    """Memories to promote: not expired, no link for the current content, not parked, mature
    (every one with `now_all`)."""
    linked = MemoryKnot.objects.filter(
        mind_id=OuterRef("mind_id"), memory_id=OuterRef("pk"), content_hash=OuterRef("content_hash")
    )
    parked = PromotionAttempt.objects.filter(
        mind_id=OuterRef("mind_id"),
        memory_id=OuterRef("pk"),
        content_hash=OuterRef("content_hash"),
        parked_at__isnull=False,
    )
    # promoted_at is unset on every memory without a link for its current content (set by
    # promotion, unset by the database when the content changes: synapses migration 0003), so the
    # partial index memory_pending_idx holds every pending memory; the link test stays exact.
    pending = Memory.objects.filter(current_filter(now), promoted_at__isnull=True)
    pending = pending.filter(~Exists(linked), ~Exists(parked))
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
        .select_for_update(skip_locked=True, of=("self",))[:size]
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
