"""Creating, changing and deleting a mind's webhooks (docs/webhooks.md)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memoryproject.core.domain import ValidationFailed
from minds.models import Mind
from webhooks.addresses import AddressPolicy, AddressRefused, url_check
from webhooks.events import EVENT_PATTERNS
from webhooks.models import Webhook

# Webhooks one mind may have: every write fans out to each of them.
MAX_WEBHOOKS_PER_MIND = 20
# Shortest secret a client may choose (characters): a short one could be guessed.
MIN_SECRET_CHARS = 16
# Random bytes of a generated secret (32 bytes: 256 bits, as the HMAC's key).
GENERATED_SECRET_BYTES = 32
GENERATED_SECRET_PREFIX = "whsec_"  # noqa: S105 — a prefix, not a secret


def address_policy() -> AddressPolicy:
    """What the operator allows webhook URLs to point at (README → Configuration)."""
    return AddressPolicy(
        allow_private=settings.SYNAPSE_WEBHOOKS_ALLOW_PRIVATE, allow_loopback=settings.SYNAPSE_WEBHOOKS_ALLOW_LOOPBACK
    )


def secret_generate() -> str:
    return GENERATED_SECRET_PREFIX + secrets.token_urlsafe(GENERATED_SECRET_BYTES)


def _url_validate(url: str) -> None:
    try:
        url_check(url, address_policy())
    except AddressRefused as refused:
        raise ValidationFailed({"url": [str(refused)]}) from None


def _events_validate(events: str) -> None:
    if events not in EVENT_PATTERNS:
        raise ValidationFailed({"events": [f'"{events}" is not a pattern. Use one of: {", ".join(EVENT_PATTERNS)}.']})


def _secret_validate(secret: str) -> None:
    if len(secret) < MIN_SECRET_CHARS:
        raise ValidationFailed({"secret": [f"Use at least {MIN_SECRET_CHARS} characters, or leave it out to get one."]})


@dataclass(frozen=True)
class CreatedWebhook:
    webhook: Webhook
    secret: str  # shown once, in the answer to the create


def webhook_create(
    *, mind_id: str, url: str, events: str, enabled: bool = True, secret: str | None = None
) -> CreatedWebhook:
    """A new hook; its secret is `secret` or a generated one (returned for the one answer that shows it)."""
    _events_validate(events)
    if secret is not None:
        _secret_validate(secret)
    _url_validate(url)
    with transaction.atomic():
        # The mind row's lock makes the count and the insert one step for concurrent creates.
        Mind.objects.select_for_update().filter(pk=mind_id).exists()
        if Webhook.objects.filter(mind_id=mind_id).count() >= MAX_WEBHOOKS_PER_MIND:
            raise ValidationFailed(
                {"url": [f"This mind has {MAX_WEBHOOKS_PER_MIND} webhooks, the most it may have; delete one first."]}
            )
        chosen = secret if secret is not None else secret_generate()
        webhook = Webhook.objects.create(mind_id=mind_id, url=url, events=events, enabled=enabled, secret=chosen)
    return CreatedWebhook(webhook=webhook, secret=chosen)


def webhook_update(*, webhook: Webhook, url: str, events: str, enabled: bool, secret: str | None = None) -> Webhook:
    """Replace the hook's url, events and enabled (PUT); a given secret replaces the old one.
    Enabling a hook the server disabled (a 410) clears the reason."""
    _events_validate(events)
    if secret is not None:
        _secret_validate(secret)
    _url_validate(url)
    webhook.url, webhook.events, webhook.enabled = url, events, enabled
    if secret is not None:
        webhook.secret = secret
    if enabled:
        webhook.disabled_reason = ""
    webhook.updated_at = timezone.now()
    webhook.save()
    return webhook


def webhook_delete(*, webhook: Webhook) -> None:
    """Delete the hook and its delivery log; attempts still queued find no row and end."""
    webhook.delete()
