"""The delivery log is visible in the Django admin; the hooks' secrets are not."""

from __future__ import annotations

import pytest
from django.contrib.admin.utils import quote
from django.urls import reverse

from webhooks.models import WebhookDelivery
from webhooks.services.hooks import webhook_create
from webhooks.tasks import webhook_deliver

pytestmark = pytest.mark.django_db


def test_the_admin_lists_every_attempt_with_its_status_code_and_error(
    staff, mind, dead_url, receiver, loopback_allowed
):
    dead = webhook_create(mind_id=mind.mind.pk, url=dead_url, events="*").webhook
    alive = webhook_create(mind_id=mind.mind.pk, url=receiver.url, events="*").webhook
    mind.agent.post("/memory", {"category": "fact", "key": "k", "content": "Likes tea"}, format="json")
    for delivery in WebhookDelivery.objects.all():
        webhook_deliver(delivery.pk)

    page = staff.get(reverse("admin:webhooks_webhookdelivery_changelist"))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Connection refused" in text and "succeeded" in text and "memory.created" in text
    assert str(dead) in text and str(alive) in text

    failed = WebhookDelivery.objects.get(webhook=dead, attempt=1)
    detail = staff.get(reverse("admin:webhooks_webhookdelivery_change", args=[failed.pk]))
    assert detail.status_code == 200 and "Connection refused" in detail.content.decode()


def test_the_admin_shows_a_hook_without_its_secret(staff, mind):
    created = webhook_create(mind_id=mind.mind.pk, url="https://93.184.215.14/hook", events="*")
    page = staff.get(reverse("admin:webhooks_webhook_change", args=[quote(created.webhook.pk)]))
    assert page.status_code == 200
    assert "93.184.215.14" in page.content.decode()
    assert created.secret not in page.content.decode()
