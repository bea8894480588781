"""Forming a knot's edges (docs/synapse-model.md §3): Trigger 1, the edges of a fresh knot.

Candidates come from indexes (synapses.selectors.edge_candidates), every layer of every pair is
evaluated with synapses.geometry, and of the pairs where a layer fires at most
MAX_EDGE_PAIRS_PER_KNOT are written, strongest first, both directions in one bulk insert.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from django.db import connection, transaction
from django.utils import timezone

from synapses import constants
from synapses.config import edge_parameters, setting
from synapses.geometry import (
    EdgeParameters,
    EdgeStrength,
    KnotFeatures,
    LayerHit,
    edge_strength,
    entity_rarity,
    layers_between,
)
from synapses.models import Edge, Knot
from synapses.selectors import Candidate, edge_candidates

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


@dataclass(frozen=True)
class _Pair:
    candidate: Candidate
    hits: dict[str, LayerHit]
    strength: EdgeStrength

    @property
    def rank(self) -> float:
        # Strongest first: the larger the two directions' anchors together.
        return self.strength.anchor_ab + self.strength.anchor_ba


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


def candidate_features(candidate: Candidate) -> KnotFeatures:
    return KnotFeatures(
        weight_anchor=candidate.weight_anchor,
        entities=candidate.entities,
        themes=candidate.themes,
        event_time=candidate.event_time,
        event_precision=candidate.event_precision,
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


# All rows of one formation in one statement, fed as one JSON array: the ORM's bulk_create built
# and converted 1,200 placeholders for 100 rows in Python, which took longer than PostgreSQL's
# insert (measured: 0.35 s of client work against 11 ms in the server on a loaded machine).
# Two formations of neighbouring knots in parallel (both knots committed, neither's edges yet)
# may both write their pair: the first one's rows stand (ON CONFLICT DO NOTHING).
_INSERT_SQL = """
INSERT INTO {edge} (mind_id, source_id, target_id, weight_raw, weight_anchor, layers, shared_entities,
                    shared_themes, time_distance, cosine_initial, layer_count, created_at)
SELECT %(mind_id)s, r.source_id, r.target_id, r.weight_raw, r.weight_anchor, r.layers, r.shared_entities,
       r.shared_themes, r.time_distance, r.cosine_initial, r.layer_count, %(now)s
  FROM jsonb_to_recordset(%(rows)s::jsonb) AS r(
       source_id bigint, target_id bigint, weight_raw double precision, weight_anchor double precision,
       layers varchar(16)[], shared_entities bigint[], shared_themes varchar(64)[],
       time_distance double precision, cosine_initial double precision, layer_count smallint)
ON CONFLICT DO NOTHING
"""


def edges_insert(*, mind_id: str, rows: list[dict[str, object]]) -> int:
    """Insert Edge rows (as edge_row gives them) in one statement; the number inserted."""
    if not rows:
        return 0
    with connection.cursor() as cursor:
        cursor.execute(
            _INSERT_SQL.format(edge=Edge._meta.db_table),
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


def _edges_form(*, knot: Knot, params: EdgeParameters, formed_before: bool) -> EdgesFormed:
    cap = setting("MAX_EDGE_PAIRS_PER_KNOT")
    found = edge_candidates(
        knot=knot,
        embedding_candidates=setting("EMBEDDING_CANDIDATES"),
        layer_candidates=constants.LAYER_CANDIDATES,
        tolerances=params.tolerances,
        common_carriers=cap,
        carriers_probe=constants.ENTITY_CARRIERS_PROBE,
        formed_before=formed_before,
    )
    own = knot_features(knot)
    pairs: list[_Pair] = []
    # Pairs sharing the same entities share their parameters: built once per formation, not per
    # pair (a knot of a common speaker shares it with most of its ~400 candidates).
    shared_params: dict[tuple[int, ...], EdgeParameters] = {}
    for candidate in found.candidates:
        hits = layers_between(own, candidate_features(candidate), params, cosine=candidate.cosine)
        if hits:
            entity = hits.get(constants.LAYER_ENTITY)
            if entity is None:
                pair_params = params
            else:
                pair_params = shared_params.get(entity.shared)
                if pair_params is None:
                    pair_params = entity_params(params, entity.shared, found.carriers, cap)
                    shared_params[entity.shared] = pair_params
            strength = edge_strength(own.weight_anchor, candidate.weight_anchor, hits, pair_params)
            pairs.append(_Pair(candidate=candidate, hits=hits, strength=strength))
    pairs.sort(key=lambda pair: (-pair.rank, pair.candidate.knot_id))
    written = pairs[:cap]
    rows: list[dict[str, object]] = []
    for pair in written:
        other, s = pair.candidate.knot_id, pair.strength
        common = {"hits": pair.hits, "cosine": pair.candidate.cosine}
        rows.append(edge_row(source=knot.pk, target=other, raw=s.raw_ab, anchor=s.anchor_ab, **common))
        rows.append(edge_row(source=other, target=knot.pk, raw=s.raw_ba, anchor=s.anchor_ba, **common))
    edges_insert(mind_id=knot.mind_id, rows=rows)
    layer_counts = Counter(name for pair in written for name in pair.hits)
    return EdgesFormed(
        candidates=len(found.candidates),
        pairs_firing=len(pairs),
        pairs_written=len(written),
        layer_counts={name: layer_counts[name] for name in constants.LAYERS if layer_counts[name]},
    )


def knot_edges_form(*, knot: Knot, params: EdgeParameters | None = None) -> EdgesFormed:
    """Trigger 1: write the edges of a freshly created active knot.

    Knots it already has an edge to are no candidates, so a second call only adds pairs it lacks.

    `params` defaults to the server's (synapses.config.edge_parameters: the embedder's calibrated
    embedding threshold). A fixed number of statements whatever the net's size: the vector plan,
    the candidates, one bulk insert (none when no layer fires); inside the caller's transaction,
    or a transaction of its own.
    """
    with transaction.atomic():
        return _edges_form(knot=knot, params=params or edge_parameters(), formed_before=False)


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
    params = params or edge_parameters()
    totals: Counter[str] = Counter()
    knots = pairs = 0
    with transaction.atomic():
        deleted, _ = Edge.objects.filter(mind_id=mind_id).delete()
        replay = (
            Knot.objects.filter(mind_id=mind_id, presence__is_active=True)
            .only(*_FORMATION_FIELDS)
            .order_by("source_created_at", "id")
        )
        for knot in replay.iterator(chunk_size=500):
            formed = _edges_form(knot=knot, params=params, formed_before=True)
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
