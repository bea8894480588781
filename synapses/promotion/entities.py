"""A memory's entities: its explicit names as the mind's Entity rows, plus every known name or
alias of the mind that its content mentions (synapses.promotion.magnets has the matching rule).

Two statements whatever the mind holds: one INSERT of the explicit names the mind does not know
yet (by name or alias), one SELECT of every entity whose lower-cased name or alias is among the
explicit names or the content's word n-grams — through the unique index on (mind, lower(name))
and the GIN index on the lower-cased aliases, so neither the queries nor the work grow with the
number of entities.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from django.db import connection

from synapses.promotion.magnets import content_ngrams, explicit_names, name_key, names_in_grams
from synapses.promotion.sql import ENTITIES_INSERT_SQL, ENTITIES_OF_KEYS_SQL


@dataclass(frozen=True)
class ResolvedEntities:
    ids: list[int]  # the memory's entities, ascending
    explicit: list[str]  # the names the memory gave (de-duplicated)
    found_in_content: list[str]  # names or aliases of the mind found in the content
    created: int  # entities the explicit names created


def explicit_names_create(*, mind_id: str, names: list[str], now: datetime) -> set[str]:
    """Create the explicit `names` (explicit_names: de-duplicated, in key order) the mind knows
    neither as a name nor as an alias, in one statement; the keys (name_key) of those created.

    A promotion batch calls it once per mind for all its memories, minds in id order, before any
    memory's own work: every transaction then inserts names in one global order, (mind, key), and
    two batches that create the same names wait on each other at most once, never in a cycle.
    """
    explicit = explicit_names(names)
    if not explicit:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(ENTITIES_INSERT_SQL["key"], {"mind": mind_id, "names": explicit, "now": now})
        return {row[0] for row in cursor.fetchall()}


def memory_entities_resolve(
    *, mind_id: str, names: list[str], content: str, now: datetime, created_keys: set[str] | None = None
) -> ResolvedEntities:
    """Resolve a memory's entity names and content to the mind's entities, creating new explicit names.

    Call inside the promotion's transaction. `created_keys`: the names were created beforehand
    (explicit_names_create, for a whole batch), these keys among them new; the memory counts the
    ones it names as its own creations and takes them out of the set (so the next memory of the
    batch naming them does not count them again), and no INSERT runs here.
    """
    explicit = explicit_names(names)
    created = 0
    with connection.cursor() as cursor:
        if created_keys is not None:
            mine = {name_key(name) for name in explicit} & created_keys
            created = len(mine)
            created_keys -= mine
        elif explicit:
            cursor.execute(ENTITIES_INSERT_SQL["id"], {"mind": mind_id, "names": explicit, "now": now})
            created = len(cursor.fetchall())
        grams = content_ngrams(content)
        keys = sorted(grams | {name_key(name) for name in explicit})
        cursor.execute(ENTITIES_OF_KEYS_SQL, {"mind": mind_id, "keys": json.dumps(keys)})
        rows = cursor.fetchall()
    found: list[str] = []
    for _, name, aliases in rows:
        found.extend(names_in_grams(grams, [name, *aliases]))
    return ResolvedEntities(
        ids=[entity_id for entity_id, _, _ in rows], explicit=explicit, found_in_content=found, created=created
    )
