"""Delivery to a real loopback receiver: the write records the deliveries and does no HTTP; the
worker's task (called here, never waited for) POSTs the signed body; a 410 disables the hook;
failures are logged and retried with exponential back-off; the address is checked again."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import timedelta

import pytest
from django.db import transaction
from django_q.models import OrmQ, Schedule
from django_q.signing import SignedPackage

from memories.embedders import get_embedder
from synapses.events import KnotEvent, knots_changed
from synapses.models import Knot
from synapses.promotion.service import memories_promote
from tests.factories import knot_make
from tests.vectors import damp_reference
from webhooks.models import DeliveryStatus, Webhook, WebhookDelivery
from webhooks.services.delivery import DELIVER_TASK
from webhooks.services.hooks import webhook_create
from webhooks.tasks import webhook_deliver

pytestmark = pytest.mark.django_db


def hook_for(mind, url: str, events: str = "*"):
    return webhook_create(mind_id=mind.mind.pk, url=url, events=events)


def store(mind, content: str = "Lives in Berlin") -> dict:
    response = mind.agent.post("/memory", {"category": "fact", "key": "city", "content": content}, format="json")
    assert response.status_code in (200, 201), response.content
    return response.json()


def pending(webhook) -> list[WebhookDelivery]:
    return list(WebhookDelivery.objects.filter(webhook=webhook, status=DeliveryStatus.PENDING).order_by("id"))


def queued_deliveries() -> list[tuple]:
    """The args of every delivery task waiting in django-q2's ORM queue (the net's tasks left out)."""
    tasks = [SignedPackage.loads(row.payload) for row in OrmQ.objects.order_by("id")]
    return [tuple(task["args"]) for task in tasks if task["func"] == DELIVER_TASK]


def test_memory_created_arrives_with_a_valid_signature(
    mind, receiver, loopback_allowed, django_capture_on_commit_callbacks
):
    created = hook_for(mind, receiver.url, events="memory.created")
    with django_capture_on_commit_callbacks(execute=True):
        memory = store(mind)
    [delivery] = pending(created.webhook)
    assert queued_deliveries() == [(delivery.pk,)]  # enqueued on commit, for the worker
    assert receiver.requests == []  # the store itself called nobody

    assert webhook_deliver(delivery.pk) == "succeeded 200"

    [request] = receiver.requests
    expected = "sha256=" + hmac.new(created.secret.encode(), request.body, hashlib.sha256).hexdigest()
    assert request.headers["X-Synapse-Signature"] == expected
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["X-Synapse-Event"] == "memory.created"
    assert request.headers["X-Synapse-Delivery"] == str(delivery.delivery_id)
    body = json.loads(request.body)
    assert set(body) == {"event", "mind_id", "at", "data"}
    assert body["event"] == "memory.created" and body["mind_id"] == mind.mind.pk
    assert body["data"] == {"change": "created", "memory_ids": [memory["id"]]}
    assert body["at"].endswith("Z")
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.SUCCEEDED and delivery.response_code == 200
    assert delivery.duration_ms is not None and delivery.error == ""


def test_a_delivery_made_twice_is_posted_once(mind, receiver, loopback_allowed):
    created = hook_for(mind, receiver.url)
    store(mind)
    [delivery] = pending(created.webhook)
    webhook_deliver(delivery.pk)
    assert webhook_deliver(delivery.pk) == "nothing to do"
    assert len(receiver.requests) == 1


def test_only_hooks_whose_pattern_matches_get_the_event(mind, receiver, loopback_allowed):
    every = hook_for(mind, receiver.url, "*").webhook
    memories = hook_for(mind, receiver.url, "memory.*").webhook
    knots = hook_for(mind, receiver.url, "knot.*").webhook
    deleted_only = hook_for(mind, receiver.url, "memory.deleted").webhook
    disabled = hook_for(mind, receiver.url, "*").webhook
    Webhook.objects.filter(pk=disabled.pk).update(enabled=False)
    memory = store(mind)
    assert mind.agent.delete(f"/memory/{memory['id']}").status_code == 200
    events = {
        hook.pk: list(WebhookDelivery.objects.filter(webhook=hook).order_by("id").values_list("event", flat=True))
        for hook in (every, memories, knots, deleted_only, disabled)
    }
    assert events == {
        every.pk: ["memory.created", "memory.deleted"],
        memories.pk: ["memory.created", "memory.deleted"],
        knots.pk: [],
        deleted_only.pk: ["memory.deleted"],
        disabled.pk: [],
    }


def test_verify_update_and_unverify_are_their_own_events(mind, owner, receiver, loopback_allowed):
    hook = hook_for(mind, receiver.url, "memory.*").webhook
    memory = store(mind)
    assert store(mind, content="Lives in Hamburg")["id"] == memory["id"]  # the same key: an upsert
    assert owner.client.post(f"/memory/{memory['id']}/verify?mind={mind.mind.pk}").status_code == 200
    assert owner.client.post(f"/memory/{memory['id']}/unverify?mind={mind.mind.pk}").status_code == 200
    events = list(WebhookDelivery.objects.filter(webhook=hook).order_by("id").values_list("event", flat=True))
    assert events == ["memory.created", "memory.updated", "memory.verified", "memory.unverified"]


def test_a_write_that_rolls_back_delivers_nothing(mind, receiver, loopback_allowed):
    from memories.lifecycle import MemoryEvent, memories_changed

    hook = hook_for(mind, receiver.url).webhook
    with pytest.raises(RuntimeError), transaction.atomic():
        memories_changed(event=MemoryEvent.CREATED, mind_id=mind.mind.pk, memory_ids=["mem_x"])
        assert WebhookDelivery.objects.filter(webhook=hook).count() == 1
        raise RuntimeError("the write failed")
    assert not WebhookDelivery.objects.filter(webhook=hook).exists()


def test_knot_events_are_delivered_when_the_net_sends_its_signal(mind, receiver, loopback_allowed):
    knots = hook_for(mind, receiver.url, "knot.*").webhook
    memories = hook_for(mind, receiver.url, "memory.*").webhook
    with transaction.atomic():  # as the net does, inside the promotion's transaction
        knots_changed.send(sender=KnotEvent, event=KnotEvent.CREATED, mind_id=mind.mind.pk, knot_ids=(7,))
        knots_changed.send(sender=KnotEvent, event=KnotEvent.REINFORCED, mind_id=mind.mind.pk, knot_ids=(7, 9))
    rows = list(WebhookDelivery.objects.filter(webhook=knots).order_by("id"))
    assert [row.event for row in rows] == ["knot.created", "knot.reinforced"]
    assert not WebhookDelivery.objects.filter(webhook=memories).exists()
    webhook_deliver(rows[1].pk)
    assert json.loads(receiver.requests[0].body)["data"] == {"change": "reinforced", "knot_ids": [7, 9]}


def test_a_receiver_answering_410_gets_the_hook_disabled(mind, receiver, loopback_allowed):
    receiver.status = 410
    hook = hook_for(mind, receiver.url).webhook
    store(mind)
    [delivery] = pending(hook)
    assert webhook_deliver(delivery.pk) == "gone 410"
    hook.refresh_from_db()
    assert hook.enabled is False and "410" in hook.disabled_reason
    assert not pending(hook)  # no retry
    assert not Schedule.objects.filter(func=DELIVER_TASK).exists()
    store(mind, content="Lives in Paris")
    assert WebhookDelivery.objects.filter(webhook=hook).count() == 1  # a disabled hook gets nothing new


def test_failures_are_logged_and_retried_with_exponential_back_off(
    mind, receiver, loopback_allowed, django_capture_on_commit_callbacks
):
    loopback_allowed.SYNAPSE_WEBHOOK_MAX_ATTEMPTS = 3
    loopback_allowed.SYNAPSE_WEBHOOK_RETRY_SECONDS = 30
    receiver.status = 500
    hook = hook_for(mind, receiver.url).webhook
    store(mind)
    [first] = pending(hook)

    waits = []
    attempt = first
    for _ in range(3):
        with django_capture_on_commit_callbacks(execute=True):
            assert webhook_deliver(attempt.pk) == "failed 500"
        attempt.refresh_from_db()
        assert attempt.status == DeliveryStatus.FAILED and attempt.response_code == 500
        assert "500" in attempt.error and attempt.duration_ms is not None
        following = pending(hook)
        if not following:
            break
        [retry] = following
        assert retry.attempt == attempt.attempt + 1
        assert retry.delivery_id == first.delivery_id and retry.body == first.body
        waits.append(retry.due_at - attempt.attempted_at)
        [scheduled] = Schedule.objects.filter(func=DELIVER_TASK, args=f"({retry.pk},)")
        assert scheduled.schedule_type == Schedule.ONCE and scheduled.next_run == retry.due_at
        attempt = retry

    assert [round(wait / timedelta(seconds=1)) for wait in waits] == [30, 60]
    assert attempt.attempt == 3 and not pending(hook)  # given up after the last attempt
    assert len(receiver.requests) == 3
    assert len({request.headers["X-Synapse-Delivery"] for request in receiver.requests}) == 1
    hook.refresh_from_db()
    assert hook.enabled is True  # a failing receiver is not disabled, only a 410 does that


def test_a_dead_receiver_is_a_logged_failure(mind, dead_url, loopback_allowed):
    hook = hook_for(mind, dead_url).webhook
    store(mind)
    [delivery] = pending(hook)
    assert webhook_deliver(delivery.pk) == "failed"
    delivery.refresh_from_db()
    assert delivery.response_code is None and "Connection refused" in delivery.error
    assert [row.attempt for row in pending(hook)] == [2]


def test_a_slow_receiver_times_out(mind, receiver, loopback_allowed):
    loopback_allowed.SYNAPSE_WEBHOOK_TIMEOUT = 1
    receiver.delay_seconds = 2.5
    hook = hook_for(mind, receiver.url).webhook
    store(mind)
    [delivery] = pending(hook)
    assert webhook_deliver(delivery.pk) == "failed"
    delivery.refresh_from_db()
    assert "timed out" in delivery.error and delivery.duration_ms >= 1000


def test_a_dead_or_slow_receiver_does_not_touch_the_store_request(
    mind, receiver, dead_url, loopback_allowed, django_capture_on_commit_callbacks
):
    receiver.delay_seconds = 5
    slow = hook_for(mind, receiver.url).webhook
    dead = hook_for(mind, dead_url).webhook
    with django_capture_on_commit_callbacks(execute=True):
        memory = store(mind)
    assert memory["content"] == "Lives in Berlin"
    assert receiver.requests == []  # the request called neither receiver
    assert [d.webhook_id for d in WebhookDelivery.objects.order_by("webhook__created_at")] == [slow.pk, dead.pk]
    assert sorted(queued_deliveries()) == sorted((d.pk,) for d in WebhookDelivery.objects.all())


def test_the_address_is_checked_again_at_delivery_time(mind, receiver, loopback_allowed):
    hook = hook_for(mind, receiver.url).webhook
    store(mind)
    [delivery] = pending(hook)
    loopback_allowed.SYNAPSE_WEBHOOKS_ALLOW_LOOPBACK = False  # the name now points inside
    assert webhook_deliver(delivery.pk) == "failed"
    delivery.refresh_from_db()
    assert delivery.error.startswith("Refused:") and "loopback" in delivery.error
    assert receiver.requests == []


def test_a_redirect_is_not_followed(mind, receiver, loopback_allowed):
    receiver.status = 302
    hook = hook_for(mind, receiver.url).webhook
    store(mind)
    [delivery] = pending(hook)
    assert webhook_deliver(delivery.pk) == "failed 302"


def test_an_attempt_of_a_disabled_hook_is_cancelled(mind, receiver, loopback_allowed):
    hook = hook_for(mind, receiver.url).webhook
    store(mind)
    [delivery] = pending(hook)
    Webhook.objects.filter(pk=hook.pk).update(enabled=False)
    assert webhook_deliver(delivery.pk) == "cancelled"
    assert receiver.requests == []


def test_an_attempt_of_a_deleted_hook_ends_quietly(mind, receiver, loopback_allowed):
    hook = hook_for(mind, receiver.url).webhook
    store(mind)
    [delivery] = pending(hook)
    hook.delete()
    assert webhook_deliver(delivery.pk) == "nothing to do"


def test_the_test_endpoint_delivers_a_signed_test_event_and_answers_how_it_went(mind, receiver, loopback_allowed):
    created = hook_for(mind, receiver.url, "memory.created")
    response = mind.agent.post(f"/webhooks/{created.webhook.pk}/test")
    assert response.status_code == 200, response.content
    result = response.json()
    assert result["delivered"] is True and result["response_code"] == 200 and result["event"] == "webhook.test"
    [request] = receiver.requests
    expected = "sha256=" + hmac.new(created.secret.encode(), request.body, hashlib.sha256).hexdigest()
    assert request.headers["X-Synapse-Signature"] == expected
    assert json.loads(request.body)["data"]["webhook_id"] == created.webhook.pk

    receiver.status = 503
    failed = mind.agent.post(f"/webhooks/{created.webhook.pk}/test").json()
    assert failed["delivered"] is False and failed["response_code"] == 503 and failed["status"] == "failed"
    assert not pending(created.webhook)  # a test is never retried


def test_a_sync_of_many_memories_is_one_updated_event_naming_them_all(mind, receiver, loopback_allowed):
    hook = hook_for(mind, receiver.url).webhook
    memories = [{"category": "note", "content": f"Note {n}"} for n in range(3)]
    response = mind.agent.post("/memory/sync", {"memories": memories}, format="json")
    assert response.status_code == 200
    [delivery] = pending(hook)
    body = json.loads(delivery.body)
    assert body["event"] == "memory.updated" and body["data"]["change"] == "synced"
    assert sorted(body["data"]["memory_ids"]) == sorted(item["id"] for item in response.json()["results"])


def test_deleting_the_mind_takes_its_hooks_and_sends_nothing(mind, owner, receiver, loopback_allowed):
    from minds.services import mind_delete

    hook_for(mind, receiver.url)
    store(mind)
    mind_delete(mind=mind.mind)
    assert not Webhook.objects.exists() and not WebhookDelivery.objects.exists()


def test_an_attempt_lost_with_its_worker_is_claimed_again_after_its_timeout(mind, receiver, loopback_allowed):
    from django.utils import timezone

    hook = hook_for(mind, receiver.url).webhook
    store(mind)
    [delivery] = pending(hook)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status=DeliveryStatus.SENDING, attempted_at=timezone.now())
    assert webhook_deliver(delivery.pk) == "nothing to do"  # another worker may still be on it
    long_ago = timezone.now() - timedelta(seconds=loopback_allowed.SYNAPSE_WEBHOOK_TIMEOUT + 61)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(attempted_at=long_ago)
    assert webhook_deliver(delivery.pk) == "succeeded 200"
    assert len(receiver.requests) == 1


def test_a_promotion_that_creates_a_knot_records_knot_created(mind, receiver, loopback_allowed):
    hook = hook_for(mind, receiver.url, "knot.created").webhook
    memory = store(mind, "Mira swam in the lake in June")

    summary = memories_promote(memory_ids=[memory["id"]], now_all=True)

    knot = Knot.objects.get(mind=mind.mind)
    assert summary.as_dict()["created"] == 1
    [delivery] = WebhookDelivery.objects.filter(webhook=hook)
    assert (delivery.event, json.loads(delivery.body)["data"]) == (
        "knot.created",
        {"change": "created", "knot_ids": [knot.pk]},
    )


def test_an_answer_that_used_a_knot_records_knot_reinforced(mind, receiver, loopback_allowed):
    hook = hook_for(mind, receiver.url, "knot.reinforced").webhook
    content = "Anna loves dark chocolate from Zurich"
    used = knot_make(
        mind=mind.mind, weight_anchor=damp_reference(0.5), embedding=get_embedder().embed([content])[0].tolist()
    )
    other = knot_make(
        mind=mind.mind, weight_anchor=damp_reference(0.5), embedding=get_embedder().embed(["tax forms"])[0].tolist()
    )

    response = mind.agent.post("/synapses/used", {"answer": content, "knot_ids": [used.pk, other.pk]}, format="json")

    assert response.status_code == 200, response.content
    [delivery] = WebhookDelivery.objects.filter(webhook=hook)
    assert json.loads(delivery.body)["data"] == {"change": "reinforced", "knot_ids": [used.pk]}
