"""The statements of the net's upkeep, written whole and built once at import with the table names
of synapses.net.tables: the daily decay (§9) and a person's changes to entities (§6)."""

from __future__ import annotations

from synapses.net.tables import TABLES

# The daily decay: both the new presence and the deactivation come from the same expression; days
# before reinforced_at (a clock set back) count as 0, so the presence never grows.
DECAY_SQL = """
WITH decayed AS (
    UPDATE {presence}
    SET weight_present = presence_base * exp(-%(rate)s * GREATEST(
            EXTRACT(EPOCH FROM (%(now)s - reinforced_at))::double precision, 0) / %(seconds_per_day)s),
        decayed_at = %(now)s,
        is_active = presence_base * exp(-%(rate)s * GREATEST(
            EXTRACT(EPOCH FROM (%(now)s - reinforced_at))::double precision, 0) / %(seconds_per_day)s)
            >= %(min_weight)s
    WHERE is_active
    RETURNING is_active
)
SELECT count(*), count(*) FILTER (WHERE NOT is_active) FROM decayed
""".format(**TABLES)

# Of some lower-cased names, those another entity of the mind holds as name or alias: (lower name,
# that entity's name).
NAMES_TAKEN_SQL = """
SELECT lower(n), e.name FROM {entity} e, unnest(array_prepend(e.name, e.aliases)) AS n
 WHERE e.mind_id = %(mind)s AND lower(n) = ANY(%(keys)s::text[]) AND NOT (e.id = ANY(%(besides)s::bigint[]))
""".format(**TABLES)

# An entity added to every knot of the mind whose content mentions one of its names as a word
# (the patterns) and that lacks it; the ids of those knots (they form the edges they lack).
KNOTS_MENTIONING_GAIN_SQL = """
UPDATE {knot} SET entities = array_append(entities, %(entity)s)
 WHERE mind_id = %(mind)s AND NOT (entities @> ARRAY[%(entity)s]::bigint[])
   AND content ~* ANY(%(patterns)s::text[])
RETURNING id
""".format(**TABLES)

# A deleted entity taken from every knot carrying it, and from the entities its magnets record;
# the ids of the knots changed.
ENTITY_DELETE_KNOTS_SQL = """
UPDATE {knot}
   SET entities = array_remove(entities, %(gone)s),
       magnets = CASE WHEN magnets ? 'entities'
                      THEN jsonb_set(magnets, ARRAY['entities'], coalesce(
                               (SELECT jsonb_agg(found) FROM jsonb_array_elements(magnets -> 'entities') AS found
                                 WHERE (found ->> 'id')::bigint <> %(gone)s), '[]'::jsonb))
                      ELSE magnets END
 WHERE mind_id = %(mind)s AND entities @> ARRAY[%(gone)s]::bigint[]
RETURNING id
""".format(**TABLES)

# An entity merged into another: on every knot carrying it, replaced by the other, or dropped where
# the knot carries both; the ids of the knots changed.
ENTITY_MERGE_KNOTS_SQL = """
UPDATE {knot}
   SET entities = CASE WHEN entities @> ARRAY[%(into)s]::bigint[]
                       THEN array_remove(entities, %(gone)s)
                       ELSE array_replace(entities, %(gone)s, %(into)s) END
 WHERE mind_id = %(mind)s AND entities @> ARRAY[%(gone)s]::bigint[]
RETURNING id
""".format(**TABLES)
