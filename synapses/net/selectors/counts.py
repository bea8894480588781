"""What the net adds to the counts of /health, /memory/stats and /memory/health, and the
memory object's `knot_id`: reads only, every one filtered by mind except the global counts.

Registered with `memoryproject.core.contributions` in `SynapsesConfig.ready()`; the memories app asks
the registry and never imports this module (docs/architecture.md, "Answers the net contributes to").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Avg, Count, F, Max, Q

from memoryproject.core.contributions import KnotLink
from synapses.models import DecayRun, Edge, Knot, KnotPresence, MemoryKnot, PromotionAttempt
from synapses.net.sql import MIND_COUNTS_SQL


def net_service_counts() -> dict[str, int]:
    """/health `stats`: every knot, the active ones, and every edge row (a pair is two rows)."""
    return {
        "knots": Knot.objects.count(),
        "knots_active": KnotPresence.objects.filter(is_active=True).count(),
        "edges": Edge.objects.count(),
    }


def _mind_counts(mind_id: str) -> dict[str, int]:
    """Edges, entities and goals of one mind, in one statement (each count uses an index led by mind)."""
    with connection.cursor() as cursor:
        cursor.execute(MIND_COUNTS_SQL, {"mind": mind_id})
        edges, entities, goals, goals_active = cursor.fetchone()
    return {"edges": edges, "entities": entities, "goals": goals, "goals_active": goals_active}


def mind_net_stats(mind_id: str) -> dict[str, Any]:
    """/memory/stats of one mind: its knots (active, inactive, superseded — the memory holds other
    content since), the mean presence of the active ones (null without any), edge rows, entities
    and goals. Two queries."""
    active = Q(presence__is_active=True)
    knots = Knot.objects.filter(mind_id=mind_id).aggregate(
        total=Count("pk"),
        active=Count("pk", filter=active),
        superseded=Count("pk", filter=~Q(content_hash=F("memory__content_hash"))),
        presence_mean=Avg("presence__weight_present", filter=active),
    )
    mean = knots["presence_mean"]
    return {
        "knots": knots["total"],
        "knots_active": knots["active"],
        "knots_inactive": knots["total"] - knots["active"],
        "knots_superseded": knots["superseded"],
        "presence_mean": round(mean, 4) if mean is not None else None,
        **_mind_counts(mind_id),
    }


def mind_net_health(mind_id: str, now: datetime) -> dict[str, Any]:
    """/memory/health of one mind: knots, active knots, edges (the memories count the pending ones
    themselves, memories.models.pending_filter)."""
    knots = Knot.objects.filter(mind_id=mind_id).aggregate(
        total=Count("pk"), active=Count("pk", filter=Q(presence__is_active=True))
    )
    return {
        "knots": knots["total"],
        "knots_active": knots["active"],
        "edges": Edge.objects.filter(mind_id=mind_id).count(),
    }


def last_decay_at() -> datetime | None:
    """When the daily decay last finished (it decays every mind's net at once); None before the first run."""
    return DecayRun.objects.order_by("-ran_at").values_list("ran_at", flat=True).first()


def minds_net_health(mind_ids: Sequence[str], now: datetime) -> dict[str, dict[str, Any]]:
    """The dashboard's promotion health of many minds, two queries for any number of them: the
    parked versions (as `mind_promotion_health`) and when each mind's last memory was promoted;
    and when the decay last ran (one more query, the same for every mind). The memories count
    the pending ones themselves (memories.models.pending_filter)."""
    parked = (
        PromotionAttempt.objects.filter(
            mind_id__in=mind_ids, parked_at__isnull=False, memory__content_hash=F("content_hash")
        )
        .values("mind_id")
        .annotate(count=Count("pk"))
    )
    last = MemoryKnot.objects.filter(mind_id__in=mind_ids).values("mind_id").annotate(last=Max("created_at"))
    decayed_at = last_decay_at()
    health: dict[str, dict[str, Any]] = {
        mind_id: {
            "parked": 0,
            "last_promotion_at": None,
            "last_decay_at": decayed_at,
        }
        for mind_id in mind_ids
    }
    for row in parked:
        health[row["mind_id"]]["parked"] = row["count"]
    for row in last:
        health[row["mind_id"]]["last_promotion_at"] = row["last"]
    return health


def memory_knot_ids(mind_id: str, memories: Sequence[tuple[str, str]]) -> dict[str, KnotLink]:
    """`{memory id: KnotLink}` for the memories (id, current content hash) whose current content a
    knot holds — the knot and when the link was made, the memory's `promoted_at` — in one query
    (the unique index on (mind, memory, content_hash))."""
    current = set(memories)
    links = MemoryKnot.objects.filter(mind_id=mind_id, memory_id__in={memory_id for memory_id, _ in current})
    rows = links.values_list("memory_id", "content_hash", "knot_id", "created_at")
    return {
        memory_id: KnotLink(knot_id=knot_id, linked_at=created_at)
        for memory_id, content_hash, knot_id, created_at in rows
        if (memory_id, content_hash) in current
    }
