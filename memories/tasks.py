"""Thin django-q2 entry points of the memories app. Tasks take ids, never model instances."""

from __future__ import annotations

from memories.services import idempotency


def idempotency_records_purge() -> int:
    """Daily: forget Idempotency-Key records older than 24 h; return how many were deleted."""
    return idempotency.idempotency_records_purge()
