"""Writing the net's sections of an import into a mind: every id of the file mapped to the mind's,
set-based (one query per kind of row, never per row), so a second import of the same file finds
every row and creates nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models.functions import Lower

from memoryproject.core.contributions import ImportedSection
from pipelinelog.spans import current_span
from synapses.models import Edge, Entity, Goal, Knot, KnotPresence, MemoryKnot
from synapses.net.portability.reading import sections_read

# --- import: writing them -------------------------------------------------------------------------


def _entities_write(mind_id: str, read: list[tuple[Any, Entity]]) -> tuple[dict, ImportedSection]:
    """File entity id → this mind's entity id; an entity of the same name (any case) is reused."""
    names = {entity.name.lower() for _, entity in read}
    stored = {
        lower: pk
        for lower, pk in Entity.objects.filter(mind_id=mind_id)
        .annotate(lower=Lower("name"))
        .filter(lower__in=names)
        .values_list("lower", "pk")
    }
    new = [entity for _, entity in read if entity.name.lower() not in stored]
    if new:
        # A promotion may create one of these names meanwhile: it wins, and the ids are read back.
        Entity.objects.bulk_create(new, ignore_conflicts=True)
        stored = dict(
            Entity.objects.filter(mind_id=mind_id)
            .annotate(lower=Lower("name"))
            .filter(lower__in=names)
            .values_list("lower", "pk")
        )
    mapping = {file_id: stored[entity.name.lower()] for file_id, entity in read}
    return mapping, ImportedSection(created=len(new), skipped=len(read) - len(new))


def _knots_write(mind_id: str, read: list, entity_ids: Mapping) -> tuple[dict, ImportedSection, ImportedSection]:
    """File knot id → this mind's knot id; a knot of the same memory version is reused. Then the
    memory links, each (memory, content hash) once."""
    for _, knot, _, _ in read:
        knot.entities = [entity_ids[file_id] for file_id in knot.entities]
        if knot.magnets.get("entities"):
            found = [{**item, "id": entity_ids[item["id"]]} for item in knot.magnets["entities"]]
            knot.magnets = {**knot.magnets, "entities": found}
    versions = {(knot.memory_id, knot.content_hash) for _, knot, _, _ in read}
    stored = {
        (memory_id, content_hash): pk
        for memory_id, content_hash, pk in Knot.objects.filter(
            mind_id=mind_id, memory_id__in={memory_id for memory_id, _ in versions}
        ).values_list("memory_id", "content_hash", "pk")
        if (memory_id, content_hash) in versions
    }
    new = [(knot, presence) for _, knot, presence, _ in read if (knot.memory_id, knot.content_hash) not in stored]
    Knot.objects.bulk_create([knot for knot, _ in new])
    for knot, presence in new:
        presence.knot = knot
    KnotPresence.objects.bulk_create([presence for _, presence in new])
    stored.update({(knot.memory_id, knot.content_hash): knot.pk for knot, _ in new})
    mapping = {file_id: stored[(knot.memory_id, knot.content_hash)] for file_id, knot, _, _ in read}
    knots_done = ImportedSection(created=len(new), skipped=len(read) - len(new))

    links = {}
    for file_id, _, _, knot_links in read:
        for link in knot_links:
            link.knot_id = mapping[file_id]
            links.setdefault((link.memory_id, link.content_hash), link)
    linked = set(
        MemoryKnot.objects.filter(mind_id=mind_id, memory_id__in={memory_id for memory_id, _ in links}).values_list(
            "memory_id", "content_hash"
        )
    )
    new_links = [link for version, link in links.items() if version not in linked]
    MemoryKnot.objects.bulk_create(new_links, ignore_conflicts=True)  # a promotion may link one meanwhile
    return mapping, knots_done, ImportedSection(created=len(new_links), skipped=len(links) - len(new_links))


def _edges_write(mind_id: str, read: list, knot_ids: Mapping, entity_ids: Mapping) -> ImportedSection:
    edges = {}
    for source, target, edge in read:
        edge.source_id, edge.target_id = knot_ids[source], knot_ids[target]
        edge.shared_entities = [entity_ids[file_id] for file_id in edge.shared_entities]
        edges.setdefault((edge.source_id, edge.target_id), edge)
    if edges:
        knots = {source for source, _ in edges}
        stored = set(Edge.objects.filter(mind_id=mind_id, source_id__in=knots).values_list("source_id", "target_id"))
    else:
        stored = set()
    new = [edge for pair, edge in edges.items() if pair not in stored]
    Edge.objects.bulk_create(new, ignore_conflicts=True)  # a promotion may form one meanwhile
    return ImportedSection(created=len(new), skipped=len(read) - len(new))


def _goals_write(mind_id: str, read: list[Goal]) -> ImportedSection:
    statements = {goal.statement for goal in read}
    stored = set(Goal.objects.filter(mind_id=mind_id, statement__in=statements).values_list("statement", "created_at"))
    new = []
    for goal in read:
        if (goal.statement, goal.created_at) not in stored:
            stored.add((goal.statement, goal.created_at))
            new.append(goal)
    Goal.objects.bulk_create(new)
    return ImportedSection(created=len(new), skipped=len(read) - len(new))


def net_import_sections(
    mind_id: str, sections: Mapping[str, Any], memory_ids: Mapping[str, str]
) -> dict[str, ImportedSection]:
    """Reads the net's sections into the mind, inside the caller's transaction. `memory_ids` maps
    the file's memory ids to this mind's (the memory import's result). Raises ValidationFailed
    naming every wrong row (`knots.3.memory_id`) before anything is written."""
    parsed = sections_read(sections, mind_id, memory_ids)
    entity_ids, entities_done = _entities_write(mind_id, parsed.entities)
    knot_ids, knots_done, links_done = _knots_write(mind_id, parsed.knots, entity_ids)
    edges_done = _edges_write(mind_id, parsed.edges, knot_ids, entity_ids)
    goals_done = _goals_write(mind_id, parsed.goals)
    done = {
        "knots": knots_done,
        "links": links_done,
        "edges": edges_done,
        "entities": entities_done,
        "goals": goals_done,
    }
    current_span().db_write(
        {
            "table": Knot._meta.db_table,
            "operation": "import",
            **{name: {"created": section.created, "skipped": section.skipped} for name, section in done.items()},
        }
    )
    return done
