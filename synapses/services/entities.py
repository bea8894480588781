"""A memory's entities: its explicit names as the mind's Entity rows, plus every known name or
alias of the mind that its content mentions (synapses.magnets has the matching rule).

Two statements whatever the mind holds: one INSERT of the explicit names the mind does not know
yet (by name or alias), one SELECT of every entity whose lower-cased name or alias is among the
explicit names or the content's word n-grams — through the unique index on (mind, lower(name))
and the GIN index on the lower-cased aliases, so neither the queries nor the work grow with the
number of entities.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import connection

from synapses.magnets import content_ngrams, explicit_names, name_key, names_found

# The explicit names the mind knows neither as a name nor as an alias, in key order (so that two
# transactions creating the same names insert them in the same order and never deadlock). A
# name another transaction inserts at the same moment waits for it, then conflicts: DO NOTHING
# (the unique index on (mind, lower(name))), and the SELECT below, a new statement, sees it.
_INSERT_SQL = """
INSERT INTO synapses_entity (mind_id, name, aliases, created_at)
SELECT %(mind)s, given.name, '{}', %(now)s
  FROM unnest(%(names)s::varchar[]) WITH ORDINALITY AS given(name, n)
 WHERE NOT EXISTS (
       SELECT 1 FROM synapses_entity AS known
        WHERE known.mind_id = %(mind)s
          AND (lower(known.name) = lower(given.name)
               OR synapses_aliases_lower(known.aliases) @> ARRAY[lower(given.name)]))
 ORDER BY given.n
ON CONFLICT DO NOTHING
RETURNING id
"""
_SELECT_SQL = """
SELECT id, name, aliases FROM synapses_entity
 WHERE mind_id = %(mind)s
   AND (lower(name) = ANY(%(keys)s::text[]) OR synapses_aliases_lower(aliases) && %(keys)s::text[])
 ORDER BY id
"""


@dataclass(frozen=True)
class ResolvedEntities:
    ids: list[int]  # the memory's entities, ascending
    explicit: list[str]  # the names the memory gave (de-duplicated)
    found_in_content: list[str]  # names or aliases of the mind found in the content
    created: int  # entities the explicit names created


def memory_entities_resolve(*, mind_id: str, names: list[str], content: str, now: datetime) -> ResolvedEntities:
    """Resolve a memory's entity names and content to the mind's entities, creating new explicit names.

    Call inside the promotion's transaction: a promotion that fails creates no entity.
    """
    explicit = explicit_names(names)
    created = 0
    with connection.cursor() as cursor:
        if explicit:
            cursor.execute(_INSERT_SQL, {"mind": mind_id, "names": explicit, "now": now})
            created = len(cursor.fetchall())
        grams = content_ngrams(content)
        keys = sorted(grams | {name_key(name) for name in explicit})
        cursor.execute(_SELECT_SQL, {"mind": mind_id, "keys": keys})
        rows = cursor.fetchall()
    found: list[str] = []
    for _, name, aliases in rows:
        found.extend(names_found(content, [name, *aliases]))
    return ResolvedEntities(
        ids=[entity_id for entity_id, _, _ in rows], explicit=explicit, found_in_content=found, created=created
    )
