"""Turns the lifecycle's and the net's signals into webhook deliveries.

Both signals come inside the writing transaction; the deliveries are rows of that transaction,
their attempts enqueued once it commits (webhooks.services.delivery): no receiver is ever called
from the write. Which lifecycle event is which webhook event is decided here, in one table.
"""

from __future__ import annotations

from django.dispatch import receiver

from memories.lifecycle import MemoryEvent, memories_changed_signal
from synapses.events import KnotEvent, knots_changed
from webhooks.events import WebhookEvent
from webhooks.services.delivery import deliveries_record

# The webhook event of each lifecycle event; the ones left out (re-embedding keeps the content,
# a deleted mind takes its hooks with it) send none. A sync, an import and an expiry change
# memories, so they are `memory.updated`, with `data.change` naming what happened.
MEMORY_WEBHOOK_EVENTS: dict[MemoryEvent, WebhookEvent] = {
    MemoryEvent.CREATED: WebhookEvent.MEMORY_CREATED,
    MemoryEvent.UPDATED: WebhookEvent.MEMORY_UPDATED,
    MemoryEvent.SYNCED: WebhookEvent.MEMORY_UPDATED,
    MemoryEvent.IMPORTED: WebhookEvent.MEMORY_UPDATED,
    MemoryEvent.EXPIRED: WebhookEvent.MEMORY_UPDATED,
    MemoryEvent.VERIFIED: WebhookEvent.MEMORY_VERIFIED,
    MemoryEvent.UNVERIFIED: WebhookEvent.MEMORY_UNVERIFIED,
    MemoryEvent.DELETED: WebhookEvent.MEMORY_DELETED,
}
KNOT_WEBHOOK_EVENTS: dict[KnotEvent, WebhookEvent] = {
    KnotEvent.CREATED: WebhookEvent.KNOT_CREATED,
    KnotEvent.REINFORCED: WebhookEvent.KNOT_REINFORCED,
}


@receiver(memories_changed_signal, dispatch_uid="webhooks.memories_changed")
def memories_changed_deliver(
    sender, *, event: MemoryEvent, mind_id: str, memory_ids: tuple[str, ...], **kwargs
) -> None:
    webhook_event = MEMORY_WEBHOOK_EVENTS.get(event)
    if webhook_event is None or not memory_ids:
        return
    deliveries_record(mind_id=mind_id, event=webhook_event, data={"change": str(event), "memory_ids": list(memory_ids)})


@receiver(knots_changed, dispatch_uid="webhooks.knots_changed")
def knots_changed_deliver(sender, *, event: KnotEvent, mind_id: str, knot_ids: tuple[int, ...], **kwargs) -> None:
    webhook_event = KNOT_WEBHOOK_EVENTS.get(event)
    if webhook_event is None or not knot_ids:
        return
    deliveries_record(mind_id=mind_id, event=webhook_event, data={"change": str(event), "knot_ids": list(knot_ids)})
