"""Overviews of a mind: stats, health, tags, timeline, related memories, the interim graph and
contradictions. Reads only; every query filters by mind."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
from django.db import connection
from django.db.models import Count, F, Min, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.db.models.functions import Trunc
from django.utils import timezone

from memories.keys import key_stem
from memories.models import Category, Memory, Priority, Source, current_filter, pending_filter
from memories.selectors.memory import memories_of
from memories.selectors.sql import MEMORY_COUNT_SQL, SHARED_TAG_COUNT_SQL, TAG_COUNTS_SQL
from memories.selectors.system import worker_alive
from memoryproject.core.contributions import contributed_mind_health, contributed_mind_stats, contributed_minds_health
from memoryproject.core.timeinput import time_before
from minds.models import Mind

# --- stats ------------------------------------------------------------------------------------


def mind_stats(*, mind: Mind, now: datetime | None = None) -> dict:
    """GET /memory/stats: counts over every stored memory of the mind (expired ones included and
    also counted apart), in one aggregate query. Every enum value is present, with 0 when unused."""
    now = now or timezone.now()
    expired = ~current_filter(now)
    aggregates = {
        "total": Count("pk"),
        "expired": Count("pk", filter=expired),
        "verified": Count("pk", filter=Q(verified=True)),
    }
    groups = {"category": Category.values, "source": Source.values, "priority": Priority.values}
    for field, values in groups.items():
        for value in values:
            aggregates[f"{field}__{value}"] = Count("pk", filter=Q(**{field: value}))
    counts = Memory.objects.filter(mind_id=mind.pk).aggregate(**aggregates)
    return {
        "mind_id": mind.pk,
        "total": counts["total"],
        "active": counts["total"] - counts["expired"],
        "expired": counts["expired"],
        "verified": counts["verified"],
        "unverified": counts["total"] - counts["verified"],
        **{f"by_{field}": {value: counts[f"{field}__{value}"] for value in values} for field, values in groups.items()},
        # The long-term net's counts (knots, edges, entities, goals), from the net's app.
        **contributed_mind_stats(mind.pk),
    }


# --- health -----------------------------------------------------------------------------------


def mind_health(*, mind: Mind, now: datetime | None = None) -> dict:
    """GET /memory/health. A memory is pending promotion while no knot holds its current content
    and it is not expired (memories.models.pending_filter; parked versions included, and counted
    apart by the net as `parked`); it has waited since its last write (`updated_at`), which is
    what enqueued it."""
    now = now or timezone.now()
    pending = pending_filter(now)
    counts = Memory.objects.filter(mind_id=mind.pk).aggregate(
        memories=Count("pk"),
        pending=Count("pk", filter=pending),
        oldest_pending=Min("updated_at", filter=pending),
    )
    oldest = counts["oldest_pending"]
    return {
        "mind_id": mind.pk,
        "memories": counts["memories"],
        "pending_promotion": counts["pending"],
        "oldest_pending_age_seconds": max(0, int((now - oldest).total_seconds())) if oldest else None,
        # The promotion and decay jobs are the net's: its part below replaces these (None: never ran).
        "last_promotion_at": None,
        "last_decay_at": None,
        "worker_alive": worker_alive(),
        # The net's part (knots, edges, parked versions, the last promotion), from the net's app.
        **contributed_mind_health(mind.pk, now),
    }


# --- many minds at once (the UI's dashboard) ----------------------------------------------------


def minds_overview(*, mind_ids: Sequence[str], now: datetime | None = None) -> dict[str, dict]:
    """The dashboard's numbers of each mind: `active`, `expired`, `unverified` as in
    `mind_stats`, and `pending_promotion`, `oldest_pending_age_seconds`, `last_promotion_at`,
    `last_decay_at` (plus what the net adds, `parked`) as in `mind_health`. One grouped query for
    the memories and the net's few for all minds, however many there are."""
    now = now or timezone.now()
    pending = pending_filter(now)
    rows = (
        Memory.objects.filter(mind_id__in=mind_ids)
        .values("mind_id")
        .annotate(
            total=Count("pk"),
            expired=Count("pk", filter=~current_filter(now)),
            verified=Count("pk", filter=Q(verified=True)),
            pending=Count("pk", filter=pending),
            oldest_pending=Min("updated_at", filter=pending),
        )
    )
    counted = {row["mind_id"]: row for row in rows}
    net = contributed_minds_health(mind_ids, now)
    overview: dict[str, dict] = {}
    for mind_id in mind_ids:
        row = counted.get(mind_id, {"total": 0, "expired": 0, "verified": 0, "pending": 0, "oldest_pending": None})
        oldest = row["oldest_pending"]
        overview[mind_id] = {
            "active": row["total"] - row["expired"],
            "expired": row["expired"],
            "unverified": row["total"] - row["verified"],
            "pending_promotion": row["pending"],
            "oldest_pending_age_seconds": max(0, int((now - oldest).total_seconds())) if oldest else None,
            "last_promotion_at": None,
            "last_decay_at": None,
            **net.get(mind_id, {}),
        }
    return overview


# --- tags ---------------------------------------------------------------------------------------


def mind_tags(*, mind: Mind, limit: int, include_expired: bool = False, now: datetime | None = None) -> dict:
    """GET /memory/tags: each tag with the number of memories carrying it, by count (desc) then
    tag, counted in SQL (unnest + GROUP BY). Expired memories are left out unless asked for."""
    params = {"mind": mind.pk, "now": now or timezone.now(), "limit": limit}
    with connection.cursor() as cursor:
        cursor.execute(TAG_COUNTS_SQL[include_expired], params)
        rows = cursor.fetchall()
        cursor.execute(MEMORY_COUNT_SQL[include_expired], params)
        total_memories = cursor.fetchone()[0]
    return {
        "tags": [{"tag": tag, "count": count} for tag, count, _ in rows],
        "total_tags": rows[0][2] if rows else 0,
        "total_memories": total_memories,
    }


# --- timeline -----------------------------------------------------------------------------------


def mind_timeline(
    *, mind: Mind, period: str, limit: int, include_expired: bool = False, now: datetime | None = None
) -> dict:
    """GET /memory/timeline: memories created per period (date_trunc in SQL, UTC), with counts per
    category, oldest period first. Only periods with memories appear; `limit` keeps the most recent
    ones and `total_periods` says how many there are in all."""
    memories = Memory.objects.filter(mind_id=mind.pk)
    if not include_expired:
        memories = memories.filter(current_filter(now or timezone.now()))
    memories = memories.annotate(period=Trunc("created_at", period, tzinfo=UTC))
    periods = memories.values("period").distinct().order_by("-period")
    starts = list(periods.values_list("period", flat=True)[:limit])
    if not starts:
        return {"period": period, "timeline": [], "total_periods": 0}
    total_periods = periods.count() if len(starts) == limit else len(starts)
    rows = (
        memories.filter(created_at__gte=starts[-1])
        .values("period", "category")
        .annotate(count=Count("pk"))
        .order_by("period", "category")
    )
    timeline: dict[datetime, dict] = {}
    for row in rows:
        entry = timeline.setdefault(row["period"], {"period": row["period"], "count": 0, "categories": {}})
        entry["count"] += row["count"]
        entry["categories"][row["category"]] = row["count"]
    return {"period": period, "timeline": list(timeline.values()), "total_periods": total_periods}


# --- related ------------------------------------------------------------------------------------


def memories_related(*, memory: Memory, now: datetime | None = None) -> QuerySet[Memory]:
    """GET /memory/{id}/related: the mind's other current memories sharing at least one tag with
    `memory`, most shared tags first, then most recently updated. Each row carries
    `shared_tag_count`; `shared_tags_of` lists them. Uses the GIN index on tags (`&&`)."""
    if not memory.tags:
        return memories_of(memory.mind_id).none()
    tags = list(memory.tags)
    shared_count = RawSQL(SHARED_TAG_COUNT_SQL, (tags,))  # noqa: S611 — a constant statement
    return (
        memories_of(memory.mind_id)
        .filter(current_filter(now or timezone.now()), tags__overlap=tags)
        .exclude(pk=memory.pk)
        .annotate(shared_tag_count=shared_count)
        .order_by(F("shared_tag_count").desc(), "-updated_at", "pk")
    )


def shared_tags_of(memory: Memory, other: Memory) -> list[str]:
    """The tags `other` shares with `memory`, in `memory`'s tag order."""
    theirs = set(other.tags)
    return [tag for tag in memory.tags if tag in theirs]


# --- contradictions -------------------------------------------------------------------------------

# Cosine similarity from which two memories on the same subject count as saying "the same thing
# differently" (unit vectors, so the dot product). Measured with the hashing embedder:
# "Office is in Berlin" / "Office is in Hamburg" 0.69, unrelated sentences below 0.1.
CONTRADICTION_MIN_SIMILARITY = 0.6
# Most memories of the window compared (the most recently updated); pairwise is quadratic.
CONTRADICTION_MAX_CANDIDATES = 500


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


@dataclass(frozen=True)
class Contradiction:
    newer: Memory
    older: Memory
    similarity: float
    reasons: list[str]
    key_stem: str | None
    shared_entities: list[str]


def memories_contradicting(*, mind: Mind, within: timedelta, now: datetime | None = None) -> dict:
    """GET /memory/contradictions: pairs of memories updated in the last `within` that look like
    the same subject (same key stem, or a shared entity) with different content, and whose
    embeddings are close (cosine ≥ CONTRADICTION_MIN_SIMILARITY). At most the
    CONTRADICTION_MAX_CANDIDATES most recent memories of the window are compared (in numpy);
    `truncated` says when the window held more."""
    now = now or timezone.now()
    since = time_before(now, within)
    window = (
        memories_of(mind.pk)
        .defer(None)  # the comparison needs the embeddings memories_of leaves out
        .defer("search_vector")
        .filter(updated_at__gte=since, embedding__isnull=False)
        .order_by("-updated_at", "pk")
    )
    candidates = list(window[: CONTRADICTION_MAX_CANDIDATES + 1])
    truncated = len(candidates) > CONTRADICTION_MAX_CANDIDATES
    candidates = candidates[:CONTRADICTION_MAX_CANDIDATES]
    found: list[Contradiction] = []
    if len(candidates) > 1:
        vectors = np.array([memory.embedding for memory in candidates], dtype=np.float32)
        similarity = vectors @ vectors.T
        stems = [key_stem(memory.key, memory.category) for memory in candidates]
        entities = [{name.casefold(): name for name in memory.entities} for memory in candidates]
        for i, j in zip(*np.nonzero(np.triu(similarity >= CONTRADICTION_MIN_SIMILARITY, k=1)), strict=True):
            newer, older = candidates[i], candidates[j]  # candidates run newest first
            same_stem = stems[i] is not None and stems[i] == stems[j]
            shared = [entities[i][name] for name in entities[i] if name in entities[j]]
            if not (same_stem or shared) or _same_text(newer.content, older.content):
                continue
            found.append(
                Contradiction(
                    newer=newer,
                    older=older,
                    similarity=round(float(similarity[i, j]), 4),
                    reasons=(["key_stem"] if same_stem else []) + (["entities"] if shared else []),
                    key_stem=stems[i] if same_stem else None,
                    shared_entities=shared,
                )
            )
    found.sort(key=lambda pair: (-pair.similarity, pair.newer.pk, pair.older.pk))
    return {
        "within": within,
        "since": since,
        "candidates": len(candidates),
        "truncated": truncated,
        "contradictions": found,
    }
