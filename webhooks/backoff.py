"""When a failed delivery is tried again (pure: no Django): exponential back-off."""

from __future__ import annotations

# Each retry waits this many times as long as the one before.
BACKOFF_FACTOR = 2


def retry_delay_seconds(failed_attempt: int, *, first_delay_seconds: int) -> int:
    """Seconds to wait after attempt number `failed_attempt` (1 = the first) failed:
    first_delay_seconds, then twice that, four times, …"""
    if failed_attempt < 1:
        raise ValueError("attempts count from 1")
    return first_delay_seconds * BACKOFF_FACTOR ** (failed_attempt - 1)
