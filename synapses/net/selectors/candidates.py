"""Reading the long-term net: the candidates of a knot's edges (docs/synapse-model.md §3).

A knot is never compared with the whole mind. Its candidates are the union of four lists, each
answered by an index and each bounded, of the mind's **active** knots:

- the nearest `EMBEDDING_CANDIDATES` by cosine: an exact scan while the mind holds at most
  settings.SYNAPSE_EXACT_SCAN_MAX_ROWS active knots, else the HNSW index with pgvector's
  iterative scan (the same two plans as memories' vector search, docs/search.md);
- knots sharing an entity (GIN on `entities`), newest first, at most `LAYER_CANDIDATES`;
- knots sharing a theme (GIN on `themes`), newest first, at most `LAYER_CANDIDATES`;
- knots of the same precision inside the tolerance window (btree (mind, event_precision,
  event_time)), nearest in time first, at most `LAYER_CANDIDATES`.

Two statements whatever the mind's size: the plan (count up to the bound, HNSW settings as
SET LOCAL) and one statement of the lists joined by UNION ALL that returns each candidate once,
whole, with its cosine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np
from django.db import connection, models

from memories.selectors.vector_plan import (
    VectorPlan,
    exact_scan_probe,
    hnsw_settings,
    plan_for,
    rows_under_hnsw_settings,
)
from synapses import constants
from synapses.models import Knot
from synapses.net.sql import EDGE_CANDIDATES_SQL, ENTITY_CARRIERS_SQL, KNOT_PLAN_SQL, CandidateLists

# Calendar days a window must reach beyond `tolerance` units of each precision so that every
# anchor the timeline layer accepts lies inside it (days per unit, rounded up; the layer itself
# then measures the exact, unit-correct distance).
_DAYS_PER_UNIT = {"minute": 1, "hour": 1, "day": 1, "week": 7, "month": 31, "quarter": 92, "year": 366}
# Units of slack added to the tolerance: calendar units are counted between dates, so an anchor
# one unit further away in elapsed time may still be `tolerance` units away on the calendar.
_SLACK_UNITS = {"minute": 0, "hour": 0, "day": 1, "week": 1, "month": 1, "quarter": 1, "year": 1}


@dataclass(frozen=True)
class Candidate:
    """One active knot of the mind that may share a layer with the knot whose edges are formed.

    `entities`, `themes` and `event_time` are the candidate's only where they can make a layer
    with that knot (it shares an entity, a theme, or the precision of its time anchor), else
    empty or None: what the layers read of a pair is the same.
    """

    knot_id: int
    weight_anchor: float
    entities: tuple[int, ...]
    themes: tuple[str, ...]
    event_time: datetime | None
    event_precision: str
    cosine: float


def timeline_window(event_time: datetime, precision: str, tolerances: Mapping[str, float]) -> tuple[datetime, datetime]:
    """A time range holding every anchor of `precision` within its tolerance of `event_time` (wider, never narrower)."""
    days = (tolerances[precision] + _SLACK_UNITS[precision]) * _DAYS_PER_UNIT[precision]
    return event_time - timedelta(days=days), event_time + timedelta(days=days)


# The origin of the candidates' event times as the candidates statement sends them (microseconds since it).
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def net_hnsw_settings(candidates: int) -> dict[str, str]:
    """hnsw.* settings of a search of the net that wants `candidates` rows: the candidate list
    only as long as the rows wanted (at least constants.NET_MIN_EF_SEARCH), the scan-tuple bound as memories'.

    Not settings.SYNAPSE_HNSW_EF_SEARCH (1,000, memories' recall setting): with it PostgreSQL
    costs the HNSW scan above a sequential scan of the whole mind and computes every distance
    (measured at 20,000 knots: 63,000 buffers and 300 ms per match test, against 400 buffers and
    14 ms at 40). The match test wants the nearest few, edge formation its 200 nearest; the other
    candidate lists and the iterative scan cover what a shorter list misses.
    """
    return hnsw_settings(candidates, ef_search_floor=constants.NET_MIN_EF_SEARCH)


def rows_under_net_hnsw_settings(cursor, message: str, params: dict[str, object], *, candidates: int) -> list[tuple]:
    """The rows of `message` (a search built with vector_plan.under_hnsw_settings at import), run
    under the net's HNSW settings for `candidates` rows (net_hnsw_settings): one round trip. The
    net's own settings, not memories' recall setting: resonance's anchors need no BEGIN, settings
    statement and COMMIT of their own, promotion's match test no settings statement per memory."""
    return rows_under_hnsw_settings(cursor, message, params, net_hnsw_settings(candidates))


def vector_literal(vector: Sequence[float] | np.ndarray) -> str:
    """`[0.1,-0.2,…]`, pgvector's text form."""
    return "[" + ",".join(map(str, np.asarray(vector, dtype=np.float64).tolist())) + "]"


@dataclass
class NetFacts:
    """What one promotion run learned of the net and keeps for its later memories and batches.

    Both facts only grow truer under promotion's own writes, which only add knots: a mind found
    above the exact-scan bound stays above it (its plan is HNSW without counting again), and an
    entity counted up to a probe stays carried by at least that many knots (a common entity is
    not counted again). Only another transaction deleting knots (a memory deleted, entities
    merged) could make one stale, and then only until the run ends (one sweep: seconds).
    """

    # Minds whose knots (all of them: the match test's count) exceeded SYNAPSE_EXACT_SCAN_MAX_ROWS.
    knots_above_bound: set[str] = field(default_factory=set)
    # Minds whose active knots (edge formation's count) exceeded SYNAPSE_EXACT_SCAN_MAX_ROWS.
    active_above_bound: set[str] = field(default_factory=set)
    # Entity id → the carriers counted for it (knots, up to the probe of that count).
    carriers_at_least: dict[int, int] = field(default_factory=dict)

    def carriers_known(self, entity: int, probe: int) -> int | None:
        """The entity's carriers counted up to `probe` when a count already reached it, else None."""
        counted = self.carriers_at_least.get(entity, 0)
        return probe if counted >= probe > 0 else None


@dataclass(frozen=True)
class KnotPlan:
    vector_plan: VectorPlan
    carriers: dict[int, int]  # entity id → knots of the mind carrying it, counted up to the probe


def knot_vector_plan(
    *,
    mind_id: str,
    candidates: int,
    entities: Sequence[int] = (),
    carriers_probe: int = 0,
    facts: NetFacts | None = None,
) -> KnotPlan:
    """Choose the plan of this transaction's nearest-knot search and set its HNSW settings; count
    the carriers of `entities` up to `carriers_probe` on the way.

    With `facts` (a promotion batch's), a mind it knows above the bound is not counted again, nor
    an entity whose carriers reached the probe; what this call counts is added to them. Call
    inside the transaction that runs the search: the settings are local to it.
    """
    known_above = facts is not None and mind_id in facts.active_above_bound
    known: dict[int, int] = {}  # entity → carriers the batch already counted up to the probe
    if facts is not None:
        for entity in entities:
            if (count := facts.carriers_known(entity, carriers_probe)) is not None:
                known[entity] = count
    counted = [entity for entity in entities if entity not in known]
    params = {
        "mind_id": mind_id,
        "probe": 0 if known_above else exact_scan_probe(),
        "entities": counted,
        "carriers_probe": carriers_probe,
        **net_hnsw_settings(candidates),
    }
    with connection.cursor() as cursor:
        cursor.execute(KNOT_PLAN_SQL, params)
        active, carriers = cursor.fetchone()[:2]
    carriers_of = {**known, **dict(zip(counted, carriers or (), strict=False))}
    above = known_above or plan_for(active) is VectorPlan.HNSW
    if facts is not None:
        if above:
            facts.active_above_bound.add(mind_id)
        for entity in counted:
            facts.carriers_at_least[entity] = max(facts.carriers_at_least.get(entity, 0), carriers_of.get(entity, 0))
    return KnotPlan(vector_plan=VectorPlan.HNSW if above else VectorPlan.EXACT, carriers=carriers_of)


@dataclass(frozen=True)
class EdgeCandidates:
    candidates: list[Candidate]
    carriers: dict[int, int]  # the knot's entities → knots of the mind carrying each (up to the probe)


def edge_candidates(
    *,
    knot: Knot,
    embedding_candidates: int,
    layer_candidates: int,
    tolerances: Mapping[str, float],
    common_carriers: int,
    carriers_probe: int,
    formed_before: bool = False,
    facts: NetFacts | None = None,
) -> EdgeCandidates:
    """The active knots of `knot`'s mind that may share a layer with it and have no edge from it yet, each once, by id.

    The entity list looks only for the knot's entities that at most `common_carriers` knots carry:
    the carriers of a more common one (a conversation's speaker) are too many for any one list,
    and its pairs are weak (synapses.net.geometry.entity_rarity); they still count when another list
    finds the knot. `formed_before`: only knots that came before it in the mind's chronology
    (source_created_at, then id) — a rebuild replays the net so, and each pair is seen once, from
    its later knot. `facts`: a promotion batch's (knot_vector_plan). Two statements; call inside
    a transaction (the HNSW settings are local to it).
    """
    entities = list(knot.entities or ())
    plan = knot_vector_plan(
        mind_id=knot.mind_id,
        candidates=embedding_candidates,
        entities=entities,
        carriers_probe=carriers_probe,
        facts=facts,
    )
    rare = [entity for entity in entities if plan.carriers.get(entity, 0) <= common_carriers]
    params: dict[str, object] = {
        "mind_id": knot.mind_id,
        "knot_id": knot.pk,
        "vector": vector_literal(knot.embedding),
        "embedding_candidates": embedding_candidates,
        "layer_candidates": layer_candidates,
        "before_at": knot.source_created_at,
        "before_id": knot.pk,
        "own_entities": entities,
        "own_themes": list(knot.themes or ()),
        "own_precision": (knot.event_precision or None) if knot.event_time is not None else None,
    }
    timeline = knot.event_time is not None and knot.event_precision in tolerances
    lists = CandidateLists(
        plan=plan.vector_plan, formed_before=formed_before, entity=bool(rare), themes=bool(knot.themes),
        timeline=timeline,
    )  # fmt: skip
    if rare:
        params["entities"] = rare
    if knot.themes:
        params["themes"] = list(knot.themes)
    if timeline:
        time_from, time_to = timeline_window(knot.event_time, knot.event_precision, tolerances)
        params.update(precision=knot.event_precision, time_from=time_from, time_to=time_to, event_time=knot.event_time)
    sql = EDGE_CANDIDATES_SQL[lists]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    candidates = [
        Candidate(
            knot_id=row[0],
            weight_anchor=row[1],
            entities=tuple(row[2] or ()),
            themes=tuple(row[3] or ()),
            event_time=None if row[4] is None else _EPOCH + timedelta(microseconds=row[4]),
            event_precision=row[5] or "",
            cosine=float(row[6]),
        )
        for row in rows
    ]
    return EdgeCandidates(candidates=candidates, carriers=plan.carriers)


def entity_carriers(*, mind_id: str, entity_ids: Sequence[int], carriers_probe: int) -> dict[int, int]:
    """How many knots of the mind carry each entity, counted up to `carriers_probe`. One statement."""
    if not entity_ids:
        return {}
    params = {"mind_id": mind_id, "entities": list(entity_ids), "carriers_probe": carriers_probe}
    with connection.cursor() as cursor:
        cursor.execute(ENTITY_CARRIERS_SQL, params)
        return dict(cursor.fetchall())


@dataclass(frozen=True)
class VectorSample:
    """Embeddings of some of a mind's knots, for calibration."""

    embedding_model: str  # the model every vector of the sample comes from
    knots: int  # the mind's knots of that model
    vectors: np.ndarray  # (sampled, dimensions)
    contents: tuple[str, ...]  # the sampled knots' contents, in the order of `vectors`


def knot_vectors_sample(
    *, mind_id: str, max_knots: int, rng: np.random.Generator, embedding_model: str | None = None
) -> VectorSample:
    """Up to `max_knots` of the mind's knots, drawn uniformly, of one embedding model.

    The model is `embedding_model`, else the one most of the mind's knots have (vectors of two
    models are not comparable). Two statements: the ids (from an index), the sampled vectors.
    """
    from synapses.net.calibration import sample_indices  # pure; imported here to keep the module's top light

    knots = Knot.objects.filter(mind_id=mind_id)
    if embedding_model is None:
        counts = knots.values("embedding_model").annotate(n=models.Count("id")).order_by("-n", "embedding_model")
        top = counts.first()
        if top is None:
            return VectorSample(embedding_model="", knots=0, vectors=np.empty((0, 0)), contents=())
        embedding_model = top["embedding_model"]
    ids = list(knots.filter(embedding_model=embedding_model).order_by("id").values_list("id", flat=True))
    chosen = [ids[i] for i in sample_indices(len(ids), max_knots=max_knots, rng=rng)]
    rows = list(Knot.objects.filter(pk__in=chosen).order_by("id").values_list("embedding", "content"))
    vectors = np.array([np.asarray(vector, dtype=np.float64) for vector, _ in rows])
    contents = tuple(content for _, content in rows)
    return VectorSample(embedding_model=embedding_model, knots=len(ids), vectors=vectors, contents=contents)
