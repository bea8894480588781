"""Reads of promotion's state for /memory/health (registered in SynapsesConfig.ready())."""

from __future__ import annotations

from datetime import datetime

from django.db.models import F

from synapses.constants import PARKED_IDS_SHOWN
from synapses.models import MemoryKnot, PromotionAttempt
from synapses.net.selectors.counts import last_decay_at


def mind_promotion_health(mind_id: str, now: datetime) -> dict[str, object]:
    """/memory/health's promotion part: the mind's parked memory versions (of the memories' current
    content; the newest PARKED_IDS_SHOWN ids), when its last memory was promoted and when the decay
    last ran (for every mind at once). Four queries."""
    parked = PromotionAttempt.objects.filter(
        mind_id=mind_id, parked_at__isnull=False, memory__content_hash=F("content_hash")
    ).order_by("-parked_at", "memory_id")
    last = MemoryKnot.objects.filter(mind_id=mind_id).order_by("-created_at").values_list("created_at", flat=True)
    return {
        "parked": parked.count(),
        "parked_memory_ids": list(parked.values_list("memory_id", flat=True)[:PARKED_IDS_SHOWN]),
        "last_promotion_at": last.first(),
        "last_decay_at": last_decay_at(),
    }
