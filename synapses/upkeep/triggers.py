"""Triggers 2 and 3: recomputing edges that exist (docs/synapse-model.md §6).

Edges are a cache of the two knots' `weight_anchor` and the layer values frozen when the pair
was formed (`layers`, `shared_entities`, `shared_themes`, `time_distance`, `cosine_initial`).
Recomputing runs §3 again with the current anchors and overwrites the weights; the old values
are lost.

- Trigger 2, `knot_edges_recompute`: a knot's anchor changed (reinforcement by use). Every edge
  from and to it is recomputed from the frozen layer values; none appears or disappears.
- Trigger 3, `entity_edges_recompute` / `knot_time_anchor_correct`: a value a layer is made of
  changed (entities merged or removed from knots; a time anchor corrected by a human). That one
  layer is evaluated again from the knots' current values, the others stay frozen; a pair left
  with no firing layer loses both its rows.

These functions recompute the edges that exist; for a person's entity change,
synapses.upkeep.entity_edges also lets the knots whose entities changed form the pairs they lack.
A corrected time anchor's new pairs are formed by a rebuild (`manage.py rebuild_edges`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from datetime import datetime

from django.db import transaction
from django.db.models import Q, QuerySet

from synapses import constants
from synapses.config import synapse_settings
from synapses.models import Edge, Knot
from synapses.net.edges import EdgesFormed, common_entities, entity_carriers_probe, entity_params
from synapses.net.geometry import (
    EdgeParameters,
    LayerHit,
    damp,
    edge_strength,
    embedding_depth,
    entity_layer,
    themes_depth,
    timeline_layer,
)
from synapses.net.selectors.candidates import entity_carriers

# The fields a recomputation reads of an edge and of its two knots (no vectors, no content).
_KNOT_FIELDS = ("weight_anchor", "entities", "themes", "event_time", "event_precision")
_EDGE_FIELDS = ("id", "mind_id", "source_id", "target_id", "layers", "shared_entities", "shared_themes")
_EDGE_FIELDS += ("time_distance", "cosine_initial", "weight_raw", "weight_anchor", "layer_count")
_UPDATED_FIELDS = ["weight_raw", "weight_anchor", "layers", "shared_entities", "shared_themes"]
_UPDATED_FIELDS += ["time_distance", "layer_count"]


def _frozen_hits(edge: Edge, params: EdgeParameters) -> dict[str, LayerHit]:
    """The layers the edge was formed with, their depths rebuilt from its frozen values."""
    source, target = edge.source, edge.target
    hits: dict[str, LayerHit] = {}
    if constants.LAYER_ENTITY in edge.layers:
        hits[constants.LAYER_ENTITY] = LayerHit(depth=1.0, shared=tuple(edge.shared_entities))
    if constants.LAYER_EMBEDDING in edge.layers and edge.cosine_initial is not None:
        # Below a since-raised threshold the layer stays, with depth 0 (it does not vanish by itself).
        depth = embedding_depth(edge.cosine_initial, params.embedding_threshold)
        hits[constants.LAYER_EMBEDDING] = LayerHit(depth=depth, cosine=edge.cosine_initial)
    if constants.LAYER_THEMES in edge.layers:
        depth, shared = themes_depth(source.themes, target.themes)
        if shared:
            hits[constants.LAYER_THEMES] = LayerHit(depth=depth, shared=shared)
    if constants.LAYER_TIMELINE in edge.layers and edge.time_distance is not None:
        tolerance = params.tolerances.get(source.event_precision)
        if tolerance:
            depth = min(max((tolerance - edge.time_distance) / tolerance, 0.0), 1.0)
            hits[constants.LAYER_TIMELINE] = LayerHit(depth=depth, distance=edge.time_distance)
    return hits


def _live_hit(edge: Edge, layer: str, params: EdgeParameters) -> LayerHit | None:
    """One layer evaluated again from the two knots' current values."""
    source, target = edge.source, edge.target
    if layer == constants.LAYER_ENTITY:
        return entity_layer(source.entities, target.entities)
    if layer == constants.LAYER_TIMELINE:
        return timeline_layer(
            source.event_time, source.event_precision, target.event_time, target.event_precision, params.tolerances
        )
    raise ValueError(f"only the entity and timeline layers change after promotion, not {layer!r}")


def _edges_recompute(edges: QuerySet[Edge], *, live: Collection[str], params: EdgeParameters) -> EdgesFormed:
    """Recompute the given edges (both rows of each pair must be among them); delete pairs left bare."""
    rows = list(
        edges.select_related("source", "target").only(
            *_EDGE_FIELDS, *(f"source__{name}" for name in _KNOT_FIELDS), *(f"target__{name}" for name in _KNOT_FIELDS)
        )
    )
    cap = synapse_settings.MAX_EDGE_PAIRS_PER_KNOT
    shared = sorted({entity for edge in rows for entity in (*edge.source.entities, *edge.target.entities)})
    mind_id = rows[0].mind_id if rows else ""
    carriers = entity_carriers(mind_id=mind_id, entity_ids=shared, carriers_probe=entity_carriers_probe(cap))
    common = common_entities(tuple(shared), carriers, cap)
    kept: list[Edge] = []
    bare: list[int] = []
    for edge in rows:
        hits = _frozen_hits(edge, params)
        for layer in live:
            hits.pop(layer, None)
            hit = _live_hit(edge, layer, params)
            if hit is not None and layer == constants.LAYER_ENTITY and common:  # as edge formation counts them
                kept_shared = tuple(entity for entity in hit.shared if entity not in common)
                hit = LayerHit(depth=1.0, shared=kept_shared) if kept_shared else None
            if hit is not None:
                hits[layer] = hit
        if not hits:
            bare.append(edge.pk)
            continue
        # The edge's own direction: its source plays A, so raw_ab is this row's weight.
        entity = hits.get(constants.LAYER_ENTITY)
        pair_params = params if entity is None else entity_params(params, entity.shared, carriers, cap)
        raw = edge_strength(edge.source.weight_anchor, edge.target.weight_anchor, hits, pair_params).raw_ab
        timeline = hits.get(constants.LAYER_TIMELINE)
        edge.weight_raw = raw
        edge.weight_anchor = damp(raw, cap=params.weight_cap, exponent=params.damping_exponent)
        edge.layers = [name for name in constants.LAYERS if name in hits]
        edge.shared_entities = list(hits[constants.LAYER_ENTITY].shared) if constants.LAYER_ENTITY in hits else []
        edge.shared_themes = list(hits[constants.LAYER_THEMES].shared) if constants.LAYER_THEMES in hits else []
        edge.time_distance = None if timeline is None else timeline.distance
        edge.layer_count = len(hits)
        kept.append(edge)
    if kept:
        Edge.objects.bulk_update(kept, _UPDATED_FIELDS)
    if bare:
        Edge.objects.filter(pk__in=bare).delete()
    pairs = _pairs(rows)
    kept_pairs = _pairs(kept)
    layer_counts = Counter(name for edge in _one_row_per_pair(kept) for name in edge.layers)
    return EdgesFormed(
        candidates=len(pairs),
        pairs_firing=len(kept_pairs),
        pairs_written=len(kept_pairs),
        layer_counts={name: layer_counts[name] for name in constants.LAYERS if layer_counts[name]},
    )


def _pairs(edges: Iterable[Edge]) -> set[frozenset[int]]:
    return {frozenset((edge.source_id, edge.target_id)) for edge in edges}


def _one_row_per_pair(edges: Iterable[Edge]) -> list[Edge]:
    return [edge for edge in edges if edge.source_id < edge.target_id]


def _edges_of(knot: Knot) -> QuerySet[Edge]:
    return Edge.objects.filter(Q(source=knot) | Q(target=knot), mind_id=knot.mind_id)


def knot_edges_recompute(*, knot: Knot, params: EdgeParameters | None = None) -> EdgesFormed:
    """Trigger 2: every edge from and to `knot`, from the knots' current anchors and the frozen layers.

    Call after the knot's `weight_anchor` changed (saved). `candidates` counts the knot's pairs,
    `pairs_written` those updated (all of them: no pair loses a frozen layer).
    """
    with transaction.atomic():
        return _edges_recompute(_edges_of(knot), live=(), params=params or synapse_settings.edge_parameters)


def entity_edges_recompute(
    *, mind_id: str, entity_id: int, former_ids: Collection[int] = (), params: EdgeParameters | None = None
) -> EdgesFormed:
    """Trigger 3 for an entity: the edges that carry it (or `former_ids`, entities merged into it).

    Call after the knots' `entities` were rewritten (a merge replaces the former ids with
    `entity_id`; a deleted entity is removed). The entity layer of every edge that carried one of
    the ids, or joins two knots that carry it now, is evaluated again from the knots' current
    entities; pairs left with no layer are deleted.
    """
    ids = [entity_id, *former_ids]
    carriers = Knot.objects.filter(mind_id=mind_id, entities__overlap=ids).values("pk")
    edges = Edge.objects.filter(
        Q(shared_entities__overlap=ids) | Q(source__in=carriers) | Q(target__in=carriers), mind_id=mind_id
    )
    with transaction.atomic():
        return _edges_recompute(
            edges, live=(constants.LAYER_ENTITY,), params=params or synapse_settings.edge_parameters
        )


def knot_time_anchor_correct(
    *, knot: Knot, event_time: datetime | None, event_precision: str, params: EdgeParameters | None = None
) -> EdgesFormed:
    """Trigger 3 for a time anchor: set the knot's corrected anchor and recompute its edges' timeline layer.

    `event_precision` is one of the seven precisions, or "" with no `event_time` (the anchor removed).
    """
    if event_time is None and event_precision:
        raise ValueError("a precision needs an event_time; remove both or give both")
    if event_time is not None and event_precision not in constants.PRECISIONS:
        raise ValueError(f"unknown time precision {event_precision!r}; known: {', '.join(constants.PRECISIONS)}")
    with transaction.atomic():
        Knot.objects.filter(pk=knot.pk).update(event_time=event_time, event_precision=event_precision)
        knot.event_time, knot.event_precision = event_time, event_precision
        return _edges_recompute(
            _edges_of(knot), live=(constants.LAYER_TIMELINE,), params=params or synapse_settings.edge_parameters
        )
