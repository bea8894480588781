"""Delivering events to webhooks: recording what to deliver in the writing transaction, and the
worker's attempts with retries and exponential back-off (docs/webhooks.md).

The write path never waits for a receiver: it only inserts the delivery rows (one per matching
hook) and, once its transaction commits, enqueues one worker task per row. The task makes one
attempt: POST the stored body, signed, with a timeout; a 2xx succeeds; a 410 disables the hook;
anything else (an error status, a refused connection, a timeout, an address the SSRF guard now
refuses) is logged and, unless it was the last attempt, a new row is scheduled after the back-off.
"""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Mapping
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django_q.models import Schedule
from django_q.tasks import async_task, schedule

from webhooks.addresses import AddressRefused, url_check
from webhooks.backoff import retry_delay_seconds
from webhooks.events import TEST_EVENT, pattern_matches
from webhooks.models import MAX_ERROR_CHARS, DeliveryStatus, Webhook, WebhookDelivery
from webhooks.services.hooks import address_policy
from webhooks.signing import SIGNATURE_HEADER, signature_of

logger = logging.getLogger(__name__)

# The worker task of one attempt, by its dotted path (django-q2 imports it in the worker).
DELIVER_TASK = "webhooks.tasks.webhook_deliver"
EVENT_HEADER = "X-Synapse-Event"
DELIVERY_HEADER = "X-Synapse-Delivery"
# Why the server disabled a hook whose receiver answered 410.
GONE_REASON = "The receiver answered 410 Gone."
# An attempt left `sending` this long past its timeout was lost with its worker (seconds): claim it again.
LOST_ATTEMPT_GRACE_SECONDS = 60
# Bytes of a receiver's answer read (and dropped): the status is all that counts.
RESPONSE_READ_BYTES = 1024


def body_of(*, event: str, mind_id: str, at: datetime, data: Mapping[str, object]) -> str:
    """The JSON a receiver gets, `{event, mind_id, at, data}`, as the exact text that is signed."""
    payload = {"event": event, "mind_id": mind_id, "at": at.isoformat().replace("+00:00", "Z"), "data": dict(data)}
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False, sort_keys=False)


def deliveries_record(*, mind_id: str, event: str, data: Mapping[str, object]) -> list[WebhookDelivery]:
    """Record one delivery of `event` per enabled hook of the mind that subscribes to it (call in
    the write's transaction) and enqueue their first attempts when it commits (none if it rolls back)."""
    hooks = [hook for hook in Webhook.objects.filter(mind_id=mind_id, enabled=True).only("id", "events")
             if pattern_matches(hook.events, event)]  # fmt: skip
    if not hooks:
        return []
    now = timezone.now()
    body = body_of(event=event, mind_id=mind_id, at=now, data=data)
    rows = WebhookDelivery.objects.bulk_create(
        [WebhookDelivery(webhook_id=hook.pk, event=event, body=body, due_at=now, created_at=now) for hook in hooks]
    )
    transaction.on_commit(partial(_enqueue, [row.pk for row in rows]))
    return rows


def _enqueue(delivery_pks: list[int]) -> None:
    for pk in delivery_pks:
        async_task(DELIVER_TASK, pk)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is not followed (it could lead past the address check): a 3xx is a failed attempt."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


# No proxy from the environment either: the address checked must be the address called.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirects())


def _post(url: str, body: bytes, headers: dict[str, str], timeout: float) -> tuple[int | None, str]:
    """(status code or None, error text) of one POST."""
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")  # noqa: S310 — url_check ran
    try:
        with _opener.open(request, timeout=timeout) as response:
            response.read(RESPONSE_READ_BYTES)
            return response.status, ""
    except urllib.error.HTTPError as error:
        return error.code, f"HTTP {error.code} {error.reason}"
    except (urllib.error.URLError, TimeoutError, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        return None, f"{type(reason).__name__}: {reason}"


def _headers(delivery: WebhookDelivery, body: bytes, secret: str) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "User-Agent": f"Synapse-Webhooks/{settings.VERSION}",
        SIGNATURE_HEADER: signature_of(body, secret),
        EVENT_HEADER: delivery.event,
        DELIVERY_HEADER: str(delivery.delivery_id),
    }


def _call(delivery: WebhookDelivery, webhook: Webhook) -> tuple[int | None, str, int]:
    """(status code, error, milliseconds) of the attempt: the address checked again, then the POST."""
    started = time.perf_counter()
    try:
        url_check(webhook.url, address_policy())
    except AddressRefused as refused:
        return None, f"Refused: {refused}", 0
    body = delivery.body.encode()
    code, error = _post(webhook.url, body, _headers(delivery, body, webhook.secret), settings.SYNAPSE_WEBHOOK_TIMEOUT)
    return code, error, round((time.perf_counter() - started) * 1000)


def _claim(delivery_pk: int, now: datetime) -> bool:
    """Mark the attempt `sending` if it is still to be made (pending, or lost with a dead worker)."""
    lost_before = now - timedelta(seconds=settings.SYNAPSE_WEBHOOK_TIMEOUT + LOST_ATTEMPT_GRACE_SECONDS)
    waiting = Q(status=DeliveryStatus.PENDING) | Q(status=DeliveryStatus.SENDING, attempted_at__lt=lost_before)
    claimed = WebhookDelivery.objects.filter(waiting, pk=delivery_pk).update(
        status=DeliveryStatus.SENDING, attempted_at=now
    )
    return claimed == 1


def _outcome_save(delivery: WebhookDelivery, webhook: Webhook, code: int | None, error: str, ms: int) -> None:
    """Log the attempt; a 410 disables the hook; a failure before the last attempt schedules the next."""
    delivery.response_code, delivery.duration_ms, delivery.error = code, ms, error[:MAX_ERROR_CHARS]
    if code is not None and 200 <= code < 300:
        delivery.status, delivery.error = DeliveryStatus.SUCCEEDED, ""
    elif code == 410:
        delivery.status = DeliveryStatus.GONE
    else:
        delivery.status = DeliveryStatus.FAILED
    with transaction.atomic():
        delivery.save(update_fields=["status", "response_code", "duration_ms", "error"])
        if delivery.status == DeliveryStatus.GONE:
            Webhook.objects.filter(pk=webhook.pk).update(
                enabled=False, disabled_reason=GONE_REASON, updated_at=timezone.now()
            )
        elif delivery.status == DeliveryStatus.FAILED and delivery.event != TEST_EVENT:
            _retry_schedule(delivery)


def _retry_schedule(failed: WebhookDelivery) -> WebhookDelivery | None:
    """The next attempt after `failed`, due after the back-off; None after the last attempt."""
    if failed.attempt >= settings.SYNAPSE_WEBHOOK_MAX_ATTEMPTS:
        logger.warning("Webhook %s: %s gave up after %d attempts.", failed.webhook_id, failed.event, failed.attempt)
        return None
    delay = retry_delay_seconds(failed.attempt, first_delay_seconds=settings.SYNAPSE_WEBHOOK_RETRY_SECONDS)
    now = timezone.now()
    retry = WebhookDelivery.objects.create(
        webhook_id=failed.webhook_id,
        delivery_id=failed.delivery_id,
        event=failed.event,
        body=failed.body,
        attempt=failed.attempt + 1,
        due_at=now + timedelta(seconds=delay),
        created_at=now,
    )
    next_run = retry.due_at
    transaction.on_commit(partial(schedule, DELIVER_TASK, retry.pk, schedule_type=Schedule.ONCE, next_run=next_run))
    return retry


def delivery_attempt(delivery_pk: int) -> WebhookDelivery | None:
    """Make the attempt `delivery_pk` (the worker task): None when there is none to make (done,
    claimed by another worker, or its hook deleted)."""
    now = timezone.now()
    if not _claim(delivery_pk, now):
        return None
    delivery = WebhookDelivery.objects.select_related("webhook").get(pk=delivery_pk)
    webhook = delivery.webhook
    if not webhook.enabled and delivery.event != TEST_EVENT:
        delivery.status, delivery.error = DeliveryStatus.CANCELLED, "The webhook was disabled before this attempt."
        delivery.save(update_fields=["status", "error"])
        return delivery
    code, error, ms = _call(delivery, webhook)
    _outcome_save(delivery, webhook, code, error, ms)
    return delivery


def webhook_test(*, webhook: Webhook) -> WebhookDelivery:
    """One signed `webhook.test` delivery to the hook, made at once and logged (no retries): the
    answer of POST /webhooks/{id}/test. A 410 disables the hook like any delivery's."""
    now = timezone.now()
    data = {"webhook_id": webhook.pk, "message": "A test delivery from Synapse."}
    delivery = WebhookDelivery.objects.create(
        webhook=webhook,
        delivery_id=uuid.uuid4(),
        event=TEST_EVENT,
        body=body_of(event=TEST_EVENT, mind_id=webhook.mind_id, at=now, data=data),
        status=DeliveryStatus.SENDING,
        due_at=now,
        attempted_at=now,
        created_at=now,
    )
    code, error, ms = _call(delivery, webhook)
    _outcome_save(delivery, webhook, code, error, ms)
    return delivery
