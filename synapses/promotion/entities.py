"""A memory's entities: its explicit names as the mind's Entity rows, the names entity discovery
finds in its content (synapses.promotion.discovery), plus every known name or alias of the mind
that its content mentions (synapses.promotion.magnets has the matching rule; a known name that is
a common word counts only where the content writes it with its capitals).

Two statements whatever the mind holds: one INSERT of the explicit and discovered names the mind
does not know yet (by name or alias), one SELECT of every entity whose lower-cased name or alias
is among those names or the content's word n-grams — through the unique index on (mind,
lower(name)) and the GIN index on the lower-cased aliases, so neither the queries nor the work
grow with the number of entities.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection

from minds.models import Mind
from synapses.constants import DISCOVERY_EVIDENCE_KNOTS, MIND_DISCOVERY_SETTING
from synapses.models import Entity, Knot
from synapses.promotion.discovery import (
    RULE_GIVEN,
    RULE_KNOWN,
    RULE_RECURRENCE,
    Evidence,
    Found,
    capitalised_mention,
    discover,
)
from synapses.promotion.discovery import language_of as discovery_language
from synapses.promotion.magnets import content_ngrams, explicit_names, name_key, names_in_grams
from synapses.promotion.sql import ENTITIES_INSERT_SQL, ENTITIES_OF_KEYS_SQL, KNOTS_RECURRENCE_GAIN_SQL

# Longest name an entity holds (characters): a longer discovered name is not taken.
_NAME_MAX_CHARS = Entity._meta.get_field("name").max_length


@dataclass(frozen=True)
class Discovery:
    """A mind's discovery setting: on or off, and the names (lower-cased) it must not propose."""

    enabled: bool = True
    ignored: frozenset[str] = frozenset()

    @classmethod
    def of(cls, settings: dict | None) -> Discovery:
        own = (settings or {}).get(MIND_DISCOVERY_SETTING) or {}
        return cls(enabled=own.get("enabled", True) is not False,
                   ignored=frozenset(name_key(name) for name in own.get("ignored", ())))  # fmt: skip


def discovery_settings(mind_ids) -> dict[str, Discovery]:
    """Each mind's Discovery (one query)."""
    rows = Mind.objects.filter(pk__in=set(mind_ids)).values_list("pk", "settings")
    return {mind_id: Discovery.of(settings) for mind_id, settings in rows}


def mind_evidence(mind_id: str) -> Evidence:
    """What the mind's newest DISCOVERY_EVIDENCE_KNOTS knots say of their words (one indexed
    query): a promotion run reads it once per mind and adds each batch's contents to it."""
    recent = Knot.objects.filter(mind_id=mind_id).order_by("-id").values_list("content", flat=True)
    return Evidence.of(recent[:DISCOVERY_EVIDENCE_KNOTS])


def _word_pattern(name: str) -> str:
    """A PostgreSQL regular expression matching `name` as written, as a whole word."""
    return r"\m" + re.escape(name) + r"\M"


def found_in(
    contents: dict[str, str], discovery: Discovery, evidence: Evidence | None = None
) -> dict[str, list[Found]]:
    """The names discovery finds in each of one mind's `contents` ({key: content}), with `evidence`
    (what the mind's texts, these among them, say; without it, the contents read together);
    without the ignored names and those too long for an entity. Nothing when discovery is off."""
    if not discovery.enabled:
        return {key: [] for key in contents}
    if evidence is None:
        evidence = Evidence.of(contents.values())
    return {
        key: [found for found in discover(content, evidence=evidence)
              if name_key(found.name) not in discovery.ignored and len(found.name) <= _NAME_MAX_CHARS]
        for key, content in contents.items()
    }  # fmt: skip


@dataclass(frozen=True)
class ResolvedEntities:
    ids: list[int]  # the memory's entities, ascending
    explicit: list[str]  # the names the memory gave (de-duplicated)
    found_in_content: list[str]  # names or aliases of the mind found in the content
    created: int  # entities the explicit and discovered names created
    magnets: dict = field(default_factory=dict)  # what the knot records: each entity and its rule


def explicit_names_create(*, mind_id: str, names: list[str], now: datetime) -> set[str]:
    """Create the explicit `names` (explicit_names: de-duplicated, in key order) the mind knows
    neither as a name nor as an alias, in one statement; the keys (name_key) of those created.

    A promotion batch calls it once per mind for all its memories, minds in id order, before any
    memory's own work: every transaction then inserts names in one global order, (mind, key), and
    two batches that create the same names wait on each other at most once, never in a cycle.
    The batch's discovered names are created with them, in the same order.
    """
    explicit = explicit_names(names)
    if not explicit:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(ENTITIES_INSERT_SQL, {"mind": mind_id, "names": explicit, "now": now})
        return {row[0] for row in cursor.fetchall()}


def memory_entities_resolve(
    *,
    mind_id: str,
    names: list[str],
    content: str,
    now: datetime,
    created_keys: set[str] | None = None,
    discovered: list[Found] = (),
) -> ResolvedEntities:
    """Resolve a memory's entity names, discovered names and content to the mind's entities,
    creating new explicit and discovered names.

    Call inside the promotion's transaction. `created_keys`: the names were created beforehand
    (explicit_names_create, for a whole batch), these keys among them new; the memory counts the
    ones it names as its own creations and takes them out of the set (so the next memory of the
    batch naming them does not count them again), and no INSERT runs here.
    """
    explicit = explicit_names(names)
    rule_of = {name_key(found.name): found.rule for found in discovered}
    rule_of |= {name_key(name): RULE_GIVEN for name in explicit}
    to_create = explicit_names([*explicit, *(found.name for found in discovered)])
    created = 0
    mine: set[str] = set()
    with connection.cursor() as cursor:
        if created_keys is not None:
            mine = {name_key(name) for name in to_create} & created_keys
            created = len(mine)
            created_keys -= mine
        elif to_create:
            cursor.execute(ENTITIES_INSERT_SQL, {"mind": mind_id, "names": to_create, "now": now})
            mine = {row[0] for row in cursor.fetchall()}
            created = len(mine)
        grams = content_ngrams(content)
        keys = sorted(grams | set(rule_of))
        cursor.execute(ENTITIES_OF_KEYS_SQL, {"mind": mind_id, "keys": json.dumps(keys)})
        rows = cursor.fetchall()
    found: list[str] = []
    kept: list[dict] = []
    for entity_id, name, aliases in rows:
        spellings = [name, *aliases]
        rule = next((rule_of[name_key(spelling)] for spelling in spellings if name_key(spelling) in rule_of), None)
        if rule is None:
            # A known name the content mentions as words; a common word ("Will") only with capitals.
            mentioned = [
                spelling for spelling in names_in_grams(grams, spellings) if capitalised_mention(content, spelling)
            ]
            if not mentioned:
                continue
            found.extend(mentioned)
            rule = RULE_KNOWN
        kept.append({"id": entity_id, "name": name, "rule": rule})
        if rule == RULE_RECURRENCE and name_key(name) in mine:  # named again: its earlier knots gain it
            with connection.cursor() as cursor:
                params = {"mind": mind_id, "entity": entity_id, "name": name, "pattern": _word_pattern(name)}
                cursor.execute(KNOTS_RECURRENCE_GAIN_SQL, params)
    magnets = {"language": discovery_language(content), "entities": kept}
    return ResolvedEntities(ids=[entity["id"] for entity in kept], explicit=explicit, found_in_content=found,
                            created=created, magnets=magnets)  # fmt: skip
