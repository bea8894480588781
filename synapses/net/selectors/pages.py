"""Reading the net for the human UI's pages (docs/ui.md): the picture of the net, one memory's
knots with their edges, and the memories the net relates to it. Reads only; every query filters
by mind. What the API also answers comes from `synapses.net.selectors.knots`; only what no endpoint needs is here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Q
from django.db.models.functions import Left
from django.utils import timezone

from memories.models import Memory, current_filter
from synapses.models import Edge, Knot, MemoryKnot
from synapses.net.selectors import knots as queries

# Most edges each knot of the memory page lists, the strongest first (edges); the counts say how many there are.
MEMORY_PAGE_EDGES_SHOWN = 20
# Most related memories from the net the memory page lists (memories).
MEMORY_PAGE_RELATED_SHOWN = 10
# Most characters of a knot's content the picture's data carries per node (characters): the
# panel shows the start, the memory's page the whole.
PICTURE_CONTENT_CHARS = 300


def _knots(mind_id: str):
    """The mind's knots with their presence and memory (key, verified, current hash), no vectors
    and no full-text documents."""
    return (
        Knot.objects.filter(mind_id=mind_id)
        .select_related("presence", "memory")
        .defer("embedding", "search_vector", "attributes", "memory__embedding", "memory__search_vector")
    )


@dataclass(frozen=True)
class NetPicture:
    """The nodes and edges the net page draws, as plain rows (a picture of 1,000 knots and 5,000
    edge rows built as model instances cost more CPU than everything else of the request), and
    the names of the entities they mention."""

    # One dict per knot, most present first: id, memory_id, memory_key, memory_verified, content
    # (its first PICTURE_CONTENT_CHARS characters, and one more when it is longer), category,
    # observer, themes, entities (ids), weight_anchor, weight_present, activation_count, superseded.
    nodes: list[dict]
    # One dict per connected pair (the stronger direction), strongest first: id, source, target,
    # weight, layers, shared_entities (ids), shared_themes.
    edges: list[dict]
    truncated: bool  # more knots matched than `max_nodes`
    entity_names: dict[int, str]


_PICTURE_NODE_FIELDS = {
    "id": "id", "memory_id": "memory_id", "memory_key": "memory__key", "memory_verified": "memory__verified",
    "category": "category", "observer": "observer", "themes": "themes", "entities": "entities",
    "weight_anchor": "weight_anchor", "weight_present": "presence__weight_present",
    "activation_count": "activation_count", "content_hash": "content_hash",
    "memory_content_hash": "memory__content_hash",
}  # fmt: skip
_PICTURE_EDGE_FIELDS = ("id", "source_id", "target_id", "weight_anchor", "layers", "shared_entities", "shared_themes")


def net_picture(
    *,
    mind_id: str,
    max_nodes: int,
    category: str | None = None,
    theme: str | None = None,
    entity_id: int | None = None,
    now: datetime | None = None,
) -> NetPicture:
    """The mind's active knots of current memories, the `max_nodes` most present first, filtered
    by category, theme and entity; the edges among them (at most queries.GRAPH_MAX_EDGES rows,
    strongest first, one per pair). `GET /memory/graph` draws the same knots; the picture adds
    the entity filter and the knots' entities. Three queries."""
    current = Memory.objects.filter(current_filter(now or timezone.now()), mind_id=mind_id).values("pk")
    knots = Knot.objects.filter(mind_id=mind_id, presence__is_active=True, memory_id__in=current)
    if category:
        knots = knots.filter(category=category)
    if theme:
        knots = knots.filter(themes__contains=[theme])
    if entity_id is not None:
        knots = knots.filter(entities__contains=[entity_id])
    rows = list(
        knots.annotate(content_start=Left("content", PICTURE_CONTENT_CHARS + 1))
        .order_by("-presence__weight_present", "id")
        .values("content_start", *_PICTURE_NODE_FIELDS.values())[: max_nodes + 1]
    )
    truncated = len(rows) > max_nodes
    nodes = [_picture_node(row) for row in rows[:max_nodes]]
    ids = [node["id"] for node in nodes]
    edges: list[dict] = []
    if ids:
        among = Edge.objects.filter(mind_id=mind_id, source_id__in=ids, target_id__in=ids)
        seen: set[tuple[int, int]] = set()
        for row in among.order_by("-weight_anchor", "id").values_list(*_PICTURE_EDGE_FIELDS)[: queries.GRAPH_MAX_EDGES]:
            edge_id, source, target, weight, layers, shared_entities, shared_themes = row
            pair = (min(source, target), max(source, target))
            if pair not in seen:
                seen.add(pair)
                edges.append(
                    {"id": edge_id, "source": source, "target": target, "weight": weight, "layers": layers,
                     "shared_entities": shared_entities, "shared_themes": shared_themes}
                )  # fmt: skip
    entity_ids = {entity for node in nodes for entity in node["entities"]}
    entity_ids |= {entity for edge in edges for entity in edge["shared_entities"]}
    return NetPicture(
        nodes=nodes, edges=edges, truncated=truncated, entity_names=queries.entity_names(mind_id, entity_ids)
    )


def _picture_node(row: dict) -> dict:
    node = {name: row[source] for name, source in _PICTURE_NODE_FIELDS.items()}
    content = row["content_start"]
    node["content"] = content if len(content) <= PICTURE_CONTENT_CHARS else content[: PICTURE_CONTENT_CHARS - 1] + "…"
    # The knot's memory holds other content since: the knot is an earlier version.
    node["superseded"] = node.pop("content_hash") != node.pop("memory_content_hash")
    return node


@dataclass(frozen=True)
class KnotEdgeRow:
    """One edge of a knot as the memory page lists it: the knot at its other end and why it exists."""

    edge: Edge
    other: Knot
    shared_entities: list[str]


@dataclass
class MemoryKnotRow:
    """One knot of the memory: its own version (current or superseded) or the knot it is a duplicate of."""

    knot: Knot
    current: bool  # holds the memory's current content
    link_kind: str  # origin, duplicate or reactivated ("" when no link of this memory names it)
    entities: list[str]
    edges: list[KnotEdgeRow] = field(default_factory=list)
    edges_count: int = 0


@dataclass(frozen=True)
class MemoryNet:
    knots: list[MemoryKnotRow]
    related: list[Memory]  # current memories an edge of the current knot leads to, strongest edge first


def _edges_of(knot: Knot, *, shown: int) -> tuple[list[Edge], int]:
    edges = Edge.objects.filter(mind_id=knot.mind_id, source_id=knot.pk)
    return list(edges.order_by("-weight_anchor", "id")[:shown]), edges.count()


def memory_net(*, memory: Memory, shown: int = MEMORY_PAGE_EDGES_SHOWN, now: datetime | None = None) -> MemoryNet:
    """The knots holding `memory` (its versions, current and superseded, and a knot of another
    memory it was found a duplicate of), newest first, each with its strongest outgoing edges
    (an edge is written both ways, so outgoing shows every neighbour), and the related memories
    the current knot's edges lead to. A handful of queries, two per knot."""
    links = dict(MemoryKnot.objects.filter(mind_id=memory.mind_id, memory_id=memory.pk).values_list("knot_id", "kind"))
    current_ids = set(
        MemoryKnot.objects.filter(
            mind_id=memory.mind_id, memory_id=memory.pk, content_hash=memory.content_hash
        ).values_list("knot_id", flat=True)
    )
    knots = list(
        _knots(memory.mind_id).filter(Q(memory_id=memory.pk) | Q(pk__in=list(links))).order_by("-created_at", "-id")
    )
    rows: list[MemoryKnotRow] = []
    others: dict[int, list[Edge]] = {}
    for knot in knots:
        edges, count = _edges_of(knot, shown=shown)
        others[knot.pk] = edges
        rows.append(
            MemoryKnotRow(knot=knot, current=knot.pk in current_ids, link_kind=links.get(knot.pk, ""), entities=[])
        )
        rows[-1].edges_count = count
    target_ids = {edge.target_id for edges in others.values() for edge in edges}
    targets = _knots(memory.mind_id).in_bulk(list(target_ids))
    entity_ids: set[int] = {entity for knot in knots for entity in knot.entities}
    entity_ids |= {entity for edges in others.values() for edge in edges for entity in edge.shared_entities}
    names = queries.entity_names(memory.mind_id, entity_ids)
    for row in rows:
        row.entities = _names(row.knot.entities, names)
        row.edges = [
            KnotEdgeRow(edge=edge, other=targets[edge.target_id], shared_entities=_names(edge.shared_entities, names))
            for edge in others[row.knot.pk]
            if edge.target_id in targets
        ]
    related = queries.memory_related(memory=memory, now=now)
    neighbour_ids = list(related.neighbours)[:MEMORY_PAGE_RELATED_SHOWN]
    by_id = Memory.objects.filter(pk__in=neighbour_ids).defer("embedding", "search_vector").in_bulk()
    return MemoryNet(knots=rows, related=[by_id[pk] for pk in neighbour_ids if pk in by_id])


def _names(ids: Iterable[int], names: dict[int, str]) -> list[str]:
    return [names[entity] for entity in ids if entity in names]
