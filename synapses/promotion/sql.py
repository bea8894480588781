"""Every statement promotion writes by hand, whole, built once at import.

Table names come from `synapses.net.tables.TABLES`; the match test's two plans are listed as a
mapping (one statement per plan), never assembled per call. Parameters are named (`%(mind)s`).
"""

from __future__ import annotations

from memories.selectors.vector_plan import HNSW_SETTINGS_COLUMNS, VectorPlan, distance_orders, under_hnsw_settings
from synapses.net.tables import TABLES

# The mind's knot count up to the exact-scan bound (an index-only scan of the knots' (mind, …)
# unique index) and this transaction's HNSW settings, in one statement, as memories' vector search
# does (docs/search.md, "The vector half").
PLAN_SQL = """
SELECT count(*),
       {settings}
  FROM (SELECT 1 FROM {knot} WHERE mind_id = %(mind)s LIMIT %(probe)s) AS mind_knots
""".format(settings=HNSW_SETTINGS_COLUMNS, **TABLES)  # noqa: S608 — only constants, at import

# The nearest knots of the mind that belong to other memories, with their presence and content
# (the match test's contrast rule reads it), in the order of each plan (vector_plan.distance_orders:
# the exact plan computes every distance).
_NEAREST_TEMPLATE = """
SELECT nearest.id, nearest.distance, presence.is_active, nearest.content
  FROM (SELECT id, embedding <=> %(vector)s::vector AS distance, content
          FROM {knot}
         WHERE mind_id = %(mind)s AND memory_id <> %(memory)s
         ORDER BY {order}
         LIMIT %(candidates)s) AS nearest
  JOIN {presence} AS presence ON presence.knot_id = nearest.id
"""
NEAREST_SQL: dict[VectorPlan, str] = {
    plan: _NEAREST_TEMPLATE.format(order=order, **TABLES) for plan, order in distance_orders("embedding").items()
}
# The HNSW search of a mind known above the bound, its settings in the same message.
NEAREST_UNDER_SETTINGS_SQL = under_hnsw_settings(NEAREST_SQL[VectorPlan.HNSW])

# One transaction-level advisory lock per (mind, content hash) of a batch, taken in key order: two
# batches that share contents wait on each other at most once, never in a cycle.
LOCKS_SQL = """
SELECT pg_advisory_xact_lock(keys.key)
  FROM (SELECT DISTINCT unnest(%(keys)s::bigint[]) AS key ORDER BY key) AS keys
"""

# A duplicate's or a reactivation's link: one statement written out, as the knot's below (the
# ORM's create built and converted it in more Python than the insert costs the server). A unique
# violation names its constraint as a save's would.
LINK_SQL = """
INSERT INTO {link} (mind_id, memory_id, content_hash, knot_id, kind, created_at)
VALUES (%(mind)s, %(memory)s, %(hash)s, %(knot)s, %(kind)s, %(now)s)
""".format(**TABLES)

# The knot, its presence and its origin link in one statement: three ORM saves cost three round
# trips and more Python than the database spends on the rows. The presence and the link read the
# knot's id from the first insert; their foreign keys are checked at the end of the statement,
# when the knot is there. A unique violation names its constraint as a save's would. The knot's
# fields are the parameters, by their column names (synapses.promotion.knots.knot_create).
KNOT_CREATE_SQL = """
WITH knot AS (
    INSERT INTO {knot} (mind_id, memory_id, content, content_hash, category, observer, emotion, arousal,
                        attributes, embedding, embedding_model, themes, entities, magnets, event_time,
                        event_precision, weight_raw, weight_anchor, activation_count, created_at,
                        source_created_at)
    VALUES (%(mind_id)s, %(memory_id)s, %(content)s, %(content_hash)s, %(category)s, %(observer)s, %(emotion)s,
            NULL, %(attributes)s::jsonb, %(embedding)s::vector, %(embedding_model)s, %(themes)s::varchar[],
            %(entities)s::bigint[], %(magnets)s::jsonb, %(event_time)s, %(event_precision)s, %(weight_raw)s,
            %(weight_anchor)s, 1, %(created_at)s, %(source_created_at)s)
    RETURNING id
), presence AS (
    INSERT INTO {presence} (knot_id, mind_id, presence_base, weight_present, reinforced_at, decayed_at, is_active)
    SELECT id, %(mind_id)s, %(weight_anchor)s, %(weight_anchor)s, %(created_at)s, %(created_at)s, true FROM knot
), link AS (
    INSERT INTO {link} (mind_id, memory_id, content_hash, knot_id, kind, created_at)
    SELECT %(mind_id)s, %(memory_id)s, %(content_hash)s, id, %(kind)s, %(created_at)s FROM knot
)
SELECT id FROM knot
""".format(**TABLES)  # noqa: S608 — only table names, at import

# A failure of one memory version: +1 attempt, parked when the attempts reach the maximum.
ATTEMPT_SQL = """
INSERT INTO {attempt} AS attempt
       (mind_id, memory_id, content_hash, attempts, last_error, parked_at, created_at, updated_at)
VALUES (%(mind)s, %(memory)s, %(hash)s, 1, %(error)s,
        CASE WHEN 1 >= %(max)s THEN %(now)s::timestamptz END, %(now)s, %(now)s)
ON CONFLICT (mind_id, memory_id, content_hash) DO UPDATE
   SET attempts = attempt.attempts + 1,
       last_error = EXCLUDED.last_error,
       updated_at = EXCLUDED.updated_at,
       parked_at = CASE WHEN attempt.attempts + 1 >= %(max)s
                        THEN coalesce(attempt.parked_at, EXCLUDED.updated_at) END
RETURNING attempts, parked_at IS NOT NULL
""".format(**TABLES)


# --- entities -------------------------------------------------------------------------------------

# A name discovery took because the mind's texts use it as one again (the rule `recurrence`), added
# to the mind's knots written before that mention it, with its capitals, as a word, and lack it,
# and recorded in their magnets (docs/synapse-model.md, "Magnets found in the content"). Only for
# such names: a name's first mention has no earlier knot to look through.
KNOTS_RECURRENCE_GAIN_SQL = """
UPDATE {knot}
   SET entities = array_append(entities, %(entity)s),
       magnets = jsonb_set(magnets, ARRAY['entities'], coalesce(magnets -> 'entities', '[]'::jsonb)
                 || jsonb_build_array(jsonb_build_object('id', %(entity)s, 'name', %(name)s, 'rule', 'recurrence')))
 WHERE mind_id = %(mind)s AND NOT (entities @> ARRAY[%(entity)s]::bigint[])
   AND content ~ %(pattern)s
""".format(**TABLES)

# The explicit names the mind knows neither as a name nor as an alias, in key order (so that two
# transactions creating the same names insert them in the same order and never deadlock). A
# name another transaction inserts at the same moment waits for it, then conflicts: DO NOTHING
# (the unique index on (mind, lower(name))), and the SELECT of ENTITIES_OF_KEYS_SQL, a new
# statement, sees it. It returns the key, lower(name), of each entity created.
ENTITIES_INSERT_SQL = """
INSERT INTO {entity} (mind_id, name, aliases, created_at)
SELECT %(mind)s, given.name, '{{}}', %(now)s
  FROM unnest(%(names)s::varchar[]) WITH ORDINALITY AS given(name, n)
 WHERE NOT EXISTS (
       SELECT 1 FROM {entity} AS known
        WHERE known.mind_id = %(mind)s
          AND (lower(known.name) = lower(given.name)
               OR synapses_aliases_lower(known.aliases) @> ARRAY[lower(given.name)]))
 ORDER BY given.n
ON CONFLICT DO NOTHING
RETURNING lower(name)
""".format(**TABLES)

# The mind's entities whose name or an alias is one of the keys. The keys arrive as one JSON
# array: a content's hundred-odd n-grams as a text[] parameter cost the client a
# regular-expression escape per element (measured: a tenth of a promotion's Python), JSON is
# encoded in C. The ARRAY(…) subqueries are init plans: their array is a constant for the indexes
# on lower(name) and on the lower-cased aliases.
ENTITIES_OF_KEYS_SQL = """
SELECT id, name, aliases FROM {entity}
 WHERE mind_id = %(mind)s
   AND (lower(name) = ANY(ARRAY(SELECT jsonb_array_elements_text(%(keys)s::jsonb)))
        OR synapses_aliases_lower(aliases) && ARRAY(SELECT jsonb_array_elements_text(%(keys)s::jsonb)))
 ORDER BY id
""".format(**TABLES)  # noqa: S608 — only the table name, at import
