"""Magnets for knots promoted before entity discovery existed, or before a mind's names changed:
`manage.py rebuild_magnets` (docs/synapse-model.md, "Magnets found in the content").

A mind's knots are read again in the order they were made (source_created_at, then id), with all
of the mind's contents as discovery's evidence (what the whole history says of a word): each knot
gets the entities discovery and the mind's known names find in it, as its promotion would have
today, and keeps those it carried; its magnets record each with its rule ("kept" for one it
carried before and that nothing found again, such as a name its memory gave). Then the mind's
edges are formed again (synapses.net.edges.mind_edges_rebuild), so the new entities join knots.
The command splits the mind's old contradicting joins first (synapses.promotion.split), so the
knots that gives are read here too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from minds.models import Mind
from synapses.models import Entity, Knot
from synapses.net.edges import EdgesRebuilt, mind_edges_rebuild
from synapses.promotion.discovery import Evidence
from synapses.promotion.entities import Discovery, found_in, memory_entities_resolve

# Knots read per round trip while replaying a mind (knots).
_CHUNK = 500
RULE_KEPT = "kept"


@dataclass(frozen=True)
class MagnetsRebuilt:
    knots: int  # knots read
    knots_changed: int  # knots whose entities changed
    entities_created: int
    edges: EdgesRebuilt


def mind_magnets_rebuild(*, mind_id: str, progress: Callable[[], None] | None = None) -> MagnetsRebuilt:
    """Find the magnets of every knot of the mind again, then form its edges again. The magnets in
    one transaction, the edges in the rebuild's own; `progress` is called after each knot."""
    mind = Mind.objects.only("id", "settings").get(pk=mind_id)
    discovery = Discovery.of(mind.settings)
    knots = Knot.objects.filter(mind_id=mind_id).order_by("source_created_at", "id")
    evidence = Evidence.of(knots.values_list("content", flat=True).iterator(chunk_size=_CHUNK))
    read = changed = created = 0
    now = timezone.now()
    with transaction.atomic():
        for knot in knots.only("id", "content", "entities", "magnets", "memory__entities").select_related("memory"):
            found = found_in({knot.pk: knot.content}, discovery, evidence)[knot.pk]
            resolved = memory_entities_resolve(
                mind_id=mind_id, names=list(knot.memory.entities), content=knot.content, now=now, discovered=found
            )
            created += resolved.created
            magnets = dict(resolved.magnets)
            kept = [entity_id for entity_id in knot.entities if entity_id not in resolved.ids]
            names = dict(Entity.objects.filter(pk__in=kept).values_list("pk", "name")) if kept else {}
            carried = [{"id": i, "name": names[i], "rule": RULE_KEPT} for i in kept if i in names]
            magnets["entities"] = [*magnets["entities"], *carried]
            entities = sorted({*resolved.ids, *(i for i in kept if i in names)})
            if entities != sorted(knot.entities) or magnets != knot.magnets:
                Knot.objects.filter(pk=knot.pk).update(entities=entities, magnets=magnets)
                changed += 1
            read += 1
            if progress is not None:
                progress()
    edges = mind_edges_rebuild(mind_id=mind_id)
    return MagnetsRebuilt(knots=read, knots_changed=changed, entities_created=created, edges=edges)
