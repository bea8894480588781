"""Keeps the memories' side of promotion true when the net loses a knot.

A memory is pending while it has no MemoryKnot link for its current content hash (the truth,
which the promotion's selection reads). `memories.Memory.promoted_at` is the memories app's
copy of that fact, read by /memory/health and the memory's JSON; memories cannot import the
net, so when a link disappears (its knot was deleted with the knot's own memory) this clears
the copy of a memory that still exists and whose current version the link was.
"""

from __future__ import annotations

from django.db.models.signals import post_delete
from django.dispatch import receiver

from memories.models import Memory
from synapses.models import MemoryKnot


@receiver(post_delete, sender=MemoryKnot, dispatch_uid="synapses.memory_link_deleted")
def memory_link_deleted(sender, instance: MemoryKnot, **kwargs) -> None:
    Memory.objects.filter(pk=instance.memory_id, content_hash=instance.content_hash).update(promoted_at=None)
