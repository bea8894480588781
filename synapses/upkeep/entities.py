"""Changes a person makes to a mind's entities: create, rename, aliases, merge, delete (docs/synapse-model.md §6).

A name or alias belongs to one entity of a mind, whatever its case: "Anna" cannot be one
entity's name and another's alias. Every change keeps the knots' entity arrays and the edges
that carry them right (Trigger 3):

- a new name or alias is looked for in the content of the mind's knots (whole words, any case,
  the rule promotion resolves entities by); a knot that mentions it and does not carry the
  entity yet gains it, and the entity layer of the edges of the knots carrying it is evaluated
  again;
- a name or alias taken away takes nothing away from knots: a knot may carry the entity because
  its memory named it explicitly, which the knot does not record;
- a merge replaces the merged entity's id by the kept one's in every knot (once), the kept one
  takes the other's name and aliases as aliases, the other is deleted, and the edges carrying
  either are evaluated again;
- a delete takes the entity from every knot (and from their recorded magnets), evaluates the
  edges that carried it again, and puts its name and aliases on the mind's ignore list, or
  discovery would find the name again at the next promotion.

Trigger 3 runs at once (synapses.upkeep.entity_edges): the edges that carry the entity are
recomputed, and every knot whose entities changed forms the edges it lacks, so knots that only
now share an entity are joined without a rebuild. The change reports the edge rows created,
updated and deleted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import IntegrityError, connection, transaction
from django.db.models import Q

from memoryproject.core.domain import Conflict, ValidationFailed
from synapses.models import Entity
from synapses.upkeep.discovery import names_ignore
from synapses.upkeep.entity_edges import EdgeRowsChanged, entity_edges_refresh
from synapses.upkeep.sql import (
    ENTITY_DELETE_KNOTS_SQL,
    ENTITY_MERGE_KNOTS_SQL,
    KNOTS_MENTIONING_GAIN_SQL,
    NAMES_TAKEN_SQL,
)

# Longest name or alias (characters), as Entity.name holds.
ENTITY_NAME_MAX_CHARS = 100
# Most aliases one entity keeps (aliases): a merge adds the other's name and aliases.
ENTITY_MAX_ALIASES = 50


@dataclass(frozen=True)
class EntityChanged:
    """An entity after a change, and what the change did to the net."""

    entity: Entity
    knots_gained: int  # knots that carry the entity now and did not before
    edge_rows: EdgeRowsChanged = EdgeRowsChanged()  # edge rows created, updated, deleted


def names_normalise(names: Iterable[str]) -> list[str]:
    """Trimmed, inner spaces collapsed, de-duplicated case-insensitively (the first spelling kept), in order."""
    seen: dict[str, str] = {}
    for name in names:
        tidy = " ".join(name.split())
        if tidy and tidy.casefold() not in seen:
            seen[tidy.casefold()] = tidy
    return list(seen.values())


def _taken(mind_id: str, names: list[str], *, besides: Iterable[int] = ()) -> dict[str, str]:
    """Of `names`, those another entity of the mind holds as name or alias: {lower name: that entity's name}."""
    keys = [name.lower() for name in names]
    if not keys:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(NAMES_TAKEN_SQL, {"mind": mind_id, "keys": keys, "besides": list(besides)})
        return dict(cursor.fetchall())


def _refuse_taken(mind_id: str, *, name: str | None, aliases: list[str], besides: Iterable[int] = ()) -> None:
    taken = _taken(mind_id, [*([name] if name else []), *aliases], besides=besides)
    fields: dict[str, list[str]] = {}
    if name and name.lower() in taken:
        fields["name"] = [f'"{name}" is already a name or alias of the entity "{taken[name.lower()]}" of this mind.']
    clashes = [alias for alias in aliases if alias.lower() in taken]
    if clashes:
        fields["aliases"] = [
            f'"{alias}" is already a name or alias of the entity "{taken[alias.lower()]}" of this mind.'
            for alias in clashes
        ]
    if fields:
        raise Conflict("Each name or alias belongs to one entity of a mind (any case).", fields=fields)


def _own_names_check(name: str, aliases: list[str]) -> list[str]:
    """The aliases without the entity's own name; too many aliases is a ValidationFailed."""
    aliases = [alias for alias in names_normalise(aliases) if alias.casefold() != name.casefold()]
    if len(aliases) > ENTITY_MAX_ALIASES:
        raise ValidationFailed({"aliases": [f"At most {ENTITY_MAX_ALIASES} aliases; {len(aliases)} given."]})
    return aliases


def _word_pattern(name: str) -> str:
    """A PostgreSQL regular expression matching `name` as a whole word (\\m, \\M: word start and end)."""
    return r"\m" + re.escape(name) + r"\M"


def _knots_mentioning_gain(mind_id: str, entity_id: int, names: list[str]) -> list[int]:
    """Add `entity_id` to every knot of the mind whose content mentions one of `names` as a word
    and lacks it; the ids of those knots."""
    if not names:
        return []
    patterns = [_word_pattern(name) for name in names]
    with connection.cursor() as cursor:
        cursor.execute(KNOTS_MENTIONING_GAIN_SQL, {"mind": mind_id, "entity": entity_id, "patterns": patterns})
        return [row[0] for row in cursor.fetchall()]


def _net_change(entity: Entity, knots_gained: list[int], former_ids: list[int] | None = None) -> EntityChanged:
    """Trigger 3 at once when knots changed (or entities were folded into this one)."""
    if not knots_gained and not former_ids:
        return EntityChanged(entity=entity, knots_gained=0)
    rows = entity_edges_refresh(
        mind_id=entity.mind_id, entity_id=entity.pk, former_ids=former_ids or (), knot_ids=knots_gained
    )
    return EntityChanged(entity=entity, knots_gained=len(knots_gained), edge_rows=rows)


def entity_create(*, mind_id: str, name: str, aliases: Iterable[str] = ()) -> EntityChanged:
    """A new entity of the mind; the knots that mention it gain it. Conflict when a name or alias is taken."""
    name = " ".join(name.split())
    aliases = _own_names_check(name, list(aliases))
    with transaction.atomic():
        _refuse_taken(mind_id, name=name, aliases=aliases)
        try:
            with transaction.atomic():
                entity = Entity.objects.create(mind_id=mind_id, name=name, aliases=aliases)
        except IntegrityError:  # the same name created at the same moment (the unique index)
            raise Conflict(fields={"name": [f'"{name}" is already an entity of this mind.']}) from None
        gained = _knots_mentioning_gain(mind_id, entity.pk, [name, *aliases])
        return _net_change(entity, gained)


def entity_update(*, entity: Entity, name: str | None = None, aliases: Iterable[str] | None = None) -> EntityChanged:
    """Rename and/or replace the aliases; names new to the entity are looked for in the knots (Trigger 3)."""
    new_name = entity.name if name is None else " ".join(name.split())
    new_aliases = _own_names_check(new_name, list(entity.aliases if aliases is None else aliases))
    before = {known.casefold() for known in [entity.name, *entity.aliases]}
    added = [known for known in [new_name, *new_aliases] if known.casefold() not in before]
    with transaction.atomic():
        _refuse_taken(entity.mind_id, name=new_name, aliases=new_aliases, besides=[entity.pk])
        entity.name, entity.aliases = new_name, new_aliases
        try:
            with transaction.atomic():
                entity.save(update_fields=["name", "aliases"])
        except IntegrityError:  # the same name given to another entity at the same moment
            raise Conflict(fields={"name": [f'"{new_name}" is already an entity of this mind.']}) from None
        gained = _knots_mentioning_gain(entity.mind_id, entity.pk, added)
        # A rename changes no id, so only knots that gained the entity change an edge's layers.
        return _net_change(entity, gained)


def entity_merge(*, entity: Entity, into: Entity) -> EntityChanged:
    """Fold `entity` into `into` (same mind): its knots carry `into`, its names become `into`'s aliases.

    A person decides this (the API refuses Mind Keys): a merge cannot be undone.
    """
    if entity.pk == into.pk:
        raise ValidationFailed({"into": ["An entity cannot be merged into itself; name another entity."]})
    if entity.mind_id != into.mind_id:
        raise ValidationFailed({"into": ["Both entities must belong to the same mind."]})
    aliases = _own_names_check(into.name, [*into.aliases, entity.name, *entity.aliases])
    with transaction.atomic():
        locked = list(Entity.objects.select_for_update().filter(Q(pk=entity.pk) | Q(pk=into.pk)).order_by("pk"))
        if len(locked) != 2:
            raise ValidationFailed({"into": ["One of the two entities was deleted meanwhile; list them again."]})
        with connection.cursor() as cursor:
            cursor.execute(ENTITY_MERGE_KNOTS_SQL, {"mind": entity.mind_id, "into": into.pk, "gone": entity.pk})
            moved = [row[0] for row in cursor.fetchall()]
        gone_id = entity.pk
        entity.delete()
        into.aliases = aliases
        into.save(update_fields=["aliases"])
        return _net_change(into, moved, former_ids=[gone_id])


@dataclass(frozen=True)
class EntityDeleted:
    """What deleting an entity did."""

    entity_id: int
    name: str
    knots_changed: int  # knots that carried it
    edge_rows: EdgeRowsChanged  # the Trigger 3 recomputation, counted in edge rows
    ignored: list[str]  # the mind's ignore list after the delete


def entity_delete(*, entity: Entity) -> EntityDeleted:
    """Delete the entity: its knots lose it, the edges that carried it are evaluated again (Trigger 3,
    counted in edge rows), and its names go on the mind's ignore list (synapses.upkeep.discovery).
    A person decides this."""
    with transaction.atomic():
        locked = Entity.objects.select_for_update().filter(pk=entity.pk).first()
        if locked is None:
            raise ValidationFailed({"entity": ["The entity was deleted meanwhile; list the entities again."]})
        with connection.cursor() as cursor:
            cursor.execute(ENTITY_DELETE_KNOTS_SQL, {"mind": entity.mind_id, "gone": entity.pk})
            lost = [row[0] for row in cursor.fetchall()]
        gone_id = entity.pk
        entity.delete()
        # The knots that lost it bound which edges can change: their rows are counted before and after.
        rows = (
            entity_edges_refresh(mind_id=locked.mind_id, entity_id=gone_id, knot_ids=lost)
            if lost
            else EdgeRowsChanged()
        )
        setting = names_ignore(mind_id=locked.mind_id, names=[locked.name, *locked.aliases])
    return EntityDeleted(entity_id=gone_id, name=locked.name, knots_changed=len(lost), edge_rows=rows,
                         ignored=setting.ignored)  # fmt: skip
