"""Worker tasks of the webhooks (django-q2 runs them; tests call them)."""

from __future__ import annotations

from webhooks.services.delivery import delivery_attempt


def webhook_deliver(delivery_pk: int) -> str:
    """One delivery attempt (webhooks.services.delivery); its outcome as the task's result."""
    delivery = delivery_attempt(delivery_pk)
    return "nothing to do" if delivery is None else f"{delivery.status} {delivery.response_code or ''}".strip()
