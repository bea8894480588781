"""The net's part of erasing a memory (docs/api-memory.md, "Deleting is erasing"): its knots —
all of them when the memory goes, those of its earlier versions when they are purged — with their
presence, edges and links, and the entities found only in them.

Called by the memories app through `memoryproject.core.contributions` (`memory_erase`) inside the
deleting transaction, before the memory's row goes; returns what the knots held, so the log can
be searched for it (pipelinelog.erasure).
"""

from __future__ import annotations

from memories.models import Memory
from synapses.models import Entity, Knot, MemoryKnot


def _entities_only_in(mind_id: str, entity_ids: set[int], *, memory_id: str, memory_goes: bool) -> list[int]:
    """Those of `entity_ids` that no knot of the mind mentions any more and no memory of it names
    (the erased memory left out when it goes): found only in what was erased."""
    if not entity_ids:
        return []
    still_mentioned = {
        entity_id
        for entities in Knot.objects.filter(mind_id=mind_id, entities__overlap=list(entity_ids)).values_list(
            "entities", flat=True
        )
        for entity_id in entities
    }
    candidates = dict(
        Entity.objects.filter(mind_id=mind_id, pk__in=entity_ids - still_mentioned).values_list("pk", "name")
    )
    if not candidates:
        return []
    naming = Memory.objects.filter(mind_id=mind_id, entities__overlap=list(candidates.values()))
    if memory_goes:
        naming = naming.exclude(pk=memory_id)
    named = {name.lower() for names in naming.values_list("entities", flat=True) for name in names}
    return [pk for pk, name in candidates.items() if name.lower() not in named]


def memory_net_erase(mind_id: str, memory_id: str, keep_content_hash: str | None) -> list[str]:
    """Delete the memory's knots (those of other versions than `keep_content_hash`, when given)
    and the entities only they mentioned; return the knots' contents. With a version kept, the
    memory's links of its other versions go too (a duplicate's link to another memory's knot)."""
    knots = Knot.objects.filter(mind_id=mind_id, memory_id=memory_id)
    links = MemoryKnot.objects.filter(mind_id=mind_id, memory_id=memory_id)
    if keep_content_hash is not None:
        knots = knots.exclude(content_hash=keep_content_hash)
        links = links.exclude(content_hash=keep_content_hash)
    erased = list(knots.values_list("pk", "content", "entities"))
    if erased:
        # Presence, edges and every memory's link to them go by their cascades.
        Knot.objects.filter(mind_id=mind_id, pk__in=[pk for pk, _, _ in erased]).delete()
    if keep_content_hash is not None:
        links.delete()
    entity_ids = {entity_id for _, _, entities in erased for entity_id in entities}
    orphans = _entities_only_in(mind_id, entity_ids, memory_id=memory_id, memory_goes=keep_content_hash is None)
    if orphans:
        Entity.objects.filter(mind_id=mind_id, pk__in=orphans).delete()
    return [content for _, content, _ in erased]
