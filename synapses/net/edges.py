"""Forming a knot's edges (docs/synapse-model.md §3): Trigger 1, the edges of a fresh knot.

Candidates come from indexes (synapses.net.selectors.candidates.edge_candidates), every layer of every pair is
evaluated at once (a depth matrix, then synapses.net.geometry.edge_strengths over all candidates as
arrays), an entity too common in the mind counts for no pair (ENTITY_COMMON_RARITY), and of the
pairs where a layer fires at most MAX_EDGE_PAIRS_PER_KNOT are written, strongest first, both
directions in one bulk insert.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
from django.db import connection, transaction
from django.utils import timezone

from synapses import constants
from synapses.config import synapse_settings
from synapses.models import Edge, Knot
from synapses.net.geometry import (
    LAYER_COLUMNS,
    EdgeParameters,
    KnotFeatures,
    LayerHit,
    edge_strengths,
    entity_rarity,
    themes_depth,
    timeline_depth,
)
from synapses.net.selectors.candidates import Candidate, NetFacts, edge_candidates
from synapses.net.sql import EDGES_INSERT_SQL

# What edge formation reads of a knot (no content, no full-text vector).
_FORMATION_FIELDS = (
    "id",
    "mind_id",
    "embedding",
    "entities",
    "themes",
    "event_time",
    "event_precision",
    "weight_anchor",
    "source_created_at",
)


@dataclass(frozen=True)
class EdgesFormed:
    """What one edge formation did."""

    candidates: int  # distinct active knots the indexes offered
    pairs_firing: int  # of them, those sharing at least one layer
    pairs_written: int  # pairs written (two Edge rows each), at most MAX_EDGE_PAIRS_PER_KNOT
    layer_counts: dict[str, int] = field(default_factory=dict)  # per layer: written pairs it fires in


def knot_features(knot: Knot) -> KnotFeatures:
    """What the geometry needs of a knot row."""
    return KnotFeatures(
        weight_anchor=knot.weight_anchor,
        embedding=knot.embedding,
        entities=tuple(knot.entities or ()),
        themes=tuple(knot.themes or ()),
        event_time=knot.event_time,
        event_precision=knot.event_precision or "",
    )


def edge_row(
    *, source: int, target: int, hits: dict[str, LayerHit], raw: float, anchor: float, cosine: float | None
) -> dict[str, object]:
    """One direction of a pair as the columns of an Edge row (the layer values are the pair's, shared by both)."""
    timeline = hits.get(constants.LAYER_TIMELINE)
    return {
        "source_id": source,
        "target_id": target,
        "weight_raw": raw,
        "weight_anchor": anchor,
        "layers": [name for name in constants.LAYERS if name in hits],
        "shared_entities": list(hits[constants.LAYER_ENTITY].shared) if constants.LAYER_ENTITY in hits else [],
        "shared_themes": list(hits[constants.LAYER_THEMES].shared) if constants.LAYER_THEMES in hits else [],
        "time_distance": None if timeline is None else timeline.distance,
        "cosine_initial": cosine,
        "layer_count": len(hits),
    }


def edges_insert(*, mind_id: str, rows: list[dict[str, object]]) -> int:
    """Insert Edge rows (as edge_row gives them) in one statement; the number inserted."""
    if not rows:
        return 0
    with connection.cursor() as cursor:
        cursor.execute(
            EDGES_INSERT_SQL,
            {"mind_id": mind_id, "now": timezone.now(), "rows": json.dumps(rows)},
        )
        return cursor.rowcount


def entity_params(
    params: EdgeParameters, shared: tuple[int, ...], carriers: dict[int, int], cap: int
) -> EdgeParameters:
    """`params` with the entity layer's factor scaled by the rarest shared entity's rarity.

    The parameters themselves when every shared entity is rare enough to count in full.
    """
    rarity = max((entity_rarity(carriers.get(entity, 0), cap) for entity in shared), default=1.0)
    if rarity >= 1.0:
        return params
    factors = dict(params.layer_factors)
    factors[constants.LAYER_ENTITY] = factors[constants.LAYER_ENTITY] * rarity
    return replace(params, layer_factors=factors)


def entity_carriers_probe(cap: int) -> int:
    """How far the carriers of an entity are counted (knots): one beyond the most an entity may
    have and still count (cap / ENTITY_COMMON_RARITY), so a count that reaches it says "common"."""
    return math.floor(cap / constants.ENTITY_COMMON_RARITY) + 1


def common_entities(entities: tuple[int, ...], carriers: dict[int, int], cap: int) -> frozenset[int]:
    """The entities of `entities` so common in the mind that they make no entity layer at all:
    their rarity weight (entity_rarity) is below ENTITY_COMMON_RARITY (docs/synapse-model.md §3)."""
    return frozenset(
        entity for entity in entities if entity_rarity(carriers.get(entity, 0), cap) < constants.ENTITY_COMMON_RARITY
    )


@dataclass(frozen=True)
class _Shared:
    """What one candidate shares with the new knot, beyond its cosine."""

    entities: tuple[int, ...]
    themes: tuple[str, ...]
    time_distance: float | None


def _pair_depths(
    own: KnotFeatures, candidates: list[Candidate], params: EdgeParameters, *, counted_entities: frozenset[int]
) -> tuple[np.ndarray, list[_Shared]]:
    """The n × 4 depth matrix of the candidates (NaN where a layer does not fire, columns
    LAYER_COLUMNS) and what each shares. The embedding column is computed from the cosines the
    database returned, in one array operation; the other three per candidate with the scalar
    layer functions (set intersections and, for anchors of the same precision, one distance)."""
    depths = np.full((len(candidates), len(constants.LAYERS)), np.nan)
    cosines = np.fromiter((candidate.cosine for candidate in candidates), dtype=np.float64, count=len(candidates))
    threshold = params.embedding_threshold
    if threshold < 1.0:
        fires = cosines > threshold
        embedding_column = depths[:, LAYER_COLUMNS[constants.LAYER_EMBEDDING]]
        embedding_column[fires] = np.clip((cosines[fires] - threshold) / (1.0 - threshold), 0.0, 1.0)
    own_themes = {theme for theme in own.themes if theme}
    own_precision = own.event_precision if own.event_time is not None else ""
    entity_column, themes_column = LAYER_COLUMNS[constants.LAYER_ENTITY], LAYER_COLUMNS[constants.LAYER_THEMES]
    timeline_column = LAYER_COLUMNS[constants.LAYER_TIMELINE]
    shared: list[_Shared] = []
    # Candidates repeat a handful of theme sets (a mind's tags): each set's depth is computed once.
    depth_of_themes: dict[tuple[str, ...], tuple[float, tuple[str, ...]]] = {}
    for row, candidate in enumerate(candidates):
        entities = tuple(sorted(counted_entities.intersection(candidate.entities))) if counted_entities else ()
        if entities:
            depths[row, entity_column] = 1.0
        themes: tuple[str, ...] = ()
        if own_themes and candidate.themes:
            known = depth_of_themes.get(candidate.themes)
            if known is None:
                known = depth_of_themes[candidate.themes] = themes_depth(own_themes, candidate.themes)
            depth, themes = known
            if themes:
                depths[row, themes_column] = depth
        distance = None
        if own_precision and candidate.event_precision == own_precision and candidate.event_time is not None:
            depth, distance = timeline_depth(
                own.event_time, own_precision, candidate.event_time, candidate.event_precision, params.tolerances
            )
            if distance is not None:
                depths[row, timeline_column] = depth
        shared.append(_Shared(entities=entities, themes=themes, time_distance=distance))
    return depths, shared


def _hits(depths: np.ndarray, shared: _Shared, cosine: float) -> dict[str, LayerHit]:
    """The firing layers of one pair as LayerHits (for the written pairs' rows)."""
    hits: dict[str, LayerHit] = {}
    for name, column in LAYER_COLUMNS.items():
        depth = depths[column]
        if np.isnan(depth):
            continue
        if name == constants.LAYER_ENTITY:
            hits[name] = LayerHit(depth=float(depth), shared=shared.entities)
        elif name == constants.LAYER_EMBEDDING:
            hits[name] = LayerHit(depth=float(depth), cosine=cosine)
        elif name == constants.LAYER_THEMES:
            hits[name] = LayerHit(depth=float(depth), shared=shared.themes)
        else:
            hits[name] = LayerHit(depth=float(depth), distance=shared.time_distance)
    return hits


def _edges_form(
    *, knot: Knot, params: EdgeParameters, formed_before: bool, facts: NetFacts | None = None
) -> EdgesFormed:
    cap = synapse_settings.MAX_EDGE_PAIRS_PER_KNOT
    found = edge_candidates(
        knot=knot,
        embedding_candidates=synapse_settings.EMBEDDING_CANDIDATES,
        layer_candidates=constants.LAYER_CANDIDATES,
        tolerances=params.tolerances,
        common_carriers=cap,
        carriers_probe=entity_carriers_probe(cap),
        formed_before=formed_before,
        facts=facts,
    )
    own = knot_features(knot)
    candidates = found.candidates
    counted = frozenset(own.entities) - common_entities(own.entities, found.carriers, cap)
    depths, shared = _pair_depths(own, candidates, params, counted_entities=counted)
    # The entity layer's factor per pair: the largest rarity among its shared entities (as
    # entity_params), computed once per distinct shared set.
    rarity_of: dict[tuple[int, ...], float] = {}
    scale = np.ones(len(candidates))
    for row, pair in enumerate(shared):
        if pair.entities:
            rarity = rarity_of.get(pair.entities)
            if rarity is None:
                rarity = max(entity_rarity(found.carriers.get(entity, 0), cap) for entity in pair.entities)
                rarity_of[pair.entities] = rarity
            scale[row] = rarity
    anchors = np.fromiter((c.weight_anchor for c in candidates), dtype=np.float64, count=len(candidates))
    strengths = edge_strengths(own.weight_anchor, anchors, depths, params, entity_scale=scale)
    firing = np.flatnonzero(strengths.fires)
    ids = np.fromiter((c.knot_id for c in candidates), dtype=np.int64, count=len(candidates))
    rank = strengths.anchor_ab + strengths.anchor_ba
    # Strongest first (the two directions' anchors together), then the older knot (lower id).
    written = firing[np.lexsort((ids[firing], -rank[firing]))][:cap]
    rows: list[dict[str, object]] = []
    layer_counts: Counter[str] = Counter()
    for index in written.tolist():
        candidate = candidates[index]
        hits = _hits(depths[index], shared[index], candidate.cosine)
        layer_counts.update(hits.keys())
        common = {"hits": hits, "cosine": candidate.cosine}
        rows.append(edge_row(source=knot.pk, target=candidate.knot_id, raw=float(strengths.raw_ab[index]),
                             anchor=float(strengths.anchor_ab[index]), **common))  # fmt: skip
        rows.append(edge_row(source=candidate.knot_id, target=knot.pk, raw=float(strengths.raw_ba[index]),
                             anchor=float(strengths.anchor_ba[index]), **common))  # fmt: skip
    edges_insert(mind_id=knot.mind_id, rows=rows)
    return EdgesFormed(
        candidates=len(candidates),
        pairs_firing=len(firing),
        pairs_written=len(written),
        layer_counts={name: layer_counts[name] for name in constants.LAYERS if layer_counts[name]},
    )


def knot_edges_form(*, knot: Knot, params: EdgeParameters | None = None, facts: NetFacts | None = None) -> EdgesFormed:
    """Trigger 1: write the edges of a freshly created active knot.

    Knots it already has an edge to are no candidates, so a second call only adds pairs it lacks.

    `params` defaults to the server's (synapses.config.synapse_settings.edge_parameters: the embedder's calibrated
    embedding threshold). A fixed number of statements whatever the net's size: the vector plan,
    the candidates, one bulk insert (none when no layer fires); inside the caller's transaction
    (no savepoint: an error aborts the caller's transaction or savepoint), or a transaction of
    its own. `facts`: what the caller's batch learned of the net (synapses.net.selectors.candidates.NetFacts).
    """
    # No savepoint of its own inside a transaction (a promotion's): a failure there rolls the
    # caller's unit of work back anyway, and the pair of statements is saved per knot.
    with transaction.atomic(savepoint=False):
        return _edges_form(
            knot=knot, params=params or synapse_settings.edge_parameters, formed_before=False, facts=facts
        )


@dataclass(frozen=True)
class EdgesRebuilt:
    """What one rebuild of a mind's edges did."""

    knots: int  # active knots replayed, oldest first
    edges_deleted: int  # Edge rows dropped before
    pairs_written: int  # pairs written (two rows each)
    layer_counts: dict[str, int] = field(default_factory=dict)  # per layer: written pairs it fires in


def mind_edges_rebuild(
    *, mind_id: str, params: EdgeParameters | None = None, progress: Callable[[EdgesFormed], None] | None = None
) -> EdgesRebuilt:
    """Drop a mind's edges and form them again, replaying its active knots chronologically.

    In source_created_at order (then id), each knot forms edges with the active knots before it,
    as Trigger 1 did when it was promoted, but with today's anchors, magnets and thresholds (after
    a re-embedding, a new embedder or new thresholds). One transaction: readers see the old
    edges until the new ones are complete, and a rebuild that fails leaves the old ones.
    `progress` is called after each knot.
    """
    params = params or synapse_settings.edge_parameters
    totals: Counter[str] = Counter()
    knots = pairs = 0
    facts = NetFacts()  # one transaction: what one knot's formation counted holds for the next
    with transaction.atomic():
        deleted, _ = Edge.objects.filter(mind_id=mind_id).delete()
        replay = (
            Knot.objects.filter(mind_id=mind_id, presence__is_active=True)
            .only(*_FORMATION_FIELDS)
            .order_by("source_created_at", "id")
        )
        for knot in replay.iterator(chunk_size=500):
            formed = _edges_form(knot=knot, params=params, formed_before=True, facts=facts)
            knots += 1
            pairs += formed.pairs_written
            totals.update(formed.layer_counts)
            if progress is not None:
                progress(formed)
    return EdgesRebuilt(
        knots=knots,
        edges_deleted=deleted,
        pairs_written=pairs,
        layer_counts={name: totals[name] for name in constants.LAYERS if totals[name]},
    )
