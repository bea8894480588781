"""The net in the export file, and back: knots (with presence and memory links), edges, entities
and goals of one mind (docs/export-format.md, "The net's sections").

Export streams each section in chunks of NET_EXPORT_CHUNK_ROWS. Import maps every id of the file
to the target mind's — memories through the ids the memory import gave them, knots by (memory,
content hash), entities by lower-cased name, edges by (source, target), goals by (statement,
created_at) — so a second import of the same file finds every row and creates nothing. Rows are
checked completely before the first write; set-based: one query per kind of row, never per row.

Registered with `memoryproject.contributions` in `SynapsesConfig.ready()`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from django.core.exceptions import ValidationError
from django.db.models.functions import Lower
from django.db.models.query import QuerySet

from memories.models import EMBEDDING_DIMENSIONS
from memoryproject.contributions import ImportedSection, TimeFormatter
from memoryproject.domain import ValidationFailed, validation_error_fields
from pipelinelog.spans import current_span
from synapses.constants import LAYERS
from synapses.models import Edge, Entity, Goal, Knot, KnotPresence, MemoryKnot

# Rows of one net table fetched per round trip while streaming an export.
NET_EXPORT_CHUNK_ROWS = 500
# The sections the net writes into the export and reads back, in file order.
NET_SECTIONS = ("knots", "edges", "entities", "goals")

# The fields of each row in the file, besides `id` (and the knot's `presence` and `links`).
_KNOT_FIELDS = (
    "memory_id", "content", "content_hash", "category", "observer", "emotion", "arousal", "attributes",
    "embedding", "embedding_model", "themes", "entities", "event_time", "event_precision", "weight_raw",
    "weight_anchor", "activation_count", "created_at", "source_created_at",
)  # fmt: skip
_PRESENCE_FIELDS = ("presence_base", "weight_present", "reinforced_at", "decayed_at", "is_active")
_LINK_FIELDS = ("memory_id", "content_hash", "kind", "created_at")
_EDGE_FIELDS = (
    "source", "target", "weight_raw", "weight_anchor", "layers", "shared_entities", "shared_themes",
    "time_distance", "cosine_initial", "layer_count", "created_at",
)  # fmt: skip
_ENTITY_FIELDS = ("name", "aliases", "created_at")
_GOAL_FIELDS = ("statement", "motivation", "active", "embedding", "embedding_model", "created_at", "updated_at")
# Fields a row may leave out (the model's default is taken).
_OPTIONAL = {"emotion", "arousal", "attributes", "themes", "entities", "event_time", "event_precision", "aliases"}
_OPTIONAL |= {"shared_entities", "shared_themes", "time_distance", "cosine_initial", "embedding", "embedding_model"}
_OPTIONAL |= {"links", "activation_count", "updated_at"}


# --- export -----------------------------------------------------------------------------------


def _vector(value) -> list[float] | None:
    """A stored float32 vector as the shortest decimals that read back to the same float32s."""
    if value is None:
        return None
    return [float(str(number)) for number in np.asarray(value, dtype=np.float32)]


def _chunks(rows: QuerySet) -> Iterator[list]:
    """The rows by id, NET_EXPORT_CHUNK_ROWS at a time (keyset paging: no offset scans)."""
    last = 0
    while chunk := list(rows.filter(pk__gt=last).order_by("pk")[:NET_EXPORT_CHUNK_ROWS]):
        yield chunk
        last = chunk[-1].pk


# Fields of the file whose model attribute has another name (the edge's knots, by id).
_ATTRIBUTES = {"source": "source_id", "target": "target_id"}
# Fields holding a vector (written as float32 decimals).
_VECTOR_FIELDS = {"embedding"}


def _cell(value, name: str, represent_time: TimeFormatter):
    """One model value as the file writes it: times in the API's format, arrays as lists, vectors
    as the shortest float32 decimals, everything else as it is."""
    if name in _VECTOR_FIELDS:
        return _vector(value)
    if isinstance(value, datetime):
        return represent_time(value)
    if isinstance(value, list | tuple):
        return list(value)
    return value


def _row(instance, names: Iterable[str], represent_time: TimeFormatter) -> dict:
    """The file's fields `names` of one model instance: the same tuples the import reads back."""
    return {name: _cell(getattr(instance, _ATTRIBUTES.get(name, name)), name, represent_time) for name in names}


def _knot_rows(mind_id: str, represent_time: TimeFormatter) -> Iterator[dict]:
    for chunk in _chunks(Knot.objects.filter(mind_id=mind_id).select_related("presence").defer("search_vector")):
        links: dict[int, list[dict]] = {}
        for link in MemoryKnot.objects.filter(mind_id=mind_id, knot_id__in=[knot.pk for knot in chunk]).order_by("pk"):
            links.setdefault(link.knot_id, []).append(_row(link, _LINK_FIELDS, represent_time))
        for knot in chunk:
            presence = getattr(knot, "presence", None)  # every knot has one; a missing one must not break the stream
            yield {
                "id": knot.pk,
                **_row(knot, _KNOT_FIELDS, represent_time),
                "presence": _row(presence, _PRESENCE_FIELDS, represent_time) if presence else None,
                "links": links.get(knot.pk, []),
            }


def _section_rows(rows: QuerySet, names: tuple[str, ...], represent_time: TimeFormatter, *, with_id: bool = True):
    """A flat section (edges, entities, goals), chunk by chunk; edges have no `id` in the file."""
    for chunk in _chunks(rows):
        for instance in chunk:
            yield {**({"id": instance.pk} if with_id else {}), **_row(instance, names, represent_time)}


def net_export_sections(mind_id: str, represent_time: TimeFormatter) -> Iterator[tuple[str, Iterable[dict]]]:
    """The four sections of the mind's net, each a lazy stream of rows (ids are the server's)."""
    yield "knots", _knot_rows(mind_id, represent_time)
    yield "edges", _section_rows(Edge.objects.filter(mind_id=mind_id), _EDGE_FIELDS, represent_time, with_id=False)
    yield "entities", _section_rows(Entity.objects.filter(mind_id=mind_id), _ENTITY_FIELDS, represent_time)
    yield "goals", _section_rows(Goal.objects.filter(mind_id=mind_id), _GOAL_FIELDS, represent_time)


# --- import: reading the rows -------------------------------------------------------------------


@dataclass
class _Problems:
    """Errors by section and index, as the import answers them (`knots.3.memory_id`)."""

    found: dict[str, dict[int, dict[str, list[str]]]] = field(default_factory=dict)

    def add(self, section: str, index: int, name: str, message: str) -> None:
        self.found.setdefault(section, {}).setdefault(index, {}).setdefault(name, []).append(message)

    def add_all(self, section: str, index: int, fields: Mapping[str, list[str]], prefix: str = "") -> None:
        for name, messages in fields.items():
            for message in messages:
                self.add(section, index, prefix + name, message)

    def row_ok(self, section: str, index: int) -> bool:
        return not self.found.get(section, {}).get(index)

    def raise_any(self) -> None:
        if self.found:
            raise ValidationFailed(self.found)


def _shape(
    problems: _Problems, section: str, index: int, row, allowed: tuple[str, ...], *, prefix: str = "", extra=()
) -> bool:
    """A JSON object with every required field and no unknown one (unknown fields would vanish)."""
    if not isinstance(row, dict):
        problems.add(section, index, prefix.rstrip(".") or "body", "Each row must be a JSON object.")
        return False
    known = {*allowed, *extra}
    for name in row:
        if name not in known:
            problems.add(section, index, prefix + name, f"Unknown field. The fields are: {', '.join(sorted(known))}.")
    for name in allowed:
        if name not in row and name not in _OPTIONAL:
            problems.add(section, index, prefix + name, "This field is required.")
    return problems.row_ok(section, index)


def _vector_check(problems: _Problems, section: str, index: int, value, *, nullable: bool) -> None:
    if value is None and nullable:
        return
    if not (
        isinstance(value, list)
        and len(value) == EMBEDDING_DIMENSIONS
        and all(isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in value)
    ):
        problems.add(section, index, "embedding", f"A list of {EMBEDDING_DIMENSIONS} finite numbers.")


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_id(value) -> bool:
    """Ids of the file are what our export writes: integers (knots, entities) or strings (memories)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _json_type_problem(model_field, value) -> str | None:
    """What is wrong with the JSON type of `value` for the model field, before Django converts it
    (Django's conversions would take a dict for a text, or fail on an integer for a time)."""
    if value is None:
        return None if model_field.null else "This field may not be null."
    kind = model_field.get_internal_type()
    expected = {
        "CharField": (str, "a string"),
        "TextField": (str, "a string"),
        "DateTimeField": (str, "an ISO 8601 time"),
        "BooleanField": (bool, "true or false"),
        "JSONField": (dict, "a JSON object"),
        "ArrayField": (list, "a list"),
    }.get(kind)
    if expected and not isinstance(value, expected[0]):
        return f"Give {expected[1]}."
    if kind in ("FloatField", "PositiveIntegerField", "PositiveSmallIntegerField") and not _is_number(value):
        return "Give a number."
    strings = kind == "ArrayField" and model_field.base_field.get_internal_type() == "CharField"
    if strings and not all(isinstance(item, str) for item in value):
        return "Give a list of strings."
    return None


def _model_row(problems: _Problems, section: str, index: int, model, values: dict, *, exclude, prefix: str = ""):
    """The model instance of one row with its fields converted and checked by the model itself
    (types, choices, lengths, blank), or None when any is wrong."""
    wrong = {}
    for name, value in values.items():
        model_field = model._meta.get_field(name)
        if model_field.name not in exclude and (problem := _json_type_problem(model_field, value)):
            wrong[name] = [problem]
    if wrong:
        problems.add_all(section, index, wrong, prefix)
        return None
    instance = model(**values)
    try:
        instance.clean_fields(exclude=exclude)
    except ValidationError as error:
        problems.add_all(section, index, validation_error_fields(error), prefix)
        return None
    for name in values:  # a time without its zone would be read in the server's
        if model._meta.get_field(name).get_internal_type() == "DateTimeField":
            moment = getattr(instance, name)
            if moment is not None and moment.tzinfo is None:
                problems.add(section, index, prefix + name, "Give the time with its zone (ISO 8601, e.g. …Z).")
                return None
    return instance


def _ids(problems: _Problems, section: str, index: int, name: str, values, known: Mapping) -> list:
    if not isinstance(values, list):
        problems.add(section, index, name, "A list of ids of this file's rows.")
        return []
    if not all(_is_id(value) for value in values):
        problems.add(section, index, name, "A list of ids of this file's rows.")
        return []
    missing = [value for value in values if value not in known]
    if missing:
        problems.add(section, index, name, f"No row of this file has the id {missing[0]!r}.")
    return [known[value] for value in values if value in known]


@dataclass
class _Parsed:
    entities: list[tuple[Any, Entity]] = field(default_factory=list)  # (file id, row)
    knots: list[tuple[Any, Knot, KnotPresence, list[MemoryKnot]]] = field(default_factory=list)
    edges: list[tuple[Any, Any, Edge]] = field(default_factory=list)  # (file source, file target, row)
    goals: list[Goal] = field(default_factory=list)


def _file_id_ok(problems: _Problems, section: str, index: int, row: dict, seen: dict) -> bool:
    """The row's `id`, by which other rows of the file name it: there, an id, and its own."""
    if not _is_id(row.get("id")):
        problems.add(section, index, "id", "This field is required (an integer or string): other rows name it by it.")
        return False
    if row["id"] in seen:
        problems.add(section, index, "id", f"{section}.{seen[row['id']]} has the same id.")
        return False
    seen[row["id"]] = index
    return True


def _read_entities(problems: _Problems, rows: list, mind_id: str) -> list[tuple[Any, Entity]]:
    read = []
    seen: dict = {}
    names: dict[str, int] = {}  # lower-cased name → index of the row that has it
    for index, row in enumerate(rows):
        if not _shape(problems, "entities", index, row, _ENTITY_FIELDS, extra=("id",)):
            continue
        if not _file_id_ok(problems, "entities", index, row, seen):
            continue
        values = {name: row[name] for name in _ENTITY_FIELDS if name in row}
        entity = _model_row(problems, "entities", index, Entity, {"mind_id": mind_id, **values}, exclude=["mind"])
        if entity is None:
            continue
        if entity.name.lower() in names:
            problems.add("entities", index, "name", f"entities.{names[entity.name.lower()]} has the same name.")
            continue
        names[entity.name.lower()] = index
        read.append((row["id"], entity))
    return read


def _read_knots(
    problems: _Problems, rows: list, mind_id: str, memory_ids: Mapping[str, str], entity_ids: Mapping
) -> list[tuple[Any, Knot, KnotPresence, list[MemoryKnot]]]:
    read = []
    seen: dict = {}
    for index, row in enumerate(rows):
        if not _shape(problems, "knots", index, row, _KNOT_FIELDS, extra=("id", "presence", "links")):
            continue
        if not _file_id_ok(problems, "knots", index, row, seen):
            continue
        memory_id = memory_ids.get(row["memory_id"]) if isinstance(row["memory_id"], str) else None
        if memory_id is None:
            problems.add("knots", index, "memory_id", "No memory of this import has this id.")
        _vector_check(problems, "knots", index, row["embedding"], nullable=False)
        entities = _ids(problems, "knots", index, "entities", row.get("entities", []), entity_ids)
        values = {name: row[name] for name in _KNOT_FIELDS if name in row and name not in ("memory_id", "entities")}
        values = {**values, "mind_id": mind_id, "memory_id": memory_id, "entities": entities}
        values["event_precision"] = values.get("event_precision") or ""
        values["emotion"] = values.get("emotion") or ""
        knot = _model_row(problems, "knots", index, Knot, values, exclude=["mind", "memory", "embedding"])
        presence = None
        if "presence" not in row:
            problems.add("knots", index, "presence", "This field is required.")
        elif _shape(problems, "knots", index, row["presence"], _PRESENCE_FIELDS, prefix="presence."):
            values = {**row["presence"], "mind_id": mind_id}
            presence = _model_row(
                problems, "knots", index, KnotPresence, values, exclude=["knot", "mind"], prefix="presence."
            )
        links = []
        if not isinstance(row.get("links", []), list):
            problems.add("knots", index, "links", "A list of the memory links of the knot.")
        for position, link_row in enumerate(row.get("links") if isinstance(row.get("links"), list) else []):
            prefix = f"links.{position}."
            if not _shape(problems, "knots", index, link_row, _LINK_FIELDS, prefix=prefix):
                continue
            linked = memory_ids.get(link_row["memory_id"]) if isinstance(link_row["memory_id"], str) else None
            if linked is None:
                problems.add("knots", index, prefix + "memory_id", "No memory of this import has this id.")
                continue
            values = {**{name: link_row[name] for name in _LINK_FIELDS}, "mind_id": mind_id, "memory_id": linked}
            link = _model_row(
                problems, "knots", index, MemoryKnot, values, exclude=["mind", "memory", "knot"], prefix=prefix
            )
            if link is not None:
                links.append(link)
        if knot is not None and presence is not None and problems.row_ok("knots", index):
            read.append((row["id"], knot, presence, links))
    return read


def _read_edges(problems: _Problems, rows: list, mind_id: str, knot_file_ids: set, entity_ids: Mapping) -> list:
    read = []
    for index, row in enumerate(rows):
        if not _shape(problems, "edges", index, row, _EDGE_FIELDS, extra=("id",)):
            continue
        for end in ("source", "target"):
            if not _is_id(row[end]) or row[end] not in knot_file_ids:
                problems.add("edges", index, end, "No knot of this file has this id.")
        if _is_id(row["source"]) and row["source"] == row["target"]:
            problems.add("edges", index, "target", "An edge joins two different knots.")
        layers = row["layers"]
        if not (isinstance(layers, list) and layers and all(isinstance(x, str) and x in LAYERS for x in layers)):
            problems.add("edges", index, "layers", f"A non-empty list of the layers {', '.join(LAYERS)}.")
        shared = _ids(problems, "edges", index, "shared_entities", row.get("shared_entities", []), entity_ids)
        values = {name: row[name] for name in _EDGE_FIELDS if name in row and name not in ("source", "target")}
        edge = _model_row(
            problems, "edges", index, Edge, {**values, "mind_id": mind_id, "shared_entities": shared},
            exclude=["mind", "source", "target"],
        )  # fmt: skip
        if edge is not None and problems.row_ok("edges", index):
            read.append((row["source"], row["target"], edge))
    return read


def _read_goals(problems: _Problems, rows: list, mind_id: str) -> list[Goal]:
    read = []
    for index, row in enumerate(rows):
        if not _shape(problems, "goals", index, row, _GOAL_FIELDS, extra=("id",)):
            continue
        _vector_check(problems, "goals", index, row.get("embedding"), nullable=True)
        values = {name: row[name] for name in _GOAL_FIELDS if name in row}
        values.setdefault("updated_at", row["created_at"])
        goal = _model_row(problems, "goals", index, Goal, {**values, "mind_id": mind_id}, exclude=["mind", "embedding"])
        if goal is not None and problems.row_ok("goals", index):
            if not 0 <= goal.motivation <= 1:
                problems.add("goals", index, "motivation", "A number from 0 to 1.")
                continue
            read.append(goal)
    return read


def _section(sections: Mapping[str, Any], name: str) -> list:
    rows = sections.get(name) or []
    if not isinstance(rows, list):
        raise ValidationFailed({name: [f"{name} must be a list of objects."]})
    return rows


def _read(sections: Mapping[str, Any], mind_id: str, memory_ids: Mapping[str, str]) -> _Parsed:
    problems = _Problems()
    rows = {name: _section(sections, name) for name in NET_SECTIONS}
    parsed = _Parsed()
    parsed.entities = _read_entities(problems, rows["entities"], mind_id)
    entity_file_ids = {file_id: file_id for file_id, _ in parsed.entities}
    parsed.knots = _read_knots(problems, rows["knots"], mind_id, memory_ids, entity_file_ids)
    # Every id a knot row gives, valid row or not: an edge is not wrong for its knot's mistake.
    knot_file_ids = {row["id"] for row in rows["knots"] if isinstance(row, dict) and _is_id(row.get("id"))}
    parsed.edges = _read_edges(problems, rows["edges"], mind_id, knot_file_ids, entity_file_ids)
    parsed.goals = _read_goals(problems, rows["goals"], mind_id)
    problems.raise_any()
    return parsed


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
    parsed = _read(sections, mind_id, memory_ids)
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
