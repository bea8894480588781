"""Reading the net for the API: knots and their edges, goals, entities, the mind profile, a
memory's related memories and the graph for drawing. Reads only; every query filters by mind.
(The candidates of edge formation are read by synapses.net.selectors.candidates.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection
from django.db.models import CharField, F, Func, Q, QuerySet, Value
from django.utils import timezone

from memories.models import Memory, current_filter
from memories.selectors.overview import memories_related
from memoryproject.core.domain import NotFound
from synapses.models import Edge, Entity, Goal, Knot, MemoryKnot
from synapses.net.sql import ENTITY_IDS_NAMED_SQL, ENTITY_KNOT_COUNTS_SQL

KNOT_NOT_FOUND = "No knot with this id in this mind."
GOAL_NOT_FOUND = "No goal with this id in this mind."
ENTITY_NOT_FOUND = "No entity with this id in this mind."

# Most edges each of a knot's `outgoing` and `incoming` lists shows, the strongest first (edges);
# the counts say how many there are.
KNOT_EDGES_SHOWN = 200
# Most knots in a mind profile (knots), as the original's character distillation reads.
PROFILE_MAX_KNOTS = 50
# Most edge neighbours a memory's related list considers (edges of its knot, strongest first).
RELATED_MAX_EDGES = 200
# Most edges the graph returns, the strongest first (all are counted in the stats).
GRAPH_MAX_EDGES = 5000

# Knot fields every answer about knots reads (not the vector, not the full-text document).
_KNOT_FIELDS = (
    "id", "mind_id", "memory_id", "content", "content_hash", "category", "observer", "emotion", "themes",
    "entities", "magnets", "event_time", "event_precision", "weight_raw", "weight_anchor", "activation_count",
    "created_at", "memory__content_hash", "presence__presence_base", "presence__weight_present",
    "presence__is_active", "presence__reinforced_at", "presence__decayed_at",
)  # fmt: skip


def knots_of(mind_id: str) -> QuerySet[Knot]:
    """The mind's knots with their presence and memory's current hash (for `superseded`), no vectors."""
    return Knot.objects.filter(mind_id=mind_id).select_related("presence", "memory").only(*_KNOT_FIELDS)


def knot_superseded(knot: Knot) -> bool:
    """The knot's memory holds other content since: the knot is an earlier version."""
    return knot.content_hash != knot.memory.content_hash


def entity_ids_named(mind_id: str, name: str) -> list[int]:
    """The ids of the mind's entities called `name` or having it as an alias (any case)."""
    with connection.cursor() as cursor:
        cursor.execute(ENTITY_IDS_NAMED_SQL, {"mind": mind_id, "name": name})
        return [row[0] for row in cursor.fetchall()]


def knots_list(
    *,
    mind_id: str,
    active: bool | None = None,
    observer: str | None = None,
    theme: str | None = None,
    entity: str | None = None,
) -> QuerySet[Knot]:
    """GET /synapses/knots: the mind's knots, newest first, filtered. `entity` is a name or alias."""
    knots = knots_of(mind_id)
    if active is not None:
        knots = knots.filter(presence__is_active=active)
    if observer:
        knots = knots.filter(observer=observer)
    if theme:
        knots = knots.filter(themes__contains=[theme])
    if entity:
        named = entity_ids_named(mind_id, entity)
        knots = knots.filter(entities__overlap=named) if named else knots.none()
    return knots.order_by("-created_at", "-id")


def knot_get(*, mind_id: str, knot_id: int) -> Knot:
    knot = knots_of(mind_id).filter(pk=knot_id).first()
    if knot is None:
        raise NotFound(KNOT_NOT_FOUND)
    return knot


@dataclass(frozen=True)
class KnotEdges:
    outgoing: list[Edge]
    incoming: list[Edge]
    outgoing_count: int
    incoming_count: int


def knot_edges(knot: Knot, *, shown: int = KNOT_EDGES_SHOWN) -> KnotEdges:
    """The knot's edges both ways, the strongest `shown` of each, with their totals."""
    edges = Edge.objects.filter(mind_id=knot.mind_id)
    outgoing = edges.filter(source_id=knot.pk)
    incoming = edges.filter(target_id=knot.pk)
    order = ("-weight_anchor", "id")
    return KnotEdges(
        outgoing=list(outgoing.order_by(*order)[:shown]),
        incoming=list(incoming.order_by(*order)[:shown]),
        outgoing_count=outgoing.count(),
        incoming_count=incoming.count(),
    )


def entity_names(mind_id: str, ids: Iterable[int]) -> dict[int, str]:
    """{entity id: name} for the ids, in one query (none for no ids)."""
    wanted = set(ids)
    if not wanted:
        return {}
    return dict(Entity.objects.filter(mind_id=mind_id, pk__in=wanted).values_list("pk", "name"))


# --- goals and entities --------------------------------------------------------------------------


def goals_list(*, mind_id: str, active: bool | None = None) -> QuerySet[Goal]:
    goals = Goal.objects.filter(mind_id=mind_id).defer("embedding")
    if active is not None:
        goals = goals.filter(active=active)
    return goals.order_by("-motivation", "id")


def goal_get(*, mind_id: str, goal_id: int) -> Goal:
    goal = Goal.objects.filter(mind_id=mind_id, pk=goal_id).first()
    if goal is None:
        raise NotFound(GOAL_NOT_FOUND)
    return goal


def entities_list(*, mind_id: str, name: str | None = None) -> QuerySet[Entity]:
    """The mind's entities by name (case-insensitive); `name` keeps those whose name or an alias contains it."""
    entities = Entity.objects.filter(mind_id=mind_id)
    if name:
        aliases = Func(F("aliases"), Value("\n"), function="array_to_string", output_field=CharField())
        entities = entities.alias(aliases_text=aliases).filter(
            Q(name__icontains=name) | Q(aliases_text__icontains=name)
        )
    return entities.order_by(F("name").asc(), "id")


def entity_get(*, mind_id: str, entity_id: int) -> Entity:
    entity = Entity.objects.filter(mind_id=mind_id, pk=entity_id).first()
    if entity is None:
        raise NotFound(ENTITY_NOT_FOUND)
    return entity


def entity_knot_counts(mind_id: str, ids: Sequence[int]) -> dict[int, int]:
    """How many knots carry each entity, in one query (the GIN index on `entities`)."""
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(ENTITY_KNOT_COUNTS_SQL, {"mind": mind_id, "ids": list(ids)})
        return dict(cursor.fetchall())


# --- mind profile ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProfileGroup:
    category: str
    knots: list[Knot]


@dataclass(frozen=True)
class MindProfile:
    mind_id: str
    mind_name: str
    count: int
    groups: list[ProfileGroup] = field(default_factory=list)


def mind_profile(*, mind_id: str, mind_name: str, limit: int = PROFILE_MAX_KNOTS) -> MindProfile:
    """The mind's strongest durable memories of what the user said (§7).

    Active knots with observer `user`, by `weight_anchor` (how often and how strongly they were
    confirmed, never decayed) then `activation_count`, at most `limit`, grouped by category; the
    groups in the order of their strongest knot. Presence only gates (inactive knots are left
    out); it does not rank. One query.
    """
    knots = list(
        knots_of(mind_id)
        .filter(presence__is_active=True, observer="user")
        .order_by("-weight_anchor", "-activation_count", "id")[:limit]
    )
    groups: dict[str, list[Knot]] = {}
    for knot in knots:
        groups.setdefault(knot.category, []).append(knot)
    return MindProfile(
        mind_id=mind_id,
        mind_name=mind_name,
        count=len(knots),
        groups=[ProfileGroup(category=category, knots=members) for category, members in groups.items()],
    )


def profile_text(profile: MindProfile) -> str:
    """The profile as plain text for a prompt: a header, then each category with its knots' content."""
    if not profile.count:
        return f"Profile of {profile.mind_name}: nothing durable the user said yet.\n"
    noun = "memory" if profile.count == 1 else "memories"
    lines = [f"Profile of {profile.mind_name}: {profile.count} durable {noun} of what the user said.", ""]
    for group in profile.groups:
        lines.append(group.category)
        for knot in group.knots:
            first, *rest = knot.content.splitlines() or [""]
            lines.append(f"  - {first}")
            lines.extend(f"    {line}" for line in rest)
    return "\n".join(lines) + "\n"


# --- related memories -----------------------------------------------------------------------------


def memory_current_knot_id(memory: Memory) -> int | None:
    """The knot holding the memory's current content (its own, or the one it is a duplicate of)."""
    return (
        MemoryKnot.objects.filter(mind_id=memory.mind_id, memory_id=memory.pk, content_hash=memory.content_hash)
        .values_list("knot_id", flat=True)
        .first()
    )


@dataclass(frozen=True)
class EdgeNeighbour:
    """A memory whose knot an edge of the memory's knot leads to."""

    memory_id: str
    knot_id: int
    edge: Edge


@dataclass
class RelatedMemories:
    """A memory's related memories: edge neighbours first (strongest edge first), then those sharing tags.

    Paged by `page`; `neighbours` keyed by memory id tell the serializer which came by an edge.
    """

    memory: Memory
    knot_id: int | None
    neighbours: dict[str, EdgeNeighbour]
    by_tags: QuerySet[Memory]

    def count(self) -> int:
        return len(self.neighbours) + self.by_tags.count()

    def __getitem__(self, window: slice) -> list[Memory]:
        """`related[offset:offset + limit]`, as the paginator asks for a page."""
        return self.page(window.start or 0, window.stop - (window.start or 0))

    def page(self, offset: int, limit: int) -> list[Memory]:
        ids = list(self.neighbours)
        chosen = ids[offset : offset + limit]
        memories = Memory.objects.filter(pk__in=chosen).defer("embedding", "search_vector").in_bulk()
        page = [memories[memory_id] for memory_id in chosen if memory_id in memories]
        rest = limit - len(chosen)
        if rest > 0:
            start = max(0, offset - len(ids))
            page += list(self.by_tags[start : start + rest])
        return page


def memory_related(*, memory: Memory, now: datetime | None = None) -> RelatedMemories:
    """GET /memory/{id}/related: the memories whose knots the memory's current knot has edges to
    (the strongest `RELATED_MAX_EDGES`, each memory once, current ones only), then the other current
    memories sharing tags (memories.selectors.overview.memories_related's order)."""
    now = now or timezone.now()
    knot_id = memory_current_knot_id(memory)
    neighbours: dict[str, EdgeNeighbour] = {}
    if knot_id is not None:
        current = Memory.objects.filter(current_filter(now), mind_id=memory.mind_id).values("pk")
        edges = (
            Edge.objects.filter(mind_id=memory.mind_id, source_id=knot_id, target__memory_id__in=current)
            .exclude(target__memory_id=memory.pk)
            .select_related("target")
            .only(*(name.name for name in Edge._meta.concrete_fields), "target__memory_id")
            .order_by("-weight_anchor", "id")[:RELATED_MAX_EDGES]
        )
        for edge in edges:
            neighbours.setdefault(edge.target.memory_id, EdgeNeighbour(edge.target.memory_id, edge.target_id, edge))
    by_tags = memories_related(memory=memory, now=now).exclude(pk__in=list(neighbours))
    return RelatedMemories(memory=memory, knot_id=knot_id, neighbours=neighbours, by_tags=by_tags)


# --- graph ----------------------------------------------------------------------------------------


# What a graph node shows of its knot's memory.
_GRAPH_MEMORY_FIELDS = ("memory__key", "memory__confidence", "memory__verified", "memory__updated_at")


@dataclass(frozen=True)
class NetGraph:
    nodes: list[Knot]
    edges: list[Edge]
    edge_rows: int  # edges among the nodes (both directions count)
    pairs: int  # connected pairs among the nodes
    components: int
    isolated: int
    truncated: bool


def _components(node_ids: Sequence[int], pairs: Iterable[tuple[int, int]]) -> tuple[int, int]:
    """Connected components (isolated nodes count as their own) and the isolated nodes, by union-find."""
    parent = {node: node for node in node_ids}

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    linked: set[int] = set()
    for a, b in pairs:
        linked.update((a, b))
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[ra] = rb
    return len({root(node) for node in node_ids}), sum(1 for node in node_ids if node not in linked)


def mind_net_graph(
    *,
    mind_id: str,
    max_nodes: int,
    category: str | None = None,
    tag: str | None = None,
    min_confidence: float | None = None,
    include_edges: bool = True,
    now: datetime | None = None,
) -> NetGraph:
    """GET /memory/graph: the mind's active knots whose memories are current and match the filters,
    the `max_nodes` most present first, and the edges among them (the strongest GRAPH_MAX_EDGES
    returned, all counted). Three queries."""
    memories = Memory.objects.filter(current_filter(now or timezone.now()), mind_id=mind_id)
    if tag:
        memories = memories.filter(tags__contains=[tag])
    if min_confidence is not None:
        memories = memories.filter(confidence__gte=min_confidence)
    knots = (
        knots_of(mind_id)
        .only(*_KNOT_FIELDS, *_GRAPH_MEMORY_FIELDS)
        .filter(presence__is_active=True, memory_id__in=memories.values("pk"))
    )
    if category:
        knots = knots.filter(category=category)
    rows = list(knots.order_by("-presence__weight_present", "id")[: max_nodes + 1])
    truncated = len(rows) > max_nodes
    rows = rows[:max_nodes]
    ids = [knot.pk for knot in rows]
    among = Edge.objects.filter(mind_id=mind_id, source_id__in=ids, target_id__in=ids)
    ends = list(among.values_list("source_id", "target_id")) if ids else []
    pairs = {(min(a, b), max(a, b)) for a, b in ends}
    edge_rows = len(ends)
    components, isolated = _components(ids, pairs)
    edges = list(among.order_by("-weight_anchor", "id")[:GRAPH_MAX_EDGES]) if include_edges and pairs else []
    return NetGraph(
        nodes=rows,
        edges=edges,
        edge_rows=edge_rows,
        pairs=len(pairs),
        components=components,
        isolated=isolated,
        truncated=truncated,
    )
