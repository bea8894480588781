"""The memory object: what clients may send (validation only) and what they get back."""

from __future__ import annotations

from django.core.validators import RegexValidator
from django.db.models.manager import BaseManager
from rest_framework import serializers

from memories.selectors.knots import memories_knot_ids_attach
from memories.services.validation import MEMORY_FIELD_RULES, FieldRule, memory_fields_clean
from memoryproject.core.api.fields import (
    DurationParamField,
    FlexibleTimeField,
    QueryIntegerField,
    StrictCharField,
    StrictChoiceField,
    StrictFloatField,
)
from memoryproject.core.api.strict import unknown_fields_reject
from memoryproject.core.domain import ValidationFailed
from memoryproject.core.page_limits import MAX_PAGE_LIMIT


def _schema_field_of(rule: FieldRule) -> serializers.Field:
    """The DRF field that describes `rule` in the OpenAPI document (validation is the rule's own)."""
    common = {"required": rule.required, "allow_null": rule.null}
    if rule.kind == "text":
        validators = [RegexValidator(rule.pattern.pattern, message=rule.pattern_message)] if rule.pattern else []
        return StrictCharField(max_length=rule.max_chars, allow_blank=rule.blank, validators=validators, **common)
    if rule.kind == "choice":
        return StrictChoiceField(list(rule.choices), **common)
    if rule.kind == "number":
        return StrictFloatField(min_value=rule.minimum, max_value=rule.maximum, **common)
    if rule.kind == "time":
        return FlexibleTimeField(**common)
    if rule.kind == "list":
        item = StrictCharField(max_length=rule.max_chars)
        return serializers.ListField(child=item, max_length=rule.max_items, **common)
    return serializers.DictField(**common)


# The memory field rules (memories.services.validation) check the input; the serializer's fields
# are built from the same rules, so the OpenAPI document describes what the rules accept. (Its
# docstring is the schema's description, written for clients.)
class MemoryInputSerializer(serializers.Serializer):
    """Validates a memory write. With `partial=True` (updates) every field is optional."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return {name: _schema_field_of(rule) for name, rule in MEMORY_FIELD_RULES.items()}

    def to_internal_value(self, data) -> dict:
        try:
            return memory_fields_clean(data, partial=self.partial)
        except ValidationFailed as error:
            raise serializers.ValidationError(error.fields) from None


class MemoryListSerializer(serializers.ListSerializer):
    """A page of memory objects: their `knot_id`s in one query for the page, not one per memory.
    Items may be search hits, which carry their memory as `.memory`."""

    def to_representation(self, data):
        items = list(data.all() if isinstance(data, BaseManager) else data)
        memories_knot_ids_attach(getattr(item, "memory", item) for item in items)
        return super().to_representation(items)


class MemorySerializer(serializers.Serializer):
    """The memory object as every endpoint returns it."""

    class Meta:
        list_serializer_class = MemoryListSerializer

    id = serializers.CharField()
    mind_id = serializers.CharField()
    category = serializers.CharField()
    key = serializers.CharField()
    content = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField())
    priority = serializers.CharField()
    source = serializers.CharField()
    speaker = serializers.CharField()
    verified = serializers.BooleanField()
    verified_at = serializers.DateTimeField(allow_null=True)
    verified_by = serializers.SerializerMethodField()
    confidence = serializers.FloatField()
    salience = serializers.FloatField()
    expires_at = serializers.DateTimeField(allow_null=True)
    entities = serializers.ListField(child=serializers.CharField())
    event_time = serializers.DateTimeField(allow_null=True)
    event_precision = serializers.CharField(allow_null=True)
    emotion = serializers.CharField(allow_null=True)
    attributes = serializers.DictField()
    turn_id = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    promoted_at = serializers.DateTimeField(allow_null=True)
    knot_id = serializers.SerializerMethodField()
    expired = serializers.BooleanField()

    def get_verified_by(self, memory) -> str | None:
        """The verifying human's email (select_related("verified_by") in the selector)."""
        return memory.verified_by.email if memory.verified_by_id else None

    def get_knot_id(self, memory) -> int | None:
        """The knot holding this content once promotion placed it in the net (null while pending)."""
        memories_knot_ids_attach([memory])
        return memory.knot_id

    def to_representation(self, memory):
        memories_knot_ids_attach([memory])  # `promoted_at` and `knot_id` (a page attached them already)
        data = super().to_representation(memory)
        for optional in ("event_precision", "emotion", "turn_id"):
            data[optional] = data[optional] or None
        return data


class MemoryStoredSerializer(MemorySerializer):
    """POST /memory: the memory plus whether it was created (201) or updated (200)."""

    created = serializers.BooleanField()


# --- Update, delete, sync, audit, diff, expiring (docs/api-memory.md) ---------------

# Most memories one POST /memory/sync may carry; bigger batches go in several calls.
MAX_SYNC_MEMORIES = 1000
# GET /memory/expiring looks this far ahead when `within` is not given (a duration, as clients write it).
DEFAULT_EXPIRING_WITHIN = "7d"


class MemoryDeletedSerializer(serializers.Serializer):
    """DELETE /memory/{id}."""

    deleted = serializers.BooleanField()
    id = serializers.CharField()


class MemoryVersionsPurgedSerializer(serializers.Serializer):
    """DELETE /memory/{id}/versions: the memory as it is now, and how many earlier versions the
    net held (their knots erased); the log's copies go within a minute."""

    id = serializers.CharField(source="memory.pk")
    versions_purged = serializers.IntegerField()


class SyncRequestSerializer(serializers.Serializer):
    """POST /memory/sync: `{"memories": [memory, …]}`; errors come back by index (`memories.3.content`)."""

    memories = serializers.ListField(
        child=MemoryInputSerializer(),
        error_messages={"not_a_list": 'memories must be a list of memory objects, not "{input_type}".'},
    )

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown_fields_reject(data, self.fields, message='Unknown field. The body is {"memories": [...]}.')
            items = data.get("memories")
            # Checked before validating the items: a batch too big is refused without that work.
            if isinstance(items, list) and len(items) > MAX_SYNC_MEMORIES:
                raise serializers.ValidationError(
                    {
                        "memories": [
                            f"{len(items)} memories in one call; send at most {MAX_SYNC_MEMORIES} "
                            "and split bigger batches into several calls."
                        ]
                    }
                )
        return super().to_internal_value(data)


class SyncItemSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    id = serializers.CharField(source="memory_id")
    created = serializers.BooleanField()


class SyncResultSerializer(serializers.Serializer):
    """POST /memory/sync: counts, and per input index the memory's id and whether it was new."""

    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    results = SyncItemSerializer(many=True, source="items")


class MemoryAuditSerializer(serializers.Serializer):
    """One row of GET /memory/audit: who changed which memory when, and which fields."""

    id = serializers.IntegerField()
    memory_id = serializers.CharField()
    action = serializers.CharField()
    actor = serializers.CharField(help_text="`user:<id>` or `agent:<key prefix>`.")
    changed_fields = serializers.ListField(child=serializers.CharField())
    turn_id = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()

    def get_turn_id(self, row) -> str | None:
        return row.turn_id or None


class DiffQuerySerializer(serializers.Serializer):
    """GET /memory/diff parameters."""

    since = FlexibleTimeField(
        error_messages={"required": "Give since: the `now` of your previous diff, or a time (ISO 8601 or epoch)."}
    )
    limit = QueryIntegerField(required=False, min_value=1, max_value=MAX_PAGE_LIMIT)


class DiffSerializer(serializers.Serializer):
    """GET /memory/diff: what changed in [since, now), and which memories were deleted then."""

    since = serializers.DateTimeField()
    now = serializers.DateTimeField(help_text="Pass this as `since` next time.")
    more = serializers.BooleanField(help_text="More changes wait: ask again at once with since=now.")
    changed = MemorySerializer(many=True)
    deleted = serializers.ListField(child=serializers.CharField())


class ExpiringQuerySerializer(serializers.Serializer):
    """GET /memory/expiring parameters."""

    within = DurationParamField(
        required=False,
        default=DEFAULT_EXPIRING_WITHIN,
        help_text="How far ahead to look: seconds (3600) or a number with s, m, h, d or w (7d).",
    )
