"""Parameters of recall, the overview endpoints, compaction and export/import (validation only),
and the shapes they answer with (for the OpenAPI document)."""

from __future__ import annotations

from datetime import timedelta

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from memories.api.search_serializers import SearchTextField
from memories.api.serializers import MemorySerializer
from memories.limits import (
    COMPACT_DEFAULT_OLDER_THAN,
    COMPACT_MAX_CLUSTERS,
    COMPACT_MAX_MIN_CLUSTER_SIZE,
    COMPACT_MIN_CLUSTER_SIZE,
    CONTRADICTIONS_DEFAULT_WITHIN,
    EXPORT_FORMATS,
    RECALL_DEFAULT_LIMIT,
    RECALL_MAX_CHARS_LIMIT,
    RECALL_MAX_LABEL_CHARS,
    RECALL_MAX_QUERY_CHARS,
    TIMELINE_PERIODS,
)
from memories.models import Category
from memories.services.compact import COMPACT_DEFAULT_MAX_CLUSTERS, COMPACT_DEFAULT_MIN_CLUSTER_SIZE
from memories.services.transfer import EXPORT_FORMAT_VERSION, IMPORT_MAX_MEMORIES
from memories.services.validation import import_items_clean
from memoryproject.core.api.fields import (
    BodyDurationField,
    BodyIntegerField,
    DurationParamField,
    QueryBooleanField,
    QueryIntegerField,
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictIntegerField,
)
from memoryproject.core.api.strict import RejectUnknownFieldsMixin
from memoryproject.core.domain import ValidationFailed
from memoryproject.core.page_limits import DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT


class SecondsField(serializers.IntegerField):
    """A timedelta in an answer: whole seconds."""

    def to_representation(self, value: timedelta) -> int:
        return int(value.total_seconds())


def _choice(choices, **kwargs) -> StrictChoiceField:
    return StrictChoiceField(list(choices), **kwargs)


# --- Recall ---------------------------------------------------------------------------------


class RecallQuerySerializer(serializers.Serializer):
    q = SearchTextField(required=False, allow_blank=True, max_length=RECALL_MAX_QUERY_CHARS)
    mode = StrictCharField(required=False, allow_blank=True, max_length=RECALL_MAX_LABEL_CHARS)
    intent = StrictCharField(required=False, allow_blank=True, max_length=RECALL_MAX_LABEL_CHARS)
    mood = StrictCharField(required=False, allow_blank=True, max_length=RECALL_MAX_LABEL_CHARS)
    limit = QueryIntegerField(required=False, min_value=1, max_value=MAX_PAGE_LIMIT, default=RECALL_DEFAULT_LIMIT)
    max_chars = QueryIntegerField(required=False, min_value=1, max_value=RECALL_MAX_CHARS_LIMIT)
    format = _choice(("text", "json"), required=False, default="text")


class RecallMindSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()


class RecallJsonSerializer(serializers.Serializer):
    """GET /memory/recall?format=json: the same selection as the text."""

    mind = RecallMindSerializer()
    total = serializers.IntegerField(help_text="Current (not expired) memories of the mind.")
    verified = serializers.IntegerField()
    unverified = serializers.IntegerField()
    memories = MemorySerializer(many=True)
    omitted = serializers.IntegerField(help_text="Current memories left out by `limit` or `max_chars`.")
    cut_by = serializers.CharField(allow_null=True, help_text="`limit`, `max_chars`, or null when nothing was cut.")
    resonance = serializers.JSONField(
        required=False,
        help_text="With `q`: the long-term net's resonance, the body of GET /synapses/resonance (limit 3).",
    )


# --- Overview -------------------------------------------------------------------------------


class StatsSerializer(serializers.Serializer):
    mind_id = serializers.CharField()
    total = serializers.IntegerField(help_text="Every stored memory, expired ones included.")
    active = serializers.IntegerField(help_text="Not expired.")
    expired = serializers.IntegerField()
    verified = serializers.IntegerField()
    unverified = serializers.IntegerField()
    by_category = serializers.DictField(child=serializers.IntegerField())
    by_source = serializers.DictField(child=serializers.IntegerField())
    by_priority = serializers.DictField(child=serializers.IntegerField())
    # The long-term net of the mind (added by the net's app, docs/architecture.md).
    knots = serializers.IntegerField(help_text="Knots of the mind, active or not.")
    knots_active = serializers.IntegerField()
    knots_inactive = serializers.IntegerField(help_text="Faded below the minimum presence.")
    knots_superseded = serializers.IntegerField(help_text="Knots of a memory whose content changed since.")
    presence_mean = serializers.FloatField(allow_null=True, help_text="Mean presence of the active knots.")
    edges = serializers.IntegerField(help_text="Edge rows; each connection is written both ways (two rows).")
    entities = serializers.IntegerField()
    goals = serializers.IntegerField()
    goals_active = serializers.IntegerField()


class HealthSerializer(serializers.Serializer):
    mind_id = serializers.CharField()
    memories = serializers.IntegerField()
    pending_promotion = serializers.IntegerField()
    oldest_pending_age_seconds = serializers.IntegerField(allow_null=True)
    last_promotion_at = serializers.DateTimeField(allow_null=True)
    last_decay_at = serializers.DateTimeField(allow_null=True)
    worker_alive = serializers.BooleanField()
    parked = serializers.IntegerField(help_text="Memories whose promotion failed too often; sweeps leave them alone.")
    parked_memory_ids = serializers.ListField(
        child=serializers.CharField(),
        help_text="The most recently parked of them (capped; `parked` is the full count).",
    )
    knots = serializers.IntegerField()
    knots_active = serializers.IntegerField()
    edges = serializers.IntegerField(help_text="Edge rows; each connection is written both ways (two rows).")


class TagsQuerySerializer(serializers.Serializer):
    limit = QueryIntegerField(required=False, min_value=1, max_value=MAX_PAGE_LIMIT, default=DEFAULT_PAGE_LIMIT)
    include_expired = QueryBooleanField(required=False, default=False)


class TagCountSerializer(serializers.Serializer):
    tag = serializers.CharField()
    count = serializers.IntegerField()


class TagsSerializer(serializers.Serializer):
    tags = TagCountSerializer(many=True)
    total_tags = serializers.IntegerField()
    total_memories = serializers.IntegerField()


class TimelineQuerySerializer(serializers.Serializer):
    period = _choice(TIMELINE_PERIODS, required=False, default="day")
    limit = QueryIntegerField(required=False, min_value=1, max_value=MAX_PAGE_LIMIT, default=DEFAULT_PAGE_LIMIT)
    include_expired = QueryBooleanField(required=False, default=False)


class TimelinePeriodSerializer(serializers.Serializer):
    period = serializers.DateTimeField(help_text="Start of the period (UTC).")
    count = serializers.IntegerField()
    categories = serializers.DictField(child=serializers.IntegerField())


class TimelineSerializer(serializers.Serializer):
    period = serializers.CharField()
    timeline = TimelinePeriodSerializer(many=True)
    total_periods = serializers.IntegerField()


class ContradictionsQuerySerializer(serializers.Serializer):
    within = DurationParamField(required=False, default=CONTRADICTIONS_DEFAULT_WITHIN)


class ContradictionSerializer(serializers.Serializer):
    newer = MemorySerializer()
    older = MemorySerializer()
    similarity = serializers.FloatField()
    reasons = serializers.ListField(child=serializers.CharField())
    key_stem = serializers.CharField(allow_null=True)
    shared_entities = serializers.ListField(child=serializers.CharField())


class ContradictionsSerializer(serializers.Serializer):
    within = SecondsField()
    since = serializers.DateTimeField()
    candidates = serializers.IntegerField()
    truncated = serializers.BooleanField()
    contradictions = ContradictionSerializer(many=True)


# --- Compaction -----------------------------------------------------------------------------


class CompactRequestSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    older_than = BodyDurationField(required=False, default=COMPACT_DEFAULT_OLDER_THAN)
    dry_run = StrictBooleanField(required=False, default=False)
    max_clusters = BodyIntegerField(
        required=False, min_value=1, max_value=COMPACT_MAX_CLUSTERS, default=COMPACT_DEFAULT_MAX_CLUSTERS
    )
    min_cluster_size = BodyIntegerField(
        required=False,
        min_value=COMPACT_MIN_CLUSTER_SIZE,
        max_value=COMPACT_MAX_MIN_CLUSTER_SIZE,
        default=COMPACT_DEFAULT_MIN_CLUSTER_SIZE,
    )
    category = _choice(Category.values, required=False, allow_null=True)


class CompactClusterSerializer(serializers.Serializer):
    tags = serializers.ListField(child=serializers.CharField())
    category = serializers.CharField()
    size = serializers.IntegerField()
    member_ids = serializers.ListField(child=serializers.CharField())
    summary_id = serializers.CharField(allow_null=True)


class CompactResultSerializer(serializers.Serializer):
    dry_run = serializers.BooleanField()
    clusters_processed = serializers.IntegerField()
    memories_compacted = serializers.IntegerField()
    results = CompactClusterSerializer(many=True)


# --- Export / import ------------------------------------------------------------------------


class ExportQuerySerializer(serializers.Serializer):
    format = _choice(EXPORT_FORMATS, required=False, default="json")


@extend_schema_field({"type": "integer", "enum": [EXPORT_FORMAT_VERSION]})
class _FormatVersionField(StrictIntegerField):
    """The one format version this server reads (its message, naming the file's, is the serializer's)."""


class ImportRequestSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """The json export format; only `format_version` and `memories` are read."""

    format_version = _FormatVersionField()
    memories = serializers.ListField(
        child=serializers.JSONField(),
        max_length=IMPORT_MAX_MEMORIES,
        error_messages={
            "max_length": f"At most {IMPORT_MAX_MEMORIES} memories per import; send the rest in further calls."
        },
    )
    # Written by the export, ignored on import until the synapse model has them.
    mind = serializers.JSONField(required=False, allow_null=True)
    exported_at = serializers.JSONField(required=False, allow_null=True)
    knots = serializers.JSONField(required=False, allow_null=True)
    edges = serializers.JSONField(required=False, allow_null=True)
    entities = serializers.JSONField(required=False, allow_null=True)
    goals = serializers.JSONField(required=False, allow_null=True)

    def validate_format_version(self, value: int) -> int:
        if value != EXPORT_FORMAT_VERSION:
            raise serializers.ValidationError(
                f"This server reads export format_version {EXPORT_FORMAT_VERSION}; the file has {value}."
            )
        return value

    def validate_memories(self, items: list) -> list[dict]:
        """Every memory checked by the memory field rules before anything is written; errors come
        back by index (`memories.3.content`). Returns `[{"fields": …, "times": …}]` in file order."""
        try:
            return import_items_clean(items)
        except ValidationFailed as error:
            raise serializers.ValidationError(error.fields) from None


class ImportItemResultSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    id = serializers.CharField()
    status = serializers.ChoiceField(choices=["created", "updated", "skipped"])


class ImportedSectionSerializer(serializers.Serializer):
    created = serializers.IntegerField()
    skipped = serializers.IntegerField(help_text="Already in the mind (an earlier import of the same rows).")


class ImportResultSerializer(serializers.Serializer):
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    skipped = serializers.IntegerField()
    downgraded = serializers.IntegerField(
        help_text="Memories a Mind Key imported that claimed source user or verified: stored as agent, unverified."
    )
    results = ImportItemResultSerializer(many=True)
    # The net's rows of the file (docs/export-format.md); `links` are the knots' memory links.
    knots = ImportedSectionSerializer()
    links = ImportedSectionSerializer()
    edges = ImportedSectionSerializer()
    entities = ImportedSectionSerializer()
    goals = ImportedSectionSerializer()
