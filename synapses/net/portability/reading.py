"""Reading the net's sections of an import file: every row checked completely, every problem named
by section, index and field (`knots.3.memory_id`), before the first write."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError

from memories.models import EMBEDDING_DIMENSIONS
from memoryproject.core.domain import ValidationFailed, validation_error_fields
from synapses.constants import LAYERS
from synapses.models import Edge, Entity, Goal, Knot, KnotPresence, MemoryKnot
from synapses.net.portability.fields import (
    EDGE_FIELDS,
    ENTITY_FIELDS,
    GOAL_FIELDS,
    KNOT_FIELDS,
    LINK_FIELDS,
    NET_SECTIONS,
    OPTIONAL_FIELDS,
    PRESENCE_FIELDS,
)

# --- import: reading the rows -------------------------------------------------------------------


@dataclass
class Problems:
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
    problems: Problems, section: str, index: int, row, allowed: tuple[str, ...], *, prefix: str = "", extra=()
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
        if name not in row and name not in OPTIONAL_FIELDS:
            problems.add(section, index, prefix + name, "This field is required.")
    return problems.row_ok(section, index)


def _vector_check(problems: Problems, section: str, index: int, value, *, nullable: bool) -> None:
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


def _model_row(problems: Problems, section: str, index: int, model, values: dict, *, exclude, prefix: str = ""):
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


def _ids(problems: Problems, section: str, index: int, name: str, values, known: Mapping) -> list:
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


def _magnets(problems: Problems, index: int, value, entity_ids: Mapping) -> dict:
    """A knot's record of its magnets: {"language": text, "entities": [{"id", "name", "rule"}]},
    each id one of this file's entities (the import maps it as the knot's `entities`)."""
    message = 'An object {"language": "en", "entities": [{"id": …, "name": "…", "rule": "…"}]}.'
    found = value.get("entities", []) if isinstance(value, dict) else None
    shaped = isinstance(found, list) and all(
        isinstance(item, dict) and set(item) == {"id", "name", "rule"} and _is_id(item["id"])
        and isinstance(item["name"], str) and isinstance(item["rule"], str) for item in found
    )  # fmt: skip
    if not shaped or not isinstance(value.get("language", ""), str) or set(value) - {"language", "entities"}:
        problems.add("knots", index, "magnets", message)
        return {}
    missing = [item["id"] for item in found if item["id"] not in entity_ids]
    if missing:
        problems.add("knots", index, "magnets", f"No row of this file has the id {missing[0]!r}.")
        return {}
    return value


@dataclass
class Parsed:
    entities: list[tuple[Any, Entity]] = field(default_factory=list)  # (file id, row)
    knots: list[tuple[Any, Knot, KnotPresence, list[MemoryKnot]]] = field(default_factory=list)
    edges: list[tuple[Any, Any, Edge]] = field(default_factory=list)  # (file source, file target, row)
    goals: list[Goal] = field(default_factory=list)


def _file_id_ok(problems: Problems, section: str, index: int, row: dict, seen: dict) -> bool:
    """The row's `id`, by which other rows of the file name it: there, an id, and its own."""
    if not _is_id(row.get("id")):
        problems.add(section, index, "id", "This field is required (an integer or string): other rows name it by it.")
        return False
    if row["id"] in seen:
        problems.add(section, index, "id", f"{section}.{seen[row['id']]} has the same id.")
        return False
    seen[row["id"]] = index
    return True


def _read_entities(problems: Problems, rows: list, mind_id: str) -> list[tuple[Any, Entity]]:
    read = []
    seen: dict = {}
    names: dict[str, int] = {}  # lower-cased name → index of the row that has it
    for index, row in enumerate(rows):
        if not _shape(problems, "entities", index, row, ENTITY_FIELDS, extra=("id",)):
            continue
        if not _file_id_ok(problems, "entities", index, row, seen):
            continue
        values = {name: row[name] for name in ENTITY_FIELDS if name in row}
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
    problems: Problems, rows: list, mind_id: str, memory_ids: Mapping[str, str], entity_ids: Mapping
) -> list[tuple[Any, Knot, KnotPresence, list[MemoryKnot]]]:
    read = []
    seen: dict = {}
    for index, row in enumerate(rows):
        if not _shape(problems, "knots", index, row, KNOT_FIELDS, extra=("id", "presence", "links")):
            continue
        if not _file_id_ok(problems, "knots", index, row, seen):
            continue
        memory_id = memory_ids.get(row["memory_id"]) if isinstance(row["memory_id"], str) else None
        if memory_id is None:
            problems.add("knots", index, "memory_id", "No memory of this import has this id.")
        _vector_check(problems, "knots", index, row["embedding"], nullable=False)
        entities = _ids(problems, "knots", index, "entities", row.get("entities", []), entity_ids)
        magnets = _magnets(problems, index, row.get("magnets", {}), entity_ids)
        values = {name: row[name] for name in KNOT_FIELDS if name in row and name not in ("memory_id", "entities")}
        values = {**values, "mind_id": mind_id, "memory_id": memory_id, "entities": entities, "magnets": magnets}
        values["event_precision"] = values.get("event_precision") or ""
        values["emotion"] = values.get("emotion") or ""
        knot = _model_row(problems, "knots", index, Knot, values, exclude=["mind", "memory", "embedding"])
        presence = None
        if "presence" not in row:
            problems.add("knots", index, "presence", "This field is required.")
        elif _shape(problems, "knots", index, row["presence"], PRESENCE_FIELDS, prefix="presence."):
            values = {**row["presence"], "mind_id": mind_id}
            presence = _model_row(
                problems, "knots", index, KnotPresence, values, exclude=["knot", "mind"], prefix="presence."
            )
        links = []
        if not isinstance(row.get("links", []), list):
            problems.add("knots", index, "links", "A list of the memory links of the knot.")
        for position, link_row in enumerate(row.get("links") if isinstance(row.get("links"), list) else []):
            prefix = f"links.{position}."
            if not _shape(problems, "knots", index, link_row, LINK_FIELDS, prefix=prefix):
                continue
            linked = memory_ids.get(link_row["memory_id"]) if isinstance(link_row["memory_id"], str) else None
            if linked is None:
                problems.add("knots", index, prefix + "memory_id", "No memory of this import has this id.")
                continue
            values = {**{name: link_row[name] for name in LINK_FIELDS}, "mind_id": mind_id, "memory_id": linked}
            link = _model_row(
                problems, "knots", index, MemoryKnot, values, exclude=["mind", "memory", "knot"], prefix=prefix
            )
            if link is not None:
                links.append(link)
        if knot is not None and presence is not None and problems.row_ok("knots", index):
            read.append((row["id"], knot, presence, links))
    return read


def _read_edges(problems: Problems, rows: list, mind_id: str, knot_file_ids: set, entity_ids: Mapping) -> list:
    read = []
    for index, row in enumerate(rows):
        if not _shape(problems, "edges", index, row, EDGE_FIELDS, extra=("id",)):
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
        values = {name: row[name] for name in EDGE_FIELDS if name in row and name not in ("source", "target")}
        edge = _model_row(
            problems, "edges", index, Edge, {**values, "mind_id": mind_id, "shared_entities": shared},
            exclude=["mind", "source", "target"],
        )  # fmt: skip
        if edge is not None and problems.row_ok("edges", index):
            read.append((row["source"], row["target"], edge))
    return read


def _read_goals(problems: Problems, rows: list, mind_id: str) -> list[Goal]:
    read = []
    for index, row in enumerate(rows):
        if not _shape(problems, "goals", index, row, GOAL_FIELDS, extra=("id",)):
            continue
        _vector_check(problems, "goals", index, row.get("embedding"), nullable=True)
        values = {name: row[name] for name in GOAL_FIELDS if name in row}
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


def sections_read(sections: Mapping[str, Any], mind_id: str, memory_ids: Mapping[str, str]) -> Parsed:
    problems = Problems()
    rows = {name: _section(sections, name) for name in NET_SECTIONS}
    parsed = Parsed()
    parsed.entities = _read_entities(problems, rows["entities"], mind_id)
    entity_file_ids = {file_id: file_id for file_id, _ in parsed.entities}
    parsed.knots = _read_knots(problems, rows["knots"], mind_id, memory_ids, entity_file_ids)
    # Every id a knot row gives, valid row or not: an edge is not wrong for its knot's mistake.
    knot_file_ids = {row["id"] for row in rows["knots"] if isinstance(row, dict) and _is_id(row.get("id"))}
    parsed.edges = _read_edges(problems, rows["edges"], mind_id, knot_file_ids, entity_file_ids)
    parsed.goals = _read_goals(problems, rows["goals"], mind_id)
    problems.raise_any()
    return parsed
