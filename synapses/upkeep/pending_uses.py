"""Uses of memories not yet promoted (docs/synapse-model.md §6, "Uses of pending memories").

A resonance offers pending memories too (`knot_id: null`, `in_net: false`); an answer that used
one cannot strengthen a knot that does not exist yet. POST /synapses/used takes their ids as
`memory_ids`: each is checked like a knot (the answer's cosine to the memory), and a hit is
recorded as one use of that memory version (synapses.models.PendingUse). A memory promoted
meanwhile is simply its knot.

When the version is promoted, `pending_uses_apply` (run by the promotion task and the sweep right
after promoting, synapses/tasks.py) applies each recorded use to the knot that holds it — a knot
of its own or the one it joined as a duplicate — as one reinforcement (raw weight + the boost,
the anchor damped again, presence reset, one more activation) with the knot's edges recomputed
once (Trigger 2), and deletes the record. A version replaced before it was promoted leaves its
uses unapplied (the answer used other words), and they are deleted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Exists, F, OuterRef, Subquery
from django.utils import timezone
from pgvector.django import CosineDistance

from memories.models import Memory, current_filter, pending_filter
from pipelinelog.spans import span
from synapses.config import synapse_settings
from synapses.events import KnotEvent, knots_changed
from synapses.models import Knot, KnotPresence, MemoryKnot, PendingUse
from synapses.upkeep.triggers import knot_edges_recompute

# Decimals of a nearness in reinforcement's report and here (the cosine is not more precise than
# that in any use).
NEARNESS_DECIMALS = 4


@dataclass(frozen=True)
class PendingNearness:
    memory_id: str
    nearness: float


@dataclass(frozen=True)
class OfferedMemories:
    """What the offered memory ids are: pending ones with their nearness (nearest first), the knots
    of those promoted meanwhile, and the ids that are no current memory of the mind."""

    pending: list[PendingNearness]
    knots: list[int]
    not_found: list[str]


def offered_memories(*, mind_id: str, memory_ids: Sequence[str], vector, now: datetime) -> OfferedMemories:
    """Sort the offered memory ids of `mind_id` (one query): pending with a vector → a candidate
    with its cosine to the answer; its current version held by a knot → that knot; anything else
    (unknown, another mind's, expired, without a vector) → not found."""
    if not memory_ids:
        return OfferedMemories(pending=[], knots=[], not_found=[])
    link = MemoryKnot.objects.filter(
        mind_id=OuterRef("mind_id"), memory_id=OuterRef("pk"), content_hash=OuterRef("content_hash")
    ).values("knot_id")[:1]
    rows = (
        Memory.objects.filter(current_filter(now), mind_id=mind_id, pk__in=list(memory_ids))
        .annotate(distance=CosineDistance("embedding", vector), knot_id=Subquery(link))
        .values_list("pk", "distance", "knot_id")
    )
    pending: list[PendingNearness] = []
    knots: list[int] = []
    found: set[str] = set()
    for memory_id, distance, knot_id in rows:
        if knot_id is not None:
            knots.append(knot_id)
        elif distance is not None:
            pending.append(PendingNearness(memory_id, round(1.0 - float(distance), NEARNESS_DECIMALS)))
        else:
            continue
        found.add(memory_id)
    pending.sort(key=lambda item: (-item.nearness, item.memory_id))
    return OfferedMemories(
        pending=pending, knots=sorted(set(knots)), not_found=[m for m in dict.fromkeys(memory_ids) if m not in found]
    )


def pending_uses_record(*, mind_id: str, used: Iterable[PendingNearness], now: datetime) -> list[PendingNearness]:
    """One more use of each used pending memory's current version (two statements per memory);
    those recorded (a memory promoted or expired since the check is passed over)."""
    recorded: list[PendingNearness] = []
    with transaction.atomic():
        for item in used:
            memory = (
                Memory.objects.filter(pending_filter(now), mind_id=mind_id, pk=item.memory_id)
                .values_list("content_hash", flat=True)
                .first()
            )
            if memory is None:
                continue
            row, created = PendingUse.objects.select_for_update().get_or_create(
                mind_id=mind_id,
                memory_id=item.memory_id,
                content_hash=memory,
                defaults={"uses": 1, "nearness": item.nearness, "created_at": now, "updated_at": now},
            )
            if not created:
                PendingUse.objects.filter(pk=row.pk).update(uses=F("uses") + 1, nearness=item.nearness, updated_at=now)
            recorded.append(item)
    return recorded


@dataclass(frozen=True)
class PendingUsesApplied:
    knots: int  # knots reinforced
    uses: int  # uses applied (each one reinforcement)
    dropped: int  # records of versions replaced before their promotion


def pending_uses_apply(*, memory_ids: Iterable[str] | None = None, now: datetime | None = None) -> PendingUsesApplied:
    """Apply the recorded uses of every promoted version (of `memory_ids`, or all) to its knot and
    drop those of replaced versions. Each knot under its row lock, in id order; one
    `synapses.reinforcement` span when anything was applied or dropped."""
    # The one reinforcement rule; imported here because reinforcement imports this module.
    from synapses.upkeep.reinforcement import knot_reinforce

    now = now or timezone.now()
    records = PendingUse.objects.all()
    if memory_ids is not None:
        records = records.filter(memory_id__in=list(memory_ids))
    link = MemoryKnot.objects.filter(
        mind_id=OuterRef("mind_id"), memory_id=OuterRef("memory_id"), content_hash=OuterRef("content_hash")
    )
    current = Memory.objects.filter(pk=OuterRef("memory_id"), content_hash=OuterRef("content_hash"))
    boost = synapse_settings.REINFORCEMENT_BOOST
    with transaction.atomic():
        rows = list(
            records.annotate(knot_id=Subquery(link.values("knot_id")[:1]))
            .filter(Exists(link) | ~Exists(current))
            .select_for_update(skip_locked=True, of=("self",))
            .values_list("pk", "mind_id", "memory_id", "uses", "knot_id")
        )
        if not rows:
            return PendingUsesApplied(knots=0, uses=0, dropped=0)
        uses_of: dict[int, int] = {}
        mind_of: dict[int, str] = {}
        for _, mind_id, _, uses, knot_id in rows:
            if knot_id is not None:
                uses_of[knot_id] = uses_of.get(knot_id, 0) + uses
                mind_of[knot_id] = mind_id
        reinforced: dict[str, list[int]] = {}
        with span("synapses.reinforcement") as sp:
            sp.input({"pending_uses": [[memory_id, uses, knot_id] for _, _, memory_id, uses, knot_id in rows]})
            knots = Knot.objects.select_for_update().filter(pk__in=uses_of).order_by("pk")
            presences = {p.knot_id: p for p in KnotPresence.objects.select_for_update().filter(knot_id__in=uses_of)}
            for knot in knots.only("id", "mind_id", "weight_raw", "weight_anchor", "activation_count"):
                presence = presences.get(knot.pk)
                if presence is None:
                    continue
                for _ in range(uses_of[knot.pk]):
                    knot_reinforce(knot=knot, presence=presence, boost=boost, now=now)
                knot_edges_recompute(knot=knot)
                reinforced.setdefault(mind_of[knot.pk], []).append(knot.pk)
            sp.db_write(
                {"table": "synapses_knot", "operation": "reinforce", "source": "pending_uses",
                 "knots": sorted(k for ks in reinforced.values() for k in ks)}
            )  # fmt: skip
        PendingUse.objects.filter(pk__in=[row[0] for row in rows]).delete()
        for mind_id in sorted(reinforced):
            knots_changed.send(
                sender=KnotEvent, event=KnotEvent.REINFORCED, mind_id=mind_id, knot_ids=tuple(reinforced[mind_id])
            )
    applied = sum(uses_of[k] for ks in reinforced.values() for k in ks)
    return PendingUsesApplied(
        knots=sum(len(ks) for ks in reinforced.values()),
        uses=applied,
        dropped=sum(1 for row in rows if row[4] is None),
    )
