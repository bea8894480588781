"""Bodies and answers of the net's endpoints (docs/api-synapses.md).

Answers that name entities take `context["entity_names"]`, `{id: name}` of the page, loaded in
one query by the view, so a page of knots or edges never reads an entity per row.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from memories.api.serializers import MemorySerializer
from memories.limits import MAX_TAG_CHARS
from memories.models import Category, Memory, Speaker
from memoryproject.core.api.fields import (
    QueryBooleanField,
    QueryFloatField,
    QueryIntegerField,
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictFloatField,
)
from memoryproject.core.api.strict import RejectUnknownFieldsMixin
from memoryproject.core.converters import MemoryIdConverter
from synapses import constants
from synapses.constants import DISCOVERY_IGNORED_MAX
from synapses.net.selectors.knots import knot_superseded
from synapses.upkeep.entities import ENTITY_MAX_ALIASES, ENTITY_NAME_MAX_CHARS

# Longest goal statement (characters): a sentence or two of what the mind strives for.
GOAL_STATEMENT_MAX_CHARS = 2000
# Longest answer a usage report takes (characters); only the first USAGE_ANSWER_CHARS are embedded.
USAGE_ANSWER_MAX_CHARS = 50_000
# Largest id an integer id of the net can be (PostgreSQL bigint).
MAX_ROW_ID = 2**63 - 1
# GET /memory/graph's node limits (knots; docs/api-synapses.md): the default, least and most `max_nodes`.
GRAPH_DEFAULT_NODES = 200
GRAPH_MIN_NODES = 10
GRAPH_MAX_NODES = 1000


def _names(context: dict, ids) -> list[str]:
    names = context.get("entity_names", {})
    return [names[entity_id] for entity_id in ids if entity_id in names]


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_ROW_ID})
class RowIdField(serializers.IntegerField):
    """A knot, entity or goal id in a JSON body: a JSON integer ≥ 1 (not "5", 5.0 or true)."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int) or not 1 <= data <= MAX_ROW_ID:
            raise serializers.ValidationError("Must be a whole number id (1 or more).")
        return data


# --- usage ------------------------------------------------------------------------------------


class UsedInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    answer = StrictCharField(
        max_length=USAGE_ANSWER_MAX_CHARS,
        allow_blank=True,
        trim_whitespace=False,
        help_text=f"The agent's answer; its first {constants.USAGE_ANSWER_CHARS} characters are compared.",
    )
    knot_ids = serializers.ListField(
        child=RowIdField(),
        max_length=constants.USAGE_MAX_KNOT_IDS,
        help_text="The knots the resonance offered this turn (`knot_id` of its items).",
    )
    memory_ids = serializers.ListField(
        child=serializers.RegexField(
            rf"\A{MemoryIdConverter.regex}\Z",
            max_length=Memory._meta.get_field("id").max_length,
            error_messages={"invalid": "Must be a memory id (mem_…)."},
        ),
        required=False,
        default=list,
        max_length=constants.USAGE_MAX_KNOT_IDS,
        help_text="The memories the resonance offered that are not in the net yet (`memory_id` of its items with "
        "`in_net` false). A used one is recorded and applied to its knot when it is promoted.",
    )


class NearnessSerializer(serializers.Serializer):
    knot_id = serializers.IntegerField()
    nearness = serializers.FloatField(help_text="Cosine of the answer to the knot.")


class KnotReinforcedSerializer(serializers.Serializer):
    knot_id = serializers.IntegerField()
    nearness = serializers.FloatField()
    weight_raw = serializers.FloatField()
    weight_anchor = serializers.FloatField()
    activation_count = serializers.IntegerField()
    edges_recomputed = serializers.IntegerField(help_text="Edge rows from and to the knot recomputed (Trigger 2).")


class PendingNearnessSerializer(serializers.Serializer):
    memory_id = serializers.CharField()
    nearness = serializers.FloatField(help_text="Cosine of the answer to the memory.")


class UsageReportSerializer(serializers.Serializer):
    outcome = serializers.ChoiceField(["empty_answer", "no_candidates", "computed"])
    offered = serializers.IntegerField()
    checked = serializers.IntegerField(help_text="Offered ids that are active knots of the mind.")
    used = serializers.IntegerField()
    reinforced = serializers.IntegerField()
    threshold = serializers.FloatField()
    cap = serializers.IntegerField()
    nearness = NearnessSerializer(many=True, help_text="Every checked knot, nearest first.")
    hits = KnotReinforcedSerializer(many=True)
    closest_rejected = NearnessSerializer(allow_null=True)
    not_found = serializers.ListField(child=serializers.IntegerField(), help_text="No knot of this mind.")
    inactive = serializers.ListField(child=serializers.IntegerField(), help_text="Knots that faded from recall.")
    pending_nearness = PendingNearnessSerializer(
        many=True, help_text="Every checked memory of `memory_ids` not yet promoted, nearest first."
    )
    recorded = PendingNearnessSerializer(
        many=True,
        help_text="Of those, the ones used: one use recorded each, applied to the knot that holds the memory when "
        "it is promoted (a memory of `memory_ids` promoted meanwhile is checked as its knot).",
    )
    memories_not_found = serializers.ListField(
        child=serializers.CharField(), help_text="No current memory of this mind (unknown, another mind's, expired)."
    )


# --- goals --------------------------------------------------------------------------------------


class GoalSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    statement = serializers.CharField()
    motivation = serializers.FloatField()
    active = serializers.BooleanField()
    embedding_model = serializers.CharField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class GoalInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """A new goal; with `partial=True` (PATCH) every field is optional."""

    statement = StrictCharField(max_length=GOAL_STATEMENT_MAX_CHARS)
    motivation = StrictFloatField(min_value=0.0, max_value=1.0, help_text="How strongly the mind pursues it, 0..1.")
    active = StrictBooleanField(required=False, default=True)


class GoalsQuerySerializer(serializers.Serializer):
    active = QueryBooleanField(required=False, allow_null=True, default=None)


# --- entities -----------------------------------------------------------------------------------


class EntitySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    aliases = serializers.ListField(child=serializers.CharField())
    knots = serializers.SerializerMethodField(help_text="How many knots carry the entity.")
    created_at = serializers.DateTimeField()

    def get_knots(self, entity) -> int:
        return self.context.get("knot_counts", {}).get(entity.pk, 0)


class EntityChangedSerializer(EntitySerializer):
    knots_gained = serializers.SerializerMethodField(help_text="Knots that carry the entity since this change.")
    edges_recomputed = serializers.SerializerMethodField(
        help_text="Edge rows this change created, updated or deleted (the sum of the three counts below; a pair "
        "is two rows)."
    )
    edges_created = serializers.SerializerMethodField(
        help_text="Edge rows created: knots that only now share the entity are joined at once."
    )
    edges_updated = serializers.SerializerMethodField(help_text="Edge rows whose weights or layers changed.")
    edges_deleted = serializers.SerializerMethodField(help_text="Edge rows deleted: pairs left with no layer.")

    def get_knots_gained(self, entity) -> int:
        return self.context["changed"].knots_gained

    def get_edges_recomputed(self, entity) -> int:
        return self.context["changed"].edge_rows.changed

    def get_edges_created(self, entity) -> int:
        return self.context["changed"].edge_rows.created

    def get_edges_updated(self, entity) -> int:
        return self.context["changed"].edge_rows.updated

    def get_edges_deleted(self, entity) -> int:
        return self.context["changed"].edge_rows.deleted


def _name_field(**kwargs) -> StrictCharField:
    return StrictCharField(max_length=ENTITY_NAME_MAX_CHARS, **kwargs)


class EntityInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """A new entity; with `partial=True` (PATCH) both are optional. `aliases` replaces the list."""

    name = _name_field()
    aliases = serializers.ListField(child=_name_field(), required=False, max_length=ENTITY_MAX_ALIASES)


class EntityMergeInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    into = RowIdField(help_text="The entity that stays; the one in the path is folded into it.")


class EntitiesQuerySerializer(serializers.Serializer):
    name = StrictCharField(required=False, max_length=ENTITY_NAME_MAX_CHARS, help_text="Part of a name or alias.")


# --- knots and edges ----------------------------------------------------------------------------


class KnotsQuerySerializer(serializers.Serializer):
    active = QueryBooleanField(required=False, allow_null=True, default=None)
    observer = StrictChoiceField(Speaker.values, required=False)
    theme = StrictCharField(required=False, max_length=MAX_TAG_CHARS, help_text="A tag (any case).")
    entity = StrictCharField(required=False, max_length=ENTITY_NAME_MAX_CHARS, help_text="An entity name or alias.")

    def validate_theme(self, value: str) -> str:
        return value.strip().lower()


class EdgeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    source = serializers.IntegerField(source="source_id")
    target = serializers.IntegerField(source="target_id")
    weight_raw = serializers.FloatField()
    weight_anchor = serializers.FloatField()
    layers = serializers.ListField(child=serializers.CharField())
    shared_entities = serializers.SerializerMethodField(help_text="Names of the entities both knots carry.")
    shared_themes = serializers.ListField(child=serializers.CharField())
    time_distance = serializers.FloatField(allow_null=True)
    cosine_initial = serializers.FloatField(allow_null=True)
    layer_count = serializers.IntegerField()

    def get_shared_entities(self, edge) -> list[str]:
        return _names(self.context, edge.shared_entities)


class MagnetEntitySerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The entity (GET /synapses/entities/{id}).")
    name = serializers.CharField(help_text="Its name when the knot was made.")
    rule = serializers.CharField(
        help_text="How it was found: given (the memory's `entities`), known (a name or alias of the mind in the "
        "content), or the discovery rule — handle, title, phrase, name-list, mid-sentence, sentence-start, "
        'recurrence (docs/synapse-model.md, "Magnets found in the content").'
    )


class MagnetsSerializer(serializers.Serializer):
    language = serializers.CharField(
        required=False, help_text="The content's language as discovery read it: en or de ('' for knots made before)."
    )
    entities = MagnetEntitySerializer(many=True, required=False)


class KnotSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    memory_id = serializers.CharField()
    content = serializers.CharField()
    category = serializers.CharField()
    observer = serializers.CharField()
    themes = serializers.ListField(child=serializers.CharField())
    entities = serializers.SerializerMethodField(help_text="Names of the knot's entities.")
    entity_ids = serializers.ListField(child=serializers.IntegerField(), source="entities")
    magnets = MagnetsSerializer(help_text="What promotion found in the content, and by which rule.")
    event_time = serializers.DateTimeField(allow_null=True)
    event_precision = serializers.CharField()
    emotion = serializers.CharField()
    weight_raw = serializers.FloatField()
    weight_anchor = serializers.FloatField()
    presence_base = serializers.FloatField(source="presence.presence_base")
    weight_present = serializers.FloatField(source="presence.weight_present")
    activation_count = serializers.IntegerField()
    is_active = serializers.BooleanField(source="presence.is_active")
    superseded = serializers.SerializerMethodField(help_text="Its memory holds other content since.")
    created_at = serializers.DateTimeField()
    reinforced_at = serializers.DateTimeField(source="presence.reinforced_at")
    decayed_at = serializers.DateTimeField(source="presence.decayed_at")

    def get_entities(self, knot) -> list[str]:
        return _names(self.context, knot.entities)

    def get_superseded(self, knot) -> bool:
        return knot_superseded(knot)


class KnotDetailSerializer(KnotSerializer):
    outgoing = serializers.SerializerMethodField()
    incoming = serializers.SerializerMethodField()
    outgoing_count = serializers.SerializerMethodField()
    incoming_count = serializers.SerializerMethodField()

    def _edges(self, edges) -> list[dict]:
        return EdgeSerializer(edges, many=True, context=self.context).data

    def get_outgoing(self, knot) -> EdgeSerializer(many=True):
        return self._edges(self.context["edges"].outgoing)

    def get_incoming(self, knot) -> EdgeSerializer(many=True):
        return self._edges(self.context["edges"].incoming)

    def get_outgoing_count(self, knot) -> int:
        return self.context["edges"].outgoing_count

    def get_incoming_count(self, knot) -> int:
        return self.context["edges"].incoming_count


# --- profile ------------------------------------------------------------------------------------


class ProfileQuerySerializer(serializers.Serializer):
    format = StrictChoiceField(["json", "text"], required=False, default="json")


class ProfileKnotSerializer(serializers.Serializer):
    knot_id = serializers.IntegerField(source="id")
    memory_id = serializers.CharField()
    content = serializers.CharField()
    themes = serializers.ListField(child=serializers.CharField())
    weight_anchor = serializers.FloatField()
    activation_count = serializers.IntegerField()


class ProfileGroupSerializer(serializers.Serializer):
    category = serializers.CharField()
    knots = ProfileKnotSerializer(many=True)


class ProfileSerializer(serializers.Serializer):
    mind_id = serializers.CharField()
    count = serializers.IntegerField()
    categories = ProfileGroupSerializer(many=True, source="groups")


# --- related and graph --------------------------------------------------------------------------


class NetRelatedMemorySerializer(MemorySerializer):
    """A memory related to the one in the path (`context["related"]`): by an edge of its knot, or by tags."""

    via = serializers.SerializerMethodField(help_text="`edge` (its knot is an edge neighbour) or `tags`.")
    shared_tags = serializers.SerializerMethodField()
    via_knot_id = serializers.SerializerMethodField(help_text="With `via: edge`: the neighbour knot.")
    layers = serializers.SerializerMethodField(help_text="With `via: edge`: the edge's layers.")
    edge_weight = serializers.SerializerMethodField(help_text="With `via: edge`: the edge's weight_anchor.")

    def _neighbour(self, memory):
        return self.context["related"].neighbours.get(memory.pk)

    def get_via(self, memory) -> str:
        return "edge" if self._neighbour(memory) else "tags"

    def get_shared_tags(self, memory) -> list[str]:
        theirs = set(memory.tags)
        return [tag for tag in self.context["related"].memory.tags if tag in theirs]

    def get_via_knot_id(self, memory) -> int | None:
        neighbour = self._neighbour(memory)
        return neighbour.knot_id if neighbour else None

    def get_layers(self, memory) -> list[str]:
        neighbour = self._neighbour(memory)
        return list(neighbour.edge.layers) if neighbour else []

    def get_edge_weight(self, memory) -> float | None:
        neighbour = self._neighbour(memory)
        return neighbour.edge.weight_anchor if neighbour else None


class GraphNodeSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The knot's id.")
    memory_id = serializers.CharField()
    key = serializers.CharField(source="memory.key")
    category = serializers.CharField()
    observer = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField(), source="themes")
    confidence = serializers.FloatField(source="memory.confidence")
    verified = serializers.BooleanField(source="memory.verified")
    weight_anchor = serializers.FloatField()
    weight_present = serializers.FloatField(source="presence.weight_present")
    activation_count = serializers.IntegerField()
    superseded = serializers.SerializerMethodField()
    updated_at = serializers.DateTimeField(source="memory.updated_at")

    def get_superseded(self, knot) -> bool:
        return knot_superseded(knot)


class GraphEdgeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    source = serializers.IntegerField(source="source_id")
    target = serializers.IntegerField(source="target_id")
    layers = serializers.ListField(child=serializers.CharField())
    weight = serializers.FloatField(source="weight_anchor", help_text="The edge's weight_anchor (0..10).")
    weight_raw = serializers.FloatField()
    shared_entities = serializers.SerializerMethodField()
    shared_themes = serializers.ListField(child=serializers.CharField())

    def get_shared_entities(self, edge) -> list[str]:
        return _names(self.context, edge.shared_entities)


class GraphStatsSerializer(serializers.Serializer):
    nodes = serializers.IntegerField()
    edges = serializers.IntegerField(help_text="Edge rows among the nodes (a pair is two rows).")
    edges_returned = serializers.IntegerField()
    pairs = serializers.IntegerField(help_text="Connected pairs among the nodes.")
    density = serializers.FloatField(help_text="Connected pairs / possible pairs.")
    components = serializers.IntegerField()
    isolated = serializers.IntegerField()
    nodes_truncated = serializers.BooleanField()


class GraphSerializer(serializers.Serializer):
    nodes = GraphNodeSerializer(many=True)
    edges = GraphEdgeSerializer(many=True)
    stats = GraphStatsSerializer()


class GraphQuerySerializer(serializers.Serializer):
    """GET /memory/graph's parameters (the net answers that path: docs/api-synapses.md)."""

    max_nodes = QueryIntegerField(
        required=False, min_value=GRAPH_MIN_NODES, max_value=GRAPH_MAX_NODES, default=GRAPH_DEFAULT_NODES
    )
    category = StrictChoiceField(list(Category.values), required=False)
    tag = StrictCharField(required=False, max_length=MAX_TAG_CHARS)
    min_confidence = QueryFloatField(required=False, min_value=0.0, max_value=1.0)
    include_edges = QueryBooleanField(required=False, default=True)

    def validate_tag(self, value: str) -> str:
        return value.lower()


class EntityDeletedSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="entity_id", help_text="The entity deleted.")
    name = serializers.CharField()
    knots_changed = serializers.IntegerField(help_text="Knots that carried it and no longer do.")
    edges_recomputed = serializers.IntegerField(
        source="edge_rows.changed",
        help_text="Edge rows this delete created, updated or deleted (the sum of the three below).",
    )
    edges_created = serializers.IntegerField(
        source="edge_rows.created", help_text="Edge rows created: the knots that lost it form the edges they lack."
    )
    edges_updated = serializers.IntegerField(
        source="edge_rows.updated", help_text="Edge rows whose weights or layers changed."
    )
    edges_deleted = serializers.IntegerField(
        source="edge_rows.deleted", help_text="Edge rows deleted: pairs left with no layer."
    )
    ignored = serializers.ListField(
        child=serializers.CharField(), help_text="The mind's ignore list now: discovery will not propose these names."
    )


class DiscoverySerializer(serializers.Serializer):
    enabled = serializers.BooleanField(
        help_text="Whether promotion finds names in the content (on unless switched off)."
    )
    ignored = serializers.ListField(
        child=serializers.CharField(),
        help_text="Names (lower-cased) discovery does not propose; a deleted entity's go here.",
    )


class DiscoveryInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """The owner's change; either field may be left out. `ignored` replaces the list."""

    enabled = StrictBooleanField(required=False)
    ignored = serializers.ListField(
        child=_name_field(), required=False, max_length=DISCOVERY_IGNORED_MAX, help_text="Names, any case."
    )
