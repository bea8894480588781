"""A mind's webhooks and the log of their delivery attempts (docs/webhooks.md)."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from memoryproject.core.public_ids import new_public_id
from minds.models import Mind

# Longest webhook URL (characters): room for any real endpoint with its query string.
MAX_URL_CHARS = 2000
# Longest secret (characters) a client may choose; a generated one is 38.
MAX_SECRET_CHARS = 200
# Longest error text kept per attempt (characters): the start of it says what went wrong.
MAX_ERROR_CHARS = 1000


def new_webhook_id() -> str:
    return new_public_id("wh")


class Webhook(models.Model):
    """Where a mind's events are POSTed, which events (one pattern), and the secret that signs them."""

    id = models.CharField(primary_key=True, max_length=40, default=new_webhook_id, editable=False)
    mind = models.ForeignKey(Mind, on_delete=models.CASCADE, related_name="webhooks")
    url = models.CharField(max_length=MAX_URL_CHARS)
    events = models.CharField(max_length=40)
    # Kept as given (not a digest): the server must compute the HMAC of every body with it.
    secret = models.CharField(max_length=MAX_SECRET_CHARS)
    enabled = models.BooleanField(default=True)
    # Why the server turned the hook off (a receiver answered 410); empty while enabled or turned off by a client.
    disabled_reason = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["mind", "created_at"], name="webhook_mind_created_idx")]

    def __str__(self) -> str:
        return f"{self.url} ({self.events})"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"  # waiting for the worker (first attempt or a retry)
    SENDING = "sending"  # a worker is calling the receiver
    SUCCEEDED = "succeeded"  # the receiver answered 2xx
    FAILED = "failed"  # this attempt failed; another follows (a newer row) unless it was the last
    GONE = "gone"  # the receiver answered 410: the hook is disabled, nothing follows
    CANCELLED = "cancelled"  # the hook was disabled or refused before the attempt ran


class WebhookDelivery(models.Model):
    """One attempt to deliver one event to one hook: the delivery log.

    The attempts of one event share `delivery_id` (sent as X-Synapse-Delivery, so a receiver can
    drop a repeat) and the exact `body` that is signed.
    """

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    delivery_id = models.UUIDField(default=uuid.uuid4)
    event = models.CharField(max_length=40)
    body = models.TextField()
    attempt = models.PositiveSmallIntegerField(default=1)
    status = models.CharField(max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    # When the attempt is due (now for a first attempt; later for a retry).
    due_at = models.DateTimeField(default=timezone.now)
    attempted_at = models.DateTimeField(null=True, blank=True)
    response_code = models.PositiveSmallIntegerField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    error = models.CharField(max_length=MAX_ERROR_CHARS, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "webhook deliveries"
        indexes = [models.Index(fields=["webhook", "-created_at"], name="delivery_webhook_created_idx")]

    def __str__(self) -> str:
        return f"{self.event} → {self.webhook_id} #{self.attempt} ({self.status})"
