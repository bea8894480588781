"""Thin django-q2 entry points of the memories app. Tasks take ids, never model instances."""

from __future__ import annotations

from memories.services import idempotency
from memoryproject.embedded.outage import waits_out_outages


@waits_out_outages
def idempotency_records_purge() -> int | dict[str, str]:
    """Daily: forget Idempotency-Key records older than 24 h; return how many were deleted."""
    return idempotency.idempotency_records_purge()
