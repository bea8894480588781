"""The recurring jobs of minds (memoryproject/schedules.py)."""

from __future__ import annotations

from django.core.management import call_command

from minds.services import revoked_sessions_purge


def tokens_flush_expired() -> int:
    """Daily: simplejwt's `flushexpiredtokens` (expired outstanding and blacklisted refresh tokens)
    and the logged-out logins whose tokens have all expired, so neither table grows forever."""
    call_command("flushexpiredtokens", verbosity=0)
    return revoked_sessions_purge()
