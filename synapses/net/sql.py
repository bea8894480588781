"""The net's own statements, written whole: the plan of a knot's nearest-knot search, the
candidates of its edges, the carriers of entities and the insert of edges (docs/synapse-model.md
§3), and the counts and entity lookups of the net's reads.

Every statement is built here once, at import, with the table names of `synapses.net.tables`;
the candidates statement is a mapping of its variants (which lists a knot needs, which plan,
whether a rebuild limits it to earlier knots), every variant listed in EDGE_CANDIDATES_SQL. No
statement text is built per call.
"""

from __future__ import annotations

from itertools import product
from typing import NamedTuple

from memories.selectors.vector_plan import HNSW_SETTINGS_COLUMNS, VectorPlan, distance_orders
from synapses.net.tables import TABLES

# How many active knots the mind has, counted up to the exact-scan bound from the presence
# table's (mind, is_active) index alone; how many knots carry each of the given entities (GIN on
# entities), each counted up to a probe; and this transaction's HNSW settings (set_config(…, true)
# is SET LOCAL). One statement, whichever plan follows.
KNOT_PLAN_SQL = """
SELECT count(*),
       (SELECT coalesce(array_agg(carriers.n ORDER BY e.ord), '{{}}')
          FROM unnest(%(entities)s::bigint[]) WITH ORDINALITY AS e(id, ord),
               LATERAL (SELECT count(*) AS n FROM (SELECT 1 FROM {knot} k
                         WHERE k.mind_id = %(mind_id)s AND k.entities @> ARRAY[e.id] LIMIT %(carriers_probe)s) AS c
               ) AS carriers),
       {hnsw_settings}
  FROM (SELECT 1 FROM {presence} WHERE mind_id = %(mind_id)s AND is_active LIMIT %(probe)s) AS active_knots
""".format(**TABLES, hnsw_settings=HNSW_SETTINGS_COLUMNS)

# How many knots of the mind carry each entity, counted up to a probe.
ENTITY_CARRIERS_SQL = """
SELECT e.id, (SELECT count(*) FROM (SELECT 1 FROM {knot} k
               WHERE k.mind_id = %(mind_id)s AND k.entities @> ARRAY[e.id] LIMIT %(carriers_probe)s) AS c)
  FROM unnest(%(entities)s::bigint[]) AS e(id)
""".format(**TABLES)

# --- the candidates of a knot's edges ----------------------------------------------------------

# The mind's active knots other than the one whose edges are formed (and, when rebuilding, only
# those formed before it), in two forms. The nearest-vector list joins the presence table: its
# exact plan reads every active knot of a small mind anyway. The layer lists probe each knot
# they find by the presence's primary key (a scalar subquery is a per-row probe the planner
# cannot turn into a hash join): measured at 100,000 knots, the timeline list's hash join read
# all 100,000 presence rows to keep the 1,532 knots of its time window.
_ACTIVE_OTHERS = """FROM {knot} k JOIN {presence} p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s {before}"""
_ACTIVE_OTHERS_PROBED = """FROM {knot} k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s {before}
      AND (SELECT p.is_active FROM {presence} p WHERE p.knot_id = k.id)"""
_BEFORE = "AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)"

# What every list returns of a knot: its columns as edge formation reads them, and its cosine to
# the new knot. Entities, themes and the event time only where they can make a layer with the new
# knot (an overlap, the same precision), else NULL: most candidates share none of them, and the
# client then decodes no array and no timestamp for them (measured at 100,000 knots: the decoding
# of ~600 candidates' arrays and timestamps was most of a formation's Python).
_COLUMNS = """k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding"""

_NEAREST_LIST = "SELECT {columns} {others} ORDER BY {order} LIMIT %(embedding_candidates)s"
_ENTITY_LIST = (
    "SELECT {columns} {probed} AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s"
)
_THEMES_LIST = (
    "SELECT {columns} {probed} AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s"
)
# The nearest in time of the window: the nearest after the anchor and the nearest before it, each
# read in the time index's order and stopped at the list's length, then the nearest of both (the
# same knots as ordering the whole window by distance, without reading all of it). Its rows have
# the new knot's precision, so their event_time column is the knot's own.
_TIMELINE_LIST = (
    "SELECT around.* FROM ("
    "(SELECT {columns} {probed} AND k.event_precision = %(precision)s"
    " AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s"
    " ORDER BY k.event_time LIMIT %(layer_candidates)s)"
    " UNION ALL "
    "(SELECT {columns} {probed} AND k.event_precision = %(precision)s"
    " AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s"
    " ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)"
    ") AS around"
    " ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s"
)

# The lists' rows as they come (a knot two lists found twice, identical), each knot once, without
# those the new knot has an edge to. The rows carry their columns: no second read of the knots.
# The cosine is computed here, once per candidate, not in the lists: the vectors are stored out of
# line (TOAST), so each computation reads the vector's own pages, and the timeline list reads up
# to twice its length before it keeps the nearest half. The event time travels as microseconds
# since the epoch (an integer, exact): psycopg decodes a timestamptz in Python, an integer in C
# (measured at 100,000 knots: a few hundred per formation were a tenth of its Python).
_CANDIDATES = """
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ({lists}) AS c
         WHERE NOT EXISTS (SELECT 1 FROM {edge} e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id
"""


class CandidateLists(NamedTuple):
    """Which variant of the candidates statement a knot needs: the nearest-vector list always (in
    `plan`), each layer list only when the knot can make that layer, and a rebuild's bound."""

    plan: VectorPlan
    formed_before: bool  # only knots before this one in the mind's chronology (a rebuild)
    entity: bool  # the knot has a rare entity
    themes: bool  # the knot has themes
    timeline: bool  # the knot has a time anchor of a precision with a tolerance


def _candidates_statement(lists: CandidateLists) -> str:
    before = _BEFORE if lists.formed_before else ""
    others = _ACTIVE_OTHERS.format(before=before, **TABLES)
    probed = _ACTIVE_OTHERS_PROBED.format(before=before, **TABLES)
    order = distance_orders("k.embedding")[lists.plan]
    chosen = [_NEAREST_LIST.format(columns=_COLUMNS, others=others, order=order)]
    chosen += [
        template.format(columns=_COLUMNS, probed=probed)
        for wanted, template in (
            (lists.entity, _ENTITY_LIST),
            (lists.themes, _THEMES_LIST),
            (lists.timeline, _TIMELINE_LIST),
        )  # fmt: skip
        if wanted
    ]
    return _CANDIDATES.format(lists=" UNION ALL ".join(f"({sql})" for sql in chosen), **TABLES)


# Every variant of the candidates statement (2 plans × 2 bounds × 2³ layer lists), built at import.
EDGE_CANDIDATES_SQL: dict[CandidateLists, str] = {
    lists: _candidates_statement(lists)
    for lists in (CandidateLists(*flags) for flags in product(VectorPlan, (False, True), *[(False, True)] * 3))
}

# All rows of one formation in one statement, fed as one JSON array: the ORM's bulk_create built
# and converted 1,200 placeholders for 100 rows in Python, which took longer than PostgreSQL's
# insert (measured: 0.35 s of client work against 11 ms in the server on a loaded machine).
# Two formations of neighbouring knots in parallel (both knots committed, neither's edges yet)
# may both write their pair: the first one's rows stand (ON CONFLICT DO NOTHING).
EDGES_INSERT_SQL = """
INSERT INTO {edge} (mind_id, source_id, target_id, weight_raw, weight_anchor, layers, shared_entities,
                    shared_themes, time_distance, cosine_initial, layer_count, created_at)
SELECT %(mind_id)s, r.source_id, r.target_id, r.weight_raw, r.weight_anchor, r.layers, r.shared_entities,
       r.shared_themes, r.time_distance, r.cosine_initial, r.layer_count, %(now)s
  FROM jsonb_to_recordset(%(rows)s::jsonb) AS r(
       source_id bigint, target_id bigint, weight_raw double precision, weight_anchor double precision,
       layers varchar(16)[], shared_entities bigint[], shared_themes varchar(64)[],
       time_distance double precision, cosine_initial double precision, layer_count smallint)
ON CONFLICT DO NOTHING
""".format(**TABLES)

# --- reads of the API and the memory answers ---------------------------------------------------

# Edges, entities and goals of one mind (each count uses an index led by mind).
MIND_COUNTS_SQL = """
SELECT (SELECT count(*) FROM {edge} WHERE mind_id = %(mind)s),
       (SELECT count(*) FROM {entity} WHERE mind_id = %(mind)s),
       (SELECT count(*) FROM {goal} WHERE mind_id = %(mind)s),
       (SELECT count(*) FROM {goal} WHERE mind_id = %(mind)s AND active)
""".format(**TABLES)

# The ids of the mind's entities called a name or having it as an alias (any case).
ENTITY_IDS_NAMED_SQL = """
SELECT e.id FROM {entity} e
 WHERE e.mind_id = %(mind)s
   AND (lower(e.name) = lower(%(name)s) OR EXISTS (SELECT 1 FROM unnest(e.aliases) a WHERE lower(a) = lower(%(name)s)))
 ORDER BY e.id
""".format(**TABLES)

# How many knots of the mind carry each of some entities (the GIN index on `entities`).
ENTITY_KNOT_COUNTS_SQL = """
SELECT e, count(*) FROM {knot}, unnest(entities) AS e
 WHERE mind_id = %(mind)s AND entities && %(ids)s::bigint[] AND e = ANY(%(ids)s::bigint[])
 GROUP BY e
""".format(**TABLES)
