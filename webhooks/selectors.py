"""Reading a mind's webhooks and their delivery log."""

from __future__ import annotations

from django.db.models import QuerySet

from memoryproject.core.domain import NotFound
from webhooks.models import Webhook, WebhookDelivery

WEBHOOK_NOT_FOUND = "No webhook with this id in this mind."


def webhooks_list(*, mind_id: str) -> QuerySet[Webhook]:
    return Webhook.objects.filter(mind_id=mind_id).order_by("created_at", "id")


def webhook_get(*, mind_id: str, webhook_id: str) -> Webhook:
    """The hook of `mind_id` (another mind's hook is not found, never revealed)."""
    webhook = Webhook.objects.filter(mind_id=mind_id, pk=webhook_id).first()
    if webhook is None:
        raise NotFound(WEBHOOK_NOT_FOUND)
    return webhook


def mind_deliveries_recent(*, mind_id: str, limit: int) -> list[WebhookDelivery]:
    """The last `limit` attempts of every hook of the mind, newest first (the body left unread)."""
    rows = WebhookDelivery.objects.filter(webhook__mind_id=mind_id).select_related("webhook").defer("body")
    return list(rows.order_by("-created_at", "-id")[:limit])
