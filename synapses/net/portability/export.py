"""The net in the export file: each section a lazy stream of rows, fetched NET_EXPORT_CHUNK_ROWS
at a time (docs/export-format.md, "The net's sections")."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime

import numpy as np
from django.db.models.query import QuerySet

from memoryproject.core.contributions import TimeFormatter
from synapses.models import Edge, Entity, Goal, Knot, MemoryKnot
from synapses.net.portability.fields import (
    EDGE_FIELDS,
    ENTITY_FIELDS,
    GOAL_FIELDS,
    KNOT_FIELDS,
    LINK_FIELDS,
    NET_EXPORT_CHUNK_ROWS,
    PRESENCE_FIELDS,
)

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
            links.setdefault(link.knot_id, []).append(_row(link, LINK_FIELDS, represent_time))
        for knot in chunk:
            presence = getattr(knot, "presence", None)  # every knot has one; a missing one must not break the stream
            yield {
                "id": knot.pk,
                **_row(knot, KNOT_FIELDS, represent_time),
                "presence": _row(presence, PRESENCE_FIELDS, represent_time) if presence else None,
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
    yield "edges", _section_rows(Edge.objects.filter(mind_id=mind_id), EDGE_FIELDS, represent_time, with_id=False)
    yield "entities", _section_rows(Entity.objects.filter(mind_id=mind_id), ENTITY_FIELDS, represent_time)
    yield "goals", _section_rows(Goal.objects.filter(mind_id=mind_id), GOAL_FIELDS, represent_time)
