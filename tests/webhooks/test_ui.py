"""The UI page /app/minds/<id>/webhooks/: the hooks and their recent attempts, for write access."""

from __future__ import annotations

import pytest
from django.test import Client

from webhooks.services.hooks import webhook_create
from webhooks.tasks import webhook_deliver

pytestmark = pytest.mark.django_db


def logged_in(person) -> Client:
    client = Client()
    client.force_login(person.user)
    return client


def test_the_page_lists_the_hooks_and_their_attempts_without_secrets(owner, mind, dead_url, loopback_allowed):
    created = webhook_create(mind_id=mind.mind.pk, url=dead_url, events="memory.*")
    mind.agent.post("/memory", {"category": "fact", "key": "k", "content": "Likes tea"}, format="json")
    delivery = created.webhook.deliveries.get()
    webhook_deliver(delivery.pk)

    page = logged_in(owner).get(f"/app/minds/{mind.mind.pk}/webhooks/")
    assert page.status_code == 200
    text = page.content.decode()
    assert dead_url in text and "memory.*" in text
    assert "memory.created" in text and "failed" in text and "Connection refused" in text
    assert created.secret not in text


def test_a_reader_or_an_outsider_cannot_see_the_page(reader, outsider, mind):
    assert logged_in(reader).get(f"/app/minds/{mind.mind.pk}/webhooks/").status_code == 403
    assert logged_in(outsider).get(f"/app/minds/{mind.mind.pk}/webhooks/").status_code == 404
