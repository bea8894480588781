"""What the memories app does when the apps below it announce something (connected in MemoriesConfig.ready)."""

from __future__ import annotations

from django.dispatch import receiver

from memories.lifecycle import MemoryEvent, memories_changed
from minds.signals import mind_deleting


@receiver(mind_deleting, dispatch_uid="memories.mind_deleting")
def mind_deleting_report(sender, *, mind_id: str, **kwargs) -> None:
    """A deleted mind takes its memories along (cascade): the lifecycle hears it as one event."""
    memories_changed(event=MemoryEvent.MIND_DELETED, mind_id=mind_id, memory_ids=())
