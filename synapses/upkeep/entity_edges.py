"""What an entity change does to the edges, at once (Trigger 3, docs/synapse-model.md §6).

A person's change to an entity (create, rename, aliases, merge, delete) rewrites the `entities`
of some knots. Then, in the same transaction:

1. every edge that carries one of the entities, or joins a knot that carries one, has its entity
   layer evaluated again from the knots' current entities (synapses.upkeep.triggers
   .entity_edges_recompute: weights updated, pairs left with no layer deleted);
2. every active knot whose entities changed forms the edges it lacks (Trigger 1's formation,
   synapses.net.edges.knot_edges_form: knots it already has an edge to are no candidates), so
   two knots that only now share an entity are joined without waiting for a rebuild.

A deletion calls it the same way once the id is off the knots: `entity_id` the deleted id,
`knot_ids` the knots it was taken from (tests/synapses/test_entity_edges.py shows it).

The answer counts edge rows as they are in the table before and after: created (new rows),
updated (rows whose weights or layers changed) and deleted. Each is a row (a pair is two rows).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q

from synapses.models import Edge, Knot
from synapses.net.edges import knot_edges_form
from synapses.net.selectors.candidates import NetFacts
from synapses.upkeep.triggers import entity_edges_recompute

# What makes an edge row "changed": every value the recomputation or a formation writes.
_COMPARED = ("weight_raw", "weight_anchor", "layers", "shared_entities", "shared_themes", "time_distance")
_COMPARED += ("layer_count",)


@dataclass(frozen=True)
class EdgeRowsChanged:
    """Edge rows an entity change created, updated and deleted (a pair is two rows)."""

    created: int = 0
    updated: int = 0
    deleted: int = 0

    @property
    def changed(self) -> int:
        return self.created + self.updated + self.deleted


def _rows(mind_id: str, entity_ids: list[int], knot_ids: list[int]) -> dict[int, tuple]:
    """The edge rows either step may touch, by id with the values it may change: rows from or to
    a knot carrying one of the entities or among `knot_ids`, and rows sharing one (one query)."""
    carriers = Knot.objects.filter(mind_id=mind_id, entities__overlap=entity_ids).values("pk")
    rows = Edge.objects.filter(
        Q(shared_entities__overlap=entity_ids)
        | Q(source__in=carriers)
        | Q(target__in=carriers)
        | Q(source_id__in=knot_ids)
        | Q(target_id__in=knot_ids),
        mind_id=mind_id,
    ).values_list("pk", *_COMPARED)
    return {pk: tuple(values) for pk, *values in rows}


def entity_edges_refresh(
    *, mind_id: str, entity_id: int, former_ids: Collection[int] = (), knot_ids: Iterable[int] = ()
) -> EdgeRowsChanged:
    """Trigger 3 after the knots' `entities` were rewritten for `entity_id` (and `former_ids`: the
    entities merged into it, or the deleted one): recompute the edges that carry them, then let
    each active knot of `knot_ids` (those whose entities changed) form the edges it lacks. One
    transaction; the counts of edge rows created, updated and deleted."""
    ids = [entity_id, *former_ids]
    touched = sorted(set(knot_ids))
    with transaction.atomic():
        before = _rows(mind_id, ids, touched)
        entity_edges_recompute(mind_id=mind_id, entity_id=entity_id, former_ids=former_ids)
        facts = NetFacts()  # one transaction: what one knot's formation counted holds for the next
        forming = Knot.objects.filter(mind_id=mind_id, pk__in=touched, presence__is_active=True).defer(
            "content", "search_vector", "attributes"
        )
        for knot in forming.order_by("source_created_at", "id"):
            knot_edges_form(knot=knot, facts=facts)
        after = _rows(mind_id, ids, touched)
    return EdgeRowsChanged(
        created=len(after.keys() - before.keys()),
        updated=sum(1 for pk in after.keys() & before.keys() if after[pk] != before[pk]),
        deleted=len(before.keys() - after.keys()),
    )
