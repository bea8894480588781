"""Bodies of the webhook endpoints (docs/webhooks.md): strict types, unknown fields refused."""

from __future__ import annotations

from rest_framework import serializers

from memoryproject.core.api.fields import StrictBooleanField, StrictCharField, StrictChoiceField
from memoryproject.core.api.strict import RejectUnknownFieldsMixin
from webhooks.events import EVENT_PATTERNS
from webhooks.models import MAX_SECRET_CHARS, MAX_URL_CHARS
from webhooks.services.hooks import MIN_SECRET_CHARS


class WebhookInputSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """POST /webhooks: a new hook (enabled unless told otherwise; a secret is generated when left out)."""

    url = StrictCharField(
        max_length=MAX_URL_CHARS, help_text="http(s) URL of a public address the events are POSTed to."
    )
    events = StrictChoiceField(EVENT_PATTERNS, help_text='One pattern: "*", "memory.*", "knot.*" or one event.')
    secret = StrictCharField(
        required=False,
        min_length=MIN_SECRET_CHARS,
        max_length=MAX_SECRET_CHARS,
        trim_whitespace=False,
        help_text="The HMAC key of the signature; generated (and shown once) when left out.",
    )
    enabled = StrictBooleanField(required=False, default=True)


class WebhookReplaceSerializer(WebhookInputSerializer):
    """PUT /webhooks/{id}: url, events and enabled replaced; a given secret replaces the old one."""

    enabled = StrictBooleanField()


class WebhookSerializer(serializers.Serializer):
    id = serializers.CharField()
    url = serializers.CharField()
    events = serializers.CharField()
    enabled = serializers.BooleanField()
    disabled_reason = serializers.CharField(help_text="Why the server disabled the hook (a 410); empty otherwise.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class WebhookCreatedSerializer(WebhookSerializer):
    secret = serializers.CharField(help_text="Shown only in this answer: keep it to verify the signatures.")


class WebhookTestResultSerializer(serializers.Serializer):
    delivered = serializers.BooleanField(help_text="The receiver answered 2xx.")
    event = serializers.CharField()
    delivery_id = serializers.UUIDField()
    status = serializers.CharField()
    response_code = serializers.IntegerField(allow_null=True)
    duration_ms = serializers.IntegerField(allow_null=True)
    error = serializers.CharField()
