"""The recurring jobs of minds (memoryproject/schedules.py)."""

from __future__ import annotations

from django.core.management import call_command

from memoryproject.embedded.outage import waits_out_outages
from minds.services import revoked_sessions_purge


@waits_out_outages
def tokens_flush_expired() -> int | dict[str, str]:
    """Daily: simplejwt's `flushexpiredtokens` (expired outstanding and blacklisted refresh tokens)
    and the logged-out logins whose tokens have all expired, so neither table grows forever."""
    call_command("flushexpiredtokens", verbosity=0)
    return revoked_sessions_purge()
